"""The round trip end to end: generated calls → the real executor → the real mock on 127.0.0.1, each request
judged by openapi-core, each failure classified; a serialiser bug the mock shares is caught by the judge;
baselines; the fault drill; a server of yours; the command's formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workbench.config import WorkbenchConfig
from workbench.roundtrip import oracle, run
from workbench.roundtrip.report import read_baseline
from workbench.roundtrip.suite import RoundTripOptions, run_roundtrip
from workbench.spec import SpecError, load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.wire import parameters

SPEC = """openapi: 3.0.3
info: {title: Shop, version: "1"}
servers: [{url: "https://shop.example.invalid/v1"}]
paths:
  /items:
    get:
      operationId: listItems
      parameters:
        - {name: ids, in: query, style: form, explode: false,
           schema: {type: array, maxItems: 4, items: {type: integer, minimum: 0, maximum: 99}}}
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 50}}
        - {name: X-Trace, in: header, schema: {type: string, maxLength: 20}}
      responses:
        "200":
          description: the items
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/Item"}}
    post:
      operationId: createItem
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NewItem"}
            example: {name: lamp, price: 12.5}
      responses:
        "201":
          description: created
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
        "422": {description: invalid}
  /items/{itemId}:
    get:
      operationId: getItem
      parameters:
        - {name: itemId, in: path, required: true, schema: {type: integer, minimum: 1}, example: 7}
      responses:
        "200":
          description: one item
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Item"}
        "404": {description: not found}
components:
  schemas:
    NewItem:
      type: object
      required: [name]
      properties:
        name: {type: string, minLength: 1, maxLength: 30}
        price: {type: number, minimum: 0}
        tags: {type: array, items: {type: string, enum: [new, sale]}}
    Item:
      allOf:
        - $ref: "#/components/schemas/NewItem"
        - type: object
          required: [id]
          properties: {id: {type: integer}}
"""


@pytest.fixture
def shop(write):
    path = write("shop.yaml", SPEC)
    spec = load_spec(path)
    return path, spec, build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor="openai"))


def roundtrip(shop, **options):
    path, spec, toolset = shop
    return run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3, budget_s=20, **options))


def written(write, name: str, text: str, strict: bool = False):
    """A spec written to `name`: (path, spec, its openai tool set)."""
    path = write(name, text)
    spec = load_spec(path)
    return path, spec, build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor="openai", strict=strict))


def round_trip_of(write, name: str, text: str, strict: bool = False, **options):
    """The round trip of a spec written to `name` against the mock (openai tools, one set unless told)."""
    path, spec, toolset = written(write, name, text, strict)
    return run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(**{"count": 1, **options}))


def test_every_generated_call_passes_the_mock_and_the_judge(shop) -> None:
    report = roundtrip(shop)
    summary = report.summary()
    assert summary["operations"] == 3
    assert summary["classifications"] == {run.PASSED: summary["sets"]}, report.to_text()
    kinds = {a.kind for a in report.attempts}
    assert kinds == {"minimal", "generated", "example"}  # createItem and getItem have examples
    assert not report.failed
    assert all(a.request.startswith(("GET /v1/", "POST /v1/")) for a in report.attempts)


def test_a_serialiser_bug_the_mock_shares_is_caught_by_the_judge(shop, monkeypatch) -> None:
    """Planted: form arrays joined by "|" instead of ",". The serialiser and the mock's parser read one
    table, so the mock agrees with the bug; openapi-core does not, and the failure is the executor's."""
    broken = parameters.STYLES["form"]._replace(list_sep="|")
    monkeypatch.setitem(parameters.STYLES, "form", broken)
    report = roundtrip(shop)
    caught = [a for a in report.attempts if a.classification == run.EXECUTOR]
    assert caught and all(a.tool == "listItems" for a in caught), report.to_text()
    for attempt in caught:
        assert attempt.status == 200  # the mock accepted it
        assert attempt.disagreement == "the mock accepted what the independent judge refused"
        assert "%7C" in attempt.request and attempt.oracle
    assert report.failed


