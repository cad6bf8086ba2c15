"""Generated tool calls through the real executor to a server, each wire request judged by the independent
oracle, and each result blamed on who is at fault.

`attempts(...)` yields one `Attempt` per argument set, as it comes (cancellable, with progress). The target
is a `Target`: the mock started for the run (`mock_target`), a capture server that records each request
and answers 204 (`capture_target`: nothing but the oracle judges), or a server of the user's
(`remote_target`: read-only operations only unless writes are allowed).

Two things are said of each attempt: its `outcome` (what happened: accepted, rejected, refused, crashed,
unsatisfiable, not judged) and its `classification` (who is at fault, `classify`).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from workbench.http.calls import ToolCall
from workbench.http.executor import Approver, CallOptions, CallResult, Executor
from workbench.http.validate import schema_views
from workbench.mock.app import Answer, MockApp
from workbench.mock.router import base_path
from workbench.mock.server import MockServer
from workbench.policy import safety
from workbench.roundtrip.generate import (
    ArgumentSet,
    GeneratorStalled,
    Unsatisfiable,
    argument_sets,
    draw,
    prepare_schema,
)
from workbench.roundtrip.oracle import (
    NULLABLE_3_1,
    NULLABLE_ENUM,
    REQUIRED_UNDEFINED,
    UNTYPED_NULLABLE,
    Oracle,
    Verdict,
    mismatches,
)
from workbench.spec import Spec
from workbench.tools.model import Tool, ToolSet
from workbench.wire.messages import Request
from workbench.wire.validate import FORMAT_CHECKER

# what became of one argument set
ACCEPTED = "accepted"  # sent; the oracle accepted it and read back what was sent (and the server agreed)
REJECTED = "rejected"  # sent; the oracle or the server refused it, or the oracle read back something else
REFUSED = "refused"  # the executor did not send it (its validation, or it could not build the request)
CRASHED = "crashed"  # the executor raised: a tool call must never raise
UNSATISFIABLE = "unsatisfiable"  # the generator found no value for the tool's schema
SKIPPED = "skipped"  # not sent on purpose (a write against a server of the user's)
SENT = "not-judged"  # sent, with no oracle to judge it (a Swagger 2.0 document without a converted copy)
OUTCOMES = (ACCEPTED, REJECTED, REFUSED, CRASHED, UNSATISFIABLE, SKIPPED, SENT)

# who is at fault
PASSED = "passed"
GENERATOR = "generator dialect"  # the generator made something the tool schema does not mean
CONVERSION = "conversion loss"  # the tool schema allows what the operation forbids (or drops what it needs)
EXECUTOR = "executor bug"  # valid arguments serialised wrongly (the independent judge says so), or a crash
MOCK = "mock limitation"  # the mock refused (or failed on) what the independent judge accepts
SPEC = "spec self-contradiction"  # no value satisfies the schema, or an example fails its own schema
SERVER = "server disagreement"  # a server of the user's refused what the spec accepts
NOT_RUN = "not run"
CLASSIFICATIONS = (PASSED, GENERATOR, CONVERSION, EXECUTOR, MOCK, SPEC, SERVER, NOT_RUN)
FAILING = frozenset({CONVERSION, EXECUTOR})  # what fails a run (exit 1)
JUDGE = "<judge>"  # the key of an attempt's `unjudged` when the judge itself failed
UNRESOLVED = "could not be resolved"  # the judge's words for a discriminator value that names no schema
ONE_OF_OVERLAP = "is valid under each of"  # jsonschema's words for a value that matches several oneOf members


@dataclass
class Attempt:
    tool: str
    method: str
    path: str
    kind: str  # the argument set's kind ("minimal", "generated", "example"), or "" when none could be made
    index: int  # the set's place among the tool's sets (with the seed, it names the set again)
    outcome: str
    arguments: dict[str, Any] = field(default_factory=dict)
    status: int | None = None
    request: str = ""  # the wire request, verbatim (request line, headers, body)
    detail: list[str] = field(default_factory=list)  # the server's or the oracle's words, the executor's feedback
    oracle: list[str] = field(default_factory=list)  # the oracle's errors and misread values
    unjudged: dict[str, str] = field(default_factory=dict)
    classification: str = PASSED
    disagreement: str = ""  # the oracle and the mock disagree: how
    judged: bool = False  # the independent judge read the request
    sent: dict[str, Any] = field(default_factory=dict, repr=False)  # with the human part: never in a report

    @property
    def key(self) -> str:
        """Names the case in a baseline by what was sent (the same seed makes the same sets), not by its
        place, which shifts when a set is added or a budget runs out."""
        digest = hashlib.sha1(json.dumps(self.arguments, sort_keys=True, default=str).encode()).hexdigest()[:12]
        return f"{self.method.upper()} {self.path} {self.kind}:{digest}"

    def to_json(self) -> dict:
        return {"tool": self.tool, "kind": self.kind, "index": self.index, "outcome": self.outcome,
                "classification": self.classification, "status": self.status, "arguments": self.arguments,
                "request": self.request, "detail": self.detail, "oracle": self.oracle,
                "unjudged": self.unjudged, "disagreement": self.disagreement}


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


@dataclass
class Target:
    """Where the calls go. `capture` is None for a server of the user's (the executor's request is judged)."""

    url: str
    capture: Capture | None
    kind: str  # "mock" | "capture" | "remote"
    allow_writes: bool = True
    approve: Approver | None = None  # a destructive call (the executor asks)
    approve_write: Callable[[Tool], bool] | None = None  # a server of the user's: asked once per write operation


@contextmanager
def mock_target(spec: Spec, seed: int = 0) -> Iterator[Target]:
    capture = Capture(spec, MockApp(spec, seed))
    with MockServer(spec, app=capture) as server:
        yield Target(server.url + base_path(spec), capture, "mock")  # the mock serves under the base path


@contextmanager
def capture_target(spec: Spec) -> Iterator[Target]:
    capture = Capture(spec)
    with MockServer(spec, app=capture) as server:
        yield Target(server.url, capture, "capture")


@contextmanager
def remote_target(url: str, allow_writes: bool = False,
                  approve_write: Callable[[Tool], bool] | None = None) -> Iterator[Target]:
    """A server of the user's: read-only operations only, unless writes are allowed, and then each write
    operation only when `approve_write` says yes (no one to ask: refused)."""
    answers: dict[str, bool] = {}

    def once(tool: Tool) -> bool:  # asked once per operation, whatever the number of argument sets
        if tool.name not in answers:
            answers[tool.name] = approve_write is not None and approve_write(tool)
        return answers[tool.name]

    def approve(request: Any, tool: Tool) -> bool:
        return once(tool)

    yield Target(url.rstrip("/"), None, "remote", allow_writes, approve, once if approve_write else None)


def wire_text(request: Request) -> str:
    target = request.path + (f"?{request.query}" if request.query else "")
    head = "\n".join(f"{k}: {v}" for k, v in request.headers)
    body = (request.body or b"").decode("utf-8", "replace")
    return f"{request.method} {target}\n{head}" + (f"\n\n{body[:2000]}" if body else "")


def stand_in_credentials(spec: Spec) -> dict[str, str]:
    """A made-up secret for every security scheme, for our own servers (the mock checks that credentials
    are there, not what they are); a server of yours gets the real ones from the environment or keyring."""
    return {name: "roundtrip:stand-in" for name in spec.components.security_schemes}


def human_fixtures(tool: Tool, schema: dict, seed: int) -> dict[str, Any]:
    """Values for the arguments a person supplies (secrets, files), generated from the original argument
    schema (`schema`: the executor's contract for the tool)."""
    humans = [b for b in tool.bindings if b.human]
    if not humans:
        return {}
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


def attempts(spec: Spec, toolset: ToolSet, target: Target, oracle: Oracle | None, *, count: int = 3, seed: int = 0,
             budget_s: float = 10.0, progress: Callable[[int, int], None] | None = None,
             cancelled: Callable[[], bool] | None = None) -> Iterator[Attempt]:
    """Every tool's argument sets through the executor to `target`, each attempt classified, as they come.
    `budget_s` bounds the time spent on one operation."""
    executor = target_executor(spec, toolset, target)
    for index, tool in enumerate(toolset.tools):
        if cancelled is not None and cancelled():
            return
        if progress is not None:
            progress(index, len(toolset.tools))
        yield from tool_attempts(spec, executor, tool, target, oracle, count, seed, budget_s)
    if progress is not None:
        progress(len(toolset.tools), len(toolset.tools))


def target_executor(spec: Spec, toolset: ToolSet, target: Target) -> Executor:
    """The executor a round trip calls `target` with: no retries, approval as the target says, stand-in
    credentials for our own servers."""
    options = CallOptions(base_url=target.url, mock=target.kind != "remote", retries=0, deadline_s=10.0,
                          approve=target.approve,
                          credentials=stand_in_credentials(spec) if target.kind != "remote" else {})
    return Executor(spec, toolset, options)


def tool_attempts(spec: Spec, executor: Executor, tool: Tool, target: Target, oracle: Oracle | None,
                  count: int, seed: int, budget_s: float) -> Iterator[Attempt]:
    """One tool's argument sets through `executor` to `target`, each attempt classified. Depends on the tool,
    the seed and the servers only, never on the tools before it: a worker of a pool can run any tool."""
    op = tool.operation
    if target.kind == "remote" and not safety(tool.operation).read_only:
        why = ("a write: not sent to a server of yours without --allow-writes" if not target.allow_writes else
               None if target.approve_write is not None and target.approve_write(tool) else
               "a write that was not approved (no terminal to ask, or the answer was no)")
        if why:
            yield Attempt(tool.name, op.method, op.path, "", 0, SKIPPED, classification=NOT_RUN, detail=[why])
            return
    try:
        sets = argument_sets(tool, count, seed, budget_s)
    except GeneratorStalled as why:
        yield Attempt(tool.name, op.method, op.path, "", 0, UNSATISFIABLE, classification=GENERATOR,
                      detail=[f"no arguments were made: {why}"])
        return
    except Unsatisfiable as why:
        yield Attempt(tool.name, op.method, op.path, "", 0, UNSATISFIABLE, classification=SPEC,
                      detail=[f"no arguments satisfy the tool's schema: {why}"])
        return
    human = human_fixtures(tool, executor.contract(tool).schema, seed)
    validator = jsonschema.Draft202012Validator(tool.parameters,
                                                format_checker=FORMAT_CHECKER)
    started = time.monotonic()  # the budget for sending starts once the sets are made
    for index, argument_set in enumerate(sets):
        if index and time.monotonic() - started > budget_s:
            yield Attempt(tool.name, op.method, op.path, argument_set.kind, index, SKIPPED, classification=NOT_RUN,
                          detail=[f"the operation's time budget ({budget_s:g} s) was spent"])
            break
        attempt = _one(spec, executor, tool, argument_set, index, human, target, oracle)
        if argument_set.kind == "example":  # the spec's own values: not the generator's, not the tool's form
            attempt.classification = classify(attempt, target.kind, [])
            if attempt.classification == CONVERSION:
                attempt.classification = SPEC
                attempt.detail.insert(0, f"the spec's examples fail its own schema ({op.origin})")
        else:
            attempt.classification = classify(attempt, target.kind, _dialect(validator, argument_set))
        yield attempt


def _dialect(validator: Any, argument_set: ArgumentSet) -> list[str]:
    """What in a generated set the tool's own schema does not allow (the generator's fault, not ours)."""
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300]
            for e in validator.iter_errors(argument_set.arguments)]


