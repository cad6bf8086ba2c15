"""The `openai-chat` and `openai-responses` runners: each case sent through the official `openai` client to
any OpenAI-compatible endpoint (OpenAI, gateways, vLLM, Ollama, llama.cpp, LM Studio, the Anthropic and
Gemini compatibility endpoints), with the offered tools in the vendor's own shape, and the answer read back
as the calls the model made — malformed and unknown ones kept as they came, for the judge to name.

The client's own retries are off: ours count against the request budget, honour Retry-After, and stop when
the run is cancelled. The key goes to the client and nowhere else; any text that could carry it is scrubbed."""

from __future__ import annotations

import email.utils
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import openai

from workbench.selection.cache import Cache, canonical_json, endpoint_of, request_key, tools_text
from workbench.selection.keys import api_key, effective_base_url
from workbench.selection.model import (
    API_VENDOR,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    Called,
    Cancelled,
    ModelSettings,
    Progress,
    Sample,
    SampleRequest,
)
from workbench.spec import SpecError
from workbench.tools.model import ToolSet

RETRY_AFTER_CAP = 60.0  # seconds: a server asking for longer is waited for this long, then asked again
BACKOFF_CAP = 30.0
BUDGET_SPENT = "request budget spent"
# Statuses after which every other request would fail the same way (bad key, no such model or path).
FATAL_STATUSES = (401, 403, 404)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds to wait: delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


