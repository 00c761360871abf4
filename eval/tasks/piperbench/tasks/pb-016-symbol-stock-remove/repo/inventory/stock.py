"""Stock levels per item."""


class OutOfStock(Exception):
    def __init__(self, sku, wanted, available):
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku
        self.wanted = wanted
        self.available = available


class Stock:
    def __init__(self):
        self._levels = {}

    def level(self, sku):
        return self._levels.get(sku, 0)

    def add(self, sku, quantity):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self._levels[sku] = self.level(sku) + quantity

    def remove(self, sku, quantity):
        """Take `quantity` of `sku` out of stock; OutOfStock when fewer are available."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self._levels[sku] = self.level(sku) - quantity
        if self._levels[sku] < 0:
            raise OutOfStock(sku, quantity, self._levels[sku] + quantity)
        return self._levels[sku]
