"""The 19 pitfalls of the reference converter (shared docs, "conversion-pitfalls.md", section "Where the
reference converter fails"), each a regression test of OUR converter on one small hand-written spec.

Two fixtures: an OpenAPI 3.0 inventory API (3.0 so that `nullable: true` is exercised) holding every case,
and a Swagger 2.0 pet store for pitfall 13. Where a pitfall is about the executor (URL building, query and
form serialisation, 202/204 handling, validation messages), only the conversion side is tested here: the
bindings and schemas the executor reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from workbench.examples import example_path
from workbench.spec import load_spec
from workbench.tools import VENDORS, Binding, ConvertOptions, Tool, ToolSet, convert
from workbench.tools.human import never_human
from workbench.tools.passes import RECURSION_NOTE

ALL_VENDORS = tuple(VENDORS)  # openai, openai-responses, anthropic, gemini, mcp, jsonschema
# A property name every vendor accepts (letters, digits, `_`; not starting with a digit).
ARGUMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")

LONG_DESCRIPTION = " ".join([
    "Returns the stock summary of the whole catalogue: how many items are on hand across every warehouse,",
    "and the currency in which their value is reported.",
    "The totals are computed from the last completed stock count, not from live reservations, so they can",
    "lag behind the item endpoints by up to fifteen minutes after a large import.",
    "Items that are archived are left out; items whose quantity is unknown count as zero and are listed",
    "in the warnings of the report rather than in its totals.",
    "Use this operation to answer questions such as how much stock there is or what the inventory is worth;",
    "use the item listing instead when the user asks about particular items, colours or sizes.",
    "The currency is the tenant's reporting currency, set by an administrator; it cannot be chosen per call.",
    "Reports for a past date are not available here: schedule a report with the reports endpoint instead,",
    "which answers at once with an accepted status and delivers the report by e-mail when it is ready.",
    "Calling this operation has no side effects and is safe to repeat as often as needed.",
])

SPEC = """openapi: 3.0.3
info:
  title: Inventory API
  version: 1.4.0
servers:
  - url: https://inventory.example.com/api/
paths:
  /items:
    get:
      operationId: listItems
      summary: List items
      parameters:
        - $ref: '#/components/parameters/PageSize'  # 1: a shared query parameter
        - name: status  # 3: enum
          in: query
          schema: {type: string, enum: [active, archived]}
        - name: updatedSince  # 3: 3.0 nullable
          in: query
          schema: {type: string, format: date-time, nullable: true}
        - name: before  # 3: oneOf
          in: query
          schema:
            oneOf:
              - {type: string, format: date}
              - {type: integer, description: Unix time in seconds}
        - name: filter  # 7: an object in the query string
          in: query
          style: deepObject
          explode: true
          schema:
            type: object
            properties:
              color: {type: string}
              minQuantity: {type: integer}
        - name: X-Request-Id  # 4: header, not an identifier
          in: header
          required: true
          schema: {type: string, format: uuid}
        - name: X-Region
          in: header
          schema: {type: string, enum: [eu, us], nullable: true}
        - name: ab-test  # 4: cookie
          in: cookie
          schema: {type: string}
      responses:
        '200':
          description: A page of items
          content:
            application/json:
              schema:
                type: array
                items: {$ref: '#/components/schemas/Item'}
    post:
      operationId: createItem
      summary: Create an item
      parameters:
        - name: dryRun
          in: query
          schema: {type: boolean}
      requestBody:
        required: false  # 5: an optional body with required fields: one optional `body` argument
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Item'}
      responses:
        '201':
          description: Created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
  /items/count:  # 8: a primitive response
    get:
      operationId: countItems
      responses:
        '200':
          description: How many items there are
          content:
            application/json:
              schema: {type: integer, minimum: 0}
  /items/{item-id}:
    parameters:
      - $ref: '#/components/parameters/ItemId'
    get:
      operationId: getItem
      responses:
        '200':
          description: The item
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
    patch:
      operationId: updateItem
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema:
              type: object
              properties:
                name: {type: string}
                quantity: {type: integer, nullable: true}
      responses:
        '200':
          description: The updated item
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Item'}
    delete:
      operationId: deleteItem
      responses:
        '204': {description: Deleted}  # 17
  /items/{item-id}/archive:
    parameters:
      - $ref: '#/components/parameters/ItemId'
    post:
      operationId: archiveItem
      responses:
        '202': {description: Archiving has started}  # 17
  /items/{item-id}/label:
    parameters:
      - $ref: '#/components/parameters/ItemId'
    get:
      operationId: getItemLabel
      responses:
        '200':
          description: A printable label
          content:
            application/pdf:
              schema: {type: string, format: binary}
  /items/{item-id}/export:
    parameters:
      - $ref: '#/components/parameters/ItemId'
    get:
      operationId: exportItem
      responses:
        '200':
          description: The item as XML
          content:
            application/xml:
              schema: {type: string}
  /classes/{class}/students:  # 6
    get:
      operationId: listClassStudents
      parameters:
        - {name: class, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: The students}
  /users/{userId}/posts/{postId}:
    get:  # 2: declared in another order than the URL; 14: no operationId
      parameters:
        - {name: postId, in: path, required: true, schema: {type: integer, minimum: 1}}
        - {name: userId, in: path, required: true, schema: {type: string, format: uuid}}
      responses:
        '200': {description: The post}
  /orders:  # 7: an object in a form body
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema:
              type: object
              required: [sku, shippingAddress]
              properties:
                sku: {type: string}
                quantity: {type: integer, minimum: 1}
                shippingAddress:
                  type: object
                  required: [city]
                  properties:
                    street: {type: string}
                    city: {type: string}
            encoding:
              shippingAddress: {style: deepObject, explode: true}
      responses:
        '201': {description: Ordered}
  /articles:  # 12
    post:
      operationId: createArticle
      requestBody:
        required: true
        content:
          application/vnd.api+json:
            schema:
              type: object
              required: [data]
              properties:
                data:
                  type: object
                  required: [type]
                  properties:
                    type: {type: string, enum: [articles]}
                    attributes:
                      type: object
                      properties:
                        title: {type: string}
      responses:
        '201': {description: Created}
        '422':
          description: Invalid
          content:
            application/problem+json:
              schema: {$ref: '#/components/schemas/Problem'}
  /tags:  # 10
    post:
      operationId: createTag
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/TagInput'}
      responses:
        '201': {description: Created}
  /categories:  # 16
    post:
      operationId: createCategory
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Category'}
      responses:
        '201': {description: Created}
  /reports/summary:
    get:
      operationId: getReportSummary
      summary: Summarise stock
      description: "@LONG@"  # 9
      responses:
        '200':
          description: The summary
          content:
            application/json:
              schema:
                type: object
                required: [total]
                properties:
                  total: {type: integer}
                  currency: {type: string, minLength: 3, maxLength: 3}
  /reports:  # 11: deep pointer refs with ~1
    post:
      operationId: scheduleReport
      parameters:
        - name: currency
          in: query
          schema:
            $ref: '#/paths/~1reports~1summary/get/responses/200/content/application~1json/schema/properties/currency'
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/paths/~1reports~1summary/get/responses/200/content/application~1json/schema'
      responses:
        '202': {description: Scheduled}
  /a_b/c:  # 14: joins to the same name as /a/b_c
    get:
      responses:
        '200': {description: ok}
  /a/b_c:
    get:
      responses:
        '200': {description: ok}
  /archive/items:  # 14: operationIds differing by . and _
    get:
      operationId: archive.listItems
      responses:
        '200': {description: ok}
  /archived-items:
    get:
      operationId: archive_listItems
      responses:
        '200': {description: ok}
