import pytest

from inventory.stock import OutOfStock, Stock


def stocked(**levels):
    stock = Stock()
    for sku, quantity in levels.items():
        stock.add(sku, quantity)
    return stock


def test_refused_removal_leaves_level_unchanged():
    stock = stocked(widget=2)
    with pytest.raises(OutOfStock):
        stock.remove("widget", 5)
    assert stock.level("widget") == 2


def test_stock_still_usable_after_refusal():
    stock = stocked(widget=2)
    with pytest.raises(OutOfStock):
        stock.remove("widget", 5)
    assert stock.remove("widget", 2) == 0


def test_remove_reduces_level():
    stock = stocked(widget=10)
    assert stock.remove("widget", 3) == 7
    assert stock.remove("widget", 7) == 0


def test_out_of_stock_reports_what_is_available():
    stock = stocked(widget=2)
    with pytest.raises(OutOfStock) as info:
        stock.remove("widget", 5)
    assert (info.value.wanted, info.value.available) == (5, 2)


def test_rejects_non_positive_quantities():
    with pytest.raises(ValueError):
        stocked(widget=1).remove("widget", 0)
