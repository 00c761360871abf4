"""Splitting a restaurant bill between the people at the table. Amounts are integer cents."""


def to_cents(amount):
    """A decimal amount such as "100.00" or "7.5" as integer cents."""
    units, _, cents = amount.strip().partition(".")
    return int(units) * 100 + int((cents + "00")[:2])


def format_cents(cents):
    return f"{cents // 100}.{cents % 100:02d}"


def split_evenly(total_cents, people):
    """Each person's share of the bill, in the order the people are listed."""
    if people < 1:
        raise ValueError("need at least one person")
    share = total_cents // people
    return [share] * people


def split_bill(amount, names):
    """Each name with the share they pay, as printed on the receipt."""
    shares = split_evenly(to_cents(amount), len(names))
    return [(name, format_cents(share)) for name, share in zip(names, shares)]
