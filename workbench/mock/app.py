"""What the mock answers, without the socket: route, credentials, the request checked against its
operation (`wire.validate`), then the response the spec declares (`mock.responses`). Every answer is
computed here; the server only reads and writes bytes."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from workbench.config import FaultRule
from workbench.mock.faults import FAULTS, rule_names
from workbench.mock.responses import MockResponse, NoSuchResponse, NotAcceptable, ResponseMaker
from workbench.mock.router import Router
from workbench.mock.state import Store, json_body
from workbench.spec import Operation, Spec
from workbench.wire import split_query
from workbench.wire.messages import Request
from workbench.wire.validate import OperationContract, SchemaStore, Violation, match_path

PROBLEM = "application/problem+json"
RESET_PATH = "/__mock/reset"  # POST here forgets every stateful resource
_CORS = (("Access-Control-Allow-Origin", "*"), ("Access-Control-Expose-Headers", "*"))
LOG_SIZE = 10_000  # the request log keeps the newest entries


@dataclass(frozen=True)
class Answer:
    """A response as it goes on the wire (the server adds Content-Length and Connection), and how the server
    is to misbehave while sending it: after `delay_s`, and with `fault` (one of FAULTS) if asked."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    delay_s: float = 0.0
    fault: str | None = None
    injected: bool = False  # the status was asked for (Prefer: status=…, a fault rule), not the spec's


def fault_note(answer: Answer) -> str | None:
    """What the mock broke on purpose in an answer, in a few words (the request log's `fault`)."""
    said = [f"status {answer.status}"] if answer.injected else []
    said += [f"delay {answer.delay_s * 1000:.0f} ms"] if answer.delay_s else []
    said += [answer.fault] if answer.fault else []
    return ", ".join(said) or None


MAX_DELAY_MS = 60_000


@dataclass(frozen=True)
class LogEntry:
    method: str
    path: str  # as requested, with the query
    status: int
    seconds: float
    operation: str | None  # "GET /pets/{petId}", or None when nothing matched
    violations: tuple[str, ...] = ()  # "query/limit: expected …"
    fault: str | None = None  # what the mock broke on purpose: "status 503", "reset", "delay 200 ms", …

    def to_json(self) -> dict[str, Any]:
        out = {"method": self.method, "path": self.path, "status": self.status, "ms": round(self.seconds * 1000, 3),
               "operation": self.operation, "violations": list(self.violations)}
        return {**out, "fault": self.fault} if self.fault else out


@dataclass(frozen=True)
class Preferences:
    """The request's `Prefer` header: `code=404`, `example=NAME`, `dynamic=true`, `seed=N`, and the faults
    `status=503` (declared or not), `delay=MS`, `fault=reset|empty|…`, `retry-after=S`."""

    code: int | None = None
    example: str | None = None
    dynamic: bool = False
    seed: int | None = None
    status: int | None = None
    delay_ms: int = 0
    fault: str | None = None
    retry_after: str | None = None

    @classmethod
    def parse(cls, values: list[str]) -> Preferences:
        given: dict[str, str] = {}
        for value in values:
            for part in value.split(","):
                key, _, item = part.strip().partition("=")
                given[key.strip().lower()] = item.strip().strip('"')
        code, seed, status = given.get("code", ""), given.get("seed", ""), given.get("status", "")
        delay, fault = given.get("delay", ""), given.get("fault", "").lower()
        if fault and fault not in FAULTS:
            raise ValueError(f"Prefer: unknown fault {fault!r} (known: {', '.join(FAULTS)})")
        if status and not (status.isdigit() and 100 <= int(status) <= 599):
            raise ValueError(f"Prefer: status must be an HTTP status, not {status!r}")
        return cls(int(code) if code.isdigit() else None, given.get("example") or None,
                   given.get("dynamic", "").lower() == "true", int(seed) if seed.lstrip("-").isdigit() else None,
                   int(status) if status else None, min(int(delay), MAX_DELAY_MS) if delay.isdigit() else 0,
                   fault or None, given.get("retry-after") or None)


