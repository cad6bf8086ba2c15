"""The openai-chat and openai-responses runners, through the real `openai` client, against a scripted
OpenAI-compatible model on 127.0.0.1: what is sent, how answers are read (malformed, unknown, none,
parallel), retries on 429/5xx and timeouts, the request budget, the cache across re-runs, and the key
kept out of everything written."""

from __future__ import annotations

import email.utils
import json
import secrets
import threading
import time
from pathlib import Path

import keyring
import pytest

from tests.servers import MemoryKeyring, ModelReply, ModelRequest, ScriptedModelServer, call
from workbench.config import WorkbenchConfig
from workbench.selection import keys
from workbench.selection.cache import Cache
from workbench.selection.model import (
    NONE,
    ONE_OF,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    Case,
    Expectation,
    ModelSettings,
    SampleRequest,
)
from workbench.selection.openai_api import OpenAIRunner, retry_after_seconds
from workbench.spec import SpecError, load_spec
from workbench.tools.options import ToolOverrides, build_toolset

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
servers: [{url: 'https://api.example.invalid'}]
paths:
  /customers:
    get:
      operationId: listCustomers
      summary: List the customers
      responses: {'200': {description: ok}}
  /customers/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    get:
      operationId: getCustomer
      summary: Get one customer
      responses: {'200': {description: ok}}
    delete:
      operationId: deleteCustomer
      summary: Delete a customer
      responses: {'204': {description: gone}}
"""
VENDOR = {OPENAI_CHAT: "openai", OPENAI_RESPONSES: "openai-responses"}
APIS = (OPENAI_CHAT, OPENAI_RESPONSES)
KEY = "sk-test-" + secrets.token_hex(16)


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """The key in the environment, an empty keyring of our own, the user cache folder under tmp_path."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


@pytest.fixture(scope="module")
def toolsets(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("spec") / "customers.yaml"
    path.write_text(SPEC)
    spec = load_spec(path)
    return {api: build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor=VENDOR[api])) for api in APIS}


@pytest.fixture
def model():
    with ScriptedModelServer() as server:
        yield server


def case(case_id: str = "c1", prompt: str = "show me customer 7", tool: str = "getCustomer") -> Case:
    expect = Expectation(ONE_OF, (tool,), (tool,)) if tool else Expectation(NONE, (), ())
    return Case(case_id, ({"role": "user", "content": prompt},), expect)


def runner(api: str, model: ScriptedModelServer, cache: Cache | None = None, **options) -> OpenAIRunner:
    settings = {"api": api, "model": "scripted-1", "base_url": model.url, "timeout": 5.0,
                **options.pop("settings", {})}
    return OpenAIRunner(ModelSettings(**settings), api=api, cache=cache, **{"backoff": 0.02, **options})


def take(api: str, toolsets: dict, runner_: OpenAIRunner, cases: list[Case] | None = None, repeats: int = 1,
         **kwargs) -> list:
    toolset = toolsets[api]
    offered = tuple(t.name for t in toolset.tools)
    requests = [SampleRequest(c, n, offered) for c in (cases or [case()]) for n in range(repeats)]
    return sorted(runner_.samples(toolset, requests, **kwargs), key=lambda s: (s.case_id, s.sample))


# -- what is sent, what is read --------------------------------------------------------------------------

@pytest.mark.parametrize("api", APIS)
def test_a_tool_call_is_read_and_the_request_carries_the_key_tools_and_settings(api, toolsets, model):
    model.sequence(call("getCustomer", {"id": "7"}))
    settings = {"system": "You are a shop assistant.", "temperature": 0.2, "tool_choice": "required",
                "max_tokens": 64, "seed": 3}
    [sample] = take(api, toolsets, runner(api, model, settings=settings))

    assert sample.error is None and not sample.cached
    [called] = sample.calls
    assert (called.name, called.arguments, called.problem) == ("getCustomer", {"id": "7"}, None)
    assert (sample.input_tokens, sample.output_tokens) == (20, 5) and sample.latency > 0
    [request] = model.requests
    assert request.path == ("/v1/chat/completions" if api == OPENAI_CHAT else "/v1/responses")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.messages == [{"role": "system", "content": "You are a shop assistant."},
                                {"role": "user", "content": "show me customer 7"}]
    assert request.offered == ["listCustomers", "getCustomer", "deleteCustomer"]
    assert request.body["tools"] == toolsets[api].native  # the native JSON as built, in the set's order
    assert (request.body["model"], request.body["tool_choice"], request.body["temperature"]) == (
        "scripted-1", "required", 0.2)
    assert "parallel_tool_calls" not in request.body  # sent only when set
    if api == OPENAI_CHAT:
        assert (request.body["max_tokens"], request.body["seed"]) == (64, 3)
    else:
        assert request.body["max_output_tokens"] == 64 and "seed" not in request.body


