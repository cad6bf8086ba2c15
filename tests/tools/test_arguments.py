"""The argument object as the model sees it, checked on small inline specs: what a flat argument list can
and cannot say, and the executor's validator agreeing with the tool schema."""

from __future__ import annotations

import pytest

from workbench.http.validate import check
from workbench.spec import load_spec
from workbench.tools import VENDORS, ConvertOptions, convert

OPTIONAL_BODY = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /notes:
    post:
      operationId: addNote
      parameters:
        - {name: dryRun, in: query, schema: {type: boolean}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [text, id]
              properties:
                id: {type: string, readOnly: true}
                text: {type: string}
                tags: {type: array, items: {type: string}}
                author:
                  type: object
                  required: [name]
                  properties: {name: {type: string}, email: {type: string}}
      responses: {'200': {description: ok}}
  /labels:
    post:
      operationId: addLabel
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {name: {type: string}, colour: {type: string}}}
      responses: {'200': {description: ok}}
"""


def _tool(write, name: str, **options):
    spec = load_spec(write("s.yaml", OPTIONAL_BODY))
    return spec, convert(spec, ConvertOptions(**options)).tool(name)


@pytest.mark.parametrize("vendor", tuple(VENDORS))
def test_an_optional_body_with_required_fields_stays_one_argument_that_keeps_them(write, vendor):
    """Flattened, an optional body's fields would all be optional: `{tags: [..]}` alone would pass though the
    body then lacks `text`. So it stays one optional `body` argument whose schema still requires `text`."""
    _, tool = _tool(write, "addNote", vendor=vendor)
    assert set(tool.parameters["properties"]) == {"dryRun", "body"}
    assert "required" not in tool.parameters
    assert [(b.argument, b.location, b.required) for b in tool.bindings][1:] == [("body", "body", False)]
    body = tool.parameters["properties"]["body"]
    assert [r.lower() for r in body["required"]] == ["text"]


def test_the_validator_asks_for_the_required_fields_once_an_optional_body_is_given(write):
    spec, tool = _tool(write, "addNote")
    assert check(spec, tool, {}).ok and check(spec, tool, {"body": {"text": "hi"}}).ok
    missing = check(spec, tool, {"body": {"tags": ["a"]}})
    assert [v.place for v in missing.violations] == ["/body"] and "text" in missing.violations[0].expected


def test_an_optional_object_inside_a_flattened_body_is_not_opened_when_it_has_required_fields(write):
    """flatten_depth opens nested objects; an optional one with required fields stays one argument."""
    spec = load_spec(write("s.yaml", OPTIONAL_BODY.replace("      requestBody:\n        content:",
                                                           "      requestBody:\n        required: true\n"
                                                           "        content:", 1)))
    tool = convert(spec, ConvertOptions(flatten_depth=1)).tool("addNote")
    assert set(tool.parameters["properties"]) == {"dryRun", "text", "tags", "author"}
    assert tool.parameters["required"] == ["text"]
    assert tool.parameters["properties"]["author"]["required"] == ["name"]


def test_an_optional_body_without_required_fields_is_still_flattened(write):
    _, tool = _tool(write, "addLabel")
    assert set(tool.parameters["properties"]) == {"name", "colour"}


EMPTY_VALUES = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /search/{scope}:
    get:
      operationId: search
      parameters:
        - {name: scope, in: path, required: true, schema: {type: string}}
        - {name: q, in: query, required: true, schema: {type: string}}
        - {name: note, in: query, schema: {type: string, nullable: true}}
        - {name: blank, in: query, allowEmptyValue: true, schema: {type: string}}
        - {name: code, in: query, schema: {type: string, minLength: 3}}
        - {name: sort, in: query, schema: {type: string, enum: [asc, desc]}}
        - {name: ref, in: query, schema: {$ref: '#/components/schemas/Word'}}
        - {name: limit, in: query, schema: {type: integer}}
        - {name: X-Tag, in: header, schema: {type: string}}
        - {name: ids, in: query, required: true, schema: {type: array, items: {type: integer}}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
      responses: {'200': {description: ok}}
components:
  schemas:
    Word: {type: string}
"""