class MockApp:
    def __init__(self, spec: Spec, seed: int = 0, *, cors: bool = False, stateful: bool = False,
                 faults: tuple[FaultRule, ...] = (), on_log: Callable[[LogEntry], None] | None = None) -> None:
        self.spec = spec
        self.faults = faults  # the config's rules, applied where a request's Prefer asks for no fault itself
        self._fault_counts = [0] * len(faults)
        self._fault_rng = random.Random(seed)
        self.state = Store(spec) if stateful else None
        self.cors = cors  # browser clients: every answer allows any origin, preflights are answered
        self.on_log = on_log  # told of every entry as it is made (`--log FILE` writes JSON lines)
        self.router = Router(spec)
        self.responses = ResponseMaker(spec, seed)
        self.store = SchemaStore(spec)
        self._contracts: dict[int, OperationContract] = {}
        self._log: deque[LogEntry] = deque(maxlen=LOG_SIZE)
        self._lock = threading.Lock()

    def set_faults(self, faults: tuple[FaultRule, ...]) -> None:
        """Serve with other fault rules from now on (their counts start again: "fail 2 then succeed" fails twice
        more)."""
        with self._lock:
            self.faults = faults
            self._fault_counts = [0] * len(faults)

    def log(self) -> list[LogEntry]:
        with self._lock:
            return list(self._log)

    def handle(self, request: Request) -> Answer:
        """The answer to one parsed request; never raises (a defect here is a 400 that says so, not a 5xx)."""
        began = time.perf_counter()
        op: Operation | None = None
        violations: list[Violation] = []
        try:
            op, violations, answer = self._answer(request)
        except Exception as exc:
            answer = problem(400, "The mock could not handle this request", f"{type(exc).__name__}: {exc}")
        path = request.path + (f"?{request.query}" if request.query else "")
        entry = LogEntry(request.method, path, answer.status, time.perf_counter() - began,
                         f"{op.method.upper()} {op.path}" if op else None,
                         tuple(f"{v.place}: expected {v.expected}" for v in violations), fault_note(answer))
        with self._lock:
            self._log.append(entry)
        if self.on_log is not None:
            self.on_log(entry)
        return replace(answer, headers=answer.headers + _CORS) if self.cors else answer

    def _answer(self, request: Request) -> tuple[Operation | None, list[Violation], Answer]:
        method = request.method.upper()
        if method == "POST" and self.router.relative(request.path) == RESET_PATH:
            if self.state is not None:
                self.state.reset()
            return None, [], Answer(204)
        if self.cors and method == "OPTIONS" and request.header_values("access-control-request-method"):
            return None, [], Answer(204, (("Access-Control-Allow-Methods", "*"),
                                          ("Access-Control-Allow-Headers", "*"), ("Access-Control-Max-Age", "600")))
        as_method = "GET" if method == "HEAD" else method  # HEAD is GET without the body (the server drops it)
        route = self.router.route(as_method, request.path)
        if route is None:
            return None, [], problem(404, "No such path", f"{request.path} is not a path of this API")
        if route.operation is None:
            allow = (("Allow", ", ".join(route.allowed)),)
            if method == "OPTIONS":
                return None, [], Answer(204, allow)
            return None, [], problem(405, "Method not allowed",
                                     f"{method} is not an operation of {request.path}", allow)
        op = route.operation
        if not self._credentials_given(op, request):
            return op, [], problem(401, "Credentials missing", "this operation needs credentials: "
                                   + " or ".join(" + ".join(alt) or "none" for alt in self._requirements(op)),
                                   (("WWW-Authenticate", "Bearer"),))
        relative = Request(as_method, self.router.relative(request.path) or "/", request.query,
                           request.headers, request.body)
        violations = self._contract(op).check(relative)
        if violations:
            return op, violations, self._invalid(op, violations)
        return op, [], self._respond(op, relative)

    def _contract(self, op: Operation) -> OperationContract:
        contract = self._contracts.get(id(op))
        if contract is None:
            contract = self._contracts[id(op)] = OperationContract(self.spec, op, self.store)
        return contract

    def _respond(self, op: Operation, request: Request) -> Answer:
        try:
            prefer = Preferences.parse(request.header_values("prefer"))
        except ValueError as exc:
            return problem(400, "Bad Prefer header", str(exc))
        if prefer.status is None and prefer.fault is None and not prefer.delay_ms:
            prefer = self._configured_fault(op, prefer)
        answer = self._declared(op, request, prefer)
        if self.state is not None and self.state.role(op) and prefer.code is None and prefer.status is None:
            answer = self._stateful(op, request, answer)
        extra = (("Retry-After", prefer.retry_after),) if prefer.retry_after else ()
        return replace(answer, headers=answer.headers + extra, delay_s=prefer.delay_ms / 1000, fault=prefer.fault,
                       injected=prefer.status is not None)

    def _configured_fault(self, op: Operation, prefer: Preferences) -> Preferences:
        """The first of the config's fault rules for `op` that fires on this request, as preferences."""
        names = rule_names(op)
        with self._lock:
            for i, rule in enumerate(self.faults):
                if rule.operation not in names:
                    continue
                self._fault_counts[i] += 1
                if rule.times is not None and self._fault_counts[i] > rule.times:
                    continue
                if rule.probability < 1 and self._fault_rng.random() >= rule.probability:
                    continue
                return replace(prefer, status=rule.status, fault=rule.fault, delay_ms=rule.delay_ms,
                               retry_after=rule.retry_after or prefer.retry_after)
        return prefer

    def _stateful(self, op: Operation, request: Request, answer: Answer) -> Answer:
        """The declared answer with the stored resource in it (or the operation's 404 when there is none)."""
        if answer.status >= 300:
            return answer
        generated = json_body(answer.body) if _is_json(answer) else None
        def another(n: int) -> object:
            try:
                return json_body(self.responses.respond(op, dynamic=True, seed=n).body)
            except (NoSuchResponse, NotAcceptable):
                return None

        what, value = self.state.apply(op, match_path(op.path, request.path) or {}, json_body(request.body),
                                       generated, another)
        if what == "missing":
            try:
                return _from_made(self.responses.respond(op, code=404))
            except (NoSuchResponse, NotAcceptable):
                return problem(404, "No such resource", f"{request.path} was not created (or was deleted)")
        if what == "gone" or not _is_json(answer):
            return answer
        return replace(answer, body=json.dumps(value, ensure_ascii=False).encode())

    def _declared(self, op: Operation, request: Request, prefer: Preferences) -> Answer:
        if prefer.status is not None:  # an injected status, declared or not
            return problem(prefer.status, "Injected by the mock", f"Prefer: status={prefer.status}")
        accept = ", ".join(request.header_values("accept")) or None
        try:
            made = self.responses.respond(op, code=prefer.code, example=prefer.example, dynamic=prefer.dynamic,
                                          seed=prefer.seed, accept=accept)
        except NotAcceptable as exc:
            return problem(406, "Not acceptable", str(exc))
        except NoSuchResponse as exc:
            return problem(400, "No such response", str(exc))
        return _from_made(made)

    def _invalid(self, op: Operation, violations: list[Violation]) -> Answer:
        """415 for a body in a media type the operation does not take; else the operation's own 422, else
        its 400, else its `default`, else 422 — always with the list of what to fix."""
        if any(v.place == "header/Content-Type" for v in violations):
            status = 415
        else:
            declared = {r.status for r in op.responses}
            status = next((int(code) for code in ("422", "400") if code in declared), 422)
        return problem(status, "Invalid request", f"{len(violations)} thing(s) to fix in the request",
                       body_extra={"validation": [validation_item(v) for v in violations]})

    def _requirements(self, op: Operation) -> list[tuple[str, ...]]:
        security = op.security if op.security is not None else self.spec.security
        return [tuple(requirement) for requirement in security or ()]

    def _credentials_given(self, op: Operation, request: Request) -> bool:
        requirements = self._requirements(op)
        if not requirements:
            return True
        schemes = self.spec.components.security_schemes
        return any(all(_scheme_given(schemes.get(name, {}), request) for name in alternative)
                   for alternative in requirements)


