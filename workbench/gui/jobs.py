"""One kind of background job for the whole workbench: any core callable `fn(progress, cancelled) -> result`
run on a thread pool, reporting back through queued signals.

`progress(text)` may be called from the worker as often as it likes; `cancelled()` is the flag it checks
between steps (cooperative: a cancelled job stops at its next check, and its result is dropped at once).
Every job has a generation; starting a job or cancelling makes the earlier ones stale, and nothing a stale
job reports reaches the runner's signals. Loading and re-checking use it; so can any later panel.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from workbench.workspace import Cancelled

JobFunction = Callable[[Callable[[str], None], Callable[[], bool]], Any]


@dataclass(eq=False)
class Job:
    """A started job: what it was started for (`tag`), its generation, and its cancel flag."""

    generation: int
    tag: Any = None
    _flag: threading.Event = field(default_factory=threading.Event, repr=False)

    def cancel(self) -> None:
        self._flag.set()

    @property
    def is_cancelled(self) -> bool:
        return self._flag.is_set()


class _Signals(QObject):
    """Emitted from the worker thread (queued to the runner's thread); every signal carries the generation."""

    progress = Signal(int, str)
    done = Signal(int, object)
    failed = Signal(int, object)  # the exception
    cancelled = Signal(int)
    finished = Signal(int)


class _Runnable(QRunnable):
    def __init__(self, job: Job, fn: JobFunction) -> None:
        super().__init__()
        self.setAutoDelete(False)  # the runner keeps the Python object until `finished`
        self.job = job
        self.fn = fn
        self.signals = _Signals()

    def run(self) -> None:
        job, signals = self.job, self.signals
        gen = job.generation
        try:
            result = self.fn(lambda text: signals.progress.emit(gen, text), job._flag.is_set)
        except Cancelled:
            signals.cancelled.emit(gen)
        except Exception as exc:  # reported as data: the receiver says it in one line
            signals.failed.emit(gen, exc)
        else:
            if job.is_cancelled:
                signals.cancelled.emit(gen)
            else:
                signals.done.emit(gen, result)
        finally:
            signals.finished.emit(gen)


class JobRunner(QObject):
    """Runs one current job at a time (starting another cancels it); reports only the current one's news."""

    progress = Signal(object, str)  # Job, text
    succeeded = Signal(object, object)  # Job, result
    failed = Signal(object, object)  # Job, exception
    cancelled = Signal(object)  # Job

    def __init__(self, parent: QObject | None = None, max_threads: int = 2) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._generation = 0
        self._current: Job | None = None
        self._running: dict[int, _Runnable] = {}  # kept alive until their `finished`

    @property
    def current(self) -> Job | None:
        """The job whose result is awaited (None: none)."""
        return self._current

    def start(self, fn: JobFunction, tag: Any = None) -> Job:
        if self._current is not None:
            self._current.cancel()
        self._generation += 1
        job = Job(self._generation, tag)
        runnable = _Runnable(job, fn)
        runnable.signals.progress.connect(self._progress)
        runnable.signals.done.connect(self._done)
        runnable.signals.failed.connect(self._failed)
        runnable.signals.cancelled.connect(self._cancelled)
        runnable.signals.finished.connect(self._finished)
        self._running[job.generation] = runnable
        self._current = job
        self._pool.start(runnable)
        return job

    def cancel(self) -> Job | None:
        """Stop waiting for the current job (it stops at its next check; whatever it reports is dropped)."""
        job = self._current
        if job is not None:
            job.cancel()
            self._current = None
            self._generation += 1
        return job

    def wait(self, msecs: int = -1) -> bool:
        return self._pool.waitForDone(msecs)

    def _live(self, generation: int) -> Job | None:
        job = self._current
        return job if job is not None and job.generation == generation == self._generation else None

    def _progress(self, generation: int, text: str) -> None:
        job = self._live(generation)
        if job is not None:
            self.progress.emit(job, text)

    def _done(self, generation: int, result: object) -> None:
        job = self._live(generation)
        if job is not None:
            self._current = None
            self.succeeded.emit(job, result)

    def _failed(self, generation: int, error: object) -> None:
        job = self._live(generation)
        if job is not None:
            self._current = None
            self.failed.emit(job, error)

    def _cancelled(self, generation: int) -> None:
        job = self._live(generation)
        if job is not None:
            self._current = None
            self.cancelled.emit(job)

    def _finished(self, generation: int) -> None:
        self._running.pop(generation, None)
