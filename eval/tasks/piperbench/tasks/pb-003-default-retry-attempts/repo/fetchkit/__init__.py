from .retry import RetryError, backoff_delays, call_with_retry

__all__ = ["RetryError", "backoff_delays", "call_with_retry"]
