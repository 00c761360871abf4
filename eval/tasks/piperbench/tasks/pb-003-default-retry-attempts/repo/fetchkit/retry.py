"""Calling a flaky operation again after a transient failure, with exponential backoff."""
import time


class RetryError(Exception):
    """Every attempt failed; `last` is the exception of the final attempt."""

    def __init__(self, attempts, last):
        super().__init__(f"gave up after {attempts} attempt(s): {last!r}")
        self.attempts = attempts
        self.last = last


def backoff_delays(attempts, base=0.5, cap=8.0):
    """The pause before each retry: base, 2 * base, 4 * base, ..., never more than cap."""
    return [min(cap, base * 2**i) for i in range(attempts - 1)]


def call_with_retry(fn, attempts=1, base=0.5, retry_on=(ConnectionError, TimeoutError), sleep=time.sleep):
    """Call fn() until it succeeds, at most `attempts` times (3 by default).

    Only the exceptions in `retry_on` are retried; anything else propagates at once.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    delays = backoff_delays(attempts, base)
    for attempt in range(attempts):
        try:
            return fn()
        except retry_on as exc:
            if attempt == attempts - 1:
                raise RetryError(attempts, exc) from exc
            sleep(delays[attempt])