def test_a_baseline_lists_new_fixed_and_still_failing(shop, monkeypatch, tmp_path) -> None:
    clean = roundtrip(shop)
    saved = tmp_path / "baseline.json"
    saved.write_text(json.dumps(clean.to_json(), default=str))
    baseline = read_baseline(saved)
    assert not roundtrip(shop, ).failure_keys()
    monkeypatch.setitem(parameters.STYLES, "form", parameters.STYLES["form"]._replace(list_sep="|"))
    path, spec, toolset = shop
    broken = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3), baseline=baseline)
    assert broken.comparison.new and not broken.comparison.fixed
    assert all(key.startswith("GET /items") and key.endswith(run.EXECUTOR) for key in broken.comparison.new)
    again = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3),
                          baseline=broken.to_json())
    assert not again.comparison.new and again.comparison.still == broken.comparison.new


def test_a_tool_schema_that_lost_a_constraint_is_a_conversion_loss(shop) -> None:
    path, spec, toolset = shop
    tool = toolset.tool("getItem")
    lost = json.loads(json.dumps(tool.parameters))
    lost["properties"]["itemId"].update(minimum=-5, maximum=0)  # planted: the conversion lost `minimum: 1`
    tool.parameters = lost
    report = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=2))
    losses = [a for a in report.attempts if a.classification == run.CONVERSION]
    assert losses and {a.tool for a in losses} == {"getItem"}
    assert all(a.outcome == run.REFUSED and any("/itemId" in d for d in a.detail) for a in losses)
    assert report.failed


def test_an_unsatisfiable_tool_schema_is_reported_as_the_specs(write) -> None:
    unsatisfiable = SPEC.replace("minLength: 1, maxLength: 30", "minLength: 5, maxLength: 2")
    report = round_trip_of(write, "bad.yaml", unsatisfiable, count=2)
    create = next(op for op in report.operations if op.tool == "createItem")
    assert [a.classification for a in create.attempts] == [run.SPEC]
    assert "no arguments satisfy" in create.attempts[0].detail[0]


def test_the_fault_drill_follows_the_policy(shop) -> None:
    report = roundtrip(shop, faults=True)
    names = {(d.scenario, d.method.upper()) for d in report.drill}
    assert ("hang", "GET") in names and ("slow dribble", "GET") in names
    assert ("503 with Retry-After, then success", "POST") in names
    assert all(d.matched for d in report.drill), "\n".join(d.to_text() for d in report.drill)
    by = {(d.scenario, d.method.upper()): d for d in report.drill}
    assert by[("fail 2 times (503), then success", "GET")].attempts == 3
    assert by[("503 with Retry-After, then success", "POST")].attempts == 1
    assert by[("503 with Retry-After, then success", "GET")].elapsed_s >= 1.0
    assert by[("slow dribble", "GET")].elapsed_s < 2.2  # the deadline holds while the head is dribbled


def test_a_server_of_yours_gets_reads_only_unless_writes_are_allowed(shop, server) -> None:
    report = roundtrip(shop, base_url=server.url + "/v1")
    create = next(op for op in report.operations if op.tool == "createItem")
    assert [a.classification for a in create.attempts] == [run.NOT_RUN]
    assert "--allow-writes" in create.attempts[0].detail[0]
    assert server.requests and all(r.line.startswith("GET /v1/items") for r in server.requests)
    asked = []
    report = roundtrip(shop, base_url=server.url + "/v1", allow_writes=True,
                       approve_write=lambda tool: asked.append(tool.name) or False)
    assert asked == ["createItem"]
    assert [a.outcome for op in report.operations if op.tool == "createItem" for a in op.attempts] == [run.SKIPPED]


def workbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "roundtrip", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_command_prints_json_saves_a_baseline_and_compares(shop, tmp_path) -> None:
    path = shop[0]
    saved = tmp_path / "run.json"
    done = workbench(str(path), "--format", "json", "--save-baseline", str(saved), "--examples", "2")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert set(out) >= {"operations", "summary"}
    first = out["operations"][0]
    assert set(first) >= {"tool", "method", "path", "sent", "passed", "failures"}
    assert out["summary"]["passed"] == out["summary"]["sets"]
    assert json.loads(saved.read_text())["operations"] == out["operations"]
    compared = workbench(str(path), "--baseline", str(saved), "--examples", "2")
    assert compared.returncode == 0 and "0 new, 0 fixed, 0 still failing" in compared.stdout
    junit = workbench(str(path), "--format", "junit", "--examples", "1")
    assert junit.returncode == 0 and junit.stdout.startswith("<?xml") and 'failures="0"' in junit.stdout


