"""The mock on a real socket on 127.0.0.1, seen from real HTTP clients: routing under the base path,
405 with Allow, request checks and the status they answer with, credentials, HEAD, keep-alive, limits,
garbage, the request log, the executor's own calls, and `workbench mock` as a process."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from tests.catalogue import MOCK_PETS as SPEC
from tests.catalogue import corpus_dir, corpus_names
from workbench.examples import example_path
from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor
from workbench.mock.app import MockApp
from workbench.mock.faults import FAULTS
from workbench.mock.server import FAULT_WRITERS, MAX_BODY, MockServer
from workbench.spec import load_spec
from workbench.tools import convert
from workbench.wire import decode_xml
from workbench.workspace.loading import spec_config


@pytest.fixture
def mock(write):
    with MockServer(load_spec(write("pets.yaml", SPEC)), head_seconds=0.5) as server:
        yield server


@pytest.fixture
def client(mock):
    with httpx.Client(base_url=mock.url + "/v1", timeout=5) as http:
        yield http


def test_routes_under_the_base_path_literal_segments_first(mock, client):
    assert client.get("/pets").json() == [{"id": 1, "name": "Rex"}]
    assert client.get("/pets/mine").json() == {"mine": True}
    pet = client.get("/pets/7")
    assert pet.status_code == 200 and set(pet.json()) >= {"id", "name"}
    outside = httpx.get(mock.url + "/pets", timeout=5)  # not under /v1
    assert outside.status_code == 404 and outside.headers["content-type"] == "application/problem+json"


def test_another_method_is_405_with_allow_and_options_answers_allow(client):
    refused = client.patch("/pets")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, POST"
    options = client.options("/pets/3")
    assert options.status_code == 204 and options.headers["allow"] == "DELETE, GET"
    assert client.get("/nowhere").status_code == 404


def test_an_invalid_request_gets_the_declared_status_and_what_to_fix(client):
    declared_422 = client.get("/pets", params={"limit": "lots"})
    assert declared_422.status_code == 422
    assert [(v["location"], v["name"]) for v in declared_422.json()["validation"]] == [("query", "limit")]
    declared_400 = client.post("/pets", json={"id": 1})
    assert declared_400.status_code == 400
    item = declared_400.json()["validation"][0]
    assert item["location"] == "body" and "name" in item["expected"]
    generated_422 = client.get("/pets/seven")
    assert generated_422.status_code == 422 and generated_422.json()["validation"][0]["name"] == "petId"
    wrong_type = client.post("/pets", content=b"id=1", headers={"Content-Type": "text/plain"})
    assert wrong_type.status_code == 415


def test_credentials_are_asked_for(client):
    missing = client.delete("/pets/3")
    assert missing.status_code == 401 and "key" in missing.json()["detail"]
    assert client.delete("/pets/3", headers={"X-Api-Key": "k"}).status_code == 204


def test_prefer_picks_a_declared_response_and_says_when_there_is_none(client):
    missing = client.get("/pets/3", headers={"Prefer": "code=404"})
    assert missing.status_code == 404 and missing.json() == {"message": "no such pet"}
    undeclared = client.get("/pets/3", headers={"Prefer": "code=418"})
    assert undeclared.status_code == 400 and "418" in undeclared.json()["detail"]


def test_head_has_the_headers_of_get_and_no_body(client):
    get, head = client.get("/pets"), client.head("/pets")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == get.headers["content-length"] == str(len(get.content))


def raw(mock, data: bytes, *, read_until_close: bool = True) -> bytes:
    with socket.create_connection((mock.host, mock.port), timeout=5) as sock:
        sock.sendall(data)
        chunks = []
        while read_until_close:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def test_keep_alive_answers_pipelined_requests_on_one_connection(mock):
    one = b"GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n"
    last = b"GET /v1/pets/mine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    replies = raw(mock, one * 3 + last)
    assert replies.count(b"HTTP/1.1 200 OK") == 4 and replies.endswith(b'{"mine": true}')


def test_garbage_oversized_and_slow_requests_get_an_answer_and_the_server_goes_on(mock, client):
    assert raw(mock, b"\x16\x03\x01 hello\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    too_big = raw(mock, f"POST /v1/pets HTTP/1.1\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode())
    assert too_big.startswith(b"HTTP/1.1 413 ")
    assert raw(mock, b"GET /v1/pets HTTP/1.1\r\n" + b"X-Filler: a\r\n" * 7000).startswith(b"HTTP/1.1 431 ")
    began = time.monotonic()
    with socket.create_connection((mock.host, mock.port), timeout=5) as sock:
        sock.sendall(b"GET /v1/pets HTTP/1.1\r\nHost: x\r\n")  # never finishes its head
        assert sock.recv(100) == b"" and time.monotonic() - began < 3  # cut off at the head deadline
    head = (b"POST /v1/pets HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\n\r\n")
    chunked = raw(mock, head + b'8\r\n{"id": 1\r\n9\r\n, "name":\r\n6\r\n "Rex"\r\n1\r\n}\r\n0\r\n\r\n')
    assert chunked.startswith(b"HTTP/1.1 201 ")
    assert client.get("/pets").status_code == 200


def test_the_request_log_says_what_happened(mock, client):
    client.get("/pets", params={"limit": "lots"})
    client.get("/pets/mine")
    first, second = mock.app.log()[-2:]
    assert (first.method, first.path, first.status, first.operation) == ("GET", "/v1/pets?limit=lots", 422,
                                                                          "GET /pets")
    assert first.violations and first.violations[0].startswith("query/limit: expected")
    assert (second.status, second.operation, second.violations) == (200, "GET /pets/mine", ())
    assert json.loads(json.dumps(second.to_json()))["ms"] >= 0


def test_the_executor_calls_the_shop_example_through_the_mock(monkeypatch):
    monkeypatch.setenv("WORKBENCH_AUTH_BEARERAUTH", "t0ken")
    monkeypatch.setenv("WORKBENCH_AUTH_APIKEYAUTH", "pk_test")
    spec = load_spec(example_path())
    toolset = convert(spec)
    with MockServer(spec) as server:
        executor = Executor(spec, toolset, CallOptions(base_url=server.url + "/v2", mock=True, retries=0))
        results = {name: executor.call(ToolCall(name, arguments)) for name, arguments in (
            ("listCustomers", {"limit": 10}), ("getCustomer", {"customerId": "cus_8f2kQ1x9LmP3aZ"}),
            ("createCustomer", {"name": "Ann Lee", "email": "ann@example.com"}),
            ("listProducts", {"activeOnly": False}))}
        log = server.app.log()
    assert {name: r.status for name, r in results.items()} == {
        "listCustomers": 200, "getCustomer": 200, "createCustomer": 201, "listProducts": 200}
    assert all(entry.violations == () for entry in log)


def test_workbench_mock_prints_where_it_listens_and_stops_on_ctrl_c(write, tmp_path):
    path = write("pets.yaml", SPEC)
    log = tmp_path / "requests.jsonl"
    process = subprocess.Popen([sys.executable, "-m", "workbench", "mock", str(path), "--port", "0", "--cors",
                                "--log", str(log)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:")
        answer = httpx.get(line.removeprefix("listening on ") + "/v1/pets/mine", timeout=5,
                           headers={"Origin": "http://localhost:3000"})
        assert answer.json() == {"mine": True} and answer.headers["access-control-allow-origin"] == "*"
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=10)
    assert process.returncode == 0 and err == ""
    entry = json.loads(log.read_text(encoding="utf-8").splitlines()[-1])
    assert (entry["method"], entry["path"], entry["status"], entry["operation"]) == ("GET", "/v1/pets/mine", 200,
                                                                                      "GET /pets/mine")


def test_an_unwritable_log_is_one_line(write, tmp_path):
    path = write("pets.yaml", SPEC)
    run = subprocess.run([sys.executable, "-m", "workbench", "mock", str(path), "--port", "0", "--log",
                          str(tmp_path / "no" / "such" / "dir.jsonl")], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f"workbench: {tmp_path}/no/such/dir.jsonl: cannot write the request log: ")
    assert len(run.stderr.splitlines()) == 1


def test_cors_preflight_is_answered(write):
    spec = load_spec(write("pets.yaml", SPEC))
    with MockServer(spec, app=MockApp(spec, cors=True)) as server:
        preflight = httpx.options(server.url + "/v1/pets", timeout=5, headers={
            "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-methods"] == "*"


PRISM_CASES = """openapi: 3.1.0
info: {title: Cases, version: '1'}
paths:
  /l/{ids}:
    get:
      parameters: [{name: ids, in: path, required: true, style: label, schema: {type: array, items: {type: integer}}}]
      responses: {'204': {description: ok}}
  /big:
    get:
      parameters: [{name: n, in: query, required: true, schema: {type: integer, format: int64}}]
      responses: {'204': {description: ok}}
  /spaced:
    get:
      parameters:
        - {name: tags, in: query, style: spaceDelimited, explode: false, schema: {type: array, items: {type: string}}}
      responses: {'204': {description: ok}}
  /form:
    post:
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {tags: {type: array, items: {type: string}}}}
      responses: {'204': {description: ok}}
  /upload:
    post:
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object, properties: {file: {type: string, format: binary}}}
      responses: {'204': {description: ok}}
