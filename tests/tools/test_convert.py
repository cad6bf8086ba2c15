"""Conversion as a user drives it: scope, names, arguments and their wire bindings, shaping options, the
CLI's documented JSON, the shared config."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.catalogue import corpus_dir, corpus_names
from workbench.examples import example_path
from workbench.spec import load_spec
from workbench.tools import VENDORS, ConvertOptions, Scope, convert, spec_sha256

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
servers: [{url: 'https://api.example.com'}]
paths:
  /orders/{orderId}:
    parameters:
      - {name: orderId, in: path, required: true, schema: {type: string}}
    get:
      operationId: getOrder
      tags: [orders]
      summary: Get an order
      description: Get an order with its lines.
      parameters:
        - {name: id, in: query, schema: {type: string}, description: an id in the query}
      responses: {'200': {description: ok}}
    put:
      operationId: replaceOrder
      tags: [orders]
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [id, customer]
              properties:
                id: {type: string}
                created: {type: string, readOnly: true}
                customer:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    address: {type: object, properties: {postal_code: {type: string}}}
      responses: {'200': {description: ok}}
    delete:
      operationId: deleteOrder
      tags: [admin]
      x-agent-requires-approval: true
      responses: {'204': {description: gone}}
  /internal:
    get:
      operationId: internalThing
      x-internal: true
      responses: {'200': {description: ok}}
  /old:
    get:
      operationId: oldThing
      deprecated: true
      responses: {'200': {description: ok}}
  /pets:
    post:
      operationId: createPet
      requestBody:
        content:
          application/json:
            schema:
              oneOf:
                - {title: Cat, type: object, properties: {meow: {type: boolean}}}
                - {title: Dog, type: object, properties: {bark: {type: boolean}}}
      responses: {'201': {description: ok}}
"""


@pytest.fixture
def spec(write):
    return load_spec(write("s.yaml", SPEC))


def names(toolset):
    return [t.name for t in toolset.tools]


def test_scope_leaves_out_hidden_and_deprecated_with_reasons(spec):
    toolset = convert(spec)
    assert names(toolset) == ["getOrder", "replaceOrder", "deleteOrder", "createPet"]
    assert {(r.path, r.reason) for r in toolset.rejected} == {
        ("/internal", "hidden from agents (x-internal)"), ("/old", "deprecated (use --include-deprecated)")}


def test_scope_options(spec):
    assert names(convert(spec, ConvertOptions(scope=Scope(tags=("orders",))))) == ["getOrder", "replaceOrder"]
    assert "deleteOrder" not in names(convert(spec, ConvertOptions(scope=Scope(exclude_tags=("admin",)))))
    assert names(convert(spec, ConvertOptions(scope=Scope(read_only=True)))) == ["getOrder"]
    assert names(convert(spec, ConvertOptions(scope=Scope(operations=("deleteOrder", "nope"))))) == ["deleteOrder"]
    assert "oldThing" in names(convert(spec, ConvertOptions(scope=Scope(include_deprecated=True))))
    budget = convert(spec, ConvertOptions(scope=Scope(budget=2)))
    assert any("exceed the budget of 2" in w.message for w in budget.warnings)


def test_flat_arguments_rename_clashes_and_bind_every_argument(spec):
    tool = convert(spec).tool("getOrder")
    assert [(b.argument, b.location, b.name) for b in tool.bindings] == [("orderId", "path", "orderId"),
                                                                        ("id", "query", "id")]
    replace_order = convert(spec).tool("replaceOrder")
    assert [(b.argument, b.location, b.body_path, b.required) for b in replace_order.bindings] == [
        ("orderId", "path", (), True), ("id", "body-field", ("id",), True),
        ("customer", "body-field", ("customer",), True)]
    assert "created" not in replace_order.parameters["properties"]  # readOnly: the server sets it
    assert replace_order.parameters["required"] == ["orderId", "id", "customer"]


def test_flatten_depth_lifts_nested_body_objects(spec):
    tool = convert(spec, ConvertOptions(flatten_depth=2)).tool("replaceOrder")
    assert [(b.argument, b.body_path, b.required) for b in tool.bindings if b.location == "body-field"] == [
        ("id", ("id",), True), ("customer_name", ("customer", "name"), True),
        ("customer_address_postal_code", ("customer", "address", "postal_code"), False)]


def test_nested_style_groups_arguments_and_requires_only_needed_groups(spec):
    tool = convert(spec, ConvertOptions(nested=True)).tool("getOrder")
    assert set(tool.parameters["properties"]) == {"path", "query"}
    assert tool.parameters["required"] == ["path"]  # the query group holds only optional arguments
    assert [b.argument for b in tool.bindings] == ["path.orderId", "query.id"]