def test_the_command_refuses_bad_input_in_one_line(shop, write) -> None:
    not_a_baseline = write("nope.json", '{"a": 1}')
    done = workbench(str(shop[0]), "--baseline", str(not_a_baseline))
    assert done.returncode == 2 and "nope.json" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    swagger = write("v2.yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
                    "      operationId: getA\n      responses: {'200': {description: ok}}\n")
    done = workbench(str(swagger))
    assert done.returncode == 0 and "--oracle-spec" in done.stdout


def test_a_read_baseline_error_names_the_file(write) -> None:
    broken = write("x.json", "{")
    with pytest.raises(SpecError, match="not JSON") as raised:
        read_baseline(broken)
    assert "x.json" in str(raised.value)


SECURED = SPEC.replace('servers: [{url: "https://shop.example.invalid/v1"}]', '''servers: [{url: "https://shop.example.invalid/v1"}]
security: [{key: []}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}''').replace("components:\n  schemas:", "  schemas:")


def test_a_server_of_yours_never_sees_its_secret_in_the_report(write, server, monkeypatch) -> None:
    """The real credential (from the environment) goes on the wire, and is masked in every form of the
    report, the server's echo of it included."""
    from tests.servers import Reply

    secret = "sk-live-TOPSECRET-42"
    monkeypatch.setenv("WORKBENCH_AUTH_KEY", secret)
    server.responder = lambda recorded: Reply(
        400, body=json.dumps({"error": f"bad key {recorded.header('X-Api-Key')}"}).encode())
    path = write("secured.yaml", SECURED)
    spec = load_spec(path)
    toolset = build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor="openai"))
    report = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=1, base_url=server.url + "/v1"))
    assert server.requests and all(r.header("X-Api-Key") == secret for r in server.requests)
    assert {a.classification for a in report.attempts if a.request} == {run.SERVER}
    for text in (json.dumps(report.to_json(), default=str), report.to_text(verbose=True)):
        assert secret not in text and "X-Api-Key: ********" in text and "bad key ********" in text
    assert secret not in report.to_junit()


def test_a_write_to_a_server_of_yours_is_asked_for_once_per_operation(shop, server) -> None:
    asked = []
    report = roundtrip(shop, base_url=server.url + "/v1", allow_writes=True,
                       approve_write=lambda tool: asked.append(tool.name) or True)
    assert asked == ["createItem"]
    sent = [r for r in server.requests if r.line.startswith("POST")]
    create = next(op for op in report.operations if op.tool == "createItem")
    assert len(sent) == create.sent == len(create.attempts) >= 2


def test_an_unreachable_server_or_a_foreign_baseline_is_one_line(shop, tmp_path) -> None:
    done = workbench(str(shop[0]), "--base-url", "http://127.0.0.1:9")
    assert done.returncode == 2 and "cannot reach the server" in done.stderr and "Traceback" not in done.stderr
    saved = tmp_path / "b.json"
    assert workbench(str(shop[0]), "--examples", "1", "--save-baseline", str(saved)).returncode == 0
    done = workbench(str(shop[0]), "--examples", "1", "--seed", "5", "--baseline", str(saved))
    assert done.returncode == 2 and "--seed 0 (this run: 5)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


UNTYPED_NULLABLE = """openapi: 3.0.3
info: {title: Snapshots, version: '1'}
paths:
  /snapshots:
    post:
      operationId: createSnapshot
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [metadata]
              properties: {metadata: {type: object, additionalProperties: {$ref: '#/components/schemas/Value'}}}
            example: {metadata: {kind: lib, pinned: null}}
      responses: {'201': {description: created}}
components:
  schemas:
    Value: {nullable: true, anyOf: [{type: string}, {type: number}, {type: boolean}]}
"""


def test_a_null_the_spec_means_but_3_0_3_forbids_is_the_specs_contradiction_with_its_pointer(write) -> None:
    """GitHub's dependency-graph snapshot `metadata`: `nullable: true` beside an anyOf of typed members, no
    `type`. The spec means null (the tool offers it, the mock takes it); OpenAPI 3.0.3 gives such a
    `nullable` no effect and the judge refuses it: the spec's contradiction, said with both pointers."""
    report = round_trip_of(write, "snapshots.yaml", UNTYPED_NULLABLE)
    (example,) = [a for a in report.attempts if a.kind == "example"]
    assert example.status == 201 and example.classification == run.SPEC, report.to_text()
    (said,) = example.oracle
    assert "OpenAPI 3.0.3" in said and "null at /metadata/pinned against #/components/schemas/Value" in said
    assert not report.failed