def test_string_query_parameters_take_no_empty_value_unless_allow_empty_value(write):
    spec = load_spec(write("s.yaml", EMPTY_VALUES))
    tool = convert(spec, ConvertOptions(vendor="jsonschema")).tool("search")
    props = tool.parameters["properties"]
    # a path parameter is never empty: "" would make /search/ , another route
    assert {name for name, sub in props.items() if sub.get("minLength") == 1} == {"scope", "q", "note", "ref"}
    assert props["code"]["minLength"] == 3 and "minLength" not in props["blank"]
    # a required list cannot be empty either: an empty list sends nothing, and the parameter would be missing
    assert props["ids"]["minItems"] == 1 and "minItems" not in props["tags"]
    assert not check(spec, tool, {"scope": "a", "q": "x", "blank": "", "ids": [1], "tags": []}).violations
    empty = check(spec, tool, {"scope": "", "q": "", "note": "", "ref": "", "ids": []})
    assert [v.place for v in empty.violations] == ["/ids", "/note", "/q", "/ref", "/scope"]


EMPTY_IN_ENUM = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /traffic:
    get:
      operationId: traffic
      parameters:
        - {name: per, in: query, schema: {type: string, enum: ['', day, week], default: day}}
        - {name: unit, in: query, schema: {$ref: '#/components/schemas/Unit'}}
        - {name: blank, in: query, allowEmptyValue: true, schema: {type: string, enum: ['', all]}}
      responses: {'200': {description: ok}}
components:
  schemas:
    Unit: {type: string, enum: ['', s, ms]}
"""


def test_an_empty_value_listed_in_the_enum_of_a_parameter_that_takes_none_is_left_out_with_a_warning(write):
    """GitHub's `per` ("", day, week) has no `allowEmptyValue`: "" is a value it cannot take."""
    spec = load_spec(write("s.yaml", EMPTY_IN_ENUM))
    toolset = convert(spec, ConvertOptions(vendor="jsonschema"))
    tool = toolset.tool("traffic")
    props = tool.parameters["properties"]
    assert props["per"]["enum"] == ["day", "week"] and props["per"]["default"] == "day"
    assert props["unit"]["enum"] == ["s", "ms"]
    assert props["blank"]["enum"] == ["", "all"]  # allowEmptyValue: true takes it
    said = [w.message for w in toolset.warnings]
    assert sum("lists \"\" among its values" in m for m in said) == 2
    assert any("'per'" in m and "allowEmptyValue" in m for m in said)
    assert [v.place for v in check(spec, tool, {"per": "", "unit": "", "blank": ""}).violations] == ["/per", "/unit"]


COLON_PATH = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /v1/organizations/:organizationId:
    get:
      operationId: getOrganization
      parameters:
        - {name: organizationId, in: path, required: true, schema: {type: string}}
      responses: {'200': {description: ok}}
"""


def test_a_path_parameter_written_as_a_colon_segment_is_a_warning_naming_the_path_and_parameter(write):
    spec = load_spec(write("s.yaml", COLON_PATH))
    toolset = convert(spec, ConvertOptions())
    tool = toolset.tool("getOrganization")
    assert tool.operation.path == "/v1/organizations/:organizationId"  # not rewritten
    (warning,) = [w for w in toolset.warnings if w.tool == tool.name and ":organizationId" in w.message]
    assert "'organizationId'" in warning.message and "/v1/organizations/:organizationId" in warning.message
    quiet = convert(load_spec(write("t.yaml", COLON_PATH.replace(":organizationId:", "{organizationId}:"))))
    assert not [w for w in quiet.warnings if "organizationId" in w.message]