components:
  parameters:
    PageSize:
      name: pageSize
      in: query
      description: Items per page.
      schema: {type: integer, minimum: 1, maximum: 100, default: 20}
    ItemId:
      name: item-id
      in: path
      required: true
      schema: {type: string}
  schemas:
    Item:
      type: object
      required: [id, name]
      properties:
        id: {type: string, format: uuid, readOnly: true}  # 18
        name: {type: string, maxLength: 80}
        quantity: {type: integer, minimum: 0}
        price: {type: number}
        metadata: {$ref: '#/components/schemas/Metadata'}
    Metadata:
      type: object
      required: [createdAt]
      properties:
        createdAt: {type: string, format: date-time, readOnly: true}
        notes: {type: string, nullable: true}
    Code:
      type: string
      pattern: '^[a-z0-9-]+$'
      maxLength: 10
    TagBase:
      type: object
      required: [label]
      properties:
        label: {type: string, maxLength: 10}
        weight: {type: integer, minimum: 1}
    TagInput:
      allOf:
        - $ref: '#/components/schemas/TagBase'
        - type: object
          properties:
            label: {type: string, maxLength: 5}
            weight: {type: integer, minimum: 3}
            code:
              allOf:
                - $ref: '#/components/schemas/Code'
                - description: Short code, unique per item.
                  maxLength: 5
        - required: [weight]
    Category:
      type: object
      required: [name, children]
      properties:
        name: {type: string}
        parent: {$ref: '#/components/schemas/Category'}
        children:
          type: array
          items: {$ref: '#/components/schemas/Category'}
    Problem:
      type: object
      properties:
        title: {type: string}
        status: {type: integer}
""".replace("@LONG@", LONG_DESCRIPTION)

SWAGGER = """swagger: "2.0"
info:
  title: Pet Store
  version: 2.1.0
