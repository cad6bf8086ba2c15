"""The executor against a real server on 127.0.0.1: what goes on the wire, results, retries, deadlines,
auth, approval, human-side arguments and validation feedback."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.servers import Reply
from workbench.http.calls import ToolCall, parse_call
from workbench.http.executor import CallOptions, Executor, retry_loop
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, Scope, convert

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
servers: [{url: 'https://api.example.invalid/v1/'}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
security: [{key: []}]
paths:
  /items/{item-id}:
    get:
      operationId: getItem
      parameters:
        - {name: item-id, in: path, required: true, schema: {type: string}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: limit, in: query, schema: {type: integer, maximum: 50}}
        - {name: X-Trace, in: header, schema: {type: string}}
        - {name: session, in: cookie, schema: {type: string}}
      responses: {'200': {description: ok}}
    delete:
      operationId: deleteItem
      parameters: [{name: item-id, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: gone}}
  /orders:
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [sku, quantity, customer]
              properties:
                sku: {type: string}
                quantity: {type: integer, minimum: 1}
                note: {type: string}
                customer:
                  type: object
                  required: [name]
                  properties: {name: {type: string}, address: {type: object, properties: {city: {type: string}}}}
      responses: {'202': {description: accepted}}
  /login:
    post:
      operationId: login
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [user, password]
              properties: {user: {type: string}, password: {type: string, format: password}}
      responses: {'200': {description: ok}}
"""


@pytest.fixture
def spec(write):
    return load_spec(write("api.yaml", SPEC))


def executor(spec, server, **options) -> Executor:
    toolset = convert(spec, ConvertOptions(vendor="openai", flatten_depth=options.pop("flatten_depth", 0)))
    return Executor(spec, toolset, CallOptions(base_url=server.url + "/v1/", **options))


