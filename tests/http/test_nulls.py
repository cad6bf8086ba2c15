"""Nulls in tool calls: a null the strict pass made possible (OpenAI strict mode: every optional field
required and nullable) means "not given" at every depth; a null the spec itself allows is a value, and is
sent as JSON null."""

from __future__ import annotations

import json

import pytest

from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, convert

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [sku, customer, coupon]
              properties:
                sku: {type: string}
                coupon: {type: [string, 'null']}
                note: {type: [string, 'null']}
                gift: {type: boolean}
                customer:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    email: {type: string}
                    phone: {type: [string, 'null']}
                    address:
                      type: object
                      properties: {city: {type: string}, zip: {$ref: '#/components/schemas/Zip'}}
                lines:
                  type: array
                  items:
                    type: object
                    required: [sku]
                    properties: {sku: {type: string}, qty: {type: integer}, wrap: {$ref: '#/components/schemas/Wrap'}}
      responses: {'201': {description: created}}
components:
  schemas:
    Zip: {type: string}
    Wrap: {type: [boolean, 'null']}
"""

LEGACY = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /notes:
    post:
      operationId: addNote
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [text, due]
              properties:
                text: {type: string}
                due: {type: string, format: date, nullable: true}
                tag: {type: string}
      responses: {'201': {description: created}}
"""


def run(spec, server, strict: bool) -> Executor:
    toolset = convert(spec, ConvertOptions(vendor="openai", strict=strict))
    return Executor(spec, toolset, CallOptions(base_url=server.url))


def test_strict_nulls_mean_not_given_at_every_depth(write, server):
    spec = load_spec(write("orders.yaml", SPEC))
    result = run(spec, server, True).call(ToolCall("createOrder", {
        "sku": "A-1", "coupon": "C", "note": "n", "gift": None,
        "customer": {"name": "Ann", "email": None, "phone": "1", "address": {"city": None, "zip": None}},
        "lines": [{"sku": "x", "qty": None, "wrap": True}, {"sku": "y", "qty": 2, "wrap": False}]}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    assert json.loads(server.requests[0].body) == {
        "sku": "A-1", "coupon": "C", "note": "n", "customer": {"name": "Ann", "phone": "1", "address": {}},
        "lines": [{"sku": "x", "wrap": True}, {"sku": "y", "qty": 2, "wrap": False}]}


def test_a_nested_null_the_spec_does_not_allow_for_a_required_field_is_still_feedback(write, server):
    spec = load_spec(write("orders.yaml", SPEC))
    result = run(spec, server, True).call(ToolCall("createOrder", {
        "sku": "A-1", "coupon": None, "customer": {"name": None}, "lines": [{"sku": None}]}))
    assert result.status is None and server.requests == []
    assert [v.place for v in result.feedback.violations] == ["/customer/name", "/lines/0/sku"]


@pytest.mark.parametrize("strict", [False, True])
def test_an_explicit_null_the_spec_allows_is_sent_as_null(write, server, strict):
    spec = load_spec(write("orders.yaml", SPEC))
    result = run(spec, server, strict).call(ToolCall("createOrder", {
        "sku": "A-1", "coupon": None, "note": None, "customer": {"name": "Ann", "phone": None},
        "lines": [{"sku": "x", "wrap": None}]}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    assert json.loads(server.requests[0].body) == {"sku": "A-1", "coupon": None, "note": None,
                                                   "customer": {"name": "Ann", "phone": None},
                                                   "lines": [{"sku": "x", "wrap": None}]}


@pytest.mark.parametrize("strict", [False, True])
def test_a_required_3_0_nullable_field_is_sent_as_null(write, server, strict):
    spec = load_spec(write("notes.yaml", LEGACY))
    arguments = {"text": "hi", "due": None} | ({"tag": None} if strict else {})
    result = run(spec, server, strict).call(ToolCall("addNote", arguments))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    assert json.loads(server.requests[0].body) == {"text": "hi", "due": None}


PAGES = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /pages:
    post:
      operationId: createPages
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              nullable: true
              properties: {source: {type: object, required: [branch], properties: {branch: {type: string}}}}
              anyOf: [{required: [source]}]
      responses: {'201': {description: created}}
"""


def test_a_null_whole_json_body_the_spec_allows_is_sent_as_null_not_as_an_empty_object(write, server):
    """GitHub's `POST /repos/{owner}/{repo}/pages`: a required body, nullable, whose anyOf needs `source`.
    null is a value it allows; `{}` (what a left-out required body becomes) is one it forbids."""
    spec = load_spec(write("pages.yaml", PAGES))
    toolset = convert(spec, ConvertOptions(vendor="openai"))
    (tool,) = toolset.tools
    (body,) = [b.argument for b in tool.bindings if b.location == "body"]
    result = Executor(spec, toolset, CallOptions(base_url=server.url)).call(ToolCall("createPages", {body: None}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    assert server.requests[0].body == b"null"
    assert server.requests[0].header("content-type") == "application/json"


ALL_OF = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /chat:
    post:
      operationId: createChat
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Chat'}
      responses: {'200': {description: ok}}
components:
  schemas:
    Base:
      type: object
      properties:
        top: {anyOf: [{type: integer}, {type: 'null'}]}
        mode: {anyOf: [{type: string}, {type: 'null'}]}
    Chat:
      allOf:
        - $ref: '#/components/schemas/Base'
        - type: object
          required: [prompt]
          properties:
            prompt: {type: string}
            top: {type: integer, minimum: 0}
"""


def test_a_strict_null_for_a_field_one_allof_member_refuses_means_not_given(write, server):
    # OpenAI's chat request declares `top_logprobs` in two allOf members, nullable in one and not in the other:
    # the whole schema refuses null there, so the strict tool's null is "not given", never a refused call.
    spec = load_spec(write("chat.yaml", ALL_OF))
    result = run(spec, server, True).call(ToolCall("createChat", {"body": {"prompt": "hi", "top": None, "mode": None}}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    assert json.loads(server.requests[0].body) == {"prompt": "hi", "mode": None}  # `mode` allows null: a value


MESSAGES = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /chat:
    post:
      operationId: chat
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [messages]
              properties:
                messages:
                  type: array
                  items:
                    oneOf:
                      - type: object
                        required: [role, content]
                        properties: {role: {enum: [user]}, content: {type: string}, name: {type: string}}
                      - type: object
                        required: [role, content, name]
                        properties: {role: {const: function}, content: {type: string}, name: {type: string}}
      responses: {'200': {description: ok}}
"""


def test_a_strict_null_in_a_union_member_is_read_by_the_member_the_value_is(write, server):
    # OpenAI's chat messages: a user message's `name` is optional, a function message's required. A strict
    # model sends `name: null` on every user message; that is "not given", not a required name left empty.
    spec = load_spec(write("chat.yaml", MESSAGES))
    result = run(spec, server, True).call(ToolCall("chat", {"messages": [
        {"role": "user", "content": "hi", "name": None}, {"role": "function", "content": "42", "name": "f"}]}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    assert json.loads(server.requests[0].body) == {"messages": [
        {"role": "user", "content": "hi"}, {"role": "function", "content": "42", "name": "f"}]}
    # a function message's null name stays, and is feedback: that member requires it
    result = run(spec, server, True).call(ToolCall("chat", {"messages": [
        {"role": "function", "content": "42", "name": None}]}))
    assert result.status is None and len(server.requests) == 1