def _scheme_given(scheme: dict, request: Request) -> bool:
    kind = scheme.get("type")
    if kind == "apiKey":
        name, where = str(scheme.get("name", "")), scheme.get("in")
        if where == "header":
            return bool(request.header_values(name))
        if where == "query":
            return any(key == name for key, _ in split_query(request.query))
        if where == "cookie":
            return any(part.strip().startswith(name + "=") for value in request.header_values("cookie")
                       for part in value.split(";"))
        return True
    authorization = " ".join(request.header_values("authorization")).strip()
    if kind == "http":
        wanted = str(scheme.get("scheme", "")).lower()
        return authorization.lower().startswith(wanted + " ") if wanted else bool(authorization)
    if kind in ("oauth2", "openIdConnect"):
        return bool(authorization)
    return True  # mutualTLS and unknown kinds: nothing the mock can check


def validation_item(violation: Violation) -> dict[str, Any]:
    """One entry of a refusal's `validation` array (application/problem+json): `location` (path, query,
    header, cookie, body), `name` (the parameter, or the body's property path), `message` and `expected`
    (what would be accepted), `given` (what came), `pointer` (into a body: RFC 6901) and `schemaPointer`:
    where the spec says the rule, the JSON pointer of the violated keyword in the spec's document
    (`#/components/schemas/Pet/properties/name/minLength`), when it is known."""
    location, _, name = violation.place.partition("/")
    item: dict[str, Any] = {"location": location, "name": name, "message": f"expected {violation.expected}",
                            "expected": violation.expected}
    if location == "body":
        item["pointer"] = "/" + name if name else ""
    if violation.schema_pointer is not None:
        item["schemaPointer"] = violation.schema_pointer
    given = violation.given
    if given is not None:
        item["given"] = given if isinstance(given, (str, int, float, bool)) else str(given)
    return item


def problem(status: int, title: str, detail: str, headers: tuple[tuple[str, str], ...] = (),
            body_extra: dict[str, Any] | None = None) -> Answer:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail, **(body_extra or {})}
    return Answer(status, (("Content-Type", PROBLEM), *headers), json.dumps(body, ensure_ascii=False).encode())


def _is_json(answer: Answer) -> bool:
    kind = next((v for k, v in answer.headers if k.lower() == "content-type"), "")
    return kind.split(";")[0].strip().endswith(("/json", "+json"))


def _from_made(made: MockResponse) -> Answer:
    headers = made.headers + ((("Content-Type", made.content_type),) if made.content_type else ())
    return Answer(made.status, headers, made.body)