@pytest.mark.parametrize("api", APIS)
def test_only_the_offered_tools_are_sent_and_parallel_calls_when_set(api, toolsets, model):
    model.sequence(call("listCustomers"))
    run = runner(api, model, settings={"parallel_tool_calls": False})
    list(run.samples(toolsets[api], [SampleRequest(case(), 0, ("deleteCustomer", "listCustomers"))]))
    [request] = model.requests
    assert request.offered == ["deleteCustomer", "listCustomers"] and request.body["parallel_tool_calls"] is False


@pytest.mark.parametrize("api", APIS)
def test_malformed_arguments_are_kept_raw_with_the_problem_named(api, toolsets, model):
    model.sequence(call("getCustomer", '{"id": "7"'), call("getCustomer", '["7"]'), call("getCustomer", '{"n": NaN}'),
                   call("getCustomer", '{"n": 1e999}'))
    samples = take(api, toolsets, runner(api, model, concurrency=1), repeats=4)

    problems = [s.calls[0].problem for s in samples]
    assert all(s.calls[0].name == "getCustomer" and s.calls[0].arguments is None for s in samples)
    assert problems[0].startswith("arguments are not valid JSON: ")
    assert problems[1] == "arguments are not a JSON object: list"
    assert problems[2].startswith("arguments are not valid JSON: NaN")
    assert problems[3] == "arguments are not valid JSON: 1e999 is out of range"
    assert samples[0].calls[0].raw_arguments == '{"id": "7"'


@pytest.mark.parametrize("api", APIS)
def test_an_unknown_tool_name_is_still_a_call(api, toolsets, model):
    model.sequence(call("launchRocket", {"target": "moon"}))
    [sample] = take(api, toolsets, runner(api, model))
    assert [(c.name, c.arguments) for c in sample.calls] == [("launchRocket", {"target": "moon"})]


@pytest.mark.parametrize("api", APIS)
def test_text_without_a_call_is_text(api, toolsets, model):
    model.sequence(ModelReply(text="I cannot do that with these tools."))
    [sample] = take(api, toolsets, runner(api, model), [case(tool="")])
    assert sample.calls == () and sample.text == "I cannot do that with these tools." and sample.error is None


@pytest.mark.parametrize("api", APIS)
def test_parallel_calls_are_read_in_order(api, toolsets, model):
    model.sequence(call("listCustomers", {}, getCustomer={"id": "7"}))
    [sample] = take(api, toolsets, runner(api, model))
    assert [(c.name, c.arguments) for c in sample.calls] == [("listCustomers", {}), ("getCustomer", {"id": "7"})]


# -- retries, timeouts, the budget -----------------------------------------------------------------------

@pytest.mark.parametrize("api", APIS)
def test_a_429_is_retried_after_the_seconds_retry_after_asks(api, toolsets, model):
    model.sequence(ModelReply(status=429, headers={"Retry-After": "1"}, text="slow down"), call("getCustomer"))
    run = runner(api, model, backoff=0.0)
    [sample] = take(api, toolsets, run)

    assert sample.error is None and sample.calls[0].name == "getCustomer"
    first, second = model.requests
    assert second.at - first.at >= 0.95  # the server's word, not the (zero) backoff
    assert run.requests_sent == 2


def test_retry_after_ms_is_read_first(toolsets, model):
    model.sequence(ModelReply(status=429, headers={"retry-after-ms": "300", "Retry-After": "5"}), call("getCustomer"))
    [sample] = take(OPENAI_CHAT, toolsets, runner(OPENAI_CHAT, model, backoff=0.0))
    first, second = model.requests
    assert sample.error is None and 0.28 <= second.at - first.at < 2


