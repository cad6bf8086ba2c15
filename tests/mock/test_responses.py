"""What the mock answers: the status and media type chosen, the spec's examples, and generated bodies that are
valid against their schemas (small specs feature by feature; the GitHub description whole; every corpus file in
the sweep)."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.catalogue import GITHUB, corpus_file, corpus_names
from workbench.mock.responses import MockResponse, NoSuchResponse, NotAcceptable, ResponseMaker
from workbench.spec import Operation, Response, Spec, load_spec

FORMAT_CHECKER = Draft202012Validator.FORMAT_CHECKER
BASE = "https://specs.invalid/root"


# -- validating a body against its response schema --------------------------------------------------------

def response_view(value: Any) -> Any:
    """A schema as a response is checked against it: writeOnly properties are for requests only, so a required
    writeOnly property is not required here (a JSON Schema validator can't know that)."""
    if isinstance(value, list):
        return [response_view(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: response_view(v) for k, v in value.items()}
    props, required = out.get("properties"), out.get("required")
    if isinstance(props, dict) and isinstance(required, list):
        out["required"] = [n for n in required if not (isinstance(props.get(n), dict) and props[n].get("writeOnly"))]
    return out


def registry(spec: Spec) -> Registry:
    """The spec's ref targets put back into nested documents, so that model `$ref`s resolve against BASE."""
    documents: dict[str, dict] = {}
    for ref, schema in spec.ref_targets.items():
        name, _, pointer = ref.partition("#")
        node = documents.setdefault(name, {})
        steps = [s.replace("~1", "/").replace("~0", "~") for s in pointer.split("/")[1:]]
        for step in steps[:-1]:
            node = node.setdefault(step, {})
        node[steps[-1]] = response_view(schema)
    return Registry().with_resources(
        (urljoin(BASE, name), Resource(contents=doc, specification=DRAFT202012)) for name, doc in documents.items())


def _uri(text: str) -> bool:
    return bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", text)) and not re.search(r"\s", text)


_HOSTNAME = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
                       r"[A-Za-z0-9])?)*$")

# Formats the installed jsonschema can't check (its checkers need packages we don't depend on): checked here.
OWN_FORMAT_CHECKS = {
    "uri": _uri,
    "hostname": lambda text: bool(_HOSTNAME.match(text)),
    "duration": lambda text: bool(re.fullmatch(r"P(\d+D)?(T(\d+H)?(\d+M)?(\d+S)?)?", text)),
    "json-pointer": lambda text: text == "" or text.startswith("/"),
    "uri-reference": lambda text: " " not in text,
}


def own_format_errors(value: Any, schema: Any, spec: Spec, depth: int = 0) -> list[str]:
    """Format errors the validator leaves unchecked, for plain string schemas (not through combinators)."""
    if isinstance(schema, dict) and "$ref" in schema and depth < 5:
        return own_format_errors(value, spec.resolve_schema(schema["$ref"]), spec, depth + 1)
    if not isinstance(schema, dict):
        return []
    fmt = schema.get("format")
    if isinstance(value, str) and fmt in OWN_FORMAT_CHECKS and fmt not in FORMAT_CHECKER.checkers:
        return [] if OWN_FORMAT_CHECKS[fmt](value) else [f"{value!r} is not a {fmt}"]
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        return [e for k, v in value.items() for e in own_format_errors(v, schema["properties"].get(k), spec, depth)]
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [e for v in value for e in own_format_errors(v, schema["items"], spec, depth)]
    return []


def errors(spec: Spec, schema: Any, value: Any, reg: Registry | None = None) -> list[str]:
    reg = reg or registry(spec)
    validator = Draft202012Validator(response_view(schema), registry=reg, format_checker=FORMAT_CHECKER,
                                     _resolver=reg.resolver(base_uri=BASE))
    found = [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(value)]
    return found + own_format_errors(value, schema, spec)


# -- small specs ------------------------------------------------------------------------------------------

HEAD = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"


def one_op(write, responses: str, components: str = "", head: str = HEAD) -> tuple[Spec, Operation]:
    text = head + "paths:\n  /pets:\n    get:\n      responses:\n" + responses
    if components:
        text += "components:\n" + components
    spec = load_spec(write("s.yaml", text))
    return spec, spec.operations[0]


def with_schema(write, schema: str, components: str = "", head: str = HEAD) -> tuple[Spec, Operation]:
    responses = f"        '200':\n          description: ok\n          content:\n            application/json:\n" \
                f"              schema: {schema}\n"
    return one_op(write, responses, components, head)


def body(resp: MockResponse) -> Any:
    return json.loads(resp.body)


def assert_valid_for_seeds(spec: Spec, op: Operation, seeds: range = range(25)) -> list[Any]:
    """Generated bodies for many seeds, each valid against the 200 schema; returns them."""
    schema = op.responses[0].content["application/json"].schema
    reg = registry(spec)
    maker = ResponseMaker(spec)
    values = []
    for seed in seeds:
        value = body(maker.respond(op, dynamic=True, seed=seed))
        assert errors(spec, schema, value, reg) == [], (seed, value)
        values.append(value)
    return values


# -- which status -----------------------------------------------------------------------------------------

def codes(*statuses: str) -> str:
    return "".join(f"        '{s}': {{description: d, content: {{application/json: {{example: {{s: '{s}'}}}}}}}}\n"
                   for s in statuses)


@pytest.mark.parametrize(("declared", "code", "status", "answered_by"), [
    (("404", "201", "200"), None, 200, "200"),
    (("204", "201", "500"), None, 201, "201"),
    (("404", "default"), None, 200, "default"),
    (("2XX", "404"), None, 200, "2XX"),
    (("200", "404"), 404, 404, "404"),
    (("200", "4XX"), 409, 409, "4XX"),
    (("200", "default"), 503, 503, "default"),
    (("200", "4XX", "default"), 404, 404, "4XX"),
])
def test_the_status_is_the_code_asked_else_the_lowest_2xx_else_default(write, declared, code, status, answered_by):
    spec, op = one_op(write, codes(*declared))
    resp = ResponseMaker(spec).respond(op, code=code)
    assert resp.status == status
    assert body(resp) == {"s": answered_by}


def test_no_declared_response_is_a_bare_200(write):
    spec, op = one_op(write, "        '404': {description: gone}\n")
    assert ResponseMaker(spec).respond(op) == MockResponse(200, None, b"")
    spec, op = one_op(write, "        '204': {description: nothing}\n")
    assert ResponseMaker(spec).respond(op) == MockResponse(204, None, b"")


def test_an_undeclared_code_is_no_such_response(write):
    spec, op = one_op(write, codes("200", "201"))
    with pytest.raises(NoSuchResponse) as caught:
        ResponseMaker(spec).respond(op, code=404)
    assert str(caught.value) == "GET /pets declares no 404 response (declared: 200, 201)"


# -- the spec's examples ----------------------------------------------------------------------------------

EXAMPLES = """        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {name: {type: string}}, required: [name]}
              examples:
                rex: {summary: a dog, value: {name: Rex}}
                tom: {value: {name: Tom}}
                shared: {$ref: '#/components/examples/Shared'}
"""
SHARED = "  examples:\n    Shared: {value: {name: Shared}}\n"


def test_the_first_named_example_comes_first_and_a_name_picks_one(write):
    spec, op = one_op(write, EXAMPLES, SHARED)
    maker = ResponseMaker(spec)
    assert body(maker.respond(op)) == {"name": "Rex"}
    assert body(maker.respond(op, example="tom")) == {"name": "Tom"}
    assert body(maker.respond(op, example="shared")) == {"name": "Shared"}  # a $ref to components/examples


def test_an_unknown_example_name_lists_the_names(write):
    spec, op = one_op(write, EXAMPLES, SHARED)
    with pytest.raises(NoSuchResponse) as caught:
        ResponseMaker(spec).respond(op, example="felix")
    message = str(caught.value)
    assert "\n" not in message
    assert message == "GET /pets 200 application/json has no example 'felix' (examples: rex, tom, shared)"


def test_dynamic_ignores_the_examples_and_generates_from_the_schema(write):
    spec, op = one_op(write, EXAMPLES, SHARED)
    value = body(ResponseMaker(spec).respond(op, dynamic=True))
    assert value["name"] not in ("Rex", "Tom", "Shared")
    assert isinstance(value["name"], str)


def test_the_media_type_example_then_the_schema_example(write):
    spec, op = one_op(write, """        '200':
          description: ok
          content:
            application/json: {schema: {type: object}, example: {a: 1}}
        '201':
          description: ok
          content:
            application/json: {schema: {type: object, example: {b: 2}}}
        '202':
          description: ok
          content:
            application/json: {schema: {type: integer, examples: [7, 8]}}
        '203':
          description: ok
          content:
            application/json: {schema: {$ref: '#/components/schemas/Pet'}}
""", "  schemas:\n    Pet: {type: object, example: {name: Rex}}\n")
    maker = ResponseMaker(spec)
    assert body(maker.respond(op)) == {"a": 1}
    assert body(maker.respond(op, code=201)) == {"b": 2}
    assert body(maker.respond(op, code=202)) == 7
    assert body(maker.respond(op, code=203)) == {"name": "Rex"}


def test_swagger_examples_by_media_type(write):
    text = """swagger: '2.0'
info: {title: t, version: '1'}
produces: [application/json]
paths:
  /pets:
    get:
      responses:
        '200':
          description: ok
          schema: {type: array, items: {type: string}}
          examples: {application/json: [a, b]}
"""
    spec = load_spec(write("s.yaml", text))
    resp = ResponseMaker(spec).respond(spec.operations[0])
    assert (resp.content_type, body(resp)) == ("application/json", ["a", "b"])


# -- which media type -------------------------------------------------------------------------------------

NEGOTIATED = """        '200':
          description: ok
          content:
            text/plain: {schema: {type: string}, example: hello}
            application/xml: {schema: {type: string}, example: <a/>}
            application/json: {schema: {type: object}, example: {a: 1}}
            image/png: {schema: {type: string, format: binary}}
"""


@pytest.mark.parametrize(("accept", "content_type"), [
    (None, "application/json"),
    ("*/*", "application/json"),
    ("application/*", "application/json"),
    ("text/plain", "text/plain"),
    ("text/*", "text/plain"),
    ("text/html, application/xml", "application/xml"),
    ("text/plain;q=0.5, application/xml;q=0.9", "application/xml"),
    ("application/json;q=0, */*", "application/json"),  # q=0 says "not this", but */* still lets it in
    ("image/*", "image/png"),
])
def test_accept_picks_the_media_type_json_when_free(write, accept, content_type):
    spec, op = one_op(write, NEGOTIATED)
    assert ResponseMaker(spec).respond(op, accept=accept).content_type == content_type


def test_text_and_binary_bodies(write):
    spec, op = one_op(write, NEGOTIATED)
    maker = ResponseMaker(spec)
    assert maker.respond(op, accept="text/plain").body == b"hello"
    assert maker.respond(op, accept="application/xml").body == b"<a/>"
    png = maker.respond(op, accept="image/png")
    assert isinstance(png.body, bytes) and png.body
    assert maker.respond(op, accept="text/plain", dynamic=True).body.decode("utf-8")


def test_yaml_and_xml_bodies(write):
    spec, op = one_op(write, """        '200':
          description: ok
          content:
            application/yaml: {schema: {type: object}, example: {a: [1, two]}}
            application/xml:
              schema: {type: object, xml: {name: pet}}
              example: {name: R&D, tags: [a]}
""")
    maker = ResponseMaker(spec)
    assert yaml.safe_load(maker.respond(op, accept="application/yaml").body) == {"a": [1, "two"]}
    xml = maker.respond(op, accept="application/xml").body
    assert xml == b"<pet><name>R&amp;D</name><tags><item>a</item></tags></pet>"


def test_no_acceptable_media_type_is_not_acceptable(write):
    spec, op = one_op(write, NEGOTIATED)
    with pytest.raises(NotAcceptable) as caught:
        ResponseMaker(spec).respond(op, accept="text/html, video/*")
    assert caught.value.available == ["text/plain", "application/xml", "application/json", "image/png"]
    assert "\n" not in str(caught.value)
    assert "text/html" in str(caught.value) and "application/json" in str(caught.value)


def test_a_wildcard_content_key_answers_with_a_concrete_type(write):
    spec, op = one_op(write, "        '200': {description: ok, content: {'*/*': {schema: {type: object}}}}\n")
    maker = ResponseMaker(spec)
    assert maker.respond(op).content_type == "application/json"
    assert maker.respond(op, accept="text/csv").content_type == "text/csv"


# -- generated bodies, feature by feature -----------------------------------------------------------------

FEATURES = {
    "object": "{type: object, required: [id, name], properties: {id: {type: integer}, name: {type: string},"
              " tag: {type: string}, age: {type: integer, minimum: 0}}, additionalProperties: false}",
    "min properties": "{type: object, minProperties: 3, additionalProperties: {type: integer}}",
    "array bounds": "{type: array, minItems: 2, maxItems: 3, items: {type: string}}",
    "unique items": "{type: array, minItems: 3, uniqueItems: true, items: {type: integer, minimum: 0, maximum: 5}}",
    "prefix items": "{type: array, prefixItems: [{type: integer}, {type: string}], items: false, minItems: 2}",
    "string lengths": "{type: string, minLength: 30, maxLength: 32}",
    "short string": "{type: string, maxLength: 2}",
    "enum": "{type: string, enum: [red, green, blue]}",
    "const": "{const: 42}",
    "integer bounds": "{type: integer, minimum: 10, maximum: 12}",
    "exclusive bounds": "{type: integer, exclusiveMinimum: 10, exclusiveMaximum: 12}",
    "number exclusive": "{type: number, exclusiveMinimum: 0, exclusiveMaximum: 0.01}",
    "multiple of": "{type: integer, minimum: 1000, maximum: 2000, multipleOf: 7}",
    "number multiple of": "{type: number, minimum: 1, maximum: 3, multipleOf: 0.25}",
    "negative range": "{type: integer, maximum: -5}",
    "int32": "{type: integer, format: int32}",
    "int64": "{type: integer, format: int64, minimum: 9007199254740993}",
    "date-time": "{type: string, format: date-time}",
    "date": "{type: string, format: date}",
    "time": "{type: string, format: time}",
    "email": "{type: string, format: email}",
    "uuid": "{type: string, format: uuid}",
    "uri": "{type: string, format: uri}",
    "ipv4": "{type: string, format: ipv4}",
    "ipv6": "{type: string, format: ipv6}",
    "hostname": "{type: string, format: hostname}",
    "duration": "{type: string, format: duration}",
    "byte": "{type: string, format: byte}",
    "format and pattern": "{type: string, format: uri, pattern: '^urn:'}",
    "pattern literal": "{type: string, pattern: '^ab-[0-9]{3}$'}",
    "pattern classes": r"{type: string, pattern: '^[A-Z][a-z]+\\d{2,4}[^a-z]\\w\\s.$'}",
    "pattern groups": "{type: string, pattern: '^(foo|bar)+-(?:x|yy)?([a-f0-9]{2})\\\\1$'}",
    "pattern and lengths": "{type: string, pattern: '^[0-9a-f]+$', minLength: 40, maxLength: 40}",
    "pattern unanchored": "{type: string, pattern: 'v[0-9]+'}",
    "allOf": "{allOf: [{type: object, required: [a], properties: {a: {type: string}}},"
             " {type: object, required: [b], properties: {b: {type: integer, maximum: 3}}}]}",
    "allOf refs": "{allOf: [{$ref: '#/components/schemas/Base'}, {required: [extra],"
                  " properties: {extra: {type: boolean}}}]}",
    "oneOf": "{oneOf: [{type: integer, multipleOf: 2}, {type: integer, multipleOf: 3}]}",
    "oneOf objects": "{oneOf: [{type: object, required: [kind], properties: {kind: {const: cat}}},"
                     " {type: object, required: [kind], properties: {kind: {const: dog}}}]}",
    "oneOf overlapping": "{oneOf: [{type: object, properties: {x: {type: string}}},"
                         " {type: object, required: [x], properties: {x: {type: string}}, minProperties: 1}]}",
    "two oneOfs": "{allOf: [{oneOf: [{type: integer, multipleOf: 2}, {type: integer, multipleOf: 3}]},"
                  " {oneOf: [{minimum: 10}, {maximum: 5}]}]}",
    "oneOf in allOf refs": "{allOf: [{$ref: '#/components/schemas/Base'}, {oneOf: [{required: [score]},"
                           " {properties: {score: false}}]}]}",
    "anyOf": "{anyOf: [{type: string, format: email}, {type: integer}]}",
    "null union": "{type: [string, 'null'], minLength: 3}",
    "ref": "{$ref: '#/components/schemas/Base'}",
    "nested": "{type: object, required: [items], properties: {items: {type: array, minItems: 1, items:"
              " {$ref: '#/components/schemas/Base'}}}}",
    "untyped": "{}",
}
BASE_SCHEMA = """  schemas:
    Base:
      type: object
      required: [id, created]
      properties:
        id: {type: string, format: uuid}
        created: {type: string, format: date-time}
        score: {type: number, minimum: 0, maximum: 1}
"""


@pytest.mark.parametrize("feature", FEATURES)
def test_generated_bodies_are_valid(write, feature):
    spec, op = with_schema(write, FEATURES[feature], BASE_SCHEMA)
    values = assert_valid_for_seeds(spec, op)
    if feature in ("oneOf", "oneOf objects", "anyOf", "enum", "null union", "untyped"):
        assert len({json.dumps(v) for v in values}) > 1  # the branches and values do vary with the seed


def test_nullable_in_openapi_3_0_is_a_null_union(write):
    head = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"
    spec, op = with_schema(write, "{type: object, required: [a, b], properties: {a: {type: string, nullable: true},"
                                  " b: {$ref: '#/components/schemas/Base', nullable: true}}}", BASE_SCHEMA, head)
    for value in assert_valid_for_seeds(spec, op):
        assert isinstance(value["a"], str) and isinstance(value["b"], dict)  # nullable, but a value is informative


RECURSIVE = """  schemas:
    Node:
      type: object
      required: [name, children]
      properties:
        name: {type: string}
        parent: {$ref: '#/components/schemas/Node'}
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
        next: {oneOf: [{$ref: '#/components/schemas/Node'}, {type: 'null'}]}
    Chain:
      type: object
      required: [link]
      properties:
        link: {anyOf: [{$ref: '#/components/schemas/Chain'}, {type: string}]}
"""


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


@pytest.mark.parametrize("name", ["Node", "Chain"])
def test_recursive_schemas_stop_at_a_depth(write, name):
    spec, op = with_schema(write, f"{{$ref: '#/components/schemas/{name}'}}", RECURSIVE)
    for value in assert_valid_for_seeds(spec, op):
        assert depth(value) < 20


def test_required_recursion_without_an_exit_is_a_best_effort(write):
    components = "  schemas:\n    Loop: {type: object, required: [again], properties: {again: " \
                 "{$ref: '#/components/schemas/Loop'}}}\n"
    spec, op = with_schema(write, "{$ref: '#/components/schemas/Loop'}", components)
    assert ResponseMaker(spec).respond(op, dynamic=True).status == 200  # no value is valid: no crash either


@pytest.mark.parametrize("schema", [
    "{allOf: [{type: string}, {type: integer}]}",
    "{allOf: [{type: integer, minimum: 10}, {type: integer, maximum: 5}]}",
    "{type: string, minLength: 10, maxLength: 2}",
    "{type: string, pattern: '(?<=a)b\\\\p{L}['}",
    "{oneOf: [{type: string}, {type: string}]}",
    "{type: array, minItems: 5, uniqueItems: true, items: {enum: [a, b]}}",
    "{type: integer, minimum: 1, maximum: 2, multipleOf: 5}",
    "{not: {}}",
    "{type: array, minItems: 1000000000, items: {type: integer}}",
    "{type: string, minLength: 1000000000}",
    "{type: string, pattern: '^a{100000,}$'}",
    "{type: number, minimum: .inf}",
    "{type: integer, maximum: -.inf, multipleOf: 3}",
    "{type: object, required: [a], properties: {a: {$ref: '#/components/schemas/Missing'}}}",
])
def test_unsatisfiable_schemas_get_a_best_effort_and_no_crash(write, schema):
    spec, op = with_schema(write, schema)
    resp = ResponseMaker(spec).respond(op, dynamic=True)
    assert resp.status == 200 and resp.content_type == "application/json"
    json.loads(resp.body)


def test_read_only_properties_are_present_and_write_only_ones_absent(write):
    spec, op = with_schema(write, "{type: object, required: [password], properties: {id: {type: integer,"
                                  " readOnly: true}, password: {type: string, writeOnly: true},"
                                  " secret: {type: string, writeOnly: true}}}")
    for value in assert_valid_for_seeds(spec, op):
        assert "id" in value
        assert "password" not in value and "secret" not in value


def test_declared_headers_get_values(write):
    spec, op = one_op(write, """        '200':
          description: ok
          headers:
            X-Rate-Limit: {schema: {type: integer, minimum: 1, maximum: 100}}
            X-Request-Id: {schema: {type: string, format: uuid}}
            X-Tags: {schema: {type: array, items: {type: string, enum: [a]}, minItems: 2, maxItems: 2}}
            X-Fixed: {schema: {type: string, example: fixed}}
            Content-Type: {schema: {type: string}}
          content:
            application/json: {schema: {type: object}}
""")
    headers = dict(ResponseMaker(spec).respond(op).headers)
    assert set(headers) == {"X-Rate-Limit", "X-Request-Id", "X-Tags", "X-Fixed"}  # Content-Type is the body's
    assert 1 <= int(headers["X-Rate-Limit"]) <= 100
    assert re.fullmatch(r"[0-9a-f-]{36}", headers["X-Request-Id"])
    assert headers["X-Tags"] == "a,a"
    assert headers["X-Fixed"] == "fixed"


# -- determinism and the cache ----------------------------------------------------------------------------

DETERMINISM = """        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, required: [id, tags, when], properties: {id: {type: string, format: uuid},
                       tags: {type: array, items: {type: string}}, when: {type: string, format: date-time},
                       n: {type: number}}}
        '400':
          description: bad
          content:
            application/json: {schema: {type: object, required: [code], properties: {code: {type: integer}}}}
"""


def test_the_same_seed_gives_the_same_bytes_in_another_maker(write):
    spec, op = one_op(write, DETERMINISM)
    first, second = ResponseMaker(spec, seed=5), ResponseMaker(spec, seed=5)
    for code in (None, 400):
        assert first.respond(op, code=code) == second.respond(op, code=code)
        assert first.respond(op, code=code, dynamic=True, seed=9) == second.respond(op, code=code, dynamic=True,
                                                                                    seed=9)


def test_the_seed_is_the_same_across_processes(write):
    path = write("s.yaml", HEAD + "paths:\n  /pets:\n    get:\n      responses:\n" + DETERMINISM)
    script = ("import sys; from workbench.spec import load_spec; from workbench.mock.responses import ResponseMaker;"
              "s = load_spec(sys.argv[1]);"
              "sys.stdout.buffer.write(ResponseMaker(s, seed=2).respond(s.operations[0]).body)")
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        outputs.add(subprocess.run([sys.executable, "-c", script, str(path)], env=env, capture_output=True,
                                   check=True).stdout)
    spec = load_spec(path)
    assert outputs == {ResponseMaker(spec, seed=2).respond(spec.operations[0]).body}


def test_different_seeds_usually_differ(write):
    spec, op = one_op(write, DETERMINISM)
    bodies = {ResponseMaker(spec, seed=seed).respond(op).body for seed in range(10)}
    assert len(bodies) == 10
    assert len({ResponseMaker(spec).respond(op, dynamic=True, seed=seed).body for seed in range(10)}) == 10


def test_a_response_is_worked_out_once(write):
    spec, op = one_op(write, DETERMINISM)
    maker = ResponseMaker(spec)
    assert maker.respond(op) is maker.respond(op)
    assert maker.respond(op, dynamic=True, seed=3) is maker.respond(op, dynamic=True, seed=3)
    assert maker.respond(op, code=400) is maker.respond(op, code=400)


def test_dynamic_without_a_seed_is_fresh_each_time(write):
    spec, op = one_op(write, DETERMINISM)
    maker = ResponseMaker(spec)
    answers = [maker.respond(op, dynamic=True) for _ in range(5)]
    assert len({a.body for a in answers}) == 5
    again = ResponseMaker(spec)
    # the fresh draws come from the maker's own Random, seeded from its seed
    assert [a.body for a in answers] == [again.respond(op, dynamic=True).body for _ in range(5)]


# -- the corpus -------------------------------------------------------------------------------------------

def code_for(op: Operation, status: str) -> int:
    """A code that `respond` answers with the response declared as `status` (2XX, default included)."""
    if status.isdigit():
        return int(status)
    declared = {r.status.upper() for r in op.responses}
    if status[0].isdigit():  # a range: a code of it that is not declared on its own
        return next(c for c in range(int(status[0]) * 100, int(status[0]) * 100 + 100) if str(c) not in declared)
    return next(c for c in range(100, 600) if str(c) not in declared and f"{c // 100}XX" not in declared)


def indistinguishable_one_of(spec: Spec, branches: list[Any]) -> bool:
    """True when oneOf branches are the same schema but for annotations: no value matches exactly one of them
    (readme-v3.0-readme.yaml's error_* schemas differ only in a `default`)."""
    def bare(schema: Any, depth: int = 0) -> Any:
        if isinstance(schema, dict) and "$ref" in schema and depth < 10:
            return bare(spec.resolve_schema(schema["$ref"]), depth + 1)
        if isinstance(schema, dict):
            skip = ("default", "description", "title", "example", "examples")
            return {k: bare(v, depth) for k, v in schema.items() if k not in skip}
        if isinstance(schema, list):
            return [bare(v, depth) for v in schema]
        return schema

    stripped = [json.dumps(bare(b), sort_keys=True) for b in branches]
    return len(set(stripped)) < len(stripped)


def sweep(spec: Spec) -> tuple[int, int, list[str]]:
    """(bodies validated, bodies generated but not JSON, problems) over every response of every operation."""
    reg, maker = registry(spec), ResponseMaker(spec, seed=11)
    validated, other, problems = 0, 0, []
    for op in (*spec.operations, *spec.webhook_operations):
        for response in op.responses:
            for media in response.content:
                found = check(spec, reg, maker, op, response, media)
                if found is None:
                    other += 1
                else:
                    validated += 1
                    problems += found
    return validated, other, problems


def decoded(resp: MockResponse, schema: Any) -> Any:
    """The body as the value it encodes: JSON and YAML parsed, text as the string when the schema is a string;
    `NOT_CHECKED` for the other media types (XML, binary, form and multipart bodies)."""
    media = (resp.content_type or "").split(";")[0].strip()
    if media.endswith(("/json", "+json")):
        return json.loads(resp.body)
    if media.endswith(("/yaml", "+yaml", "/x-yaml")):
        return yaml.safe_load(resp.body)
    if media.startswith("text/") and isinstance(schema, dict) and schema.get("type") == "string":
        return resp.body.decode("utf-8")
    return NOT_CHECKED


NOT_CHECKED = object()


def check(spec: Spec, reg: Registry, maker: ResponseMaker, op: Operation, response: Response,
          media: str) -> list[str] | None:
    """The problems with a generated body for `media` of `response`; None when its media type isn't checked."""
    resp = maker.respond(op, code=code_for(op, response.status), accept=media.split(";")[0], dynamic=True)
    assert resp.status == code_for(op, response.status)
    chosen = response.content.get(resp.content_type or "", response.content[media])
    value = decoded(resp, chosen.schema) if chosen.schema is not None else NOT_CHECKED
    if value is NOT_CHECKED:
        return None
    found = errors(spec, chosen.schema, value, reg)
    if found and validator_says_one_of_overlaps(spec, reg, chosen.schema, value):
        return []
    return [f"{op.label()} {response.status} {media}: {e}" for e in found]


def validator_says_one_of_overlaps(spec: Spec, reg: Registry, schema: Any, value: Any) -> bool:
    """Every error is a oneOf whose branches can't be told apart (see `indistinguishable_one_of`)."""
    validator = Draft202012Validator(response_view(schema), registry=reg, _resolver=reg.resolver(base_uri=BASE))
    errs = list(validator.iter_errors(value))
    return bool(errs) and all(e.validator == "oneOf" and indistinguishable_one_of(spec, e.validator_value)
                              for e in errs)


def test_every_github_response_generates_a_valid_body():
    spec = load_spec(corpus_file(GITHUB))
    started = time.perf_counter()
    validated, other, problems = sweep(spec)
    elapsed = time.perf_counter() - started
    assert problems == []
    assert validated > 1500, (validated, other)
    assert elapsed < 20, f"{validated} bodies took {elapsed:.1f}s"


def component_problems(spec: Spec, seeds: range = range(3)) -> tuple[int, list[str]]:
    """(values checked, problems) for values generated from every component schema, as a response carries it."""
    reg, maker = registry(spec), ResponseMaker(spec)
    checked, problems = 0, []
    for name, schema in spec.components.schemas.items():
        for seed in seeds:
            value = maker.generate(schema, random.Random(seed))
            checked += 1
            found = errors(spec, schema, value, reg)
            if found and not validator_says_one_of_overlaps(spec, reg, schema, value):
                problems += [f"{name} (seed {seed}): {e}" for e in found]
    return checked, problems


def test_circular_component_schemas_generate_valid_values():
    spec = load_spec(corpus_file("readme-v3.0-schema-circular.json"))  # its schemas are used by requests only
    checked, problems = component_problems(spec, range(10))
    assert problems == []
    assert checked == 10 * len(spec.components.schemas)


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_response_generates_a_valid_body(name):
    spec = load_spec(corpus_file(name))
    _, _, problems = sweep(spec)
    assert problems == []


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_component_schema_generates_valid_values(name):
    _, problems = component_problems(load_spec(corpus_file(name)))
    assert problems == []
