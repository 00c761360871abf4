"""Money amounts are Decimals; what an invoice prints and charges is in whole cents."""
from decimal import ROUND_DOWN, Decimal

CENT = Decimal("0.01")


def to_cents(amount):
    """`amount` (a Decimal, or a string such as "9.99") rounded to whole cents."""
    return Decimal(amount).quantize(CENT, rounding=ROUND_DOWN)


def format_money(amount, currency="EUR"):
    return f"{to_cents(amount):,.2f} {currency}"