def test_a_server_that_is_not_there_is_a_connection_error(toolsets, model):
    url = model.url
    model.close()
    run = OpenAIRunner(ModelSettings(api=OPENAI_CHAT, model="m", base_url=url, timeout=2), api=OPENAI_CHAT,
                       cache=None, retries=1, backoff=0.01)
    [sample] = take(OPENAI_CHAT, toolsets, run)
    assert sample.error.startswith("connection failed: ") and sample.error.endswith("(gave up after 2 tries)")
    assert run.requests_sent == 2 and "\n" not in sample.error


@pytest.mark.parametrize("api", APIS)
def test_a_500_is_retried_with_backoff(api, toolsets, model):
    model.sequence(ModelReply(status=500), ModelReply(status=503), call("getCustomer"))
    run = runner(api, model)
    [sample] = take(api, toolsets, run)
    assert sample.error is None and run.requests_sent == 3 and len(model.requests) == 3


@pytest.mark.parametrize("api", APIS)
def test_retries_exhausted_leave_a_one_line_error_and_nothing_cached(api, toolsets, model, tmp_path):
    model.sequence(ModelReply(status=502, text="upstream\nwent away"))
    cache = Cache(tmp_path / "cache")
    run = runner(api, model, cache, retries=2)
    [sample] = take(api, toolsets, run)

    assert sample.error == "HTTP 502: upstream went away (gave up after 3 tries)"
    assert sample.calls == () and len(model.requests) == 3 == run.requests_sent
    assert not cache.folder.exists() or not any(p.is_file() for p in cache.folder.rglob("*"))