host: pets.example.com
basePath: /v2
schemes: [https, http]
consumes: [application/json]
produces: [application/json]
paths:
  /pets:
    get:
      operationId: listPets
      produces: [application/json, application/xml]
      parameters:
        - {name: limit, in: query, type: integer, format: int32, maximum: 50}
        - {name: tags, in: query, type: array, items: {type: string}, collectionFormat: csv}
        - {name: X-Api-Version, in: header, type: string, required: true}
      responses:
        '200':
          description: Pets
          schema:
            type: array
            items: {$ref: '#/definitions/Pet'}
    post:
      operationId: addPet
      consumes: [application/vnd.petstore.v2+json]
      parameters:
        - name: pet
          in: body
          required: true
          schema: {$ref: '#/definitions/Pet'}
      responses:
        '201': {description: Created}
  /pets/{petId}:
    put:
      operationId: updatePetWithForm
      consumes: [application/x-www-form-urlencoded]
      parameters:
        - {name: petId, in: path, required: true, type: integer, format: int64}
        - {name: name, in: formData, type: string, required: true}
        - {name: status, in: formData, type: string, enum: [available, sold]}
      responses:
        '200': {description: Updated}
  /pets/{petId}/photo:
    post:
      operationId: uploadPetPhoto
      consumes: [multipart/form-data]
      parameters:
        - {name: petId, in: path, required: true, type: integer, format: int64}
        - {name: file, in: formData, type: file, required: true}
        - {name: caption, in: formData, type: string}
      responses:
        '200': {description: Uploaded}
definitions:
  Pet:
    type: object
    required: [name]
    properties:
      id: {type: integer, format: int64, readOnly: true}
      name: {type: string}
      tag: {type: string, x-nullable: true}
"""


# -- helpers ----------------------------------------------------------------------------------------------

@pytest.fixture
def spec(write):
    loaded = load_spec(write("inventory.yaml", SPEC))
    assert loaded.problems == ()
    return loaded


@pytest.fixture
def swagger(write):
    loaded = load_spec(write("petstore.yaml", SWAGGER))
    assert loaded.problems == ()
    return loaded


def convert_all(spec, vendor: str = "openai", **options: Any) -> ToolSet:
    """Convert with `options`; nothing in these fixtures may be rejected."""
    toolset = convert(spec, ConvertOptions(vendor=vendor, **options))
    assert toolset.rejected == []
    return toolset


def by_operation(toolset: ToolSet, method: str, path: str) -> Tool:
    """The tool for one operation, found by method + path (so a naming change does not hide a failure)."""
    found = [t for t in toolset.tools if (t.operation.method, t.operation.path) == (method, path)]
    assert len(found) == 1, f"{method.upper()} {path} converted to {len(found)} tools"
    return found[0]


def by_id(toolset: ToolSet, operation_id: str) -> Tool:
    found = [t for t in toolset.tools if t.operation.operation_id == operation_id]
    assert len(found) == 1, f"{operation_id} converted to {len(found)} tools"
    return found[0]


def binding(tool: Tool, argument: str) -> Binding:
    found = [b for b in tool.bindings if b.argument == argument]
    assert len(found) == 1, f"{tool.name}: {len(found)} bindings for argument {argument!r}"
    return found[0]


def props(tool: Tool) -> dict[str, Any]:
    return tool.parameters["properties"]


def deref(node: Any, root: dict) -> Any:
    """Follow `#/$defs/...` refs inside one tool's schema (the only refs a converted schema may hold)."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/$defs/"), f"unexpected ref {ref}"
        node = root["$defs"][ref[len("#/$defs/"):]]
        seen += 1
        assert seen < 10
    return node


def non_null(node: Any, root: dict) -> Any:
    """The schema behind an `anyOf [X, {type: null}]` (strict mode's optional property), dereferenced."""
    node = deref(node, root)
    variants = node.get("anyOf") if isinstance(node, dict) else None
    if isinstance(variants, list):
        rest = [v for v in variants if not (isinstance(v, dict) and v.get("type") in ("null", "NULL"))]
        if len(rest) == 1:
            return deref(rest[0], root)
    return node


def item_body(tool: Tool) -> dict:
    """createItem's optional body argument (an Item), dereferenced and without strict mode's null."""
    return non_null(props(tool)["body"], tool.parameters)


def types(node: dict) -> set[str]:
    """The non-null types of a schema, lower-cased (Gemini writes `STRING`, strict OpenAI `[string, null]`)."""
    kind = node.get("type")
    kinds = {kind} if isinstance(kind, str) else set(kind or ())
    return {k.lower() for k in kinds} - {"null"}


def admits_null(node: dict) -> bool:
    kind = node.get("type")
    return (node.get("nullable") is True or kind == "null" or (isinstance(kind, list) and "null" in kind)
            or any(isinstance(v, dict) and v.get("type") == "null" for v in node.get("anyOf") or ()))


_MAPS = ("properties", "patternProperties", "$defs")
_ONE = ("items", "additionalProperties", "not")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


def subschemas(node: Any) -> Iterator[dict]:
    """Every schema node in `node` (itself, properties, items, union members, $defs…)."""
    if not isinstance(node, dict):
        return
    yield node
    for key in _MAPS:
        if isinstance(node.get(key), dict):
            for sub in node[key].values():
                yield from subschemas(sub)
    for key in _ONE:
        yield from subschemas(node.get(key))
    for key in _LISTS:
        for sub in node.get(key) or ():
            yield from subschemas(sub)


def is_object(node: dict) -> bool:
    return "object" in types(node) or "properties" in node


