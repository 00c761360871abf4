import pytest

from billsplit.split import format_cents, split_bill, split_evenly, to_cents


def test_shares_add_up_to_the_bill():
    assert sum(split_evenly(10000, 3)) == 10000
    assert sum(split_evenly(1001, 4)) == 1001


def test_leftover_cents_go_to_the_first_people():
    assert split_evenly(10000, 3) == [3334, 3333, 3333]
    assert split_bill("10.02", ["ann", "bob", "cy", "di"]) == [
        ("ann", "2.51"),
        ("bob", "2.51"),
        ("cy", "2.50"),
        ("di", "2.50"),
    ]


def test_even_split():
    assert split_evenly(9000, 3) == [3000, 3000, 3000]
    assert split_bill("50", ["ann", "bob"]) == [("ann", "25.00"), ("bob", "25.00")]


def test_one_person_pays_everything():
    assert split_evenly(1234, 1) == [1234]


def test_nobody_to_split_between():
    with pytest.raises(ValueError):
        split_evenly(100, 0)


def test_amount_conversion():
    assert to_cents("100.00") == 10000
    assert to_cents("7.5") == 750
    assert format_cents(705) == "7.05"
