"""Execute a tool call: validate against the original operation, merge the human part, pass the approval
gate, send with a total deadline and polite retries, and return a structured result and its text."""

from __future__ import annotations

import email.utils
import functools
import json
import os
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from workbench import wire
from workbench.http import auth
from workbench.http.calls import ToolCall
from workbench.http.request import HttpRequest, MissingPathValue, UnsendableArgument, build_request
from workbench.http.validate import (
    ArgumentContract,
    Checked,
    Feedback,
    Violation,
    argument_contract,
    check,
    feedback,
    unknown_tool,
)
from workbench.policy import safety
from workbench.spec import Spec
from workbench.tools.model import Tool, ToolSet

RETRY_STATUSES = frozenset((429, 503))
TEXT_BUDGET = 4000  # characters of response body fed back to a model

Approver = Callable[[HttpRequest, Tool], bool]


@dataclass
class CallOptions:
    base_url: str | None = None
    deadline_s: float = 30.0  # total, for the whole call including retries (httpx timeouts are per read)
    retries: int = 2
    retry_non_idempotent: bool = False
    approve: Approver | None = None  # asked before a destructive call goes to a non-mock server
    mock: bool = False  # the target is our mock: no approval needed
    read_only: bool = False  # refuse every write outright
    human: dict[str, Any] = field(default_factory=dict)  # the human part of the arguments
    credentials: dict[str, str] = field(default_factory=dict, repr=False)  # scheme → secret, before the env's
    transport: httpx.BaseTransport | None = None  # for an in-process server; normally the network


@dataclass
class CallResult:
    """What happened. `status` is None when nothing came back (refused, unreachable, deadline)."""

    tool: str
    request: HttpRequest | None
    status: int | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: Any = None
    elapsed_s: float = 0.0
    error: str | None = None
    attempts: int = 0
    feedback: Feedback | None = None  # when validation failed: what to tell the model
    repairs: list[str] = field(default_factory=list)
    coercions: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list, repr=False)
    arguments: dict[str, Any] | None = field(default=None, repr=False)  # as checked and sent (human part too)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def to_json(self) -> dict:
        """The documented shape, secrets masked."""
        request = None
        if self.request is not None:
            request = {"method": self.request.method, "url": self.request.url,
                       "headers": dict(self.request.headers),
                       "body": _body_text(self.request.body) if self.request.body is not None else None}
        out: dict[str, Any] = {"request": request, "status": self.status, "headers": _multi(self.headers),
                               "body": self.body}
        if self.error:
            out["error"] = self.error
        return self.masked(out)

    def to_text(self, budget: int = TEXT_BUDGET) -> str:
        """Compact, for feeding back to a model: status line, a few useful headers, the body trimmed."""
        if self.feedback is not None:
            return self.feedback.text
        if self.status is None:
            return f"The call to `{self.tool}` did not complete: {self.masked(self.error or 'no response')}"
        shown = self.masked({"headers": self.headers, "body": self.body})  # before trimming: no half secrets
        body = shown["body"] if isinstance(shown["body"], str) else json.dumps(shown["body"], ensure_ascii=False,
                                                                                default=str)
        if len(body) > budget:
            body = body[:budget] + f"… [{len(body) - budget} more characters]"
        useful = [f"{k}: {v}" for k, v in shown["headers"] if k.lower() in ("location", "retry-after", "content-type")]
        return "\n".join([f"HTTP {self.status}", *useful, "", body])

    def masked(self, value: Any) -> Any:
        """`value` with every secret of the call masked in every string it holds (the request sent them,
        and a server may echo them in a header or body): what shows a result goes through here."""
        return auth.mask_value(value, self.secrets)


def _multi(headers: list[tuple[str, str]]) -> dict[str, Any]:
    """Headers as a mapping; repeated ones (set-cookie) become lists, each value whole."""
    out: dict[str, Any] = {}
    for key, value in headers:
        key = key.lower()
        if key in out:
            out[key] = [*out[key], value] if isinstance(out[key], list) else [out[key], value]
        else:
            out[key] = value
    return out


def _body_text(body: bytes) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(body)} bytes>"


