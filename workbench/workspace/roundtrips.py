"""The Round trips panel without Qt: the embedded mock for the open spec (served as `workbench mock SPEC` serves
it: the config's seed and fault rules, stateful on request), its request log as rows, fault rules per operation
written to the config's `mock:` section (so `workbench mock` injects the same faults), and the round trip as a
background job whose attempts the window takes in batches (`RoundTripRun`), run as `workbench roundtrip SPEC`
runs it (the same tool set, options and target: the mock, or a server of yours, read-only unless writes are
allowed and each write operation approved), in a process of its own (`RoundTripProcess`).
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.config import FaultRule, MockConfig
from workbench.mock.app import LOG_SIZE, LogEntry, MockApp
from workbench.mock.faults import rule_names
from workbench.mock.router import base_path
from workbench.mock.server import MockServer
from workbench.roundtrip.report import Report
from workbench.roundtrip.run import NOT_RUN, PASSED, Attempt
from workbench.roundtrip.suite import RoundTripOptions, reachable, run_roundtrip
from workbench.spec import Operation, SourceDocument, Spec, SpecError, load_spec
from workbench.tools.model import Tool
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.configfile import write_section
from workbench.workspace.loading import LoadedSpec, OperationEntry, ProblemEntry, spec_config

LOG_COLUMNS = ("Method", "Path", "Status", "ms", "Fault", "Violations")
RESULT_COLUMNS = ("Tool", "Sent", "Passed", "Classification")


def operation_name(op: Operation) -> str:
    """The name a fault rule written for `op` gives it (`mock.faults.rule_names`: its operationId first)."""
    return rule_names(op)[0]


# -- fault rules ------------------------------------------------------------------------------------------------

FAULT_KINDS = ("status", "delay", "reset", "hang", "fail")


def fault_rule(op: Operation, kind: str, value: int | None = None) -> FaultRule:
    """One rule for `op`: `status` (an HTTP status, 429 with Retry-After 1), `delay` (milliseconds), `reset` or
    `hang` (the connection), `fail` (503 for the first `value` requests, then the normal answer)."""
    name = operation_name(op)
    if kind == "status":
        status = value or 503
        return FaultRule(name, status=status, retry_after="1" if status == 429 else None)
    if kind == "delay":
        return FaultRule(name, delay_ms=value or 1000)
    if kind in ("reset", "hang"):
        return FaultRule(name, fault=kind)
    if kind == "fail":
        return FaultRule(name, status=503, times=value or 2)
    raise ValueError(f"unknown fault kind {kind!r} (known: {', '.join(FAULT_KINDS)})")


def faults_of(mock: MockConfig, op: Operation) -> list[FaultRule]:
    names = set(rule_names(op))
    return [rule for rule in mock.faults if rule.operation in names]


def with_fault(mock: MockConfig, op: Operation, rule: FaultRule | None) -> MockConfig:
    """The section with `op`'s rules replaced by `rule` (None: the operation answers normally again): the new rule
    takes the place of the operation's first one (so the config changes at that item only), else goes last."""
    names = set(rule_names(op))
    new, placed = [], False
    for r in mock.faults:
        if r.operation not in names:
            new.append(r)
        elif not placed:
            new += [rule] if rule is not None else []
            placed = True
    if not placed and rule is not None:
        new.append(rule)
    return mock._replace(faults=tuple(new))


def fault_text(rule: FaultRule) -> str:
    said = [f"status {rule.status}"] if rule.status is not None else []
    said += [f"delay {rule.delay_ms} ms"] if rule.delay_ms else []
    said += [rule.fault] if rule.fault else []
    text = ", ".join(said)
    if rule.times is not None:
        text += f" ×{rule.times}, then normal"
    if rule.probability < 1:
        text += f" (p={rule.probability:g})"
    return text


def rule_values(rule: FaultRule) -> dict[str, Any]:
    """A rule as the config writes it (only what differs from the defaults)."""
    values: dict[str, Any] = {"operation": rule.operation}
    for key, value, default in (("status", rule.status, None), ("fault", rule.fault, None),
                                ("delay-ms", rule.delay_ms, 0), ("retry-after", rule.retry_after, None),
                                ("times", rule.times, None), ("probability", rule.probability, 1.0)):
        if value != default:
            values[key] = value
    return values


def mock_values(mock: MockConfig) -> dict[str, Any]:
    return {"seed": mock.seed, "faults": [rule_values(r) for r in mock.faults]}


def change_faults(spec_path: Path, op: Operation, rule: FaultRule | None) -> tuple[Path, MockConfig]:
    """Set `op`'s fault rule in the config's `mock:` section (the file as it is now: edits made by hand are kept)
    and return the file written and the section as it now reads. Raises SpecError (nothing written)."""
    config = spec_config(spec_path)
    before = config.mock
    after = with_fault(before, op, rule)
    source = Path(config.source) if config.source else None
    fresh = {key: value for key, value in mock_values(after).items() if value != mock_values(MockConfig())[key]}
    path = write_section(spec_path, source, "mock", mock_values(before), mock_values(after), fresh,
                         "The workbench config (see `workbench mock --help`); written by the Round trips panel.")
    return path, spec_config(spec_path).mock


