from decimal import Decimal

from invoicing.invoice import Invoice
from invoicing.money import format_money


def invoice(*lines, vat_rate="0.20"):
    inv = Invoice(vat_rate)
    for quantity, price in lines:
        inv.add_line("item", quantity, price)
    return inv


def test_half_cents_round_up():
    inv = invoice((3, "3.375"))
    assert inv.totals() == {"net": "10.13 EUR", "vat": "2.03 EUR", "gross": "12.16 EUR"}


def test_vat_rounds_to_the_nearest_cent():
    assert invoice((1, "9.99")).vat() == Decimal("2.00")


def test_whole_cent_amounts():
    inv = invoice((2, "10.00"), (1, "5.50"))
    assert inv.totals() == {"net": "25.50 EUR", "vat": "5.10 EUR", "gross": "30.60 EUR"}


def test_zero_rate():
    assert invoice((1, "4.00"), vat_rate="0").gross() == Decimal("4.00")


def test_format_money():
    assert format_money(Decimal("1234.5")) == "1,234.50 EUR"