def test_split_unions_gives_one_tool_per_variant(spec):
    toolset = convert(spec, ConvertOptions(split_unions=True))
    assert [n for n in names(toolset) if n.startswith("createPet")] == ["createPet_Cat", "createPet_Dog"]
    cat = toolset.tool("createPet_Cat")
    assert set(cat.parameters["properties"]) == {"meow"} and "Cat variant" in cat.description


def test_description_carries_the_facts_a_model_needs(spec):
    tool = convert(spec).tool("deleteOrder")
    assert "Requires human approval before it runs." in tool.description
    assert "Destructive: the change cannot be undone." in tool.description
    get = convert(spec).tool("getOrder")
    assert get.description == "Get an order with its lines."  # the summary is not repeated


def test_mcp_annotations_follow_the_method_table(spec):
    toolset = convert(spec, ConvertOptions(vendor="mcp"))
    by_name = {t["name"]: t["annotations"] for t in toolset.native}
    assert by_name["getOrder"]["readOnlyHint"] is True and by_name["getOrder"]["destructiveHint"] is False
    assert by_name["replaceOrder"]["destructiveHint"] is True and by_name["replaceOrder"]["idempotentHint"] is True
    assert by_name["createPet"]["destructiveHint"] is False


def test_tokens_are_estimates_per_tool_and_include_vendor_overhead(spec):
    openai = convert(spec, ConvertOptions(vendor="openai")).tokens
    anthropic = convert(spec, ConvertOptions(vendor="anthropic")).tokens
    assert openai.method.startswith("estimate")
    assert set(openai.per_tool) == {"getOrder", "replaceOrder", "deleteOrder", "createPet"}
    assert all(n > 10 for n in openai.per_tool.values())
    assert anthropic.total == sum(anthropic.per_tool.values()) + 346 and anthropic.overhead == 346


def test_spec_hash_changes_with_the_spec(spec, write):
    changed = load_spec(write("t.yaml", SPEC.replace("Get an order", "Fetch an order")))
    assert spec_sha256(spec) != spec_sha256(changed) and len(spec_sha256(spec)) == 64