def native_schema(vendor: str, native: dict) -> dict:
    """The parameters schema inside a vendor's native tool object."""
    if vendor == "openai":
        return native["function"]["parameters"]
    if vendor == "anthropic":
        return native["input_schema"]
    if vendor in ("mcp", "jsonschema"):
        return native["inputSchema"]
    return native["parameters"]  # openai-responses, gemini


# -- the pitfalls ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_01_shared_query_parameter_ref_stays_in_query(spec, vendor):
    """`$ref: '#/components/parameters/PageSize'` (in: query) is a query argument, not a header."""
    tool = by_id(convert_all(spec, vendor), "listItems")
    assert "pageSize" in props(tool)
    assert binding(tool, "pageSize") == Binding("pageSize", "query", "pageSize", (), False)
    assert not [b for b in tool.bindings if b.location == "header" and b.name == "pageSize"]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_02_path_parameters_keep_their_types_by_name(spec, vendor):
    """`postId` (integer) is declared before `userId` (uuid string) but comes after it in the URL: each keeps
    its own schema, and each binding names its own wire parameter."""
    tool = by_operation(convert_all(spec, vendor), "get", "/users/{userId}/posts/{postId}")
    assert types(props(tool)["postId"]) == {"integer"} and props(tool)["postId"]["minimum"] == 1
    assert types(props(tool)["userId"]) == {"string"} and props(tool)["userId"]["format"] == "uuid"
    assert binding(tool, "postId") == Binding("postId", "path", "postId", (), True)
    assert binding(tool, "userId") == Binding("userId", "path", "userId", (), True)
    assert sorted(tool.parameters["required"]) == ["postId", "userId"]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_03_enum_nullable_and_oneof_parameters_are_arguments(spec, vendor):
    """Query/header parameters whose schema is an enum, a 3.0 `nullable: true` or a oneOf are all kept."""
    tool = by_id(convert_all(spec, vendor), "listItems")
    expected = {"status": "query", "updatedSince": "query", "before": "query", "X_Region": "header"}
    for argument, location in expected.items():
        assert argument in props(tool), argument
        assert binding(tool, argument).location == location
    assert [v for v in props(tool)["status"]["enum"] if v is not None] == ["active", "archived"]
    assert [v for v in props(tool)["X_Region"]["enum"] if v is not None] == ["eu", "us"]
    assert types(props(tool)["updatedSince"]) == {"string"} and admits_null(props(tool)["updatedSince"])
    assert admits_null(props(tool)["X_Region"])


