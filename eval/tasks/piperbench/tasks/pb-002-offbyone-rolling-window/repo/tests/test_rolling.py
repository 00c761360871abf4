import pytest

from metrics.rolling import rolling_max, rolling_mean, windows


def test_rolling_mean_includes_last_window():
    assert rolling_mean([1, 2, 3, 4], 2) == [1.5, 2.5, 3.5]


def test_window_as_long_as_series():
    assert rolling_mean([2, 4, 6], 3) == [4.0]
    assert rolling_max([2, 9, 6], 3) == [9]


def test_short_series_gives_nothing():
    assert rolling_mean([1], 3) == []
    assert windows([], 1) == []


def test_rejects_empty_window():
    with pytest.raises(ValueError):
        rolling_mean([1, 2, 3], 0)
