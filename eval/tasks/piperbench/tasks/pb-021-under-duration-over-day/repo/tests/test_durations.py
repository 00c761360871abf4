import pytest

from timefmt.durations import format_duration, format_timestamp


def test_more_than_a_day():
    assert format_duration(90007) == "25:00:07"


def test_several_days():
    assert format_duration(3 * 86400 + 5) == "72:00:05"


def test_seconds_and_minutes():
    assert format_duration(5) == "0:00:05"
    assert format_duration(754.9) == "0:12:34"


def test_hours():
    assert format_duration(3725) == "1:02:05"
    assert format_duration(86399) == "23:59:59"


def test_negative_is_rejected():
    with pytest.raises(ValueError):
        format_duration(-1)


def test_timestamp():
    assert format_timestamp(1709301900) == "2024-03-01 14:05"
