"""A customer's shopping cart: lines of sku, quantity and unit price in cents."""


class Cart:
    def __init__(self, owner, lines=[]):
        self.owner = owner
        self.lines = lines

    @classmethod
    def restore(cls, owner, saved_lines):
        """A cart rebuilt from lines saved with the customer's session."""
        return cls(owner, [dict(line) for line in saved_lines])

    def add(self, sku, quantity=1, unit_cents=0):
        """Add `quantity` of `sku`; adding a sku already in the cart raises its quantity."""
        for line in self.lines:
            if line["sku"] == sku:
                line["quantity"] += quantity
                return
        self.lines.append({"sku": sku, "quantity": quantity, "unit_cents": unit_cents})

    def remove(self, sku):
        self.lines = [line for line in self.lines if line["sku"] != sku]

    def count(self):
        return sum(line["quantity"] for line in self.lines)

    def total_cents(self):
        return sum(line["quantity"] * line["unit_cents"] for line in self.lines)