def test_the_request_on_the_wire(spec, server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_AUTH_KEY", "s3cret-key")
    result = executor(spec, server).call(ToolCall("getItem", {
        "item_id": "a/b c", "tags": ["x", "y"], "limit": 5, "X_Trace": "t-1", "session": "abc"}))
    assert result.status == 200, result.error
    (request,) = server.requests
    assert request.line == "GET /v1/items/a%2Fb%20c?tags=x&tags=y&limit=5 HTTP/1.1"  # no `//`, no `/` injected
    assert request.header("X-Trace") == "t-1" and request.header("X-Api-Key") == "s3cret-key"
    assert request.header("Cookie") == "session=abc"
    shown = json.dumps(result.to_json())
    assert "s3cret-key" not in shown and "********" in shown  # masked wherever the request is shown


def test_body_fields_are_reassembled_and_202_is_success(spec, server):
    server.reply(Reply(202, [("Content-Type", "application/json")], b'{"id": "ord_1"}'))
    result = executor(spec, server, flatten_depth=2).call(ToolCall("createOrder", {
        "sku": "A-1", "quantity": 2, "customer_name": "Ann", "customer_address_city": "Oslo"}))
    assert result.ok and result.status == 202 and result.body == {"id": "ord_1"}
    (request,) = server.requests
    assert json.loads(request.body) == {"sku": "A-1", "quantity": 2,
                                        "customer": {"name": "Ann", "address": {"city": "Oslo"}}}
    assert request.header("Content-Type") == "application/json"


def test_statuses_are_results_and_set_cookie_stays_whole(spec, server):
    server.reply(Reply(404, [("Content-Type", "application/problem+json"), ("Set-Cookie", "a=1; Path=/; HttpOnly"),
                             ("Set-Cookie", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT")], b'{"title": "nope"}'))
    result = executor(spec, server).call(ToolCall("getItem", {"item_id": "x"}))
    assert result.status == 404 and not result.ok and result.body == {"title": "nope"}
    assert result.to_json()["headers"]["set-cookie"] == ["a=1; Path=/; HttpOnly",
                                                        "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT"]
    assert result.to_text().startswith("HTTP 404")


def test_retry_after_429_for_idempotent_calls_only(spec, server):
    server.reply(Reply(429, [("Retry-After", "0")], b""), Reply(200))
    result = executor(spec, server).call(ToolCall("getItem", {"item_id": "x"}))
    assert (result.status, result.attempts, len(server.requests)) == (200, 2, 2)
    server.requests.clear()
    server.reply(Reply(503, [("Retry-After", "0")], b""), Reply(202))
    post = executor(spec, server).call(ToolCall("createOrder", {"sku": "s", "quantity": 1, "customer": {"name": "n"}}))
    assert (post.status, len(server.requests)) == (503, 1)  # a POST is not repeated unless configured


def test_a_total_deadline_catches_a_dribbling_server(spec, server):
    server.reply(Reply(200, [("Content-Type", "text/plain")], b"x" * 20, dribble_s=0.2))
    started = time.monotonic()
    result = executor(spec, server, deadline_s=1.0).call(ToolCall("getItem", {"item_id": "x"}))
    assert result.status is None and "deadline" in result.error
    assert time.monotonic() - started < 2.5


def test_destructive_calls_need_approval_unless_mocked(spec, server):
    refused = executor(spec, server).call(ToolCall("deleteItem", {"item_id": "x"}))
    assert refused.status is None and "not approved" in refused.error and server.requests == []
    asked = []
    approved = executor(spec, server, approve=lambda request, tool: asked.append(request.url) or True)
    assert approved.call(ToolCall("deleteItem", {"item_id": "x"})).status == 200 and len(asked) == 1
    assert executor(spec, server, mock=True).call(ToolCall("deleteItem", {"item_id": "y"})).status == 200
    read_only = executor(spec, server, read_only=True).call(ToolCall("createOrder", {
        "sku": "s", "quantity": 1, "customer": {"name": "n"}}))
    assert "read-only" in read_only.error and len(server.requests) == 2


def test_human_side_arguments_are_merged_not_asked(spec, server):
    toolset = convert(spec)
    assert "password" not in toolset.tool("login").parameters["properties"]
    run = Executor(spec, toolset, CallOptions(base_url=server.url, human={"password": "hunter2"}))
    assert run.call(ToolCall("login", {"user": "ann"})).status == 200
    assert json.loads(server.requests[0].body) == {"user": "ann", "password": "hunter2"}
    missing = Executor(spec, toolset, CallOptions(base_url=server.url)).call(ToolCall("login", {"user": "ann"}))
    assert missing.feedback is not None and "password" in missing.feedback.text


def test_validation_feedback_coercion_and_history(spec, server):
    run = executor(spec, server)
    coerced = run.call(ToolCall("getItem", {"item_id": "x", "limit": "42"}))
    assert coerced.status == 200 and coerced.coercions == ["/limit: read '42' as 42"]
    assert server.requests[-1].target.endswith("limit=42")
    first = run.call(ToolCall("getItem", {"item_id": "x", "limit": 500}))
    assert first.status is None and len(server.requests) == 1  # nothing sent
    assert '"limit": 500  // ❌ [{path: "/limit", expected: "maximum 50", given: 500}]' in first.feedback.text
    assert "Earlier attempts" not in first.feedback.text
    second = run.call(ToolCall("getItem", {"item_id": "x", "limit": 2.5}))
    assert 'expected: "a value of type integer"' in second.feedback.text
    assert "attempt 1: /limit expected maximum 50" in second.feedback.text


def test_strict_mode_nulls_mean_not_given(spec, server):
    toolset = convert(spec, ConvertOptions(vendor="openai", strict=True))
    run = Executor(spec, toolset, CallOptions(base_url=server.url))
    result = run.call(ToolCall("getItem", {"item_id": "x", "tags": None, "limit": None, "X_Trace": None,
                                           "session": None}))
    assert result.status == 200 and server.requests[0].target == "/items/x"


def test_unknown_tool_lists_the_valid_ones(spec, server):
    result = executor(spec, server).call(ToolCall("getitem", {}))
    assert result.feedback.text.startswith("There is no tool named `getitem`. Valid tools: createOrder, deleteItem")


def test_retry_loop_gives_the_model_three_attempts(spec, server):
    corrected = iter([ToolCall("getItem", {"item_id": "x", "limit": 99}), ToolCall("getItem", {"item_id": "x",
                                                                                             "limit": 9})])
    seen = []

    def ask_model(text: str) -> ToolCall:
        seen.append(text)
        return next(corrected)

    result = retry_loop(executor(spec, server), ask_model, ToolCall("getItem", {"item_id": "x", "limit": "many"}))
    assert result.status == 200 and len(seen) == 2 and "Earlier attempts" in seen[1]


@pytest.mark.parametrize("raw, name, args", [
    ({"id": "c1", "type": "function", "function": {"name": "getItem", "arguments": '{"item_id": "x"}'}},
     "getItem", {"item_id": "x"}),
    ({"type": "function_call", "call_id": "c2", "name": "getItem", "arguments": '{"item_id": "y",}'},
     "getItem", {"item_id": "y"}),
    ({"type": "tool_use", "id": "t1", "name": "getItem", "input": {"item_id": "z"}}, "getItem", {"item_id": "z"}),
    ({"functionCall": {"name": "getItem", "args": {"item_id": "g"}}}, "getItem", {"item_id": "g"}),
    ({"name": "getItem", "arguments": {"item_id": "m"}}, "getItem", {"item_id": "m"}),
    ('```json\n{"name": "getItem", "arguments": {"item_id": \'q\'}}\n```', "getItem", {"item_id": "q"}),
])
def test_tool_calls_of_every_vendor(raw, name, args):
    call = parse_call(raw)
    assert (call.name, call.arguments) == (name, args)


def test_repairs_are_reported():
    call = parse_call({"type": "function_call", "name": "t", "arguments": '{"a": 1,'})
    assert call.arguments == {"a": 1} and "closed unbalanced brackets" in call.repairs


def test_cli_call(spec, server, write, monkeypatch):
    path = write("cli.yaml", SPEC)
    env = {"WORKBENCH_AUTH_KEY": "cli-secret", "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "workbench", "call", str(path), "getItem", "--args",
                          '{"item_id": "x", "limit": 3}', "--base-url", server.url], capture_output=True, text=True,
                         timeout=60, check=False, env=env)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert set(out) == {"request", "status", "headers", "body"} and out["status"] == 200
    assert out["request"]["url"] == f"{server.url}/items/x?limit=3"
    assert out["request"]["headers"]["X-Api-Key"] == "********"
    bad = subprocess.run([sys.executable, "-m", "workbench", "call", str(path), "getItem", "--args",
                          '{"limit": "lots"}', "--base-url", server.url], capture_output=True, text=True,
                         timeout=60, check=False, env=env)
    assert bad.returncode == 3 and "❌" in json.loads(bad.stdout)["feedback"]


SWAGGER = """swagger: '2.0'
info: {title: t, version: '1'}
host: api.example.invalid
basePath: /v2
schemes: [https]
paths:
  /search:
    get:
      operationId: search
      parameters:
        - {name: ids, in: query, type: array, items: {type: integer}, collectionFormat: pipes}
        - {name: words, in: query, type: array, items: {type: string}, collectionFormat: ssv}
        - {name: filter, in: query, type: string}
      responses: {'200': {description: ok}}
  /notes:
    post:
      operationId: addNote
      consumes: [application/x-www-form-urlencoded]
      parameters:
        - {name: text, in: formData, type: string, required: true}
        - {name: tags, in: formData, type: array, items: {type: string}, collectionFormat: multi}
      responses: {'204': {description: done}}
"""


def test_pitfall_13_swagger_base_path_collection_formats_and_form_data(write, server):
    spec = load_spec(write("swagger.yaml", SWAGGER))
    toolset = convert(spec)
    assert Executor(spec, toolset).send(toolset.tool("search"), {}).request.url == "https://api.example.invalid/v2/search"
    run = Executor(spec, toolset, CallOptions(base_url=server.url + "/v2"))
    assert run.call(ToolCall("search", {"ids": [1, 2], "words": ["a", "c"]})).status == 200
    assert server.requests[0].target == "/v2/search?ids=1%7C2&words=a%20c"
    assert run.call(ToolCall("addNote", {"text": "hi there", "tags": ["x", "y"]})).status == 200
    note = server.requests[1]
    assert note.header("Content-Type") == "application/x-www-form-urlencoded"
    assert note.body == b"text=hi%20there&tags=x&tags=y"


OBJECTS = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /find:
    get:
      operationId: find
      parameters:
        - {name: color, in: query, style: deepObject, explode: true,
           schema: {type: object, properties: {R: {type: integer}, G: {type: integer}}}}
        - {name: point, in: query, schema: {type: object, properties: {x: {type: integer}, y: {type: integer}}}}
      responses: {'200': {description: ok}}
"""


def test_pitfall_07_objects_in_query_strings_are_serialised_by_style(write, server):
    spec = load_spec(write("objects.yaml", OBJECTS))
    run = Executor(spec, convert(spec), CallOptions(base_url=server.url))
    assert run.call(ToolCall("find", {"color": {"R": 100, "G": 200}, "point": {"x": 1, "y": 2}})).status == 200
    target = server.requests[0].target
    assert target == "/find?color%5BR%5D=100&color%5BG%5D=200&x=1&y=2" and "object" not in target


QUERY_KEY = """openapi: 3.1.0
info: {title: t, version: '1'}
components:
  securitySchemes:
    key: {type: apiKey, in: query, name: api_key}
security: [{key: []}]
paths:
  /ping:
    get: {operationId: ping, responses: {'200': {description: ok}}}
"""


def test_query_api_key_is_encoded_and_masked(write, server, monkeypatch):
    monkeypatch.setenv("WORKBENCH_AUTH_KEY", "a&b=c d")
    spec = load_spec(write("q.yaml", QUERY_KEY))
    result = Executor(spec, convert(spec), CallOptions(base_url=server.url)).call(ToolCall("ping", {}))
    assert result.status == 200
    assert server.requests[0].target == "/ping?api_key=a%26b%3Dc%20d"
    shown = json.dumps(result.to_json())
    assert "a&b=c d" not in shown and "a%26b%3Dc%20d" not in shown and "api_key=********" in shown


def test_the_original_argument_schema_is_built_once_per_tool(spec, server):
    from workbench.http.validate import check

    ex = executor(spec, server)
    refused = ex.call(ToolCall("getItem", {"item_id": "x", "limit": 500}))
    assert [v.place for v in refused.feedback.violations] == ["/limit"]
    contract = ex.contracts["getItem"]
    assert ex.call(ToolCall("getItem", {"item_id": "x", "limit": 5})).status == 200
    assert ex.contracts["getItem"] is contract and set(ex.contracts) == {"getItem"}
    tool = ex.toolset.tool("getItem")
    for arguments in ({"item_id": "x", "limit": "7"}, {"limit": 51}, {"item_id": 3, "tags": "a"}):
        assert check(spec, tool, arguments, contract) == check(spec, tool, arguments)


@pytest.mark.parametrize("nested, arguments, place, expected", [
    (False, {"item_id": "x", "limt": 3}, "", "no 'limt' here: only 'item_id', 'tags', 'limit', 'X_Trace', 'session'"),
    (True, {"path": {"item_id": "x"}, "limit": 3}, "", "no 'limit' here: only 'path', 'query', 'header', 'cookie'"),
    (True, {"path": {"item_id": "x"}, "query": {"limt": 3}}, "/query", "no 'limt' here: only 'tags', 'limit'"),
])
def test_an_argument_the_tool_does_not_have_is_feedback_not_dropped(spec, server, nested, arguments, place,
                                                                     expected):
    toolset = convert(spec, ConvertOptions(nested=nested))
    result = Executor(spec, toolset, CallOptions(base_url=server.url)).call(ToolCall("getItem", arguments))
    assert result.request is None and server.requests == []
    assert [(v.place, v.expected) for v in result.feedback.violations] == [(place, expected)]


def test_a_call_into_an_empty_tool_set_says_there_are_no_tools(spec):
    toolset = convert(spec, ConvertOptions(scope=Scope(tags=("no-such-tag",))))
    assert toolset.tools == []
    result = Executor(spec, toolset).call(ToolCall("getItem", {}))
    assert result.feedback.text == "There is no tool named `getItem`, and this tool set has no tools."


EMPTY = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /boxes/{ids}:
    get:
      operationId: getBoxes
      parameters:
        - {name: ids, in: path, required: true, schema: {type: array, items: {type: string}}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: sizes, in: query, explode: false, schema: {type: array, items: {type: integer}}}
        - {name: X-Flags, in: header, schema: {type: array, items: {type: string}}}
        - {name: seen, in: cookie, schema: {type: array, items: {type: string}}}
      responses: {'200': {description: ok}}
"""


def test_an_empty_array_sends_nothing_and_an_empty_path_array_is_feedback(write, server):
    spec = load_spec(write("empty.yaml", EMPTY))
    run = Executor(spec, convert(spec), CallOptions(base_url=server.url))
    result = run.call(ToolCall("getBoxes", {"ids": ["a"], "tags": [], "sizes": [], "X_Flags": [], "seen": []}))
    assert result.status == 200, result.error
    (request,) = server.requests
    assert request.target == "/boxes/a" and request.header("X-Flags") is None and request.header("Cookie") is None
    refused = run.call(ToolCall("getBoxes", {"ids": []}))
    assert refused.status is None and len(server.requests) == 1
    assert [v.place for v in refused.feedback.violations] == ["/ids"] and "minItems 1" in refused.feedback.text
