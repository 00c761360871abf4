import pytest

from fetchkit import RetryError, backoff_delays, call_with_retry


def flaky(failures, result="ok"):
    """A callable that raises ConnectionError `failures` times, then returns `result`."""
    calls = []

    def fn():
        calls.append(1)
        if len(calls) <= failures:
            raise ConnectionError("connection reset")
        return result

    fn.calls = calls
    return fn


def test_default_retries_transient_failures():
    slept = []
    fn = flaky(2)
    assert call_with_retry(fn, sleep=slept.append) == "ok"
    assert len(fn.calls) == 3
    assert slept == [0.5, 1.0]


def test_default_gives_up_after_three_attempts():
    fn = flaky(10)
    with pytest.raises(RetryError) as info:
        call_with_retry(fn, sleep=lambda s: None)
    assert info.value.attempts == 3
    assert len(fn.calls) == 3


def test_explicit_attempts():
    fn = flaky(1)
    assert call_with_retry(fn, attempts=2, sleep=lambda s: None) == "ok"
    with pytest.raises(RetryError):
        call_with_retry(flaky(5), attempts=4, sleep=lambda s: None)


def test_other_errors_propagate_at_once():
    calls = []

    def broken():
        calls.append(1)
        raise ValueError("bad request")

    with pytest.raises(ValueError):
        call_with_retry(broken, attempts=5, sleep=lambda s: None)
    assert len(calls) == 1


def test_backoff_is_capped():
    assert backoff_delays(6, base=1.0, cap=4.0) == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert backoff_delays(1) == []