@pytest.mark.parametrize("api", APIS)
def test_a_client_error_is_not_retried(api, toolsets, model):
    model.sequence(ModelReply(status=400, text="tools[0]: bad schema"))
    [sample] = take(api, toolsets, runner(api, model))
    assert sample.error == "HTTP 400: tools[0]: bad schema" and len(model.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_a_slow_answer_times_out_and_is_retried(api, toolsets, model):
    model.sequence(ModelReply(delay=1.5), call("getCustomer"))
    started = time.monotonic()
    [sample] = take(api, toolsets, runner(api, model, settings={"timeout": 0.3}))
    assert sample.error is None and len(model.requests) == 2
    assert time.monotonic() - started < 1.4  # the first try was given up at the timeout, not waited for

    model.sequence(ModelReply(delay=1.5))
    [sample] = take(api, toolsets, runner(api, model, retries=1, settings={"timeout": 0.3}))
    assert sample.error == "timed out after 0.3 s (gave up after 2 tries)"


@pytest.mark.parametrize("api", APIS)
def test_the_request_budget_counts_requests_sent_retries_included(api, toolsets, model):
    run = runner(api, model, max_requests=3, concurrency=2)
    samples = take(api, toolsets, run, [case(f"c{i}") for i in range(5)])
    assert run.requests_sent == 3 == len(model.requests)
    assert sorted(s.error or "ok" for s in samples) == ["ok"] * 3 + ["request budget spent"] * 2

    model.sequence(ModelReply(status=429, headers={"Retry-After": "0"}))
    run = runner(api, model, max_requests=2, retries=4)
    [sample] = take(api, toolsets, run)
    assert run.requests_sent == 2 and sample.error.startswith("request budget spent; last try: HTTP 429")


@pytest.mark.parametrize("api", APIS)
def test_a_rejected_key_stops_the_run_after_one_request(api, toolsets, model):
    model.sequence(ModelReply(status=401, text="Incorrect API key provided"))
    samples = take(api, toolsets, runner(api, model, concurrency=1), repeats=4)
    assert len(model.requests) == 1
    assert [s.error for s in samples] == ["HTTP 401: Incorrect API key provided"] * 4


@pytest.mark.parametrize("api", APIS)
def test_cancelled_sends_no_more_and_yields_what_came_back(api, toolsets, model):
    stop = threading.Event()
    samples = take(api, toolsets, runner(api, model, concurrency=1), [case(f"c{i}") for i in range(6)],
                   progress=lambda done, total, what: stop.set(), cancelled=stop.is_set)
    assert len(samples) == 1 == len(model.requests)


def test_a_consumer_that_stops_early_leaves_no_retry_running(toolsets, model):
    model.sequence(call("getCustomer"), ModelReply(status=503, headers={"Retry-After": "30"}))
    run = runner(OPENAI_CHAT, model, concurrency=2)
    offered = ("getCustomer",)
    samples = run.samples(toolsets[OPENAI_CHAT], [SampleRequest(case(f"c{i}"), 0, offered) for i in range(4)])
    started = time.monotonic()
    next(samples)
    while len(model.requests) < 2 and time.monotonic() - started < 2:
        time.sleep(0.01)
    samples.close()  # the second request is waiting out its 30 s Retry-After: it gives up instead
    assert time.monotonic() - started < 3 and len(model.requests) == 2


# -- the cache -------------------------------------------------------------------------------------------

def numbered(request: ModelRequest, counter: list[int] = [0]) -> ModelReply:  # noqa: B006 (a counter on purpose)
    """A different answer every time: repeats that came from one cached answer would show it."""
    counter[0] += 1
    return call("getCustomer", {"id": str(counter[0])})


@pytest.mark.parametrize("api", APIS)
def test_an_unchanged_re_run_sends_nothing_and_repeats_are_distinct_entries(api, toolsets, model, tmp_path):
    model.script = numbered
    cache = Cache(tmp_path / "cache")
    cases = [case(f"c{i}", f"show me customer {i}") for i in range(3)]
    first_run = runner(api, model, cache)
    first = take(api, toolsets, first_run, cases, repeats=2)
    assert first_run.requests_sent == 6 and first_run.cache_hits == 0
    assert len({s.calls[0].arguments["id"] for s in first}) == 6  # six real samples
    assert len([p for p in cache.folder.rglob("*.json")]) == 6

    again = runner(api, model, Cache(tmp_path / "cache"))
    second = take(api, toolsets, again, cases, repeats=2)
    assert again.requests_sent == 0 and again.cache_hits == 6 and len(model.requests) == 6
    assert all(s.cached for s in second)
    assert [(s.case_id, s.sample, s.calls, s.latency) for s in second] == [
        (s.case_id, s.sample, s.calls, s.latency) for s in first]

    third = runner(api, model, cache, settings={"temperature": 0.5})  # a setting sent is part of the key
    take(api, toolsets, third, cases[:1])
    assert third.requests_sent == 1 and third.cache_hits == 0


@pytest.mark.parametrize("api", APIS)
def test_a_corrupt_entry_is_fetched_again(api, toolsets, model, tmp_path):
    cache = Cache(tmp_path / "cache")
    take(api, toolsets, runner(api, model, cache))
    [entry] = cache.folder.rglob("*.json")
    entry.write_text('{"format": 1, "calls": [')
    again = runner(api, model, cache)
    [sample] = take(api, toolsets, again)
    assert again.requests_sent == 1 and sample.error is None and not sample.cached
    hit = runner(api, model, cache)
    take(api, toolsets, hit)
    assert hit.cache_hits == 1 and hit.requests_sent == 0


# -- the key ---------------------------------------------------------------------------------------------

def echo_key(request: ModelRequest) -> ModelReply:
    """A careless server that repeats the key it was given, in an error and in what the model says."""
    given = request.headers["authorization"].removeprefix("Bearer ")
    if request.prompt.startswith("fail"):
        return ModelReply(status=500, text=f"Incorrect API key provided: {given}")
    return ModelReply(calls=(("getCustomer", {"id": given}),), text=f"your key is {given}")


@pytest.mark.parametrize("api", APIS)
def test_the_key_is_in_no_sample_and_no_file_written(api, toolsets, model, tmp_path):
    model.script = echo_key
    cache = Cache(tmp_path / "cache")
    samples = take(api, toolsets, runner(api, model, cache, retries=1),
                   [case("ok", "show customer 7"), case("bad", "fail please")])
    assert all(request.headers["authorization"] == f"Bearer {KEY}" for request in model.requests)

    ok, bad = sorted(samples, key=lambda s: s.case_id != "ok")
    assert "Incorrect API key provided: ********" in bad.error and ok.text == "your key is ********"
    assert KEY not in repr(samples)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix == ".json" for p in written)
    assert [p for p in written if KEY.encode() in p.read_bytes()] == []