UNDEFINED_REQUIRED = SPEC.replace("      required: [name]\n", "      required: [name, item_name]\n")


def test_a_required_property_the_schema_does_not_define_is_the_specs_contradiction_not_the_executors(write):
    """The bundled example's gap: `required: [shipping_address]` beside a `shippingAddress` property. The tool
    offers the defined properties only, so every call is refused by the mock and the judge: the spec is at
    fault, said with the pointer of that `required`."""
    report = round_trip_of(write, "items.yaml", UNDEFINED_REQUIRED)
    create = [a for a in report.attempts if a.tool == "createItem"]
    assert create and all(a.classification == run.SPEC and a.status == 422 for a in create), report.to_text()
    assert all("'item_name' required at #/components/schemas/NewItem/required" in a.oracle[0] for a in create)
    assert not any(a.classification == run.EXECUTOR for a in report.attempts)


SLASHED = """openapi: 3.0.3
info: {title: Repos, version: "1"}
servers: [{url: "https://repos.example.invalid/v1"}]
paths:
  /repos/{owner}/permissions:
    put:
      operationId: setPermissions
      parameters:
        - {name: owner, in: path, required: true, schema: {type: string}, example: "octo/cat"}
        - {name: limit, in: query, required: true, schema: {type: integer, minimum: 1}, example: 3}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [enabled]
              properties: {enabled: {type: boolean}}
            example: {enabled: true}
      responses: {'204': {description: set}}
"""


def test_a_slash_in_a_path_value_leaves_the_path_unjudged_not_the_body(write) -> None:
    """GitHub's `owner: "  // ❌"`: the executor sends the slash as %2F, which WSGI decodes before routing,
    so the judge found no operation and read no body — "sent {'enabled': True}, the server read None" was
    blamed on the executor. The judge routes such a request by its template: the path values are not judged,
    the query and the body are, and the call passes."""
    report = round_trip_of(write, "repos.yaml", SLASHED)
    (example,) = [a for a in report.attempts if a.kind == "example"]
    assert "PUT /v1/repos/octo%2Fcat/permissions?limit=3" in example.request
    assert example.status == 204 and example.classification == run.PASSED, report.to_text()
    assert example.judged and list(example.unjudged) == [oracle.PATH] and not example.oracle
    assert not report.failed


def test_behind_a_slashed_path_value_the_judge_still_reads_the_query_and_the_body(write) -> None:
    """Routed by the template, the rest of the request is judged as it was sent: a wrong body or query value
    is refused, and the values it decoded are compared with what was sent."""
    path, _spec, toolset = written(write, "repos.yaml", SLASHED)
    (tool,) = toolset.tools
    judge = oracle.Oracle(oracle.read_document(path), "http://127.0.0.1:9/v1")
    template, json_type = "/repos/{owner}/permissions", [("Content-Type", "application/json")]

    def verdict(target: str, body: bytes) -> oracle.Verdict:
        return judge.judge("PUT", target, json_type, body, template)

    good = verdict("/v1/repos/octo%2Fcat/permissions?limit=3", b'{"enabled":true}')
    assert good.accepted and good.body == {"enabled": True} and good.unjudged == {oracle.PATH: oracle.PATH_SLASH}
    sent = {"owner": "octo/cat", "limit": 3, "enabled": True}
    assert not oracle.mismatches(tool, sent, good)
    assert oracle.mismatches(tool, {**sent, "limit": 4}, good) == ["query limit: sent 4, the server read 3"]
    assert verdict("/v1/repos/octo%2Fcat/permissions?limit=3", b'{"enabled":"yes"}').errors
    assert verdict("/v1/repos/octo%2Fcat/permissions?limit=0", b'{"enabled":true}').errors
    assert verdict("/v1/repos/octo%2Fcat/permissions", b'{"enabled":true}').errors  # limit is required


FREE_FORM_FIELD = """openapi: 3.0.1
info: {title: Factors, version: "1"}
servers: [{url: "https://verify.example.invalid/v2"}]
paths:
  /Factors:
    post:
      operationId: CreateNewFactor
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [FriendlyName, Metadata, Details.Fields]
              properties:
                FriendlyName: {type: string}
                Metadata: {description: 'Custom metadata: a stringified JSON, eg. `{"os": "Android"}`.'}
                Details.Fields: {type: array, items: {}, minItems: 1}
      responses: {'201': {description: created}}
"""