"""


def test_spec_valid_requests_that_trip_other_mocks_are_accepted(write):
    """Requests Prism 5.14 crashes on or refuses with a false 422 (see the mock facts in the shared docs)."""
    with MockServer(load_spec(write("cases.yaml", PRISM_CASES))) as server, \
            httpx.Client(base_url=server.url, timeout=5) as http:
        answers = [
            http.get("/l/.1,2"),  # a label-style array path parameter
            http.get("/big", params={"n": str(2**53 + 7)}),  # an int64 beyond what a double holds exactly
            http.get("/spaced?tags=a%20b%20c"),
            http.post("/form", content=b"tags=a&tags=b", headers={"Content-Type": "application/x-www-form-urlencoded"}),
            http.post("/upload", files={"file": ("odd.bin", b"100%zz of it \x00\xff")}),
        ]
        log = server.app.log()
    assert [a.status_code for a in answers] == [204] * 5, [(e.path, e.violations) for e in log]


@pytest.mark.parametrize("fault, error", [
    ("reset", httpx.ReadError), ("empty", httpx.RemoteProtocolError), ("garbage", httpx.RemoteProtocolError),
    ("truncate", httpx.RemoteProtocolError), ("malformed-chunk", httpx.RemoteProtocolError),
    ("hang", httpx.ReadTimeout),
])
def test_each_fault_is_seen_by_a_client_as_the_network_would_show_it(mock, fault, error):
    with httpx.Client(base_url=mock.url + "/v1", timeout=httpx.Timeout(0.6)) as http:
        with pytest.raises(error):
            http.get("/pets/mine", headers={"Prefer": f"fault={fault}"})
        assert http.get("/pets/mine").json() == {"mine": True}  # the server goes on


def test_injected_status_delay_retry_after_and_dribble(client):
    began = time.monotonic()
    unavailable = client.get("/pets/mine", headers={"Prefer": "status=503, retry-after=2, delay=300"})
    assert time.monotonic() - began >= 0.3
    assert unavailable.status_code == 503 and unavailable.headers["retry-after"] == "2"
    began = time.monotonic()
    slow = client.get("/pets/mine", headers={"Prefer": "fault=dribble"})
    assert slow.json() == {"mine": True} and time.monotonic() - began >= 1.0  # ~130 bytes, one per 50 ms
    refused = client.get("/pets/mine", headers={"Prefer": "fault=explode"})
    assert refused.status_code == 400 and "unknown fault 'explode'" in refused.json()["detail"]


def test_every_fault_has_a_writer():
    assert set(FAULT_WRITERS) == set(FAULTS)


def test_stateful_resources_are_created_read_listed_deleted_and_reset(write):
    spec = load_spec(write("pets.yaml", SPEC))
    with MockServer(spec, app=MockApp(spec, stateful=True)) as server, \
            httpx.Client(base_url=server.url + "/v1", timeout=5, headers={"X-Api-Key": "k"}) as http:
        made = http.post("/pets", json={"id": 42, "name": "Rex"})
        assert made.status_code == 201 and made.json() == {"id": 42, "name": "Rex"}
        assert http.get("/pets/42").json() == {"id": 42, "name": "Rex"}
        assert http.get("/pets").json() == [{"id": 42, "name": "Rex"}]
        assert http.delete("/pets/42").status_code == 204
        gone = http.get("/pets/42")
        assert gone.status_code == 404 and gone.json() == {"message": "no such pet"}  # the declared 404
        http.post("/pets", json={"id": 7, "name": "Tom"})
        assert http.post(server.url + "/v1/__mock/reset").status_code == 204
        assert http.get("/pets").json() == []
    with MockServer(spec) as stateless, httpx.Client(base_url=stateless.url + "/v1", timeout=5) as http:
        http.post("/pets", json={"id": 42, "name": "Rex"})
        assert http.get("/pets/42").status_code == 200 and http.get("/pets").json() == [{"id": 1, "name": "Rex"}]


def test_explain_says_which_operations_are_stateful(write):
    path = write("pets.yaml", SPEC)
    run = subprocess.run([sys.executable, "-m", "workbench", "mock", str(path), "--explain"], capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "GET     /pets: lists (/pets)", "POST    /pets: creates (/pets)", "GET     /pets/mine: stateless",
        "GET     /pets/{petId}: reads (/pets)", "DELETE  /pets/{petId}: deletes (/pets)"]


def test_stateful_creations_get_ids_of_their_own_even_from_a_fixed_example(monkeypatch):
    monkeypatch.setenv("WORKBENCH_AUTH_BEARERAUTH", "t0ken")
    spec = load_spec(example_path())
    with MockServer(spec, app=MockApp(spec, stateful=True)) as server:
        executor = Executor(spec, convert(spec), CallOptions(base_url=server.url + "/v2", mock=True, retries=0))
        made = [executor.call(ToolCall("createCustomer", {"name": name, "email": f"{name.lower()}@example.com"}))
                for name in ("Ann", "Bob")]
        ids = [m.body["id"] for m in made]
        read = [executor.call(ToolCall("getCustomer", {"customerId": i})).body["name"] for i in ids]
    assert [m.status for m in made] == [201, 201] and len(set(ids)) == 2 and read == ["Ann", "Bob"]


def test_config_fault_rules_fail_n_times_then_succeed_and_probabilities_are_seeded(write):
    spec_path = write("pets.yaml", SPEC)
    write(".workbench.yaml", "mock:\n  seed: 5\n  faults:\n"
                             "    - {operation: listPets, status: 503, retry-after: 1, times: 2}\n"
                             "    - {operation: 'GET /pets/{petId}', fault: empty, probability: 0.5}\n")
    spec, settings = load_spec(spec_path), spec_config(spec_path).mock
    assert settings.seed == 5 and [r.operation for r in settings.faults] == ["listPets", "GET /pets/{petId}"]

    def statuses(app: MockApp, path: str, count: int) -> list[object]:
        with MockServer(spec, app=app) as server, httpx.Client(base_url=server.url + "/v1", timeout=2) as http:
            out = []
            for _ in range(count):
                try:
                    out.append(http.get(path).status_code)
                except httpx.RemoteProtocolError:
                    out.append("empty")
            return out

    assert statuses(MockApp(spec, settings.seed, faults=settings.faults), "/pets", 4) == [503, 503, 200, 200]
    first = statuses(MockApp(spec, settings.seed, faults=settings.faults), "/pets/3", 16)
    again = statuses(MockApp(spec, settings.seed, faults=settings.faults), "/pets/3", 16)
    assert first == again and {200, "empty"} == set(first)  # the same seed, the same faults, some of each


def corpus_specs() -> list[str]:
    return corpus_names()


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("name", corpus_specs())
def test_the_mock_starts_on_every_corpus_file_and_never_answers_5xx(name):
    spec = load_spec(corpus_dir() / name)
    with MockServer(spec) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        base = server.app.router.base
        answers = {}
        for op in spec.operations:
            path = re.sub(r"\{[^{}]+\}", "1", op.path.split("#", 1)[0])
            answer = http.request(op.method.upper(), base + path, headers={"Authorization": "Bearer x"})
            answers[f"{op.method.upper()} {op.path}"] = answer.status_code
        nowhere = http.get(base + "/no/such/path/here").status_code  # webhook-only specs have no paths at all
    assert not {k: v for k, v in answers.items() if v >= 500} and nowhere == 404
    assert len(answers) == len({(op.method, op.path) for op in spec.operations})


FRAMED = """openapi: 3.0.3
info: {title: Markdown, version: '1'}
paths:
  /markdown:
    post:
      requestBody: {content: {application/json: {schema: {type: object}}}}
      responses:
        '200':
          description: rendered
          headers:
            Content-Length: {example: '279', schema: {type: string}}
            Transfer-Encoding: {schema: {type: string}}
            Connection: {example: close, schema: {type: string}}
            X-Renderer: {schema: {type: string, enum: [cm]}}
          content: {text/html: {example: "<p>Grüße, naïve café — ✓</p>"}}
