"""Rolling statistics over a series of samples, for the dashboard's trend lines."""


def windows(values, size):
    """Every run of `size` consecutive values, in order."""
    if size < 1:
        raise ValueError("window size must be at least 1")
    return [values[i:i + size] for i in range(len(values) - size)]


def rolling_mean(values, size):
    """The mean of each window of `size` consecutive values."""
    return [sum(w) / size for w in windows(values, size)]


def rolling_max(values, size):
    """The largest value of each window of `size` consecutive values."""
    return [max(w) for w in windows(values, size)]