def scrub(text: str, secret: str | None) -> str:
    """One line, the key (and any bearer token) replaced, bounded in length."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "********")
    text = re.sub(r"(?i)(bearer\s+)\S+", r"\1********", text)
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


@dataclass(frozen=True)
class _Job:
    request: SampleRequest
    body: dict[str, Any]  # the keyword arguments of the create call: exactly what is sent
    key: str  # the cache key


class _Retry(Exception):
    def __init__(self, error: str, wait_s: float | None) -> None:
        super().__init__(error)
        self.error = error
        self.wait_s = wait_s  # what the server asked for (Retry-After), if anything


class OpenAIRunner:
    """Takes samples from a model through the `openai` client. `requests_sent` counts HTTP requests actually
    sent (retries included); `cache_hits` the samples answered from the disk cache."""

    def __init__(self, settings: ModelSettings, *, api: str, cache: Cache | None, concurrency: int = 4,
                 max_requests: int | None = None, retries: int = 4, backoff: float = 0.5) -> None:
        if api not in API_VENDOR:
            raise SpecError(f"unknown API {api!r}: use {' or '.join(API_VENDOR)}", "<model settings>")
        if not settings.model:
            raise SpecError(f"the {api} runner needs a model: set model in the suite or pass --model",
                            "<model settings>")
        self.name = api
        self.makes_arguments = True
        self.settings = settings
        self.cache = cache
        self.concurrency = max(1, concurrency)
        self.max_requests = max_requests
        self.retries = max(0, retries)
        self.backoff = backoff
        self.base_url = effective_base_url(settings.base_url)
        self.endpoint = endpoint_of(self.base_url)
        self._key = api_key(settings, settings.base_url)
        self._client = openai.OpenAI(base_url=self.base_url, api_key=self._key, max_retries=0,
                                     timeout=settings.timeout)
        self.requests_sent = 0
        self.cache_hits = 0
        self._lock = threading.Lock()
        self._fatal: str | None = None
        self.cache_problem: str | None = None  # why answers could not be written to the cache, if so

    def close(self) -> None:
        """Let go of the client's connections."""
        self._client.close()

    # -- the run ---------------------------------------------------------------------------------------------

    def samples(self, toolset: ToolSet, requests: Sequence[SampleRequest], progress: Progress | None = None,
                cancelled: Cancelled | None = None) -> Iterator[Sample]:
        """One Sample per request, cache hits first, then the answers as they arrive. Cancelled: nothing more
        is sent, and what already came back is yielded."""
        natives = native_tools(toolset, self.name)
        encoded = {name: canonical_json(native) for name, native in natives.items()}  # once, not per request
        jobs = [self._job(natives, request, encoded) for request in requests]
        total, done = len(jobs), 0
        closing = threading.Event()

        def stop() -> bool:
            return closing.is_set() or bool(cancelled and cancelled())

        missing: list[_Job] = []
        for job in jobs:
            hit = self._cached(job)
            if hit is None:
                missing.append(job)
                continue
            done += 1
            if progress:
                progress(done, total, job.request.case.id)
            yield hit
        fetch = self._fetch(missing, stop)
        try:
            for sample in fetch:
                done += 1
                if progress:
                    progress(done, total, sample.case_id)
                yield sample
        finally:
            closing.set()  # the consumer stopped early: workers give up instead of retrying,
            fetch.close()  # and only then is the pool waited for

    def _fetch(self, jobs: Iterable[_Job], stop: Callable[[], bool]) -> Iterator[Sample]:
        """At most `concurrency` requests in flight; more are submitted only as answers come back, so a
        cancel takes effect at once."""
        queue = iter(jobs)
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="select") as pool:
            running: set[Future] = set()
            while True:
                while len(running) < self.concurrency and not stop():
                    job = next(queue, None)
                    if job is None:
                        break
                    running.add(pool.submit(self._take, job, stop))
                if not running:
                    return
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    sample = future.result()
                    if sample is not None:
                        yield sample

    def _cached(self, job: _Job) -> Sample | None:
        if self.cache is None:
            return None
        hit = self.cache.get(job.key, job.request.case.id, job.request.sample)
        if hit is not None:
            with self._lock:
                self.cache_hits += 1
        return hit

    def _job(self, natives: Mapping[str, dict], request: SampleRequest, encoded: Mapping[str, str]) -> _Job:
        unknown = [name for name in request.offered if name not in natives]
        if unknown:
            raise SpecError(f"case {request.case.id}: offered tools not in the tool set: {', '.join(unknown)}",
                            "<tool set>")
        body = self.request_body(request, [natives[name] for name in request.offered])
        tools_json = tools_text([encoded[name] for name in request.offered])
        return _Job(request, body, request_key(self.name, self.endpoint, body, request.sample, tools_json))

    def request_body(self, request: SampleRequest, tools: list[dict]) -> dict[str, Any]:
        """The create call's keyword arguments: only the settings that are set, so a server that does not
        know one is not sent it."""
        s = self.settings
        messages = ([{"role": "system", "content": s.system}] if s.system else []) + [
            {"role": m["role"], "content": m["content"]} for m in request.case.messages]
        body: dict[str, Any] = {"model": s.model, ("messages" if self.name == OPENAI_CHAT else "input"): messages}
        if tools:
            body["tools"] = tools
            body["tool_choice"] = s.tool_choice
            if s.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = s.parallel_tool_calls
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.max_tokens is not None:
            body[self._max_tokens_field()] = s.max_tokens
        if s.seed is not None and self.name == OPENAI_CHAT:  # the Responses API has no seed
            body["seed"] = s.seed
        return body

    def _max_tokens_field(self) -> str:
        # OpenAI's own reasoning models refuse `max_tokens`; most compatible servers know only `max_tokens`.
        if self.name == OPENAI_RESPONSES:
            return "max_output_tokens"
        return "max_completion_tokens" if "api.openai.com" in self.endpoint else "max_tokens"

    # -- one sample, with retries ----------------------------------------------------------------------------

    def _take(self, job: _Job, stop: Callable[[], bool]) -> Sample | None:
        """The sample for one job, or None when the run stopped before it had an answer."""
        case_id, number = job.request.case.id, job.request.sample
        last: str | None = None
        wait_s: float | None = None
        for attempt in range(self.retries + 1):
            if attempt and not self._pause(self._delay(attempt, wait_s), stop):
                return None
            if stop():
                return None
            refused = self._admit()
            if refused:
                return Sample(case_id, number, error=refused if last is None else f"{refused}; last try: {last}")
            try:
                return self._send(job)
            except _Retry as retry:
                last, wait_s = retry.error, retry.wait_s
            except Exception as exc:  # an answer that is no use: not retried
                return Sample(case_id, number, error=self._describe(exc))
        return Sample(case_id, number, error=f"{last} (gave up after {self.retries + 1} tries)")

    def _send(self, job: _Job) -> Sample:
        # The tools go in as the JSON they already are: given as `tools=`, the client walks every schema of
        # every tool on every request to transform it (a no-op for plain JSON), which takes the GIL for longer
        # than the answer takes to arrive from a fast server once the catalogue is large. The wire is the same.
        kwargs = {name: value for name, value in job.body.items() if name != "tools"}
        if "tools" in job.body:
            kwargs["extra_body"] = {"tools": job.body["tools"]}
        started = time.perf_counter()
        try:
            if self.name == OPENAI_CHAT:
                answer = self._client.chat.completions.create(**kwargs)
            else:
                answer = self._client.responses.create(**kwargs)
        except openai.RateLimitError as exc:
            if _code(exc) == "insufficient_quota":  # no amount of waiting brings quota back: stop the run
                with self._lock:
                    self._fatal = self._fatal or self._describe(exc)
                raise
            raise _Retry(self._describe(exc), _retry_after(exc)) from None
        except (openai.APIConnectionError, openai.InternalServerError) as exc:
            raise _Retry(self._describe(exc), _retry_after(exc)) from None
        except openai.APIStatusError as exc:
            if exc.status_code == 408:
                raise _Retry(self._describe(exc), _retry_after(exc)) from None
            if exc.status_code in FATAL_STATUSES:
                with self._lock:
                    self._fatal = self._fatal or self._describe(exc)
            raise
        latency = time.perf_counter() - started
        read = read_chat if self.name == OPENAI_CHAT else read_responses
        sample = read(answer, job.request.case.id, job.request.sample, latency, self._key)
        if self.cache is not None:
            try:
                self.cache.put(job.key, sample)
            except (OSError, ValueError) as exc:  # an entry not written costs a request next time: said once
                with self._lock:
                    self.cache_problem = self.cache_problem or (
                        f"answers are not cached in {self.cache.folder}: {getattr(exc, 'strerror', None) or exc}")
        return sample

    def _admit(self) -> str | None:
        """Take one request from the budget; why not, when it cannot be sent."""
        with self._lock:
            if self._fatal:
                return self._fatal
            if self.max_requests is not None and self.requests_sent >= self.max_requests:
                return BUDGET_SPENT
            self.requests_sent += 1
            return None

    def _delay(self, attempt: int, asked: float | None) -> float:
        """What the server asked for, else exponential backoff with full jitter."""
        if asked is not None:
            return asked
        return random.uniform(0.5, 1.0) * min(BACKOFF_CAP, self.backoff * 2 ** (attempt - 1))

    @staticmethod
    def _pause(seconds: float, stop: Callable[[], bool]) -> bool:
        """Sleep in short slices so a cancel is not held up by a long Retry-After; False when stopped."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if stop():
                return False
            time.sleep(min(left, 0.05))
        return not stop()

    def _describe(self, exc: BaseException) -> str:
        return scrub(describe(exc, self.settings.timeout), self._key)


def native_tools(toolset: ToolSet, api: str) -> dict[str, dict]:
    """The tool set's native objects by tool name, after checking they are in the API's shape."""
    vendor = API_VENDOR[api]
    if toolset.vendor != vendor:
        raise SpecError(f"the {api} runner needs a tool set built for vendor {vendor!r}, not {toolset.vendor!r}",
                        "<tool set>")
    natives: dict[str, dict] = {}
    for tool, native in zip(toolset.tools, toolset.native, strict=True):
        shaped = native.get("function", {}) if api == OPENAI_CHAT else native
        if native.get("type") != "function" or not isinstance(shaped, dict) or shaped.get("name") != tool.name:
            raise SpecError(f"tool {tool.name}: not an {api} function tool", "<tool set>")
        natives[tool.name] = native
    return natives


def describe(exc: BaseException, timeout: float) -> str:
    """A one-line account of a failed request (not yet scrubbed)."""
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out after {timeout:g} s"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return f"connection failed: {cause or exc.message}"
    if isinstance(exc, openai.APIStatusError):
        body = exc.body
        message = body.get("message") if isinstance(body, dict) else body
        return f"HTTP {exc.status_code}: {message or exc.message}"
    return f"unreadable answer: {type(exc).__name__}: {exc}"


def _code(exc: openai.APIStatusError) -> str | None:
    body = exc.body
    error = body.get("error", body) if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def _retry_after(exc: Exception) -> float | None:
    """What the server asked for: OpenAI's retry-after-ms first (finer), then the standard Retry-After."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    try:
        milliseconds = float(response.headers.get("retry-after-ms", ""))
    except ValueError:
        milliseconds = float("nan")
    if milliseconds >= 0:  # False for NaN
        return min(milliseconds / 1000, RETRY_AFTER_CAP)
    return retry_after_seconds(response.headers.get("retry-after"))


