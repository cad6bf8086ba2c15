"""Schema passes on small inline specs: the allOf merge, spec errors repaired."""

from __future__ import annotations

import jsonschema
import pytest

from workbench.spec import load_spec
from workbench.tools import ConvertOptions, convert

READ_ONLY_IN_ONE_MEMBER = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things:
    post:
      operationId: addThing
      requestBody:
        required: true
        content:
          application/json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Base'
                - properties: {id: {type: string}, type: {type: string}}
                  required: [id, type]
      responses: {'200': {description: ok}}
components:
  schemas:
    Base:
      type: object
      properties:
        id: {type: string, readOnly: true}
        type: {type: string, readOnly: true}
        created: {type: string, readOnly: true}
        name: {type: string}
"""


@pytest.mark.parametrize("vendor", ["openai", "anthropic", "gemini", "mcp"])
def test_allof_keeps_a_property_read_only_only_if_every_member_defining_it_says_so(write, vendor):
    """Base marks id and type readOnly; the second member asks for both: they stay required arguments.
    `created` is readOnly wherever it is defined: it is not asked for."""
    spec = load_spec(write("s.yaml", READ_ONLY_IN_ONE_MEMBER))
    tool = convert(spec, ConvertOptions(vendor=vendor)).tool("addThing")
    body = tool.parameters["properties"]["body"]
    assert "allOf" not in body
    assert set(body["properties"]) == {"id", "type", "name"}
    assert sorted(body["required"]) == ["id", "type"]


SPEC_ERRORS = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things:
    post:
      operationId: addThing
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                trace: {$ref: '#/components/headers/Trace'}
                size: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}
                part: {$ref: '#/components/schemas/Part'}
      responses: {'200': {description: ok}}
components:
  headers:
    Trace: {description: a trace id, required: true, schema: {type: string, maxLength: 36}}
  schemas:
    Part: {type: integer, maximum: 5, exclusiveMaximum: true}
"""


@pytest.mark.parametrize("vendor", ["jsonschema", "openai", "anthropic", "gemini", "mcp"])
def test_spec_errors_are_repaired_into_valid_tool_schemas_with_warnings(write, vendor):
    """A $ref to a Header Object used as a schema, and boolean exclusive bounds in a 3.1 document: the tool
    schema is valid JSON Schema and the set says what was repaired."""
    spec = load_spec(write("s.yaml", SPEC_ERRORS))
    toolset = convert(spec, ConvertOptions(vendor=vendor, json_schema_form=vendor == "gemini"))
    tool = toolset.tool("addThing")
    jsonschema.Draft202012Validator.check_schema(tool.parameters)
    messages = [w.message for w in toolset.warnings if w.tool == tool.name]
    assert any("#/components/headers/Trace names a header object" in m for m in messages), messages
    assert any("boolean exclusiveMinimum" in m for m in messages) and any("boolean exclusiveMaximum" in m
                                                                         for m in messages), messages
    props = tool.parameters["properties"]
    assert {k: props["size"][k] for k in ("exclusiveMinimum", "maximum")} == {"exclusiveMinimum": 0, "maximum": 9}
    if vendor == "gemini":
        assert props["trace"]["type"] == "string" and props["part"]["exclusiveMaximum"] == 5
    else:
        assert tool.parameters["$defs"]["_components_headers_Trace"]["type"] == "string"
        assert tool.parameters["$defs"]["Part"] == {"type": "integer", "exclusiveMaximum": 5}