def _one(spec: Spec, executor: Executor, tool: Tool, argument_set: ArgumentSet, index: int, human: dict,
         target: Target, oracle: Oracle | None) -> Attempt:
    op = tool.operation
    arguments = {**argument_set.arguments, **human}
    attempt = Attempt(tool.name, op.method, op.path, argument_set.kind, index, REFUSED, argument_set.arguments,
                      sent=arguments)
    if target.capture is not None:
        target.capture.take()
    try:
        result = executor.call(ToolCall(tool.name, arguments))
    except Exception as error:  # a tool call must never raise
        attempt.outcome = CRASHED
        attempt.detail = [f"{type(error).__name__}: {error}", traceback.format_exc(limit=-3).strip()]
        return attempt
    attempt.status = result.status
    received = target.capture.take() if target.capture is not None else []
    request = received[0] if received else _as_wire(result)
    if request is None or (target.capture is not None and not received):
        _not_sent(attempt, result, executor.contract(tool).schema)
        return attempt
    # everything shown of an attempt is masked: with --base-url the credentials are real
    attempt.request = result.masked(wire_text(request))
    attempt.detail = result.masked(_answer_detail(result))
    if oracle is not None:
        attempt.judged = True
        try:
            verdict: Verdict = oracle.judge(request.method,
                                            request.path + (f"?{request.query}" if request.query else ""),
                                            list(request.headers), request.body or b"", op.path)
        except Exception as error:  # the judge's own failure on an odd document: said, not fatal
            attempt.unjudged = {JUDGE: f"the judge failed: {type(error).__name__}: {str(error)[:200]}"}
            attempt.judged = False
        else:
            attempt.oracle = result.masked(verdict.errors or mismatches(tool, result.arguments or {}, verdict))
            attempt.unjudged = verdict.unjudged
    refused_by_server = target.kind != "capture" and (result.status is None or result.status >= 400)
    if oracle is None and not refused_by_server:
        attempt.outcome = SENT
    else:
        attempt.outcome = REJECTED if attempt.oracle or refused_by_server else ACCEPTED
    return attempt