# -- the embedded mock --------------------------------------------------------------------------------------------


class EmbeddedMock:
    """The open spec's mock on 127.0.0.1 (a free port), as `workbench mock SPEC` serves it: the config's fault
    rules, `seed`, `stateful`. Every request is logged; `take_log()` hands the new entries over."""

    def __init__(self, spec: Spec, mock: MockConfig, *, seed: int | None = None, stateful: bool = False) -> None:
        self.seed = mock.seed if seed is None else seed
        self.stateful = stateful
        self._entries: deque[LogEntry] = deque(maxlen=LOG_SIZE)
        self._lock = threading.Lock()
        self.app = MockApp(spec, self.seed, stateful=stateful, faults=mock.faults, on_log=self._logged)
        self.server = MockServer(spec, "127.0.0.1", 0, app=self.app)
        self._base = base_path(spec)

    def start(self) -> EmbeddedMock:
        self.server.start()  # raises OSError when it cannot listen
        return self

    def stop(self) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        """The base URL a client uses (the spec's base path under the mock's origin)."""
        return self.server.url + self._base

    def set_faults(self, faults: tuple[FaultRule, ...]) -> None:
        self.app.set_faults(faults)

    def _logged(self, entry: LogEntry) -> None:
        with self._lock:
            self._entries.append(entry)

    def take_log(self) -> list[LogEntry]:
        with self._lock:
            taken = list(self._entries)
            self._entries.clear()
        return taken


def log_row(entry: LogEntry) -> tuple[str, ...]:
    return (entry.method, entry.path, str(entry.status), f"{entry.seconds * 1000:.1f}", entry.fault or "",
            "; ".join(entry.violations))


# -- the round trip -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunSettings:
    """What the panel's controls say (the command's flags): sets per tool, seed (None: the config's), a server of
    yours (None: the mock) and whether writes may go to it."""

    count: int = 3
    seed: int | None = None
    base_url: str | None = None
    allow_writes: bool = False


class RoundTripRun:
    """One round trip as a job `fn(progress, cancelled) -> Report`: the file's config read as it is now, the tool
    set built as `workbench roundtrip` builds it, every attempt handed to `on_attempt` as it comes; `done`/`total`
    say how far it is, by tool. `approve_write(tool)` is asked for each write operation when writes to a server of
    yours are allowed. The window runs it in a process of its own (`RoundTripProcess`)."""

    def __init__(self, path: Path, spec: Spec, settings: RunSettings, on_attempt: Callable[[Attempt], None],
                 approve_write: Callable[[Tool], bool] | None = None) -> None:
        self.path, self.spec, self.settings = path, spec, settings
        self.on_attempt, self.approve_write = on_attempt, approve_write
        self.done = self.total = 0

    def __call__(self, progress: Callable[[str], None], cancelled: Callable[[], bool]) -> Report:
        settings = self.settings
        config = spec_config(self.path)  # as the file says now (a panel may have written it since the load)
        toolset = build_toolset(self.spec, config, ToolOverrides())
        options = RoundTripOptions(count=settings.count,
                                   seed=settings.seed if settings.seed is not None else config.mock.seed,
                                   base_url=settings.base_url or None, allow_writes=settings.allow_writes,
                                   approve_write=self.approve_write if settings.allow_writes else None)
        if options.base_url:
            reachable(options.base_url)

        def step(done: int, total: int) -> None:
            self.done, self.total = done, total
            progress(f"{done}/{total} tools")

        return run_roundtrip(self.spec, self.path, toolset, toolset.vendor, options, on_attempt=self.on_attempt,
                             progress=step, cancelled=cancelled)


@dataclass(frozen=True)
class WriteQuestion:
    """A write operation the run would send to a server of yours: asked of the user, once per operation."""

    name: str  # the tool's
    method: str
    path: str


def _run_in_child(path: str, settings: RunSettings, out: Any, answers: Any, cancel: Any) -> None:
    """The child process: the spec loaded (as edited in the window: the root's unsaved text and the other edited
    files, the first thing on `answers`), the run, every event on `out`."""
    try:
        text, others = answers.get()
        spec = load_spec(path, text=text, documents=others)

        def approve(tool: Tool) -> bool:
            out.put(("ask", WriteQuestion(tool.name, tool.operation.method, tool.operation.path)))
            while not cancel.is_set():
                try:
                    return bool(answers.get(timeout=0.1))
                except queue.Empty:
                    continue
            return False

        run = RoundTripRun(Path(path), spec, settings, lambda attempt: out.put(("attempt", attempt)), approve)
        report = run(lambda _text: out.put(("progress", run.done, run.total)), cancel.is_set)
        out.put(("done", report))
    except SpecError as exc:
        out.put(("failed", str(exc)))
    except Exception as exc:  # said in one line by the window
        out.put(("failed", f"{type(exc).__name__}: {exc}"))


