import pytest

from warehouse import Catalog


def test_total_value_after_delivery():
    catalog = Catalog()
    catalog.add("bolt", 100, 0.25)
    assert catalog.total_value() == 25.0
    catalog.add("nut", 200, 0.5)
    assert catalog.total_value() == 125.0


def test_new_price_is_valued():
    catalog = Catalog()
    catalog.add("bolt", 10, 1.0)
    assert catalog.total_value() == 10.0
    catalog.add("bolt", 10, 2.0)
    assert catalog.total_value() == 40.0


def test_total_value_after_shipping():
    catalog = Catalog()
    catalog.add("bolt", 100, 0.25)
    catalog.add("nut", 10, 1.0)
    catalog.take("bolt", 40)
    assert catalog.total_value() == 25.0


def test_cannot_ship_more_than_held():
    catalog = Catalog()
    catalog.add("bolt", 5, 1.0)
    with pytest.raises(ValueError):
        catalog.take("bolt", 6)
    assert catalog.quantity("bolt") == 5


def test_rejects_empty_delivery():
    with pytest.raises(ValueError):
        Catalog().add("bolt", 0, 1.0)
