"""Runs maintenance jobs one at a time and keeps a history of how each one ended."""


class Busy(RuntimeError):
    """A job was started while another one was still running."""


class JobRunner:
    def __init__(self):
        self.running = None
        self.history = []

    def run(self, name, job):
        """Run job() now and return its result.

        The outcome is appended to `history` as (name, "ok", result) or, when the job raises,
        (name, "error", exception); the exception is then raised again to the caller.
        """
        if self.running is not None:
            raise Busy(f"{self.running} is still running")
        self.running = name
        result = job()
        self.history.append((name, "ok", result))
        self.running = None
        return result

    def last(self):
        """The most recent history entry, or None."""
        return self.history[-1] if self.history else None
