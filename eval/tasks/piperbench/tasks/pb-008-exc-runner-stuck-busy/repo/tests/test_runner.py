import pytest

from jobs import Busy, JobRunner


def fail():
    raise OSError("disk full")


def test_runner_accepts_jobs_after_a_failed_one():
    runner = JobRunner()
    with pytest.raises(OSError):
        runner.run("cleanup", fail)
    assert runner.running is None
    assert runner.run("report", lambda: 7) == 7


def test_failed_job_is_recorded():
    runner = JobRunner()
    with pytest.raises(OSError) as info:
        runner.run("cleanup", fail)
    assert runner.last() == ("cleanup", "error", info.value)


def test_result_is_recorded():
    runner = JobRunner()
    assert runner.run("count", lambda: 3) == 3
    assert runner.history == [("count", "ok", 3)]


def test_error_reaches_the_caller():
    with pytest.raises(OSError, match="disk full"):
        JobRunner().run("cleanup", fail)


def test_nested_run_is_busy():
    runner = JobRunner()

    def nested():
        return runner.run("inner", lambda: 1)

    with pytest.raises(Busy):
        runner.run("outer", nested)
