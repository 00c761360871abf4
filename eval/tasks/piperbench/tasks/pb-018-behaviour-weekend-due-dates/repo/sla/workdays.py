"""Due dates of support tickets, counted in business days (Monday to Friday)."""
from datetime import timedelta

WEEKEND = {5, 6}  # Saturday, Sunday
RESPONSE_DAYS = {"urgent": 1, "normal": 3, "low": 10}


def is_business_day(day):
    return day.weekday() not in WEEKEND


def add_business_days(start, days):
    """The date `days` business days after `start`; the start day itself never counts."""
    current = start
    remaining = days
    while remaining > 0:
        current += timedelta(days=1)
        remaining -= 1
        if not is_business_day(current):
            current += timedelta(days=1)
    return current


def due_date(opened, priority):
    """When a ticket opened on `opened` with `priority` must be answered."""
    return add_business_days(opened, RESPONSE_DAYS[priority])