class RoundTripProcess:
    """A round trip in a process of its own, so that neither its generator, its judge nor the mock it starts
    compete with the window for the interpreter lock (in a thread they held it for up to 2 s on the GitHub
    description). `poll()` takes what came since the last time — attempts, progress, a question, the end — and
    never waits; `cancel()` ends the process at once."""

    def __init__(self, path: Path, settings: RunSettings, text: str | None = None,
                 others: Sequence[SourceDocument] = ()) -> None:
        context = multiprocessing.get_context("spawn")  # never a fork of a process with Qt's threads
        self._out, self._answers, self._cancel = context.Queue(), context.Queue(), context.Event()
        self.process = context.Process(target=_run_in_child, name="workbench-roundtrip", daemon=True,
                                       args=(str(path), settings, self._out, self._answers, self._cancel))
        self._edited = (text, list(others))
        self.done = self.total = 0
        self.report: Report | None = None
        self.error: str | None = None
        self.questions: list[WriteQuestion] = []  # asked and not answered yet
        self.finished = False

    def start(self) -> RoundTripProcess:
        self.process.start()
        # The text goes by the queue (its own thread writes it), not with the arguments: those are written to the
        # child's pipe while starting, and 4 MB would wait there until the child has started and read them.
        self._answers.put(self._edited)
        self._answers.cancel_join_thread()  # a child ended before reading it must not keep the window from exiting
        return self

    def poll(self, limit: int = 5000) -> list[Attempt]:
        """The attempts that came since the last poll (at most `limit`), taking progress, questions and the end."""
        attempts: list[Attempt] = []
        while len(attempts) < limit and not self.finished:
            try:
                event = self._out.get_nowait()
            except queue.Empty:
                if not self.process.is_alive() and self._out.empty():
                    self.finished = True
                    self.error = self.error or f"the round trip ended unexpectedly (exit {self.process.exitcode})"
                break
            kind = event[0]
            if kind == "attempt":
                attempts.append(event[1])
            elif kind == "progress":
                self.done, self.total = event[1], event[2]
            elif kind == "ask":
                self.questions.append(event[1])
            elif kind == "done":
                self.report, self.finished = event[1], True
            elif kind == "failed":
                self.error, self.finished = event[1], True
        return attempts

    def answer(self, yes: bool) -> None:
        """Answer the oldest question."""
        self.questions.pop(0)
        self._answers.put(bool(yes))

    def cancel(self) -> None:
        self._cancel.set()
        self.finished = True
        if self.process.is_alive():
            self.process.terminate()
        self.process.join(5)
        for channel in (self._out, self._answers):  # no feeder thread left waiting on a pipe nobody reads
            channel.cancel_join_thread()
            channel.close()


def sent_text(attempt: Attempt) -> str:
    """The request line sent, or what became of a set that was not sent."""
    return attempt.request.split("\n", 1)[0] if attempt.request else f"({attempt.outcome})"


def passed_text(attempt: Attempt) -> str:
    return "yes" if attempt.classification == PASSED else "not run" if attempt.classification == NOT_RUN else "no"


def result_row(attempt: Attempt) -> tuple[str, str, str, str]:
    return attempt.tool, sent_text(attempt), passed_text(attempt), attempt.classification


def is_failure(attempt: Attempt) -> bool:
    return attempt.classification not in (PASSED, NOT_RUN)


def attempt_text(attempt: Attempt) -> str:
    """Everything said of one attempt: the exact wire request, the server's answer, the independent judge's
    violations (verbatim, masked), and how it was classified."""
    lines = ["— Request (as sent on the wire) —", attempt.request or "(nothing was sent)", "", "— Response —",
             f"status {attempt.status}" if attempt.status is not None else "no answer"]
    lines += attempt.detail
    lines += ["", "— Violations (the independent judge) —"]
    lines += [f"• {o}" for o in attempt.oracle] or (["none"] if attempt.judged else ["not judged"])
    if attempt.disagreement:
        lines += ["", f"Disagreement: {attempt.disagreement}"]
    if attempt.unjudged:
        lines += ["", "Not judged:", *(f"• {place}: {why}" for place, why in attempt.unjudged.items())]
    lines += ["", f"{attempt.method.upper()} {attempt.path} · {attempt.kind or 'no'} set #{attempt.index} · "
                  f"{attempt.outcome} · {attempt.classification}"]
    return "\n".join(lines)


# -- where an attempt's operation is -----------------------------------------------------------------------------


def operation_entry(loaded: LoadedSpec, method: str, path: str) -> OperationEntry | None:
    return next((e for e in loaded.operations if not e.operation.webhook and e.operation.method == method
                 and e.operation.path == path), None)


def operation_finding(loaded: LoadedSpec, entry: OperationEntry) -> ProblemEntry | None:
    """The first lint finding on the operation or anything inside it (in the Problems panel's order)."""
    origin = entry.operation.origin
    inside = origin.pointer + "/"
    return next((p for p in loaded.problems if p.finding.document is origin.document
                 and (p.finding.pointer == origin.pointer or p.finding.pointer.startswith(inside))), None)