"""


def test_declared_framing_headers_do_not_override_the_length_of_a_non_ascii_text_body(write):
    """GitHub's `POST /markdown` declares a Content-Length response header (example 279); the mock says the
    real length of what it sends, once, in bytes (the example text is longer in bytes than in characters)."""
    with MockServer(load_spec(write("markdown.yaml", FRAMED))) as server:
        with httpx.Client(base_url=server.url, timeout=5) as http:
            answers = [http.post("/markdown", json={"text": "hi"}) for _ in range(2)]  # kept alive between
        wire = raw(server, b"POST /markdown HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                           b"Connection: close\r\n\r\n{}")
    body = "<p>Grüße, naïve café — ✓</p>".encode()
    for answer in answers:
        assert answer.status_code == 200 and answer.content == body and answer.headers["x-renderer"] == "cm"
        assert answer.headers["content-length"] == str(len(body)) and "transfer-encoding" not in answer.headers
    head = wire.split(b"\r\n\r\n", 1)[0].lower()
    assert head.count(b"content-length:") == 1 and head.count(b"connection:") == 1


XML_BODY = """openapi: 3.1.0
info: {title: Bookings, version: '1'}
paths:
  /bookings:
    post:
      requestBody:
        content:
          application/json: {schema: {$ref: '#/components/schemas/Booking'}}
          application/xml: {schema: {$ref: '#/components/schemas/Booking'}}
      responses: {'201': {description: booked}, '400': {description: invalid}}
