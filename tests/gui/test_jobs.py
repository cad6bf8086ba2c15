"""The background job: any `fn(progress, cancelled)` on a thread pool; its progress, result, error or
cancellation arrive as signals, and a job made stale (by another start or a cancel) reports nothing."""

from __future__ import annotations

import threading

import pytest

from workbench.gui.jobs import JobRunner
from workbench.workspace import Cancelled


@pytest.fixture
def runner(qtbot):
    runner = JobRunner()
    yield runner
    runner.cancel()
    assert runner.wait(10_000)


def test_progress_then_the_result(runner, qtbot):
    seen = []
    runner.progress.connect(lambda job, text: seen.append((job.tag, text)))

    def work(progress, cancelled):
        progress("one")
        progress("two")
        return threading.current_thread() is not threading.main_thread()

    with qtbot.waitSignal(runner.succeeded, timeout=10_000) as blocker:
        job = runner.start(work, "count")
    assert blocker.args == [job, True]  # it ran off the UI thread
    assert seen == [("count", "one"), ("count", "two")]
    assert runner.current is None


def test_an_error_is_delivered_as_data(runner, qtbot):
    def work(_progress, _cancelled):
        raise ValueError("broken")

    with qtbot.waitSignal(runner.failed, timeout=10_000) as blocker:
        job = runner.start(work)
    assert blocker.args[0] is job and isinstance(blocker.args[1], ValueError)


def test_a_job_that_sees_its_flag_reports_cancelled(runner, qtbot):
    started, release = threading.Event(), threading.Event()

    def work(_progress, cancelled):
        started.set()
        release.wait(10)
        if cancelled():
            raise Cancelled
        return "done"

    job = runner.start(work)
    assert started.wait(10)
    job.cancel()  # the flag only: the runner still waits for this job
    with qtbot.waitSignal(runner.cancelled, timeout=10_000) as blocker:
        release.set()
    assert blocker.args == [job] and job.is_cancelled


def test_a_stale_job_reports_nothing(runner, qtbot):
    release = threading.Event()

    def slow(progress, _cancelled):
        release.wait(10)
        progress("stale")
        return "old"

    old = runner.start(slow)
    with qtbot.waitSignal(runner.succeeded, timeout=10_000) as blocker:
        new = runner.start(lambda _progress, _cancelled: "new")
    assert blocker.args == [new, "new"] and old.is_cancelled
    with qtbot.assertNotEmitted(runner.succeeded, wait=100), qtbot.assertNotEmitted(runner.progress, wait=100), \
            qtbot.assertNotEmitted(runner.cancelled, wait=100):
        release.set()
        assert runner.wait(10_000)
    # cancelling the current job drops it at once
    release.clear()
    runner.start(slow)
    assert runner.cancel() is not None and runner.current is None
    with qtbot.assertNotEmitted(runner.succeeded, wait=100):
        release.set()
        assert runner.wait(10_000)