@pytest.mark.parametrize("vendor", ["openai", "openai-responses"])
def test_pitfall_03_oneof_becomes_anyof_for_openai(spec, vendor):
    tool = by_id(convert_all(spec, vendor), "listItems")
    before = props(tool)["before"]
    assert "oneOf" not in before
    assert before["anyOf"] == [{"type": "string", "format": "date"},
                               {"type": "integer", "description": "Unix time in seconds"}]
    assert not [node for node in subschemas(tool.parameters) if "oneOf" in node]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_04_header_and_cookie_parameters_are_exposed(spec, vendor):
    """`X-Request-Id` (header) and `ab-test` (cookie) become valid argument names; the bindings keep the
    names the wire needs."""
    tool = by_id(convert_all(spec, vendor), "listItems")
    assert binding(tool, "X_Request_Id") == Binding("X_Request_Id", "header", "X-Request-Id", (), True)
    assert binding(tool, "X_Region") == Binding("X_Region", "header", "X-Region", (), False)
    assert binding(tool, "ab_test") == Binding("ab_test", "cookie", "ab-test", (), False)
    assert "X_Request_Id" in tool.parameters["required"]
    assert {"X_Request_Id", "X_Region", "ab_test"} <= set(props(tool))
    assert all(ARGUMENT_NAME.fullmatch(name) for name in props(tool)), sorted(props(tool))


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_05_optional_body_and_query_are_not_required(spec, vendor):
    """createItem: an optional query `dryRun` and an optional body (whose schema has required fields): no
    argument is required, and the body stays one argument whose schema still requires `name` once it is
    given. (OpenAI strict spells optional as required + nullable: see pitfall 15.)"""
    tool = by_id(convert_all(spec, vendor), "createItem")
    assert set(props(tool)) == {"dryRun", "body"}
    assert tool.parameters.get("required", []) == []
    assert not [b for b in tool.bindings if b.required]
    assert [r.lower() for r in item_body(tool)["required"]] == ["name"]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_05_nested_groups_are_required_only_when_something_inside_is(spec, vendor):
    toolset = convert_all(spec, vendor, nested=True)
    create = by_id(toolset, "createItem")
    assert set(props(create)) == {"query", "body"}
    assert create.parameters.get("required", []) == []
    assert props(create)["query"].get("required", []) == []
    assert [r.lower() for r in deref(props(create)["body"], create.parameters)["required"]] == ["name"]

    listing = by_id(toolset, "listItems")
    assert set(props(listing)) == {"query", "header", "cookie"}
    assert listing.parameters["required"] == ["header"]  # only X-Request-Id is required
    assert props(listing)["header"]["required"] == ["X_Request_Id"]
    assert props(listing)["query"].get("required", []) == [] and props(listing)["cookie"].get("required", []) == []

    order = by_id(toolset, "createOrder")
    assert order.parameters["required"] == ["body"]
    assert sorted(props(order)["body"]["required"]) == ["shippingAddress", "sku"]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_06_path_variables_that_are_not_identifiers(spec, vendor):
    """`{item-id}` and `{class}`: the argument name is valid, the binding keeps the template variable's
    name. Substituting it into the URL (and joining it to a server URL ending in `/`, as this spec's does)
    is the executor's job and is tested there; this test checks only what the executor reads."""
    toolset = convert_all(spec, vendor)
    item = by_id(toolset, "getItem")
    assert binding(item, "item_id") == Binding("item_id", "path", "item-id", (), True)
    assert item.parameters["required"] == ["item_id"]
    school = by_id(toolset, "listClassStudents")
    path_bindings = [b for b in school.bindings if b.location == "path"]
    assert [b.name for b in path_bindings] == ["class"]
    assert ARGUMENT_NAME.fullmatch(path_bindings[0].argument) and path_bindings[0].argument in props(school)
    for tool in toolset.tools:  # every template variable has exactly one path binding, with its own name
        variables = re.findall(r"{([^}]+)}", tool.operation.path)
        assert sorted(b.name for b in tool.bindings if b.location == "path") == sorted(variables), tool.name
        assert all(ARGUMENT_NAME.fullmatch(b.argument) and b.argument in props(tool)
                   for b in tool.bindings), tool.name


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_07_nested_objects_in_query_and_form_keep_their_shape(spec, vendor):
    """A deepObject query parameter and an object field of a form body stay objects in the argument schema
    (never a string the model must serialise). Serialising them on the wire (deepObject brackets, form
    encoding) is the executor's job; the binding records where they go."""
    toolset = convert_all(spec, vendor)
    listing = by_id(toolset, "listItems")
    flt = props(listing)["filter"]
    assert types(flt) == {"object"}
    assert set(flt["properties"]) == {"color", "minQuantity"}
    assert types(flt["properties"]["minQuantity"]) == {"integer"}
    assert binding(listing, "filter") == Binding("filter", "query", "filter", (), False)

    order = by_id(toolset, "createOrder")
    assert order.media_type == "application/x-www-form-urlencoded"
    address = props(order)["shippingAddress"]
    assert types(address) == {"object"} and set(address["properties"]) == {"street", "city"}
    assert address["required"] == ["city"]
    assert binding(order, "shippingAddress") == Binding("shippingAddress", "body-field", "shippingAddress",
                                                        ("shippingAddress",), True)


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_08_array_and_primitive_responses_are_not_dropped(spec, vendor):
    toolset = convert_all(spec, vendor)
    assert by_id(toolset, "listItems").operation.responses[0].content["application/json"].schema["type"] == "array"
    count = by_id(toolset, "countItems")
    assert count.parameters["properties"] == {}
    assert {"listItems", "countItems"} <= {t.operation.operation_id for t in toolset.tools}


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_09_long_description_is_kept_whole_with_a_warning(spec, vendor):
    assert len(LONG_DESCRIPTION) > 1024
    toolset = convert_all(spec, vendor)
    tool = by_id(toolset, "getReportSummary")
    assert LONG_DESCRIPTION in tool.description and len(tool.description) > 1024
    assert any(LONG_DESCRIPTION in str(native) for native in toolset.native)
    assert any("1024" in message for message in tool.warnings), tool.warnings
    assert any(w.tool == tool.name and "1024" in w.message for w in toolset.warnings)


def _check_merged_tag(tag: dict) -> None:
    assert "allOf" not in tag and set(tag["properties"]) == {"label", "weight", "code"}
    assert set(tag["required"]) == {"label", "weight"}
    label, weight, code = (tag["properties"][k] for k in ("label", "weight", "code"))
    assert types(label) == {"string"} and label["maxLength"] == 5  # maxLength 10 ∩ maxLength 5
    assert types(weight) == {"integer"} and weight["minimum"] == 3  # minimum 1 ∩ minimum 3
    # allOf [$ref Code (a string, maxLength 10), {maxLength 5}]: a non-object member, merged, never {}
    assert types(code) == {"string"} and code["maxLength"] == 5 and code["pattern"] == "^[a-z0-9-]+$"
    assert code["description"] == "Short code, unique per item."


@pytest.mark.parametrize("vendor", ["openai", "openai-responses", "anthropic", "mcp"])
def test_pitfall_10_allof_merges_with_intersected_constraints(spec, vendor):
    tool = by_id(convert_all(spec, vendor), "createTag")
    assert binding(tool, "body").location == "body"
    _check_merged_tag(deref(props(tool)["body"], tool.parameters))
    assert not [node for node in subschemas(tool.parameters) if "allOf" in node]