components:
  schemas:
    Booking:
      type: object
      xml: {name: booking}
      required: [trip_id]
      properties:
        id: {type: integer, xml: {attribute: true}}
        trip_id: {type: string}
        has_dog: {type: boolean}
        seats: {type: integer, minimum: 1}
        names: {type: array, xml: {wrapped: true}, items: {type: string, xml: {name: name}}}
        tags: {type: array, items: {type: string, xml: {name: tag}}}
"""


def test_an_xml_body_is_read_the_way_openapi_maps_xml_and_checked_against_its_schema(write):
    """Train Travel's `POST /bookings` takes application/xml: its own example was refused with "expected a
    value of type object" (the body was read as text). Found by Schemathesis run against the mock."""
    xml = {"Content-Type": "application/xml"}
    with MockServer(load_spec(write("bookings.yaml", XML_BODY))) as server, \
            httpx.Client(base_url=server.url, timeout=5) as http:
        valid = http.post("/bookings", headers=xml, content=(
            b'<booking id="7"><trip_id>t-1</trip_id><has_dog>false</has_dog><seats>2</seats>'
            b"<names><name>Ann</name><name>Bo</name></names><tag>a</tag><tag>b</tag></booking>"))
        wrong = [http.post("/bookings", headers=xml, content=body) for body in (
            b"<booking><has_dog>yes</has_dog><trip_id>t</trip_id></booking>",  # not a boolean
            b"<booking><seats>0</seats><trip_id>t</trip_id></booking>",  # below the minimum
            b"<booking><seats>2</seats></booking>",  # trip_id is required
            b"<booking>true</booking>",  # text where an object belongs
            b"<booking><trip_id>t</trip_id>",  # not well-formed
            b'<!DOCTYPE b [<!ENTITY e "x">]><booking><trip_id>&e;</trip_id></booking>',  # no entities
        )]
        log = server.app.log()
    assert valid.status_code == 201, log[-7].violations
    assert [w.status_code for w in wrong] == [400] * 6
    assert [v["name"] for v in wrong[0].json()["validation"]] == ["has_dog"]
    assert "document type declaration" in wrong[5].json()["validation"][0]["expected"]
    spec = load_spec(write("bookings.yaml", XML_BODY))
    assert decode_xml(b'<booking id="7"><trip_id>t-1</trip_id><has_dog>false</has_dog><names><name>Ann</name>'
                      b"<name>Bo</name></names><tag>a</tag><tag>b</tag><extra>x</extra></booking>",
                      spec.components.schemas["Booking"]) == {
        "id": 7, "trip_id": "t-1", "has_dog": False, "names": ["Ann", "Bo"], "tags": ["a", "b"], "extra": "x"}


def test_each_violation_points_at_the_keyword_of_the_spec_it_breaks(client):
    refused = client.get("/pets", params={"limit": "500"})
    assert refused.json()["validation"][0]["schemaPointer"] == "#/paths/~1pets/get/parameters/0/schema/maximum"
    body = client.post("/pets", json={"id": 1, "name": ""}).json()["validation"]
    assert [(v["name"], v["schemaPointer"]) for v in body] == [
        ("name", "#/components/schemas/Pet/properties/name/minLength")]
    missing = client.post("/pets", json={"name": "Rex"}).json()["validation"]
    assert [v["schemaPointer"] for v in missing] == ["#/components/schemas/Pet/required"]
    untyped = client.get("/pets/seven").json()["validation"]
    assert untyped[0]["schemaPointer"] == "#/paths/~1pets~1{petId}/get/parameters/0/schema/type"
