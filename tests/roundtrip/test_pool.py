"""The round trip on several cores: worker processes, each with a mock and a judge of its own, give the same
report as one process (same seed, any --jobs), in the same order, with progress and cancel; no worker outlives
the run (cancel, Ctrl+C, a killed parent); a worker's failure is one line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.catalogue import REPO, TRAVEL, child_processes, corpus_file, running
from workbench.cli import main
from workbench.config import WorkbenchConfig
from workbench.roundtrip import pool, run
from workbench.roundtrip.suite import RoundTripOptions, run_roundtrip
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.roundtrips import RoundTripProcess, RunSettings

pytestmark = pytest.mark.skipif(not pool.can_fork() or not Path("/proc/self/stat").exists(),
                                reason="worker processes are forked (Linux)")


def loaded(path: Path):
    spec = load_spec(path)
    return path, spec, build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor="openai"))


def report_json(report) -> str:
    """The report as the command prints it, less the mock's port (each mock listens on a port of its own)."""
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", json.dumps(report.to_json(), default=str, indent=1))


def roundtrip(case, jobs: int, **options):
    path, spec, toolset = case
    said, taken = [], []
    report = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3, budget_s=30, jobs=jobs, **options),
                           on_attempt=taken.append, progress=lambda done, total: said.append((done, total)))
    return report, said, taken


@pytest.mark.parametrize("name", ["example", TRAVEL])
def test_two_workers_give_the_same_report_as_one_process(shop, name) -> None:
    case = loaded(shop if name == "example" else corpus_file(name))
    assert pool.job_count(2, len(case[2].tools)) == 2
    one, said_one, _ = roundtrip(case, 1, seed=7)
    two, said_two, taken = roundtrip(case, 2, seed=7)
    assert report_json(two) == report_json(one)
    assert one.summary()["sent"] > 20 and not two.cancelled
    assert [a.key for a in taken] == [a.key for a in two.attempts]  # handed on in the tools' order
    assert said_two == said_one  # the tools begun, then the end
    assert said_two[-1] == (len(case[2].tools), len(case[2].tools))


def test_auto_is_one_worker_per_core_and_never_more_than_the_tools(monkeypatch) -> None:
    expected = min(pool.cores(), pool.AUTO_MOST)
    assert pool.job_count(None, 1000) == expected and pool.job_count(0, 1000) == expected
    assert pool.job_count(8, 3) == 3 and pool.job_count(1, 50) == 1 and pool.job_count(None, 0) == 1
    monkeypatch.setattr(pool, "cores", lambda: 64)  # a big host seen from a container: auto stays bounded
    assert pool.job_count(None, 1000) == pool.AUTO_MOST and pool.job_count(16, 1000) == 16


def test_a_cancelled_run_stops_its_workers(shop) -> None:
    case = loaded(shop)
    before = child_processes(os.getpid())
    workers: set[int] = set()

    def note(attempt) -> None:
        workers.update(child_processes(os.getpid()) - before)

    path, spec, toolset = case
    said = []
    report = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3, jobs=2), on_attempt=note,
                           progress=lambda done, total: said.append(done),
                           cancelled=lambda: bool(said) and said[-1] >= 2)
    assert report.cancelled and [op.tool for op in report.operations] == [t.name for t in toolset.tools[:3]]
    assert len(workers) == 2
    assert not any(running(pid) for pid in workers)  # ended and reaped before the run returned


def test_an_error_in_a_worker_is_one_line_naming_the_tool(shop, monkeypatch, capsys) -> None:
    case = loaded(shop)
    real = run.argument_sets

    def planted(tool, *args):
        if tool.name == "getCustomer":
            raise KeyError("planted")
        return real(tool, *args)

    others = child_processes(os.getpid())  # processes earlier tests of the session left running are not ours
    monkeypatch.setattr(run, "argument_sets", planted)  # the worker is a fork: it has the plant too
    with pytest.raises(pool.WorkerFailed) as failed:
        roundtrip(case, 2)
    message = str(failed.value)
    assert message == "the round trip failed on getCustomer (GET /customers/{customerId}): KeyError: 'planted'"
    assert "planted" in failed.value.details and "Traceback" in failed.value.details

    assert main(["roundtrip", str(shop), "--jobs", "2", "--format", "json"]) == 2
    said = capsys.readouterr()
    assert said.err == ("workbench: internal error: WorkerFailed: the round trip failed on getCustomer "
                        "(GET /customers/{customerId}): KeyError: 'planted' (set WORKBENCH_DEBUG=1 for details)\n")
    assert said.out == ""

    def dies(tool, *args):
        if tool.name == "getCustomer":
            os._exit(3)
        return real(tool, *args)

    monkeypatch.setattr(run, "argument_sets", dies)
    with pytest.raises(pool.WorkerFailed, match=r"^a round-trip worker ended unexpectedly \(exit 3\) on "
                                                r"getCustomer \(GET /customers/\{customerId\}\)$"):
        roundtrip(case, 2)
    assert not any(running(p) for p in child_processes(os.getpid()) - others)


def wait_for_workers(pid: int, count: int, seconds: float = 120) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = {p for p in child_processes(pid) if running(p)}
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{pid} did not start {count} workers in {seconds} s")


def gone(pids: set[int], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while any(running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(running(p) for p in pids)


def test_ctrl_c_ends_the_command_and_its_workers(shop) -> None:
    command = subprocess.Popen([sys.executable, "-m", "workbench", "roundtrip", str(shop), "--examples", "50",
                                "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(REPO)}, start_new_session=True)
    try:
        workers = wait_for_workers(command.pid, 2)
        time.sleep(0.5)
        os.killpg(command.pid, signal.SIGINT)  # what a terminal does: the whole foreground group
        assert command.wait(30) == 130
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
    assert gone(workers)
    assert "Traceback" not in command.stderr.read()


def test_workers_end_when_the_process_that_started_them_is_ended(shop) -> None:
    """The window cancels a round trip by ending its process: the workers that process forked end with it."""
    started = RoundTripProcess(shop, RunSettings(count=50)).start()
    try:
        workers = wait_for_workers(started.process.pid, 2)
    finally:
        started.cancel()
    assert not started.process.is_alive() and gone(workers)


def test_a_heap_its_caller_froze_stays_frozen_after_the_workers_start(shop) -> None:
    """The pool freezes the heap while it forks (the spec's pages stay shared with the workers); a heap frozen
    before (as the window freezes a loaded spec) is left frozen, not thawed with the pool's own freeze."""
    import gc

    case = loaded(shop)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        roundtrip(case, 2)
        assert gc.get_freeze_count() >= frozen > 0
    finally:
        gc.unfreeze()
    roundtrip(case, 2)
    assert gc.get_freeze_count() == 0  # nothing frozen before: the pool's freeze is undone