def test_pitfall_10_allof_merges_for_gemini(spec):
    """Gemini has no maxLength/pattern: the intersected bound is kept in the description."""
    tool = by_id(convert_all(spec, "gemini"), "createTag")
    tag = props(tool)["body"]
    assert tag["type"] == "OBJECT" and set(tag["properties"]) == {"label", "weight", "code"}
    assert set(tag["required"]) == {"label", "weight"}
    label, weight, code = (tag["properties"][k] for k in ("label", "weight", "code"))
    assert label["type"] == "STRING" and "maxLength 5" in label["description"]
    assert weight["type"] == "INTEGER" and weight["minimum"] == 3
    assert code["type"] == "STRING" and "maxLength 5" in code["description"]
    assert not [node for node in subschemas(tool.parameters) if "allOf" in node]


def test_pitfall_10_jsonschema_keeps_allof_losslessly(spec):
    """The plain JSON Schema output rewrites nothing: the allOf is kept as written, never `{}`."""
    tool = by_id(convert_all(spec, "jsonschema"), "createTag")
    tag = deref(props(tool)["body"], tool.parameters)
    assert len(tag["allOf"]) == 3
    assert deref(tag["allOf"][0], tool.parameters)["properties"]["label"]["maxLength"] == 10
    assert tag["allOf"][1]["properties"]["label"]["maxLength"] == 5
    assert {} not in [*tag["allOf"], *tag["allOf"][1]["properties"].values()]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_11_deep_pointer_ref_with_escaped_slash_resolves(spec, vendor):
    """The body refs `#/paths/~1reports~1summary/get/responses/200/.../schema`, the query parameter a
    property inside it: `~1` decodes to `/`, and the operation converts with both shapes."""
    tool = by_id(convert_all(spec, vendor), "scheduleReport")
    assert not [m for m in tool.warnings if "could not be resolved" in m]
    assert binding(tool, "total") == Binding("total", "body-field", "total", ("total",), True)
    assert tool.parameters["required"] == ["total"]
    assert types(props(tool)["total"]) == {"integer"}
    assert binding(tool, "currency").location == "query"
    assert binding(tool, "body_currency") == Binding("body_currency", "body-field", "currency", ("currency",), False)
    for argument in ("currency", "body_currency"):
        currency = deref(props(tool)[argument], tool.parameters)
        assert types(currency) == {"string"}
        if vendor == "gemini":  # no minLength/maxLength in Gemini's subset: kept in the description
            assert "maxLength 3" in currency["description"] and "minLength 3" in currency["description"]
        else:
            assert (currency["minLength"], currency["maxLength"]) == (3, 3)


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_12_plus_json_media_types_have_body_arguments(spec, vendor):
    toolset = convert_all(spec, vendor)
    article = by_id(toolset, "createArticle")
    assert article.media_type == "application/vnd.api+json"
    assert binding(article, "data") == Binding("data", "body-field", "data", ("data",), True)
    assert set(deref(props(article)["data"], article.parameters)["properties"]) == {"type", "attributes"}
    patch = by_id(toolset, "updateItem")
    assert patch.media_type == "application/merge-patch+json"
    assert [(b.argument, b.location) for b in patch.bindings] == [
        ("item_id", "path"), ("name", "body-field"), ("quantity", "body-field")]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_12_xml_or_binary_only_responses_still_convert(spec, vendor):
    toolset = convert_all(spec, vendor)
    for operation_id, media in (("getItemLabel", "application/pdf"), ("exportItem", "application/xml")):
        tool = by_id(toolset, operation_id)
        assert list(tool.operation.responses[0].content) == [media]
        assert binding(tool, "item_id").name == "item-id"


def test_pitfall_13_swagger_base_path_and_schemes_become_servers(swagger):
    assert [server.url for server in swagger.servers] == ["https://pets.example.com/v2",
                                                          "http://pets.example.com/v2"]


def test_pitfall_13_swagger_only_required_parameters_are_required(swagger):
    tool = by_id(convert_all(swagger), "listPets")
    assert set(props(tool)) == {"limit", "tags", "X_Api_Version"}
    assert tool.parameters["required"] == ["X_Api_Version"]
    assert [(b.argument, b.location, b.required) for b in tool.bindings] == [
        ("limit", "query", False), ("tags", "query", False), ("X_Api_Version", "header", True)]
    tags = next(p for p in tool.operation.parameters if p.name == "tags")
    assert (tags.style, tags.explode) == ("form", False)  # collectionFormat: csv


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_13_swagger_form_data_becomes_body_fields(swagger, vendor):
    toolset = convert_all(swagger, vendor)
    form = by_id(toolset, "updatePetWithForm")
    assert form.media_type == "application/x-www-form-urlencoded"
    assert [(b.argument, b.location, b.name, b.required) for b in form.bindings] == [
        ("petId", "path", "petId", True), ("name", "body-field", "name", True),
        ("status", "body-field", "status", False)]
    assert sorted(form.parameters["required"]) == ["name", "petId"]
    upload = by_id(toolset, "uploadPetPhoto")
    assert upload.media_type == "multipart/form-data"
    # a file upload is a human-side argument (issue 5): bound for the wire, not shown to the model
    assert binding(upload, "file") == Binding("file", "body-field", "file", ("file",), True, human=True)
    assert "file" not in props(upload)
    assert binding(upload, "caption").required is False
    everything = convert(swagger, ConvertOptions(vendor=vendor, human=never_human))
    file_arg = props(by_id(everything, "uploadPetPhoto"))["file"]
    assert types(file_arg) == {"string"} and file_arg["format"] == "binary"