def is_destructive(tool: Tool) -> bool:
    """The call waits for a person's approval (workbench.policy: destructive, or marked as needing it)."""
    return safety(tool.operation).requires_approval


class Executor:
    """Runs tool calls for one converted tool set, remembering validation failures per tool so that the
    feedback from the second attempt on includes what was wrong before."""

    def __init__(self, spec: Spec, toolset: ToolSet, options: CallOptions | None = None) -> None:
        self.spec = spec
        self.toolset = toolset
        self.options = options or CallOptions()
        self.history: dict[str, list[list[Violation]]] = {}
        self.contracts: dict[str, ArgumentContract] = {}  # per tool, built on its first call

    def contract(self, tool: Tool) -> ArgumentContract:
        """The tool's original argument schema and validator, built once."""
        if tool.name not in self.contracts:
            self.contracts[tool.name] = argument_contract(self.spec, tool)
        return self.contracts[tool.name]

    def call(self, call: ToolCall) -> CallResult:
        tool = self.toolset.tool(call.name)
        if tool is None:
            message = unknown_tool(call.name, [t.name for t in self.toolset.tools])
            return CallResult(call.name, None, error=message, feedback=Feedback(call.name, message, [], 1))
        arguments = {**call.arguments, **{b.argument: self.options.human[b.argument] for b in tool.bindings
                                          if b.human and b.argument in self.options.human}}
        checked: Checked = check(self.spec, tool, arguments, self.contract(tool))
        if checked.ok:
            result = self.send(tool, checked.arguments)
            result.arguments = checked.arguments
            violations = result.feedback.violations if result.feedback else []  # valid, but not sendable as given
        else:
            result = CallResult(tool.name, None, error="validation failed")
            violations = checked.violations
        if violations:
            past = self.history.setdefault(tool.name, [])
            result.feedback = feedback(tool.name, call.arguments, violations, list(past))
            past.append(violations)
        else:
            self.history.pop(tool.name, None)
        result.repairs, result.coercions = list(call.repairs), checked.coercions
        return result

    def send(self, tool: Tool, arguments: dict[str, Any]) -> CallResult:
        options = self.options
        try:
            request = build_request(self.spec, tool, arguments, options.base_url)
        except UnsendableArgument as exc:
            return CallResult(tool.name, None, error=f"cannot build the request: {exc}",
                              feedback=feedback(tool.name, arguments, [exc.violation], []))
        except (MissingPathValue, wire.SerializationError) as exc:
            return CallResult(tool.name, None, error=f"cannot build the request: {exc}")
        applied = auth.apply_auth(self.spec.components.security_schemes,
                                  tool.operation.security if tool.operation.security is not None
                                  else self.spec.security, options.credentials)
        auth_headers = list(applied.headers.items())
        if applied.cookies:
            auth_headers.append(("Cookie", "; ".join(f"{k}={v}" for k, v in applied.cookies.items())))
        try:
            request.headers += [(name, wire.header_text(value)) for name, value in auth_headers]
        except wire.SerializationError as exc:
            return CallResult(tool.name, None, error=f"the credential cannot be sent in a header: {exc}",
                              secrets=applied.secrets)
        if applied.query:
            joiner = "&" if "?" in request.url else "?"
            pairs = [pair for k, v in applied.query for pair in wire.serialize_query(k, v)]
            request.url += joiner + wire.join_query(pairs)
        result = CallResult(tool.name, request, secrets=applied.secrets)
        if options.read_only and not safety(tool.operation).read_only:
            result.error = "refused: read-only mode allows no writes"
            return result
        if is_destructive(tool) and not options.mock and (options.approve is None or
                                                          not options.approve(request, tool)):
            result.error = "refused: this call is destructive and was not approved"
            return result
        if not request.url.startswith(("http://", "https://")):
            result.error = f"no absolute server URL for {request.url!r}: give a base URL"
            return result
        return self._send_with_retries(request, result, safety(tool.operation).idempotent is True)

    def _send_with_retries(self, request: HttpRequest, result: CallResult, idempotent: bool) -> CallResult:
        options = self.options
        started = time.monotonic()
        deadline = started + options.deadline_s
        retryable = idempotent or options.retry_non_idempotent
        for attempt in range(1, options.retries + 2):
            result.attempts = attempt
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                result.error = f"deadline of {options.deadline_s:g} s exceeded"
                break
            try:  # a client per attempt: the deadline's watchdog closes it, and no later attempt uses it
                with httpx.Client(transport=options.transport, follow_redirects=True, verify=_tls()) as client:
                    status, headers, data = _exchange(client, request, deadline)
            except _DeadlineExceeded:
                result.error = f"deadline of {options.deadline_s:g} s exceeded"
                break
            except (httpx.HTTPError, httpx.InvalidURL, RuntimeError) as exc:
                result.error = f"{type(exc).__name__}: {exc}"
                if retryable and attempt <= options.retries and isinstance(exc, httpx.TransportError):
                    time.sleep(min(0.2 * 2 ** (attempt - 1), max(0.0, deadline - time.monotonic())))
                    continue
                break
            result.status, result.headers, result.error = status, headers, None
            result.body = _parse_body(data, _header(headers, "content-type"))
            if status in RETRY_STATUSES and retryable and attempt <= options.retries:
                wait = _retry_after(_header(headers, "retry-after"), attempt)
                if time.monotonic() + wait < deadline:
                    time.sleep(wait)
                    continue
            break
        result.elapsed_s = time.monotonic() - started
        return result


