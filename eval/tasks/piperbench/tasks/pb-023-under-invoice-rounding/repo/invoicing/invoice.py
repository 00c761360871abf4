"""An invoice: lines of quantity x unit price, a VAT rate, and the totals printed at the bottom."""
from decimal import Decimal

from .money import format_money, to_cents


class Invoice:
    def __init__(self, vat_rate="0.20"):
        self.vat_rate = Decimal(vat_rate)
        self.lines = []

    def add_line(self, description, quantity, unit_price):
        self.lines.append((description, int(quantity), Decimal(unit_price)))

    def net(self):
        return to_cents(sum((q * p for _, q, p in self.lines), Decimal("0")))

    def vat(self):
        return to_cents(self.net() * self.vat_rate)

    def gross(self):
        return self.net() + self.vat()

    def totals(self):
        return {name: format_money(getattr(self, name)()) for name in ("net", "vat", "gross")}