def test_pitfall_13_swagger_consumes_and_produces_are_respected(swagger):
    toolset = convert_all(swagger)
    add = by_id(toolset, "addPet")
    assert add.media_type == "application/vnd.petstore.v2+json"  # the operation's consumes
    assert set(props(add)) == {"name", "tag"} and add.parameters["required"] == ["name"]  # id is readOnly
    listing = by_id(toolset, "listPets")
    assert list(listing.operation.responses[0].content) == ["application/json", "application/xml"]


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_14_names_are_unique_and_deterministic(spec, write, vendor):
    toolset = convert_all(spec, vendor)
    names = [t.name for t in toolset.tools]
    assert len(names) == len(set(names)) == len(spec.operations)
    assert all(VENDORS[vendor].name_pattern.fullmatch(name) for name in names)
    # /a_b/c and /a/b_c (no operationIds) would both join to the same name
    collided = {by_operation(toolset, "get", "/a_b/c").name, by_operation(toolset, "get", "/a/b_c").name}
    assert len(collided) == 2
    # two operationIds that differ only by `.` vs `_`
    archived = {by_id(toolset, "archive.listItems").name, by_id(toolset, "archive_listItems").name}
    assert len(archived) == 2
    again = convert_all(load_spec(write("again.yaml", SPEC)), vendor)
    assert [t.name for t in again.tools] == names
    assert again.mapping() == toolset.mapping()
    assert {(m["method"], m["path"]) for m in toolset.mapping().values()} == {
        (op.method, op.path) for op in spec.operations}


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_14_valid_operation_id_keeps_its_name(spec, vendor):
    """Mapping rule 1: the tool name is the operationId when it is valid. `archive_listItems` is valid for
    every vendor, so it keeps its name; only the invalid `archive.listItems` (where `.` is not allowed) is
    renamed, and renamed away from the name the valid one holds."""
    toolset = convert_all(spec, vendor)
    assert by_id(toolset, "archive_listItems").name == "archive_listItems"
    dotted = by_id(toolset, "archive.listItems").name
    if VENDORS[vendor].name_pattern.fullmatch("archive.listItems"):
        assert dotted == "archive.listItems"
    else:
        assert dotted != "archive_listItems"


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_14_camel_case_path_parameters_keep_their_case(spec, vendor):
    tool = by_operation(convert_all(spec, vendor), "get", "/users/{userId}/posts/{postId}")
    assert "UserId" in tool.name and "PostId" in tool.name, tool.name
    assert "Userid" not in tool.name and "userid" not in tool.name


@pytest.mark.parametrize("vendor", ["openai", "openai-responses"])
def test_pitfall_15_strict_mode_transforms_optional_properties(spec, vendor):
    toolset = convert_all(spec, vendor, strict=True)
    assert all((n.get("function", n)).get("strict") is True for n in toolset.native)
    for tool in toolset.tools:  # every object closed and fully required, $defs included
        for node in subschemas(tool.parameters):
            if is_object(node):
                assert node.get("additionalProperties") is False, (tool.name, node)
                assert sorted(node.get("required", [])) == sorted(node.get("properties", {})), (tool.name, node)
    create = by_id(toolset, "createItem")
    root = create.parameters
    for optional in ("dryRun", "body"):
        assert optional in root["required"] and admits_null(root["properties"][optional]), optional
    item = item_body(create)
    for optional in ("quantity", "price", "metadata"):
        assert optional in item["required"] and admits_null(item["properties"][optional]), optional
    assert item["properties"]["name"]["type"] == "string"  # required once the body is given
    metadata = non_null(item["properties"]["metadata"], root)
    assert "$defs" in root and metadata["additionalProperties"] is False
    assert metadata["required"] == ["notes"] and admits_null(metadata["properties"]["notes"])
    listing = by_id(toolset, "listItems")  # a required argument stays non-nullable
    assert props(listing)["X_Request_Id"]["type"] == "string"


@pytest.mark.parametrize("vendor", ["openai", "openai-responses", "anthropic", "mcp", "jsonschema"])
def test_pitfall_16_recursion_stays_a_ref_cycle_where_refs_are_followed(spec, vendor):
    tool = by_id(convert_all(spec, vendor), "createCategory")
    root = tool.parameters
    assert props(tool)["parent"] == {"$ref": "#/$defs/Category"}
    assert props(tool)["children"]["items"] == {"$ref": "#/$defs/Category"}
    category = root["$defs"]["Category"]
    assert category["properties"]["parent"] == {"$ref": "#/$defs/Category"}
    assert category["properties"]["children"]["items"] == {"$ref": "#/$defs/Category"}
    assert category["required"] == ["name", "children"]
    assert root["required"] == ["name", "children"]