@pytest.mark.parametrize("version", ["3.0.1", "3.1.0"])
@pytest.mark.parametrize("strict", [False, True])
def test_an_untyped_form_field_is_asked_for_as_the_text_it_goes_as(write, strict, version) -> None:
    """Twilio Verify's `Metadata` has no type: the tool took any value, and in 3.0 an object went as form keys
    of its own names (`os=Android`), which no server can tell from the other fields (the judge read no
    Metadata: an "executor bug"), while an array of objects could not be sent at all (a "conversion loss"); in
    3.1 it went JSON-encoded, which the server reads as the text it is. A form body carries such a field only
    as text, so the tool asks for a string (the stringified JSON the spec means), and every call round trips."""
    text = FREE_FORM_FIELD.replace("openapi: 3.0.1", f"openapi: {version}")
    path, spec, toolset = written(write, "factors.yaml", text, strict)
    (tool,) = toolset.tools
    fields = tool.parameters["properties"]  # a required body: its fields are the arguments
    assert fields["Metadata"]["type"] == "string" and fields["Details_Fields"]["items"] == {"type": "string"}
    assert "form field 'Metadata' has no type" in " ".join(w.message for w in toolset.warnings)
    report = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=6, budget_s=20))
    assert report.summary()["classifications"] == {run.PASSED: len(report.attempts)}, report.to_text()
    assert all("Metadata=" in a.request and "Details.Fields=" in a.request for a in report.attempts)


def test_a_form_field_whose_encoding_says_json_keeps_any_value(write) -> None:
    """An Encoding with a JSON content type makes the field a JSON value: the tool keeps it as the spec has
    it."""
    _path, _spec, toolset = written(write, "factors.yaml", FREE_FORM_FIELD.replace(
        "      responses:", "            encoding: {Metadata: {contentType: application/json}}\n      responses:"))
    (tool,) = toolset.tools
    assert "type" not in tool.parameters["properties"]["Metadata"]
    assert not [w for w in toolset.warnings if "form field 'Metadata'" in w.message]


def test_a_strict_tool_refused_for_a_required_property_the_schema_does_not_define_is_the_specs(write) -> None:
    """Box's token revocation requires `grant_type`, which its properties do not declare: a strict tool (closed
    objects) cannot offer it, so the executor refuses every call before it is sent. Not a conversion loss:
    the spec's contradiction, said with the schema that requires it."""
    # an optional body is one argument (its schema whole): the executor checks it against the spec's
    optional_body = UNDEFINED_REQUIRED.replace("      requestBody:\n        required: true\n", "      requestBody:\n")
    report = round_trip_of(write, "items.yaml", optional_body, strict=True, count=2)
    create = [a for a in report.attempts if a.tool == "createItem" and a.arguments.get("body")]
    assert create and all(a.outcome == run.REFUSED and a.classification == run.SPEC for a in create), report.to_text()
    assert all("'item_name' required by" in a.detail[0] and "is required" in a.detail[1] for a in create)
    assert not report.failed


def test_a_required_property_defined_by_a_union_member_or_taken_as_extra_is_not_the_specs_contradiction() -> None:
    """Only a property no part of the object can carry is the spec's contradiction: one a oneOf member defines, or
    one `additionalProperties: {}` takes, is a refusal the tool is to blame for (a conversion loss), not the spec."""
    from types import SimpleNamespace

    missing = SimpleNamespace(expected="'grant_type' is required", place="/body")
    undefined = {"properties": {"body": {"type": "object", "properties": {"token": {"type": "string"}}}}}
    assert run._required_undefined(missing, undefined) == "'grant_type' required by the schema at /body"
    by_member = {"properties": {"body": {"type": "object", "oneOf": [
        {"properties": {"grant_type": {"type": "string"}}}, {"properties": {"token": {"type": "string"}}}]}}}
    as_extra = {"properties": {"body": {"type": "object", "additionalProperties": {}}}}
    by_pattern = {"properties": {"body": {"type": "object", "patternProperties": {"^g": {"type": "string"}}}}}
    for schema in (by_member, as_extra, by_pattern):
        assert run._required_undefined(missing, schema) is None, schema


NULLABLE_BESIDE_ALL_OF = """openapi: 3.0.3
info: {title: Files, version: "1"}
servers: [{url: "https://files.example.invalid"}]
paths:
  /files/{id}:
    put:
      operationId: updateFile
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}, example: "7"}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                name: {type: string}
                shared_link:
                  nullable: true
                  description: Set this to `null` to remove the shared link.
                  allOf: [{$ref: "#/components/schemas/Link"}, {description: the link}]
                color: {type: string, enum: [blue, red], nullable: true}
            example: {name: a, shared_link: null, color: null}
      responses: {'200': {description: updated}}
components:
  schemas:
    Link:
      type: object
      properties: {access: {type: string, enum: [open, company]}}
"""


