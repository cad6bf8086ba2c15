"""Strict mode's output: valid JSON Schema, and never a second null for a schema that already admits one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from tests.catalogue import corpus_file
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, convert

ALREADY_NULLABLE = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    post:
      operationId: send
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                nothing: {type: 'null'}
                listed: {type: [string, 'null']}
                union: {anyOf: [{type: integer}, {type: 'null'}]}
                legacy: {$ref: '#/components/schemas/Legacy'}
                plain: {type: string}
      responses: {'200': {description: ok}}
components:
  schemas:
    Legacy: {type: object, properties: {n: {type: [integer, 'null'], enum: [1, 2, null]}}}
"""


def type_lists(node: Any) -> Iterator[list]:
    if isinstance(node, dict):
        if isinstance(node.get("type"), list):
            yield node["type"]
        for value in node.values():
            yield from type_lists(value)
    elif isinstance(node, list):
        for value in node:
            yield from type_lists(value)


def assert_valid(schema: dict) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    duplicated = [kinds for kinds in type_lists(schema) if len(kinds) != len(set(kinds))]
    assert not duplicated, duplicated


@pytest.mark.parametrize("vendor", ["openai", "anthropic"])
def test_strict_mode_never_adds_a_second_null(write, vendor):
    spec = load_spec(write("s.yaml", ALREADY_NULLABLE))
    tool = convert(spec, ConvertOptions(vendor=vendor, strict=True)).tool("send")
    assert_valid(tool.parameters)
    props = tool.parameters["properties"]
    if vendor == "openai":
        assert props["nothing"] == {"type": "null"} and props["listed"]["type"] == ["string", "null"]
        assert props["union"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        assert props["plain"]["type"] == ["string", "null"]
        assert tool.parameters["$defs"]["Legacy"]["properties"]["n"]["enum"] == [1, 2, None]


@pytest.mark.parametrize("name", ["box-openapi.json", "twilio-verify-v2.yaml", "readme-v3.1-train-travel.yaml",
                                  "readme-v3.0-readme.yaml", "readme-v3.0-polymorphism.json",
                                  "pagerduty-scim.json"])
@pytest.mark.parametrize("vendor", ["openai", "anthropic"])
def test_every_strict_tool_schema_of_corpus_files_is_valid_json_schema(corpus, name, vendor):
    spec = load_spec(corpus_file(name))
    toolset = convert(spec, ConvertOptions(vendor=vendor, strict=True))
    assert toolset.tools
    for tool in toolset.tools:
        assert_valid(tool.parameters)


def test_strict_mode_keeps_the_range_an_integer_format_means(write):
    """OpenAI strict mode has no int32/int64 format: the format goes, its range stays as bounds."""

    spec = load_spec(write("s.yaml", """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - {name: timeout, in: header, schema: {type: integer, format: int32}}
        - {name: page, in: query, schema: {type: integer, format: int64, minimum: 1}}
      responses: {'200': {description: ok}}
"""))
    props = convert(spec, ConvertOptions(vendor="openai", strict=True)).tool("getA").parameters["properties"]
    timeout, page = props["timeout"], props["page"]
    assert "format" not in timeout and (timeout["minimum"], timeout["maximum"]) == (-(2**31), 2**31 - 1)
    assert (page["minimum"], page["maximum"]) == (1, 2**63 - 1)


ALTERNATIVES = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /docs:
    post:
      operationId: createDoc
      parameters:
        - {name: version, in: query, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Doc'}
      responses: {'201': {description: created}}
  /pages:
    post:
      operationId: createPage
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Doc'}
      responses: {'201': {description: created}}
components:
  schemas:
    Doc:
      type: object
      properties:
        title: {type: string}
        category: {type: string, description: The category's id.}
        categorySlug: {type: string, description: The category's slug.}
        hidden: {type: boolean}
      oneOf:
        - {required: [title, category], title: by id}
        - {required: [title, categorySlug], title: by slug}
"""


def test_a_oneof_that_only_lists_required_alternatives_is_a_choice_of_whole_strict_objects(write):
    """OpenAI strict requires every property and reads null as "not given": the alternatives left as
    required-only members held for any call (nulls count as present), so the strict tool let a model send
    `title: null, category: null` and the spec refused it. Each alternative is now a whole object with its own
    properties required non-null and the other alternative's null, and the executor takes what it sends."""
    from workbench.http.validate import check

    spec = load_spec(write("s.yaml", ALTERNATIVES))
    tool = convert(spec, ConvertOptions(vendor="openai", strict=True)).tool("createDoc")
    schema = tool.parameters
    assert_valid(schema)
    validator = jsonschema.Draft202012Validator(schema)
    by_id = {"version": None, "body": {"title": "Intro", "category": "c1", "categorySlug": None, "hidden": None}}
    by_slug = {"version": None, "body": {"title": "Intro", "category": None, "categorySlug": "intro", "hidden": True}}
    for call in (by_id, by_slug):
        assert validator.is_valid(call), call
        assert check(spec, tool, call).ok, call
    for refused in ({"version": None, "body": {"title": None, "category": None, "categorySlug": None, "hidden": None}},
                    {"version": None, "body": {"title": "Intro", "category": "c1", "categorySlug": "intro",
                                               "hidden": None}},
                    {"version": None, "body": {"title": "Intro", "category": None, "categorySlug": None,
                                               "hidden": None}}):
        assert not validator.is_valid(refused), refused  # what the spec refuses, the tool no longer allows


def test_a_body_of_required_alternatives_is_never_flattened_into_the_tools_top_level(write):
    """Strict mode's top level is one object, never an anyOf: a body whose oneOf lists required alternatives
    stays one `body` argument when flattening is asked for."""
    spec = load_spec(write("s.yaml", ALTERNATIVES))
    tool = convert(spec, ConvertOptions(vendor="openai", strict=True, flatten_depth=1)).tool("createPage")
    schema = tool.parameters
    assert_valid(schema)
    assert "anyOf" not in schema and list(schema["properties"]) == ["body"]
    doc = schema["$defs"][schema["properties"]["body"]["$ref"].rsplit("/", 1)[1]]
    assert [member["title"] for member in doc["anyOf"]] == ["by id", "by slug"]