def test_pitfall_16_gemini_cuts_recursion_but_keeps_the_fields(spec):
    toolset = convert_all(spec, "gemini")
    tool = by_id(toolset, "createCategory")
    assert not [node for node in subschemas(tool.parameters) if "$ref" in node]
    assert tool.parameters["required"] == ["name", "children"]
    for step in (lambda n: n["properties"]["parent"], lambda n: n["properties"]["children"]["items"]):
        node, levels = step(tool.parameters), 0
        while "properties" in node:  # every expanded level keeps all fields and its required list
            assert set(node["properties"]) == {"name", "parent", "children"}
            assert node["required"] == ["name", "children"]
            node, levels = step(node), levels + 1
        assert levels >= 1
        assert node["type"] == "OBJECT" and RECURSION_NOTE in node["description"]
    assert any("recursive schema Category cut" in m for m in tool.warnings)
    assert any(w.tool == tool.name and "recursive" in w.message for w in toolset.warnings)


def test_pitfall_16_anthropic_strict_cuts_the_cycle_but_keeps_the_fields(spec):
    toolset = convert_all(spec, "anthropic", strict=True)
    tool = by_id(toolset, "createCategory")
    root = tool.parameters
    category = deref(props(tool)["parent"], root)
    assert set(category["properties"]) == {"name", "parent", "children"}
    assert category["required"] == ["name", "children"]
    for cut in (category["properties"]["parent"], category["properties"]["children"]["items"]):
        assert "$ref" not in cut and cut["type"] == "object" and RECURSION_NOTE in cut["description"]
    assert not [node for node in subschemas(root["$defs"]["Category"]) if "$ref" in node]
    assert set(props(tool)) == {"name", "parent", "children"} and root["required"] == ["name", "children"]
    assert any("recursive schema Category cut" in m for m in tool.warnings)


@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_17_operations_answering_only_202_or_204_convert(spec, vendor):
    """archiveItem answers only 202, deleteItem only 204: both are tools. The rest of pitfall 17 (202/204
    without a body at run time, `set-cookie` kept whole, timeouts, auth, retries) is the executor's and is
    covered by the executor's tests."""
    toolset = convert_all(spec, vendor)
    for operation_id, status in (("archiveItem", "202"), ("deleteItem", "204")):
        tool = by_id(toolset, operation_id)
        assert [r.status for r in tool.operation.responses] == [status]
        assert binding(tool, "item_id") == Binding("item_id", "path", "item-id", (), True)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_18_read_only_properties_are_not_arguments(spec, swagger, vendor, strict):
    """Item.id and Metadata.createdAt are readOnly (and required in their schemas): the model is never
    asked for them, at the top of the body or nested in a $ref'd object."""
    create = by_id(convert_all(spec, vendor, strict=strict), "createItem")
    root = create.parameters
    item = item_body(create)
    assert "id" not in item["properties"] and "id" not in item.get("required", [])
    metadata = non_null(item["properties"]["metadata"], root)
    assert "createdAt" not in metadata["properties"], metadata
    assert "createdAt" not in metadata.get("required", []), metadata
    assert not [node for node in subschemas(root) if node.get("readOnly") is True]
    pet = by_id(convert_all(swagger, vendor, strict=strict), "addPet")
    assert "id" not in props(pet) and "id" not in pet.parameters.get("required", [])


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_pitfall_19_integer_arguments_stay_integer(spec, swagger, vendor, strict):
    """Validation messages are the executor's; here: an integer stays an integer in every vendor's output
    (never widened to "number"), so the model is told integer-ness up front."""
    integer = "INTEGER" if vendor == "gemini" else "integer"

    def check(toolset: ToolSet, operation_id: str, *argument: str) -> None:
        index = next(i for i, t in enumerate(toolset.tools) if t.operation.operation_id == operation_id)
        schema = native_schema(vendor, toolset.native[index])
        prop = schema
        for name in argument:
            prop = non_null(prop["properties"][name], schema)
        assert prop["type"] in (integer, [integer, "null"]), (operation_id, argument, prop)

    toolset = convert_all(spec, vendor, strict=strict)
    check(toolset, "listItems", "pageSize")
    check(toolset, "createItem", "body", "quantity")
    check(toolset, "updateItem", "quantity")  # 3.0 nullable integer
    check(toolset, "scheduleReport", "total")
    path = by_operation(toolset, "get", "/users/{userId}/posts/{postId}")
    assert path.parameters["properties"]["postId"]["type"] == integer
    swagger_set = convert_all(swagger, vendor, strict=strict)
    check(swagger_set, "listPets", "limit")
    check(swagger_set, "updatePetWithForm", "petId")


# -- the bundled example ----------------------------------------------------------------------------------

@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("vendor", ALL_VENDORS)
def test_bundled_example_converts_for_every_vendor(vendor, strict):
    toolset = convert(load_spec(example_path()), ConvertOptions(vendor=vendor, strict=strict))
    assert toolset.rejected == []
    assert toolset.tools and len(toolset.native) == len(toolset.tools)
    pattern = VENDORS[vendor].name_pattern
    assert [t.name for t in toolset.tools if not pattern.fullmatch(t.name)] == []
    assert len({t.name for t in toolset.tools}) == len(toolset.tools)