def _tls() -> ssl.SSLContext:
    """httpx's own default TLS context (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set), built
    once per setting: loading the certificates takes about 50 ms, and httpx would do it for every client."""
    return _tls_for(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _tls_for(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()


class _DeadlineExceeded(Exception):
    pass


def _exchange(client: httpx.Client, request: HttpRequest, deadline: float) -> tuple[int, list, bytes]:
    """One request, ended at the total deadline whatever the server does: httpx's timeouts are per read, so a
    server that dribbles its head or body a byte at a time would never trip them. A watchdog closes the
    client's connections at the deadline (the read in progress then fails), and the body is read with a
    check of the deadline between chunks."""
    timeout = max(0.01, deadline - time.monotonic())
    fired = threading.Event()

    def stop() -> None:
        fired.set()
        client.close()

    watchdog = threading.Timer(timeout, stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        with client.stream(request.method, request.url, headers=request.headers, content=request.body,
                           timeout=httpx.Timeout(timeout)) as response:
            chunks = []
            for chunk in response.iter_raw():
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise _DeadlineExceeded
            data = b"".join(chunks)
            encoding = response.headers.get("content-encoding")
            if encoding:
                data = httpx.Response(response.status_code, headers=response.headers, content=data).content
            return response.status_code, list(response.headers.multi_items()), data
    except (httpx.HTTPError, RuntimeError):
        if fired.is_set():
            raise _DeadlineExceeded from None
        raise
    finally:
        watchdog.cancel()  # firing late is harmless: this attempt's client is not used again


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


def _retry_after(value: str | None, attempt: int) -> float:
    if value:
        value = value.strip()
        if value.isdigit():
            return float(value)
        when = email.utils.parsedate_to_datetime(value) if value else None
        if when is not None:
            return max(0.0, when.timestamp() - time.time())
    return 0.2 * 2 ** (attempt - 1)


def _parse_body(data: bytes, content_type: str | None) -> Any:
    if not data:
        return None
    media = (content_type or "").split(";")[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        try:
            return json.loads(data)
        except ValueError:
            pass
    if media.startswith("text/") or media in ("application/xml", "application/javascript") or \
            media.endswith("+xml") or not media:
        return data.decode("utf-8", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(data)} bytes of {media}>"


def retry_loop(executor: Executor, ask_model: Callable[[str], ToolCall], first: ToolCall,
               attempts: int = 3) -> CallResult:
    """Call; on validation failure hand the feedback to `ask_model` for a corrected call; at most
    `attempts` calls in all (3 by default, as in the reference agent)."""
    call = first
    result = executor.call(call)
    for _ in range(attempts - 1):
        if result.feedback is None:
            return result
        call = ask_model(result.feedback.text)
        result = executor.call(call)
    return result
