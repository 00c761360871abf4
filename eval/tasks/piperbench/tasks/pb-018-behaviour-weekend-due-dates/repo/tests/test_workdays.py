from datetime import date

from sla.workdays import add_business_days, due_date, is_business_day

FRIDAY = date(2024, 3, 1)
MONDAY = date(2024, 3, 4)


def test_urgent_ticket_opened_on_friday_is_due_monday():
    assert due_date(FRIDAY, "urgent") == MONDAY


def test_normal_ticket_opened_on_thursday_is_due_tuesday():
    assert due_date(date(2024, 2, 29), "normal") == date(2024, 3, 5)


def test_within_one_week():
    assert due_date(MONDAY, "normal") == date(2024, 3, 7)
    assert add_business_days(MONDAY, 0) == MONDAY


def test_business_days():
    assert is_business_day(FRIDAY)
    assert not is_business_day(date(2024, 3, 2))
    assert not is_business_day(date(2024, 3, 3))