def _not_sent(attempt: Attempt, result: CallResult, schema: dict) -> None:
    """Nothing went out: refused by the executor's check of the arguments (`schema`: the original argument
    schema it checks against), or unwritable on the wire (the conversion's fault), or not sent for another
    reason (no approval, a credential the wire cannot carry, a server of yours that did not answer: not run)."""
    violations = result.feedback.violations if result.feedback else []
    attempt.detail = result.masked([f"{v.place or '/'}: {v.expected} (given {v.given!r:.80})" for v in violations]
                                   or [result.error or "nothing was sent"])
    if not violations and not (result.error or "").startswith("cannot build the request"):
        attempt.outcome = SKIPPED
    undefined = [_required_undefined(v, schema) for v in violations]
    if violations and all(undefined):
        attempt.detail.insert(0, f"{REQUIRED_UNDEFINED}: {'; '.join(sorted(set(undefined)))} (define it, or take it "
                                 "out of `required`)")


_REQUIRED = re.compile(r"'(.*)' is required$")


def _required_undefined(violation: Any, schema: dict) -> str | None:
    """"'grant_type' required by PostOAuth2Revoke at /body" when the violation is a required property that the
    schema at its place does not define (Box's token revocation: the tool can offer only defined properties,
    so no call can carry it); None for any other violation."""
    missing = _REQUIRED.match(violation.expected)
    if missing is None:
        return None
    node, named = schema, "the schema"
    for token in [t for t in (violation.place or "").split("/") if t]:
        node, named = _deref(node, schema, named)
        node = (node.get("items") if token.isdigit() and "items" in node else
                (node.get("properties") or {}).get(token.replace("~1", "/").replace("~0", "~"))) or {}
    node, named = _deref(node, schema, named)
    if any(missing.group(1) in (m.get("properties") or {}) or _carries_others(m)
           for m in schema_views(node, schema)):
        return None
    return f"{missing.group(1)!r} required by {named} at {violation.place or '/'}"


