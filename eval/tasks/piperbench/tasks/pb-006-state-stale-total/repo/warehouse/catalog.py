"""Items on hand in the warehouse and what they are worth."""


class Catalog:
    def __init__(self):
        self._items = {}
        self._value_cache = None

    def add(self, sku, quantity, unit_price):
        """Receive `quantity` units of `sku` at `unit_price` (a new price replaces the old one)."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        held, _ = self._items.get(sku, (0, unit_price))
        self._items[sku] = (held + quantity, unit_price)

    def take(self, sku, quantity):
        """Ship `quantity` units of `sku`; KeyError for an unknown sku."""
        held, price = self._items[sku]
        if quantity > held:
            raise ValueError(f"only {held} of {sku} on hand")
        self._items[sku] = (held - quantity, price)
        self._value_cache = None

    def quantity(self, sku):
        return self._items.get(sku, (0, 0))[0]

    def total_value(self):
        """The worth of everything on hand; computed once and kept until the stock changes."""
        if self._value_cache is None:
            self._value_cache = sum(q * p for q, p in self._items.values())
        return self._value_cache
