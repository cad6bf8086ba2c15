"""Generated tool calls through the real executor to a server on 127.0.0.1, each wire request judged by the
independent oracle: what a model could send, and whether the spec accepts it once it is on the wire.

`attempts(...)` yields one `Attempt` per argument set, as it comes (long runs are cancellable and report
progress). The server is ours (`mock.server`): either the mock itself, or `Capture`, which records each
request exactly as it arrived and answers 204, so that nothing but the oracle judges.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor
from workbench.http.validate import check, original_schema
from workbench.mock.app import Answer
from workbench.mock.server import MockServer
from workbench.roundtrip.generate import Unsatisfiable, argument_sets, draw, prepare_schema
from workbench.roundtrip.oracle import Oracle, Verdict, mismatches
from workbench.spec import Spec
from workbench.tools.model import Tool, ToolSet
from workbench.wire.messages import Request

# what became of one argument set
ACCEPTED = "accepted"  # sent, and the oracle accepted it and read back what was sent
REJECTED = "rejected"  # sent, and the oracle refused it or read back something else
REFUSED = "refused"  # the executor did not send it (its validation, or it could not build the request)
CRASHED = "crashed"  # the executor raised: a tool call must never raise
UNSATISFIABLE = "unsatisfiable"  # the generator found no value for the tool's schema
SENT = "not-judged"  # sent, with no oracle to judge it (a Swagger 2.0 document without a converted copy)
OUTCOMES = (ACCEPTED, REJECTED, REFUSED, CRASHED, UNSATISFIABLE, SENT)


@dataclass
class Attempt:
    tool: str
    method: str
    path: str
    kind: str  # the argument set's kind ("generated", "minimal"), or "" when none could be made
    outcome: str
    arguments: dict[str, Any] = field(default_factory=dict)
    request: str = ""  # the wire request, verbatim (request line, headers, body)
    detail: list[str] = field(default_factory=list)  # the oracle's errors, the executor's feedback, the crash
    unjudged: dict[str, str] = field(default_factory=dict)


class Capture:
    """An app for the mock's server: records every request as it arrived, answers 204 (or hands it on)."""

    def __init__(self, spec: Spec, inner: Any = None) -> None:
        self.spec, self.inner = spec, inner
        self._requests: list[Request] = []
        self._lock = threading.Lock()

    def handle(self, request: Request) -> Answer:
        with self._lock:
            self._requests.append(request)
        return self.inner.handle(request) if self.inner is not None else Answer(204)

    def take(self) -> list[Request]:
        with self._lock:
            taken, self._requests = self._requests, []
        return taken


def wire_text(request: Request) -> str:
    target = request.path + (f"?{request.query}" if request.query else "")
    head = "\n".join(f"{k}: {v}" for k, v in request.headers)
    body = (request.body or b"").decode("utf-8", "replace")
    return f"{request.method} {target}\n{head}" + (f"\n\n{body[:2000]}" if body else "")


def human_fixtures(spec: Spec, tool: Tool, seed: int) -> dict[str, Any]:
    """Values for the arguments a person supplies (secrets, files), generated from the original schema."""
    humans = [b for b in tool.bindings if b.human]
    if not humans:
        return {}
    schema = original_schema(spec, tool)
    out = {}
    for binding in humans:
        sub = schema.get("properties", {}).get(binding.argument)
        if sub is None:
            continue
        try:
            out[binding.argument] = draw(prepare_schema(sub, schema, header=binding.location in ("header", "cookie")),
                                         1, seed)[0]
        except Unsatisfiable:
            continue  # the executor's validation says what is missing
    return out


def attempts(spec: Spec, toolset: ToolSet, base_url: str, capture: Capture, oracle: Oracle | None, *,
             count: int = 3, seed: int = 0, budget_s: float = 10.0,
             progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> Iterator[Attempt]:
    executor = Executor(spec, toolset, CallOptions(base_url=base_url, mock=True, retries=0, deadline_s=10.0))
    for index, tool in enumerate(toolset.tools):
        if cancelled is not None and cancelled():
            return
        if progress is not None:
            progress(index, len(toolset.tools))
        yield from _tool_attempts(spec, executor, tool, capture, oracle, count, seed, budget_s)
    if progress is not None:
        progress(len(toolset.tools), len(toolset.tools))


def _tool_attempts(spec: Spec, executor: Executor, tool: Tool, capture: Capture, oracle: Oracle | None,
                   count: int, seed: int, budget_s: float) -> Iterator[Attempt]:
    op = tool.operation
    started = time.monotonic()
    try:
        sets = argument_sets(tool, count, seed, budget_s)
    except Unsatisfiable as why:
        yield Attempt(tool.name, op.method, op.path, "", UNSATISFIABLE, detail=[str(why)])
        return
    human = human_fixtures(spec, tool, seed)
    for argument_set in sets:
        if time.monotonic() - started > budget_s * 3:
            break
        arguments = {**argument_set.arguments, **human}
        yield _one(spec, executor, tool, argument_set.kind, arguments, capture, oracle)


def _one(spec: Spec, executor: Executor, tool: Tool, kind: str, arguments: dict, capture: Capture,
         oracle: Oracle | None) -> Attempt:
    op = tool.operation
    attempt = Attempt(tool.name, op.method, op.path, kind, REFUSED, arguments)
    capture.take()
    try:
        result = executor.call(ToolCall(tool.name, arguments))
    except Exception as error:  # a tool call must never raise: this is the defect being measured
        attempt.outcome = CRASHED
        attempt.detail = [f"{type(error).__name__}: {error}", traceback.format_exc(limit=-3).strip()]
        return attempt
    received = capture.take()
    if not received:
        violations = result.feedback.violations if result.feedback else []
        attempt.detail = [f"{v.place or '/'}: {v.expected} (given {v.given!r:.80})" for v in violations] or \
            [result.error or "nothing was sent"]
        return attempt
    request = received[0]
    attempt.request = wire_text(request)
    if oracle is None:
        attempt.outcome = SENT
        return attempt
    verdict: Verdict = oracle.judge(request.method, request.path + (f"?{request.query}" if request.query else ""),
                                    list(request.headers), request.body or b"", op.path)
    sent = check(spec, tool, arguments, executor.contract(tool)).arguments
    attempt.detail = verdict.errors or mismatches(tool, sent, verdict)
    attempt.unjudged = verdict.unjudged
    attempt.outcome = REJECTED if attempt.detail else ACCEPTED
    return attempt


def captured_attempts(spec: Spec, toolset: ToolSet, document: dict | None, *, count: int = 3, seed: int = 0,
                      budget_s: float = 10.0, progress: Callable[[int, int], None] | None = None,
                      cancelled: Callable[[], bool] | None = None) -> Iterator[Attempt]:
    """`attempts` against a capture server started for the run, judged by the oracle on `document` (the
    original OpenAPI 3.x document as a plain dict; None: sent, not judged)."""
    capture = Capture(spec)
    with MockServer(spec, app=capture) as server:
        oracle = Oracle(document, server.url) if document is not None else None
        yield from attempts(spec, toolset, server.url, capture, oracle, count=count, seed=seed, budget_s=budget_s,
                            progress=progress, cancelled=cancelled)