# -- reading answers ---------------------------------------------------------------------------------------

def read_call(name: Any, raw: Any, secret: str | None = None) -> Called:
    """A tool call as the model made it. Arguments must be a JSON object, read strictly (no NaN, no trailing
    text); anything else is kept raw with the problem named, so the judge can count it as malformed."""
    name = _clean_text(name, secret)  # a name is shown and stored like any text the model wrote
    raw_text = _clean_text(raw if isinstance(raw, str) else json.dumps(raw) if raw is not None else "", secret)
    if not name:
        return Called("", None, raw_text, problem="the call names no tool")
    try:
        value = json.loads(raw_text, parse_constant=_no_constant, parse_float=_finite)
    except ValueError as exc:
        return Called(name, None, raw_text, problem=f"arguments are not valid JSON: {scrub(str(exc), secret)}")
    if not isinstance(value, dict):
        return Called(name, None, raw_text, problem=f"arguments are not a JSON object: {type(value).__name__}")
    return Called(name, value, raw_text)


def _no_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _finite(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{token} is out of range")
    return value


def read_chat(answer: Any, case_id: str, sample: int, latency: float, secret: str | None = None) -> Sample:
    choices = getattr(answer, "choices", None)
    message = getattr(choices[0], "message", None) if isinstance(choices, list) and choices else None
    if message is None:  # garbage with a 200: an error (never cached), not a model that declined
        return Sample(case_id, sample, error="unreadable answer: no choices[0].message", latency=latency)
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        calls.append(read_call(getattr(function, "name", None), getattr(function, "arguments", None), secret))
    text = getattr(message, "content", None) or getattr(message, "refusal", None) or ""
    usage = getattr(answer, "usage", None)
    return Sample(case_id, sample, tuple(calls), text=_clean_text(text, secret),
                  input_tokens=_tokens(usage, "prompt_tokens"), output_tokens=_tokens(usage, "completion_tokens"),
                  latency=latency)


def read_responses(answer: Any, case_id: str, sample: int, latency: float, secret: str | None = None) -> Sample:
    output = getattr(answer, "output", None)
    if not isinstance(output, list):
        return Sample(case_id, sample, error="unreadable answer: no output list", latency=latency)
    calls, texts = [], []
    for item in output:
        kind = getattr(item, "type", None)
        if kind == "function_call":
            calls.append(read_call(getattr(item, "name", None), getattr(item, "arguments", None), secret))
        elif kind == "message":
            for part in getattr(item, "content", None) or []:
                text = getattr(part, "text", None) or getattr(part, "refusal", None)
                if isinstance(text, str):
                    texts.append(text)
    usage = getattr(answer, "usage", None)
    return Sample(case_id, sample, tuple(calls), text=_clean_text("\n".join(texts), secret),
                  input_tokens=_tokens(usage, "input_tokens"), output_tokens=_tokens(usage, "output_tokens"),
                  latency=latency)


def _clean_text(text: Any, secret: str | None) -> str:
    text = text if isinstance(text, str) else ""
    return text.replace(secret, "********") if secret and len(secret) >= 4 else text


def _tokens(usage: Any, name: str) -> int | None:
    value = getattr(usage, name, None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None
