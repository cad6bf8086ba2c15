"""The round trip against the mock on several cores: worker processes forked once the spec and the tool set are
loaded, each with a mock of its own on 127.0.0.1 and a judge of its own, each given whole tools one at a time.

Why whole tools and a mock per worker: a tool's attempts depend on the tool, the seed and the mock only (the
round trip's mock keeps no state between requests: no `--stateful` store, no fault counts; its answers are
seeded per operation), so a tool gives the same attempts in any worker, after any other tool, as in one process.
The attempts come back to the parent, which hands them on in the tools' order (as `attempts` yields them), calls
`progress` as tools complete in that order, and stops at `cancelled()`.

No worker outlives the run: ended when the run ends, is cancelled, fails or is interrupted (the generator's
`finally`), and on Linux when the process that started it dies (`PR_SET_PDEATHSIG`), so a window that kills the
round trip's process leaves none behind. A worker ignores Ctrl+C: the parent ends it. A failure in a worker is
one `WorkerFailed` naming the tool; a worker that died is one too, with its exit code.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import suppress
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from typing import Any

from workbench.roundtrip.oracle import Oracle
from workbench.roundtrip.run import Attempt, mock_target, target_executor, tool_attempts
from workbench.spec import Spec
from workbench.tools.model import ToolSet

POLL_S = 0.1  # how often the parent looks at the cancel flag while it waits for a worker
STOP_S = 5.0  # how long a worker asked to stop may take before it is killed


class WorkerFailed(RuntimeError):
    """A worker's failure, in one line (`details`: the worker's traceback, for WORKBENCH_DEBUG)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def can_fork() -> bool:
    return hasattr(os, "fork")


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


AUTO_MOST = 8  # workers `auto` starts at most: each holds a copy of the spec's pages and a mock of its own


def job_count(jobs: int | None, tools: int) -> int:
    """The workers a run uses: `jobs` (None or 0: one per core this process may run on, AUTO_MOST at most), never
    more than there are tools; 1 (the run in this process) where processes cannot be forked."""
    wanted = jobs if jobs else min(cores(), AUTO_MOST)
    if not can_fork():
        return 1
    return max(1, min(wanted, tools))


class _Worker:
    """A forked process running `_work`, and the parent's end of the pipe to it. Forked by hand (`os.fork`), not
    by `multiprocessing.Process`, which refuses to start children from a daemonic process (the window's round
    trip runs in one); so no `multiprocessing` machinery runs in the worker at its end (`os._exit`)."""

    def __init__(self, others: list[_Worker], *args: Any) -> None:
        ours, theirs = Pipe()
        try:
            self.pid = os.fork()
        except BaseException:  # no process could be made (out of memory, a process limit): no pipe left open
            ours.close()
            theirs.close()
            raise
        if self.pid == 0:  # the worker
            code = 1
            try:
                ours.close()
                for other in others:  # their pipes are the parent's alone (a dead worker's end is seen)
                    other.connection.close()
                _work(theirs, *args)
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        self.connection = ours
        self.exitcode: int | None = None

    def wait(self, seconds: float) -> bool:
        """Reaped within `seconds` (its exit code kept)?"""
        deadline = time.monotonic() + seconds
        while self.exitcode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped already (by someone else)
                self.exitcode = -1
                break
            if pid:
                self.exitcode = os.waitstatus_to_exitcode(status)
            elif time.monotonic() >= deadline:
                return False
            else:
                time.sleep(0.01)
        return True

    def stop(self) -> None:
        """Ended and reaped: terminated (a worker keeps nothing worth saving), killed if it lingers."""
        self.connection.close()
        if self.exitcode is None:
            with suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            if not self.wait(STOP_S):
                with suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                self.wait(STOP_S)


