from .runner import Busy, JobRunner

__all__ = ["Busy", "JobRunner"]