def run(*args):
    return subprocess.run([sys.executable, "-m", "workbench", "tools", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_cli_json_is_exactly_the_documented_shape():
    result = run(str(example_path()), "--vendor", "anthropic")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"vendor", "spec_sha256", "tools", "mapping", "rejected", "warnings", "tokens"}
    assert data["vendor"] == "anthropic" and set(data["tokens"]) == {"total", "per_tool"}
    assert len(data["tools"]) == 15 and set(data["mapping"]) == {t["name"] for t in data["tools"]}
    assert data["mapping"]["refundOrder"] == {"method": "post", "path": "/orders/{orderId}/refund",
                                              "operationId": "refundOrder"}
    assert all(set(t) == {"name", "description", "input_schema"} for t in data["tools"])


def test_cli_reads_the_shared_tool_set_from_the_config(write):
    spec = write("api/shop.yaml", example_path().read_bytes())
    write("api/.workbench.yaml", "tools:\n  vendor: gemini\n  tags: [refunds]\n")
    data = json.loads(run(str(spec)).stdout)
    assert data["vendor"] == "gemini"
    assert sorted(data["mapping"]) == ["getRefund", "listOrderRefunds", "refundOrder"]
    override = json.loads(run(str(spec), "--vendor", "mcp", "--tags", "orders").stdout)
    assert override["vendor"] == "mcp" and "getRefund" not in override["mapping"]


@pytest.mark.parametrize("vendor", sorted(VENDORS))
def test_a_large_corpus_file_converts_for_every_vendor(vendor):
    spec = load_spec(corpus_dir() / "github-api.github.com-2022-07-18.json")
    toolset = convert(spec, ConvertOptions(vendor=vendor, strict=True, scope=Scope(include_deprecated=True)))
    assert len(toolset.tools) == 874 and toolset.rejected == []
    assert len({t.name for t in toolset.tools}) == 874
    assert all(VENDORS[vendor].name_pattern.fullmatch(t.name) for t in toolset.tools)


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_file_converts_for_every_vendor(name):
    spec = load_spec(corpus_dir() / name)
    for vendor in VENDORS:
        for strict in (False, True):
            toolset = convert(spec, ConvertOptions(vendor=vendor, strict=strict))
            failures = [r for r in toolset.rejected if r.reason.startswith("conversion failed")]
            assert failures == [], (vendor, strict, failures[:3])
            assert all(r.reason for r in toolset.rejected)


NESTED_PARAMETERS = """
openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /search:
    get:
      operationId: search
      parameters:
        - {name: filters, in: query, schema: {type: array, items: {$ref: '#/components/schemas/Filter'}}}
        - {name: where, in: query, schema: {type: object, properties: {range: {type: array, items: {type: integer}}}}}
        - {name: deep, in: query, style: deepObject, schema: {type: object, properties: {a: {type: object}}}}
        - {name: asJson, in: query, content: {application/json: {schema: {type: array, items: {type: object}}}}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: X-Pairs, in: header, schema: {type: array, items: {type: array, items: {type: string}}}}
      responses: {'200': {description: ok}}
components:
  schemas:
    Filter: {type: object, properties: {field: {type: string}, value: {type: string}}}
"""


def test_a_parameter_no_style_can_write_is_named_in_the_warnings(write):
    from workbench.wire import SerializationError, serialize_header, serialize_query

    toolset = convert(load_spec(write("nested.yaml", NESTED_PARAMETERS)))
    warned = {w.message.split(" is ", 1)[0]: w.message for w in toolset.warnings if "has no form" in w.message}
    assert set(warned) == {"query parameter 'filters'", "query parameter 'where'", "header parameter 'X-Pairs'"}
    assert "an array of objects" in warned["query parameter 'filters'"]
    assert "an object whose 'range' is nested" in warned["query parameter 'where'"]
    assert "an array of arrays" in warned["header parameter 'X-Pairs'"]
    # The executor's serialiser indeed has no form for what was warned about, and has one for the rest.
    for call in (lambda: serialize_query("filters", [{"field": "a", "value": "b"}]),
                 lambda: serialize_query("where", {"range": [1, 2]}),
                 lambda: serialize_header([["a", "b"]])):
        with pytest.raises(SerializationError):
            call()
    assert serialize_query("deep", {"a": {"b": "c"}}, style="deepObject")
    assert serialize_query("tags", ["x", "y"])


def test_the_box_search_filters_are_warned_about():
    spec = load_spec(corpus_dir() / "box-openapi.json")
    toolset = convert(spec, ConvertOptions(scope=Scope(operations=("get_search",))))
    assert [w.message.split(":", 1)[0] for w in toolset.warnings if "has no form" in w.message] \
        == ["query parameter 'mdfilters' is an array of objects"]


def test_the_tool_set_is_the_same_whatever_the_hash_seed(write):
    """`$defs` come out in one order on every run (a team diffs and versions the tool set), also for the
    second tool that meets a component already shaped for the first."""
    names = [f"Part{chr(65 + i)}" for i in range(10)]
    parts = "".join(f"    {n}: {{type: object, properties: {{label: {{type: string}}}}}}\n" for n in names)
    props = ", ".join(f"{n.lower()}: {{$ref: '#/components/schemas/{n}'}}" for n in names)
    operation = ("  /{0}:\n    post:\n      operationId: {0}\n      requestBody:\n        content:\n"
                 "          application/json:\n"
                 "            schema: {{type: object, properties: {{whole: {{$ref: '#/components/schemas/Whole'}}}}}}\n"
                 "      responses: {{'200': {{description: ok}}}}\n")
    path = write("s.yaml", "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n" + operation.format("a")
                 + operation.format("b")
                 + f"components:\n  schemas:\n    Whole: {{type: object, properties: {{{props}}}}}\n{parts}")
    outputs = {subprocess.run([sys.executable, "-m", "workbench", "tools", str(path)], capture_output=True, text=True,
                              check=True, timeout=60, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
               for seed in range(1, 5)}
    assert len(outputs) == 1
    second = json.loads(outputs.pop())["tools"][1]["function"]["parameters"]["$defs"]
    assert list(second) == ["Whole", *names]


def test_the_packages_convert_is_the_function_and_an_assignment_to_it_is_kept_until_deleted() -> None:
    """`workbench.tools.convert` is the function even once its submodule is imported; a value assigned to it
    (anything but the submodule the import system records) is kept until deleted, as for any attribute."""
    import importlib

    import workbench.tools as package

    function = package.convert
    importlib.import_module("workbench.tools.convert")
    assert package.convert is function and callable(function)

    def stand_in(*_args, **_kwargs):
        return None

    package.convert = stand_in
    try:
        assert package.convert is stand_in
    finally:
        del package.convert
    assert package.convert is function