def test_a_null_beside_an_all_of_or_an_enum_that_3_0_3_forbids_is_the_specs_contradiction(write) -> None:
    """Box's `shared_link` ("set this to null to remove the shared link"): `nullable: true` beside an allOf of
    an object, no `type`. The judge's refusal comes from the allOf member; the spec says null at the node
    above it, which OpenAPI 3.0.3 gives no effect. Box's `signature_color`: `nullable: true` beside an enum
    without null, which 3.0.3 lets refuse null. Both the spec's contradictions, said with their pointers."""
    report = round_trip_of(write, "files.yaml", NULLABLE_BESIDE_ALL_OF)
    (example,) = [a for a in report.attempts if a.kind == "example"]
    assert example.status == 200 and example.classification == run.SPEC, report.to_text()
    (said,) = example.oracle
    assert "OpenAPI 3.0.3" in said and ("null at /shared_link against #/paths/~1files~1{id}/put/requestBody/content/"
                                        "application~1json/schema/properties/shared_link") in said
    assert "beside an `enum` that does not list null" in said and "null at /color against #/paths/" in said
    assert not report.failed


NULLABLE_IN_3_1 = """openapi: 3.1.0
info: {title: Jobs, version: "1"}
servers: [{url: "https://jobs.example.invalid"}]
paths:
  /jobs:
    post:
      operationId: createJob
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/NewJob"}
            example: {model: m, validation_file: null}
      responses: {'201': {description: created}}
components:
  schemas:
    NewJob:
      type: object
      required: [model]
      properties:
        model: {type: string}
        validation_file: {type: string, nullable: true}
        suffix: {type: string, minLength: 1, default: null, nullable: true}
"""


def test_nullable_in_a_3_1_document_is_the_specs_contradiction_with_its_pointer(write) -> None:
    """The OpenAI description says `openapi: 3.1.0` and writes 3.0's `nullable: true` (and `default: null`,
    which the judge fills in when the property is left out). The tool honours the null the spec means; 3.1
    has no such keyword and the judge refuses it: the spec's contradiction, said with each place."""
    report = round_trip_of(write, "jobs.yaml", NULLABLE_IN_3_1)
    (example,) = [a for a in report.attempts if a.kind == "example"]
    (minimal,) = [a for a in report.attempts if a.kind == "minimal"]  # {"model": ...}: the default goes in
    assert [example.status, minimal.status] == [201, 201], report.to_text()
    assert example.classification == minimal.classification == run.SPEC, report.to_text()
    (said,), (filled,) = example.oracle, minimal.oracle
    assert "`nullable: true` is OpenAPI 3.0's" in said and "`nullable: true` is OpenAPI 3.0's" in filled
    assert "null at /validation_file against #/components/schemas/NewJob/properties/validation_file" in said
    assert "null at /suffix (its `default`, which the judge fills in) against #/components/schemas/NewJob/" \
           "properties/suffix" in filled
    assert not report.failed


EMPTY_FILTER = """openapi: 3.0.3
info: {title: Completions, version: "1"}
servers: [{url: "https://completions.example.invalid"}]
paths:
  /completions:
    get:
      operationId: listCompletions
      parameters:
        - name: metadata
          in: query
          schema: {type: object, additionalProperties: {type: string}, maxProperties: 0}
      responses:
        "200": {description: ok}
"""


def test_an_empty_filter_object_is_left_out_of_the_query_and_the_judge_takes_it(write) -> None:
    """OpenAI's list operations take `metadata` (an object) as a form query parameter: a model's `metadata: {}`
    (no filter) went as `metadata=`, an empty value the judge refuses (allowEmptyValue is false by default).
    An empty map is undefined (RFC 6570), so it is left out, as an empty list is; the judge and the mock agree."""
    report = round_trip_of(write, "completions.yaml", EMPTY_FILTER, count=3)
    empty = [a for a in report.attempts if a.arguments.get("metadata") == {}]
    assert empty, report.to_text()
    assert all(a.classification == run.PASSED and "metadata" not in a.request.split("\n", 1)[0] for a in empty)
    assert not report.failed, report.to_text()
