"""How the build dashboard shows times: when a job started and how long it ran."""
import time


def format_timestamp(epoch_seconds):
    """A start time in UTC, e.g. "2024-03-01 14:05"."""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(epoch_seconds))


def format_duration(seconds):
    """An elapsed time as H:MM:SS, e.g. 3725 -> "1:02:05"."""
    if seconds < 0:
        raise ValueError("durations are never negative")
    text = time.strftime("%H:%M:%S", time.gmtime(int(seconds)))
    return text[1:] if text.startswith("0") else text
