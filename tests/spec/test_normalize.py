"""Every version → one model: nullable, bounds, Swagger 2.0 bodies/forms/servers, merging, webhooks."""

from __future__ import annotations

import pytest

from workbench.spec import SpecError, SpecVersion, load_spec

OAS30 = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"
SWAGGER = "swagger: '2.0'\ninfo: {title: t, version: '1'}\n"


def test_nullable_becomes_a_null_union(write):
    spec = load_spec(write("s.yaml", OAS30 + """
paths: {}
components:
  schemas:
    A: {type: string, nullable: true, enum: [a, b]}
    B: {nullable: true, allOf: [{$ref: '#/components/schemas/A'}], description: d}
    C: {type: integer, minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}
    D: {type: object, properties: {flag: {type: boolean, readOnly: yes}}}
"""))
    schemas = spec.components.schemas
    assert schemas["A"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert schemas["B"] == {"description": "d", "anyOf": [{"allOf": [{"$ref": "#/components/schemas/A"}]},
                                                          {"type": "null"}]}
    assert schemas["C"] == {"type": "integer", "exclusiveMinimum": 1, "maximum": 9}
    assert schemas["D"]["properties"]["flag"]["readOnly"] is True


def test_openapi_31_schemas_pass_through(write):
    spec = load_spec(write("s.yaml", OAS30.replace("3.0.3", "3.1.0") + """
paths: {}
components:
  schemas:
    A: {type: [string, 'null'], exclusiveMinimum: 3, examples: [x]}
"""))
    assert spec.version is SpecVersion.OPENAPI_3_1
    assert spec.components.schemas["A"] == {"type": ["string", "null"], "exclusiveMinimum": 3, "examples": ["x"]}


def test_subschemas_are_converted_in_place_and_a_tuple_items_becomes_prefix_items_where_it_stood(write):
    spec = load_spec(write("s.yaml", OAS30 + """
paths: {}
components:
  schemas:
    T: {type: array, items: [{type: string, nullable: true}, {$ref: '#/components/schemas/A'}], maxItems: 2}
    O: {title: o, properties: {a: {type: string, nullable: true}}, required: [a], items: {type: integer},
        oneOf: [{type: object}], additionalProperties: false, x-kept: 1}
    A: {type: integer}
"""))
    schemas = spec.components.schemas
    assert list(schemas["T"].items()) == [("type", "array"), ("prefixItems", [
        {"type": ["string", "null"]}, {"$ref": "#/components/schemas/A"}]), ("maxItems", 2)]
    assert list(schemas["O"]) == ["title", "properties", "required", "items", "oneOf", "additionalProperties", "x-kept"]
    assert schemas["O"]["properties"] == {"a": {"type": ["string", "null"]}}
    assert schemas["O"]["additionalProperties"] is False and schemas["O"]["oneOf"] == [{"type": "object"}]


def test_path_level_parameters_merge_by_name_and_location(write):
    spec = load_spec(write("s.yaml", OAS30 + """
paths:
  /a/{id}:
    parameters:
      - {name: id, in: path, required: true, schema: {type: string}, description: path level}
      - {name: id, in: query, schema: {type: string}}
      - {name: X-Trace, in: header, schema: {type: string}}
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}, description: op level}
        - {name: x-trace, in: header, required: yes, schema: {type: string}}
      responses: {'200': {description: ok}}
"""))
    params = spec.operations[0].parameters
    assert [(p.name, p.location, p.description) for p in params] == [
        ("id", "path", "op level"), ("id", "query", None), ("x-trace", "header", None)]
    assert params[2].required is True  # YAML 1.1 `yes` where OpenAPI means a boolean
    assert (params[1].style, params[1].explode) == ("form", True)
    assert (params[0].style, params[0].explode) == ("simple", False)


def test_webhooks_are_kept_apart(write):
    spec = load_spec(write("s.yaml", OAS30.replace("3.0.3", "3.1.0") + """
paths:
  /a: {get: {responses: {'200': {description: ok}}}}
webhooks:
  newPet: {post: {requestBody: {content: {application/json: {schema: {type: object}}}}}}
"""))
    assert [op.label() for op in spec.operations] == ["GET /a"]
    assert [(op.label(), op.webhook) for op in spec.webhook_operations] == [("POST newPet", True)]


SWAGGER_SPEC = SWAGGER + """
host: api.example.com
basePath: /v1
schemes: [http, https]
consumes: [application/json]
produces: [application/json, application/xml]
paths:
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, type: integer, format: int64}
    put:
      parameters:
        - {name: body, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}
        - {name: tags, in: query, type: array, items: {type: string}, collectionFormat: pipes}
        - {name: ids, in: query, type: array, items: {type: integer}, collectionFormat: multi}
        - {name: csv, in: header, type: array, items: {type: string}}
      responses:
        '200': {description: ok, schema: {$ref: '#/definitions/Pet'}, headers: {X-Rate: {type: integer}}}
        default: {$ref: '#/responses/Error'}
  /pets/{petId}/photo:
    post:
      consumes: [multipart/form-data]
      parameters:
        - {name: petId, in: path, required: true, type: integer}
        - {name: file, in: formData, type: file, required: true}
        - {name: caption, in: formData, type: string, description: words}
      responses: {'201': {description: created}}
  /login:
    post:
      consumes: [application/x-www-form-urlencoded]
      parameters:
        - {name: user, in: formData, type: string}
        - {name: scopes, in: formData, type: array, items: {type: string}, collectionFormat: ssv}
      responses: {'204': {description: done}}
definitions:
  Pet:
    type: object
    discriminator: kind
    properties:
      kind: {type: string}
      age: {type: integer, minimum: 0, exclusiveMinimum: true, x-nullable: true}
      owner: {$ref: '#/definitions/Pet'}
responses:
  Error: {description: error, schema: {type: object}}
securityDefinitions:
  basic: {type: basic}
  oauth: {type: oauth2, flow: accessCode, authorizationUrl: 'https://a/auth', tokenUrl: 'https://a/token',
          scopes: {read: read it}}
"""


@pytest.fixture
def swagger(write):
    return load_spec(write("swagger.yaml", SWAGGER_SPEC))


def test_swagger_servers_from_host_base_path_schemes(swagger):
    assert [s.url for s in swagger.servers] == ["http://api.example.com/v1", "https://api.example.com/v1"]


def test_swagger_body_becomes_request_body_per_consumes(swagger):
    put = swagger.operations[0]
    assert put.request_body.required
    assert put.request_body.content["application/json"].schema == {"$ref": "#/components/schemas/Pet"}
    assert [(p.name, p.location) for p in put.parameters] == [("petId", "path"), ("tags", "query"),
                                                              ("ids", "query"), ("csv", "header")]
    assert put.parameters[0].schema == {"type": "integer", "format": "int64"} and put.parameters[0].required


def test_swagger_collection_formats(swagger):
    params = {p.name: p for p in swagger.operations[0].parameters}
    assert (params["tags"].style, params["tags"].explode) == ("pipeDelimited", False)
    assert (params["ids"].style, params["ids"].explode) == ("form", True)
    assert (params["csv"].style, params["csv"].explode) == ("simple", False)  # csv is the default
    assert params["tags"].required is False  # not every parameter made required


def test_swagger_responses_get_content_per_produces(swagger):
    ok, default = swagger.operations[0].responses
    assert set(ok.content) == {"application/json", "application/xml"}
    assert ok.headers[0].name == "X-Rate" and ok.headers[0].schema == {"type": "integer"}
    assert default.status == "default" and default.origin.pointer == "/responses/Error"


def test_swagger_form_data_multipart_with_file(swagger):
    body = swagger.operations[1].request_body
    assert list(body.content) == ["multipart/form-data"]
    schema = body.content["multipart/form-data"].schema
    assert schema == {"type": "object", "required": ["file"], "properties": {
        "file": {"type": "string", "format": "binary"}, "caption": {"type": "string", "description": "words"}}}
    assert [p.name for p in swagger.operations[1].parameters] == ["petId"]


def test_swagger_form_data_urlencoded_with_collection_format(swagger):
    body = swagger.operations[2].request_body
    media = body.content["application/x-www-form-urlencoded"]
    assert media.encoding == {"scopes": {"style": "spaceDelimited", "explode": False}}
    assert body.required is False


def test_swagger_definitions_and_security(swagger):
    pet = swagger.components.schemas["Pet"]
    assert pet["discriminator"] == {"propertyName": "kind"}
    assert pet["properties"]["age"] == {"type": ["integer", "null"], "exclusiveMinimum": 0}
    assert pet["properties"]["owner"] == {"$ref": "#/components/schemas/Pet"}
    assert swagger.components.security_schemes["basic"] == {"type": "http", "scheme": "basic"}
    assert swagger.components.security_schemes["oauth"]["flows"] == {"authorizationCode": {
        "authorizationUrl": "https://a/auth", "tokenUrl": "https://a/token", "scopes": {"read": "read it"}}}


@pytest.mark.parametrize("text, message", [
    ("openapi: 4.0.0\n", "unsupported OpenAPI version '4.0.0'"),
    ("swagger: '1.2'\n", "unsupported Swagger version '1.2'"),
    ("openapi: 3.0\ninfo: {}\n", None),
    ("title: hello\n", "no top-level 'openapi' or 'swagger' field"),
    ("- a\n- b\n", "the top level is a list"),
])
def test_versions(write, text, message):
    path = write("v.yaml", text)
    if message is None:
        assert load_spec(path).spec_version == "3.0"
    else:
        with pytest.raises(SpecError, match=message.replace("(", r"\(")):
            load_spec(path)


def test_openapi_32_is_accepted(write):
    spec = load_spec(write("s.yaml", "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths: {}\n"))
    assert spec.version is SpecVersion.OPENAPI_3_2


def test_path_items_sharing_a_ref_keep_their_own_parameters(write):
    spec = load_spec(write("api.yaml", """
openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /a:
    $ref: '#/components/pathItems/Shared'
    parameters: [{name: alpha, in: query, schema: {type: string}}]
  /b:
    $ref: '#/components/pathItems/Shared'
    parameters: [{name: beta, in: query, schema: {type: string}}]
components:
  pathItems:
    Shared:
      get:
        operationId: shared
        parameters: [{name: common, in: query, schema: {type: string}}]
        responses: {'200': {description: ok}}
"""))
    names = {op.path: sorted(p.name for p in op.parameters) for op in spec.operations}
    assert names == {"/a": ["alpha", "common"], "/b": ["beta", "common"]}
    shared = [p for op in spec.operations for p in op.parameters if p.name == "common"]
    assert shared[0] is shared[1]  # one definition, read once


@pytest.mark.parametrize("head", [OAS30, SWAGGER])
def test_accept_content_type_and_authorization_headers_are_ignored(write, head):
    """OpenAPI: header parameters named Accept, Content-Type or Authorization SHALL be ignored (any case);
    each one is reported once as an info problem, and other headers stay."""
    schema = "type: string" if head is SWAGGER else "schema: {type: string}"
    spec = load_spec(write("s.yaml", head + f"""
paths:
  /a:
    parameters:
      - {{name: accept, in: header, {schema}}}
    post:
      parameters:
        - {{name: Content-Type, in: header, required: true, {schema}}}
        - {{name: AUTHORIZATION, in: header, {schema}}}
        - {{name: authorization, in: query, {schema}}}
        - {{name: X-Trace, in: header, {schema}}}
      responses: {{'200': {{description: ok}}}}
"""))
    (operation,) = spec.operations
    ignored = [p for p in spec.problems if p.code == "parameter-ignored"]
    if head is SWAGGER:  # 2.0 says nothing of the kind: an Authorization parameter is often its only credential
        assert [(p.name, p.location) for p in operation.parameters] == [
            ("AUTHORIZATION", "header"), ("authorization", "query"), ("X-Trace", "header")]
        assert [p.pointer for p in ignored] == ["/paths/~1a/parameters/0", "/paths/~1a/post/parameters/0"]
    else:
        assert [(p.name, p.location) for p in operation.parameters] == [("authorization", "query"),
                                                                          ("X-Trace", "header")]
        assert [p.pointer for p in ignored] == ["/paths/~1a/parameters/0", "/paths/~1a/post/parameters/0",
                                                "/paths/~1a/post/parameters/1"]
    assert {p.severity.label for p in ignored} == {"info"}