def test_the_key_comes_from_the_environment_then_the_keyring_then_a_local_placeholder(environment, monkeypatch):
    settings = ModelSettings(api=OPENAI_CHAT, model="m", key_env="MY_MODEL_KEY")
    monkeypatch.delenv("MY_MODEL_KEY", raising=False)
    environment.set_password("agent-spec-workbench", "openai", "from-keyring")
    assert keys.api_key(settings, "https://api.example.invalid/v1") == "from-keyring"
    monkeypatch.setenv("MY_MODEL_KEY", "from-env")
    assert keys.api_key(settings, "https://api.example.invalid/v1") == "from-env"

    monkeypatch.delenv("MY_MODEL_KEY")
    environment.delete_password("agent-spec-workbench", "openai")
    for local in ("http://127.0.0.1:11434/v1", "http://localhost:8080/v1", "http://[::1]:1234/v1"):
        assert keys.api_key(settings, local) == "not-needed"
    with pytest.raises(SpecError) as raised:
        keys.api_key(settings, "https://api.example.invalid/v1")
    message = str(raised.value)
    assert "\n" not in message and "MY_MODEL_KEY" in message and "keyring set agent-spec-workbench openai" in message


def test_a_profiles_key_is_its_own_and_the_environments_goes_only_to_openai(environment):
    profile = ModelSettings(api=OPENAI_CHAT, model="m", key_entry="profile:gateway")
    gateway = "https://gateway.example.invalid/v1"
    with pytest.raises(SpecError):  # OPENAI_API_KEY is set, but it is not sent to the profile's gateway
        keys.api_key(profile, gateway)
    assert keys.api_key(profile, "https://api.openai.com/v1") == KEY
    environment.set_password("agent-spec-workbench", "profile:gateway", "gateway-key")
    assert keys.api_key(profile, gateway) == "gateway-key"
    assert keys.api_key(profile, "http://127.0.0.1:8080/v1") == "gateway-key"


# -- wrong input -----------------------------------------------------------------------------------------

def test_a_tool_set_for_another_vendor_or_a_tool_not_in_it_is_a_clear_error(toolsets, model):
    run = runner(OPENAI_CHAT, model)
    with pytest.raises(SpecError, match="vendor 'openai', not 'openai-responses'"):
        list(run.samples(toolsets[OPENAI_RESPONSES], [SampleRequest(case(), 0, ("getCustomer",))]))
    with pytest.raises(SpecError, match="case c1: offered tools not in the tool set: nope"):
        list(run.samples(toolsets[OPENAI_CHAT], [SampleRequest(case(), 0, ("getCustomer", "nope"))]))
    with pytest.raises(SpecError, match="needs a model"):
        OpenAIRunner(ModelSettings(api=OPENAI_CHAT, base_url=model.url), api=OPENAI_CHAT, cache=None)
    assert model.requests == []


def test_retry_after_reads_seconds_and_http_dates_and_is_capped():
    now = time.time()
    assert retry_after_seconds("2") == 2.0
    assert retry_after_seconds("0.5") == 0.5
    assert retry_after_seconds("-3") == 0.0
    assert retry_after_seconds("3600") == 60.0
    assert 9 <= retry_after_seconds(email.utils.formatdate(now + 10, usegmt=True), now) <= 10
    assert retry_after_seconds(email.utils.formatdate(now - 10, usegmt=True), now) == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds("") is None and retry_after_seconds(None) is None


@pytest.mark.parametrize("api", APIS)
def test_the_keyword_policy_picks_the_tool_sharing_most_words_with_the_prompt(api, toolsets, model):
    samples = take(api, toolsets, runner(api, model), [case("a", "please delete this customer"),
                                                        case("b", "list every customer we have"),
                                                        case("c", "what is the weather", tool="")])
    assert [[c.name for c in s.calls] for s in samples] == [["deleteCustomer"], ["listCustomers"], []]
    assert samples[2].text == "None of these tools fits."


@pytest.mark.parametrize("api", APIS)
def test_no_quota_stops_the_run_after_one_request(api, toolsets, model):
    quota = {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                       "code": "insufficient_quota"}}
    model.sequence(ModelReply(status=429, raw=json.dumps(quota).encode()))
    samples = take(api, toolsets, runner(api, model, concurrency=1), repeats=3)
    assert len(model.requests) == 1
    assert all(s.error and "quota" in s.error for s in samples)