def pooled_attempts(spec: Spec, toolset: ToolSet, document: dict | None, base_uri: str, *, jobs: int,
                    count: int = 3, seed: int = 0, budget_s: float = 10.0,
                    progress: Callable[[int, int], None] | None = None,
                    cancelled: Callable[[], bool] | None = None) -> Iterator[Attempt]:
    """`run.attempts` against the mock, its tools shared among `jobs` worker processes: the same attempts in the
    same order. `document` is the judge's (None: not judged), `base_uri` where it lives."""
    tools = toolset.tools
    total = len(tools)
    workers: list[_Worker] = []
    busy: dict[Connection, int] = {}  # a worker's pipe → the tool it is on
    queue = iter(range(total))
    done: dict[int, list[Attempt]] = {}
    given = 0
    stopped = cancelled or (lambda: False)
    try:
        _start(workers, jobs, os.getpid(), spec, toolset, document, base_uri, count, seed, budget_s)
        for worker in workers:
            _hand(worker.connection, next(queue, None), busy)
        worker_of = {worker.connection: worker for worker in workers}
        while given < total:
            while given in done:  # as `attempts` does: the flag looked at and the progress said before each tool
                if stopped():
                    return
                if progress is not None:
                    progress(given, total)
                yield from done.pop(given)
                given += 1
            if given == total or stopped():
                break
            # a worker's pipe is readable when it answers, and at its end when it dies (then its exit code is said)
            for ready in wait(list(busy), POLL_S):
                index, attempts = _receive(worker_of[ready], busy, tools)
                done[index] = attempts
                _hand(ready, next(queue, None), busy)
        if progress is not None and given == total:
            progress(total, total)
    finally:
        for worker in workers:
            worker.stop()


def _start(workers: list[_Worker], jobs: int, *args: Any) -> None:
    """`jobs` workers forked into `workers` (kept there as they start: all are stopped if one cannot be)."""
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice by a worker
        if stream is not None:
            stream.flush()
    frozen_before = gc.get_freeze_count() > 0  # frozen by its caller (see `workspace.loading.freeze_heap`): kept so
    gc.freeze()  # the loaded spec stays shared with the workers, not copied by the collector's visits
    try:
        for _ in range(jobs):
            workers.append(_Worker(list(workers), *args))
    finally:
        if not frozen_before:
            gc.unfreeze()


def _named(tool: Any) -> str:
    return f"{tool.name} ({tool.operation.method.upper()} {tool.operation.path})"


def _hand(connection: Connection, index: int | None, busy: dict[Connection, int]) -> None:
    """The next tool to a worker that is free, or None: stop."""
    with suppress(OSError):  # it is gone: its pipe's end says how
        connection.send(index)
    if index is None:
        busy.pop(connection, None)
    else:
        busy[connection] = index


def _receive(worker: _Worker, busy: dict[Connection, int], tools: list) -> tuple[int, list[Attempt]]:
    index = busy[worker.connection]
    try:
        message = worker.connection.recv()
    except (EOFError, OSError):
        worker.wait(STOP_S)
        raise WorkerFailed(f"a round-trip worker ended unexpectedly (exit {worker.exitcode}) on "
                           f"{_named(tools[index])}") from None
    if message[0] == "failed":
        raise WorkerFailed(f"the round trip failed on {_named(tools[index])}: {message[1]}", message[2])
    return index, message[1]


def _die_with_parent(parent: int) -> None:
    """Linux: this process gets SIGTERM when the one that started it dies; elsewhere it notices between tools."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # it died before the line above
        os._exit(1)


def _work(connection: Connection, parent: int, spec: Spec, toolset: ToolSet, document: dict | None, base_uri: str,
          count: int, seed: int, budget_s: float) -> None:
    """A worker (in a forked process): its mock and judge, then tool after tool as the parent hands them over."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole process group: the parent ends us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    try:
        with mock_target(spec, seed) as target:
            oracle = Oracle(document, target.url, base_uri) if document is not None else None
            executor = target_executor(spec, toolset, target)
            while (index := connection.recv()) is not None and os.getppid() == parent:
                attempts = list(tool_attempts(spec, executor, toolset.tools[index], target, oracle, count, seed,
                                              budget_s))
                connection.send(("done", attempts))
    except (EOFError, BrokenPipeError):  # the parent is gone or stopped us
        pass
    except BaseException as error:  # said in one line by the parent
        first = (str(error).strip().splitlines() or [""])[0]
        with suppress(OSError):
            connection.send(("failed", f"{type(error).__name__}: {first}"[:300], traceback.format_exc()))