def _carries_others(node: dict) -> bool:
    """Whether the object takes properties it does not name (`additionalProperties` not false, or a pattern)."""
    extra = node.get("additionalProperties")
    return ("additionalProperties" in node and extra is not False) or bool(node.get("patternProperties"))


def _deref(node: Any, root: dict, named: str) -> tuple[dict, str]:
    """A node of the argument schema with its `#/$defs/` references followed, and the name of the last one."""
    for _ in range(32):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#/$defs/")):
            break
        named = ref[len("#/$defs/"):]
        node = root.get("$defs", {}).get(named, {})
    return (node if isinstance(node, dict) else {}), named


def _as_wire(result: CallResult) -> Request | None:
    """The executor's request as a wire `Request` (for a server of the user's, where nothing captures it)."""
    if result.request is None or result.status is None:
        return None
    return Request.from_url(result.request.method, result.request.url, result.request.headers,
                            result.request.body)


def _answer_detail(result: CallResult) -> list[str]:
    """The server's own words for a refusal, verbatim: a problem+json `validation` list, else the body."""
    if result.status is None:
        return [result.error] if result.error else []
    if result.status < 400:
        return []
    body = result.body
    if isinstance(body, dict) and isinstance(body.get("validation"), list):
        return [json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v for v in body["validation"]]
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return [f"{result.status}: {text[:500]}"]


def classify(attempt: Attempt, target: str, dialect: list[str]) -> str:
    """Who is at fault for one attempt (never left unclassified):
    - the generator made something the tool schema does not mean → generator dialect;
    - the executor raised → executor bug; it refused a set the tool schema allows → conversion loss, unless
      only because the value matches several members of the spec's oneOf, or lacks a required property the
      schema does not define (spec self-contradiction);
    - the independent judge refused (or misread) what the executor sent, which passed its own check against
      the original operation → executor bug (wrong wire), whatever the mock said;
    - the judge accepted and the mock refused or failed → mock limitation; a server of yours → server
      disagreement."""
    if attempt.outcome in (SKIPPED,):
        return NOT_RUN
    if attempt.outcome == UNSATISFIABLE:
        return SPEC
    if attempt.outcome == CRASHED:  # whatever the arguments: a tool call never raises
        return EXECUTOR
    if dialect:
        attempt.detail = [*attempt.detail, *(f"the tool schema does not allow: {d}" for d in dialect)]
        return GENERATOR
    if attempt.outcome == REFUSED:
        return _refused(attempt)
    server_refused = attempt.status is None or attempt.status >= 400
    if attempt.oracle and _spec_at_fault(attempt):
        return SPEC
    if attempt.oracle:
        if target == "mock" and not server_refused:
            attempt.disagreement = "the mock accepted what the independent judge refused"
        return EXECUTOR
    if server_refused and target == "mock":
        if attempt.judged and not attempt.unjudged:
            attempt.disagreement = "the independent judge accepted what the mock refused"
        return MOCK
    if server_refused and target == "remote":
        return SERVER
    return PASSED


def _spec_at_fault(attempt: Attempt) -> bool:
    """Every refusal of the judge is the spec's own contradiction: a discriminator naming no schema, or a
    null the spec means (and the tool offers) that OpenAPI 3.0.3's letter forbids, or a required property the
    schema does not define (the judge says where)."""
    if all(UNRESOLVED in o for o in attempt.oracle):
        attempt.detail.insert(0, "the spec's discriminator names a schema that does not exist (no mapping, "
                                 "and no schema of that name)")
        return True
    return all(any(said in o for said in (UNTYPED_NULLABLE, NULLABLE_ENUM, NULLABLE_3_1, REQUIRED_UNDEFINED))
               for o in attempt.oracle)


def _refused(attempt: Attempt) -> str:
    """The executor refused a set the tool schema allows: the conversion lost a rule of the operation,
    unless the only rule is that the value may match just one member of a oneOf whose members overlap, or
    that it must carry a required property its schema does not define (the spec's contradictions)."""
    if attempt.detail and all(ONE_OF_OVERLAP in d for d in attempt.detail):
        attempt.detail.insert(0, "the spec's oneOf members overlap: one value matches several of them")
        return SPEC
    if attempt.detail and attempt.detail[0].startswith(REQUIRED_UNDEFINED):
        return SPEC  # said by `_not_sent`
    return CONVERSION


def captured_attempts(spec: Spec, toolset: ToolSet, document: dict | None, **options: Any) -> Iterator[Attempt]:
    """`attempts` against a capture server started for the run, judged by the oracle on `document` (the
    original OpenAPI 3.x document as a plain dict; None: sent, not judged)."""
    with capture_target(spec) as target:
        oracle = Oracle(document, target.url) if document is not None else None
        yield from attempts(spec, toolset, target, oracle, **options)
