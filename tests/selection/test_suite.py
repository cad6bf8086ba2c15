"""The suite file: what it reads, the one-line errors at the entry's line and column, and how expected tools
resolve against a tool set (operationId, tool name, METHOD /path; renames noted, not failed)."""

from __future__ import annotations

import hashlib
import json
import textwrap

import jsonschema
import pytest

from tests.catalogue import REPO
from workbench.config import WorkbenchConfig
from workbench.examples import example_path
from workbench.selection.model import ALL_OF, NONE, ONE_OF
from workbench.selection.suite import open_suite, read_suite, resolve_suite, suite_schema
from workbench.spec import SpecError, load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.tools.vendors import VENDORS

EXAMPLE_SUITE = REPO / "resources" / "suites" / "shop-api.suite.yaml"


def suite_text(cases: str, head: str = "") -> str:
    return f"spec: {example_path().as_posix()}\n{head}cases:\n" + textwrap.indent(textwrap.dedent(cases), "  ")


def failure(write, text: str, name: str = "s.suite.yaml") -> str:
    path = write(name, text)
    with pytest.raises(SpecError) as caught:
        open_suite(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


BASIC = """\
- id: list-orders
  prompt: "Show me my recent orders"
  expect: listOrders
"""


# -- what it reads ------------------------------------------------------------------------------------------


def test_the_three_expectation_forms_and_none(write):
    path = write("s.suite.yaml", suite_text("""\
        - id: one
          prompt: "Which orders were paid?"
          expect: listOrders
          arguments: {status: paid}
          tags: [orders]
        - id: either
          prompt: "Has ord_4Hq7Zt2Wd9Lr1B shipped?"
          expect: [getOrder, fetchOrderDetails]
          arguments: {orderId: ord_4Hq7Zt2Wd9Lr1B}
        - id: both
          prompt: "The order and its buyer, please"
          expect: {all: [getOrder, getCustomer]}
          arguments:
            getCustomer: {customerId: cus_8f2kQ1x9LmP3aZ}
        - id: nothing
          messages:
            - {role: system, content: "You are terse."}
            - {role: user, content: "Thanks!"}
          expect: none
          draft: true
        """, head="repeats: 3\nmodel: {api: openai-chat, name: m, temperature: 0, tool-choice: required, "
                   "prices: {input: 2.5, output: 10}, timeout: 30}\ntools: {vendor: openai}\n"))
    suite, notes = open_suite(path)[0], open_suite(path).notes
    assert notes == []
    one, either, both, nothing = suite.cases
    assert (one.expect.mode, one.expect.tools, one.arguments, one.tags) == (
        ONE_OF, ("listOrders",), {"listOrders": {"status": "paid"}}, ("orders",))
    assert (either.expect.mode, either.expect.tools) == (ONE_OF, ("getOrder", "fetchOrderDetails"))
    assert either.arguments == {"getOrder": {"orderId": "ord_4Hq7Zt2Wd9Lr1B"},
                                "fetchOrderDetails": {"orderId": "ord_4Hq7Zt2Wd9Lr1B"}}
    assert (both.expect.mode, both.expect.tools, both.expect.groups) == (
        ALL_OF, ("getOrder", "getCustomer"), (("getOrder",), ("getCustomer",)))
    assert both.arguments == {"getCustomer": {"customerId": "cus_8f2kQ1x9LmP3aZ"}}
    assert (nothing.expect.mode, nothing.expect.tools, nothing.prompt, nothing.draft) == (NONE, (), "Thanks!", True)
    assert nothing.messages[0] == {"role": "system", "content": "You are terse."}
    assert one.prompt == "Which orders were paid?" and one.messages == ({"role": "user", "content": one.prompt},)
    assert [c.line for c in suite.cases] == [6, 11, 15, 20]
    assert suite.repeats == 3
    assert (suite.model.api, suite.model.model, suite.model.temperature, suite.model.tool_choice,
            suite.model.timeout, suite.model.prices.input, suite.model.prices.output) == (
        "openai-chat", "m", 0, "required", 30.0, 2.5, 10.0)
    assert suite.tools == ToolOverrides(vendor="openai")
    assert suite.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert suite.spec == example_path()


def test_the_tools_come_in_the_shape_the_model_api_takes(write):
    responses = write("r.suite.yaml", suite_text(BASIC, head="model: {api: openai-responses, name: m}\n"))
    assert open_suite(responses).toolset.vendor == "openai-responses"
    assert open_suite(responses, model={"api": "offline"}).toolset.vendor == "openai"
    chat_tools = write("o.suite.yaml", suite_text(BASIC, head="tools: {vendor: openai}\n"))
    assert open_suite(chat_tools, model={"api": "openai-responses"}).toolset.vendor == "openai-responses"
    clash = write("c.suite.yaml", suite_text(BASIC, head="model: {api: openai-chat, name: m}\n"
                                                         "tools: {vendor: anthropic}\n"))
    with pytest.raises(SpecError, match=r"c\.suite\.yaml:3:9 \(#/tools/vendor\): the suite's tools are for "
                                        r"'anthropic', but openai-chat takes 'openai' tools"):
        open_suite(clash)
    assert open_suite(clash, model={"api": "offline"}).toolset.vendor == "anthropic"


def test_the_suite_tools_section_builds_the_tool_set_and_the_command_line_wins(write):
    path = write("s.suite.yaml", suite_text(BASIC, head="tools: {vendor: anthropic, tags: [orders]}\n"))
    opened = open_suite(path)
    assert opened.toolset.vendor == "anthropic"
    assert {t.operation.operation_id for t in opened.toolset.tools} == {
        "listOrders", "orders.create", "getOrder", "fetchOrderDetails", "cancelOrder"}
    assert open_suite(path, overrides=ToolOverrides(vendor="gemini")).toolset.vendor == "gemini"


def test_method_and_path_resolve_with_any_case_of_the_method(write):
    path = write("s.suite.yaml", suite_text("""\
        - id: a
          prompt: "x"
          expect: "get /orders/{orderId}/details"
        - id: b
          prompt: "x"
          expect: "POST /orders"
        - id: c
          prompt: "x"
          expect: "GET /customers/{customerId}/loyalty"
        """))
    suite, notes = open_suite(path).suite, open_suite(path).notes
    assert [c.expect.tools for c in suite.cases] == [("fetchOrderDetails",), ("orders_create",),
                                                     ("getCustomersLoyaltyByCustomerId",)]
    assert suite.cases[0].expect.written == ("get /orders/{orderId}/details",)
    assert notes == []


def test_a_reference_that_resolves_only_by_operation_id_is_noted_as_a_rename(write):
    path = write("s.suite.yaml", suite_text("""\
        - id: place
          prompt: "Buy two runners for cus_8f2kQ1x9LmP3aZ"
          expect: orders.create
        """))
    opened = open_suite(path)  # OpenAI's names allow no dot: the tool is orders_create
    assert opened.suite.cases[0].expect.tools == ("orders_create",)
    assert len(opened.notes) == 1
    assert "case 'place'" in opened.notes[0] and "'orders_create'" in opened.notes[0]
    assert opened.notes[0].startswith(f"{path}:3:")
    assert open_suite(path, overrides=ToolOverrides(vendor="gemini")).notes == []  # Gemini keeps the dot


def test_with_split_unions_an_operation_means_any_of_its_tools(write):
    spec = write("u.yaml", textwrap.dedent("""\
        openapi: 3.1.0
        info: {title: t, version: '1'}
        paths:
          /pets:
            post:
              operationId: addPet
              summary: Add a pet
              requestBody:
                content:
                  application/json:
                    schema:
                      oneOf:
                        - {title: Cat, type: object, properties: {purrs: {type: boolean}}}
                        - {title: Dog, type: object, properties: {barks: {type: boolean}}}
              responses: {'200': {description: ok}}
            get:
              operationId: listPets
              summary: List pets
              responses: {'200': {description: ok}}
        """))
    path = write("s.suite.yaml", f"spec: {spec.name}\ntools: {{split-unions: true}}\ncases:\n" + textwrap.indent(
        textwrap.dedent("""\
        - id: add
          prompt: "x"
          expect: addPet
          arguments: {purrs: true}
        - id: add-and-list
          prompt: "x"
          expect: {all: ["POST /pets", listPets]}
        """), "  "))
    opened = open_suite(path)
    variants = tuple(t.name for t in opened.toolset.tools if t.operation.operation_id == "addPet")
    assert len(variants) == 2
    add, both = opened.suite.cases
    assert add.expect.tools == variants and set(add.arguments) == set(variants)
    assert both.expect.groups == (variants, ("listPets",))
    assert opened.notes == []


def test_a_json_suite_reads_the_same(write):
    data = {"format": 1, "spec": example_path().as_posix(), "cases": [
        {"id": "a", "prompt": "what do you sell?", "expect": "listProducts"},
        {"id": "b", "prompt": "hi", "expect": "none"}]}
    path = write("s.suite.json", json.dumps(data, indent=2))
    suite = open_suite(path).suite
    assert [c.expect.label() for c in suite.cases] == ["listProducts", "none"]
    assert [c.line for c in suite.cases] == [5, 10]


def test_the_spec_is_relative_to_the_suite_folder_and_can_be_replaced(write, tmp_path):
    write("api/spec.yaml", example_path().read_text(encoding="utf-8"))
    path = write("suites/s.suite.yaml", "spec: ../api/spec.yaml\ncases:\n" + textwrap.indent(BASIC, "  "))
    assert read_suite(path).spec == tmp_path / "api" / "spec.yaml"
    assert open_suite(path).suite.cases[0].expect.tools == ("listOrders",)
    assert read_suite(path, spec_override=example_path()).spec == example_path()


def test_resolve_suite_works_with_a_tool_set_built_elsewhere(write):
    path = write("s.suite.yaml", suite_text(BASIC))
    toolset = build_toolset(load_spec(example_path()), WorkbenchConfig(), ToolOverrides(vendor="mcp"))
    suite, notes = resolve_suite(read_suite(path), toolset)
    assert suite.cases[0].expect.tools == ("listOrders",) and notes == []


# -- errors: one line at the entry -----------------------------------------------------------------------


def test_an_unknown_key_is_named_at_its_line_and_column(write):
    message = failure(write, suite_text("""\
        - id: list-orders
          promt: "Show me my recent orders"
          expect: listOrders
        """))
    assert ":4:5 (#/cases/0/promt): unknown key 'promt'" in message
    assert "known: arguments, draft, expect, id, messages, prompt, tags" in message


def test_an_unknown_top_level_and_model_key(write):
    assert ":2:1 (#/repats): unknown key 'repats'" in failure(write, suite_text(BASIC, head="repats: 2\n"))
    assert ":2:17 (#/model/modle): unknown key 'modle'" in failure(
        write, suite_text(BASIC, head="model: {api: x, modle: 1}\n"))


def test_a_reference_to_no_tool_suggests_the_nearest(write):
    message = failure(write, suite_text(BASIC.replace("expect: listOrders", "expect: listOrder")))
    assert message.endswith(":5:5 (#/cases/0/expect): case 'list-orders': expected tool 'listOrder' is not in "
                            "the tool set; did you mean 'listOrders'?")
    message = failure(write, suite_text(BASIC.replace("expect: listOrders", "expect: [getOrder, 'GET /order']")))
    assert "(#/cases/0/expect/1): case 'list-orders': expected tool 'GET /order' is not in the tool set; " \
           "did you mean 'GET /orders'?" in message
    message = failure(write, suite_text(BASIC.replace("expect: listOrders", "expect: zzzzqqq")))
    assert message.endswith("expected tool 'zzzzqqq' is not in the tool set")


def test_a_reference_the_scope_left_out_says_why(write):
    message = failure(write, suite_text(BASIC.replace("expect: listOrders", "expect: 'DELETE /customers/{customerId}'"),
                                        head="tools: {read-only: true}\n"))
    assert "case 'list-orders': expected tool 'DELETE /customers/{customerId}' is left out of the tool set (" in message


def test_duplicate_case_ids(write):
    message = failure(write, suite_text(BASIC + BASIC))
    assert message.endswith(":6:5 (#/cases/1/id): duplicate case id 'list-orders' (first at line 3)")


@pytest.mark.parametrize(("cases", "head", "expected"), [
    ("[]\n", "", "(#/cases): `cases` must not be empty"),
    (BASIC.replace('  prompt: "Show me my recent orders"\n', ""), "",
     "(#/cases/0): case 'list-orders' needs either `prompt` or `messages`"),
    (BASIC + "  messages: [{role: user, content: hi}]\n", "",
     "(#/cases/0/messages): case 'list-orders' needs either `prompt` or `messages`, not both"),
    (BASIC.replace('prompt: "Show me my recent orders"', "messages: [{role: robot, content: hi}]"), "",
     "(#/cases/0/messages/0/role): `role` is 'robot'; it must be one of: user, system, assistant"),
    (BASIC.replace('prompt: "Show me my recent orders"', "messages: [{role: system, content: hi}]"), "",
     "case 'list-orders': `messages` need at least one user message"),
    (BASIC, "model: {api: claude}\n", "(#/model/api): `api` is 'claude'; it must be one of: offline, openai-chat, "
                                      "openai-responses"),
    (BASIC, "repeats: 0\n", "(#/repeats): `repeats` must be at least 1"),
    (BASIC, "repeats: two\n", "(#/repeats): `repeats` must be an integer"),
    (BASIC, "tools: {vendor: openia}\n", "(#/tools/vendor): `vendor` is 'openia'; it must be one of: anthropic,"),
    (BASIC, "format: 2\n", "(#/format): `format` is 2; it must be one of: 1"),
    (BASIC.replace("expect: listOrders", "expect: {any: [a]}"), "", "(#/cases/0/expect/any): unknown key 'any'"),
    (BASIC.replace("expect: listOrders", "expect: 3"), "",
     "(#/cases/0/expect): `expect` must be a tool reference, a list of them, {all: [references]} or none"),
    (BASIC.replace("expect: listOrders", "expect: none\n  arguments: {a: 1}"), "",
     "(#/cases/0/arguments): case 'list-orders' expects no call, so it cannot expect arguments"),
    (BASIC.replace("expect: listOrders", "expect: {all: [getOrder, getCustomer]}\n  arguments: {getOrder: 1}"), "",
     "(#/cases/0/arguments/getOrder): case 'list-orders' expects several calls: `arguments` maps each"),
    (BASIC.replace("expect: listOrders", "expect: {all: [getOrder]}\n  arguments: {getCustomer: {a: 1}}"), "",
     "case 'list-orders': arguments given for 'getCustomer', which is not one of the expected tools"),
    (BASIC + "  expect: getOrder\n", "", "(#/cases/0/expect): duplicate key 'expect'"),
])
def test_bad_input_is_one_line_at_its_place(write, cases, head, expected):
    listed = " []\n" if cases == "[]\n" else "\n" + textwrap.indent(cases, "  ")
    assert expected in failure(write, f"spec: {example_path().as_posix()}\n{head}cases:{listed}")


def test_the_suite_must_be_a_mapping_with_a_spec(write):
    assert "the suite must be a mapping" in failure(write, "- a\n- b\n")
    assert "missing required key 'spec'" in failure(write, "cases:\n" + textwrap.indent(BASIC, "  "))
    message = failure(write, "spec: nowhere.yaml\ncases:\n" + textwrap.indent(BASIC, "  "))
    assert ":1:1 (#/spec): the suite's spec" in message
    assert "nowhere.yaml' is not a file" in message


# -- the schema and the example ------------------------------------------------------------------------------


def test_the_schema_is_valid_and_names_every_vendor():
    schema = suite_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["tools"]["properties"]["vendor"]["enum"] == sorted(VENDORS)


def test_the_example_suite_resolves_and_covers_every_tool():
    opened = open_suite(EXAMPLE_SUITE)
    suite = opened.suite
    assert opened.notes == []
    assert 15 <= len(suite.cases) <= 25
    assert suite.model.api == "offline" and suite.repeats == 1
    assert not any(c.draft for c in suite.cases)
    covered = {name for case in suite.cases for name in case.expect.tools}
    assert covered == {t.name for t in opened.toolset.tools}
    modes = [c.expect.mode for c in suite.cases]
    assert modes.count(NONE) >= 3 and modes.count(ALL_OF) >= 1
    assert sum(1 for c in suite.cases if c.expect.mode == ONE_OF and len(c.expect.tools) > 1) >= 2
    assert sum(1 for c in suite.cases if c.arguments) >= 4
    # the prompts are a user's words, not the summaries
    summaries = {(t.operation.summary or "").lower() for t in opened.toolset.tools}
    assert not any(c.prompt.lower().rstrip(".?!") in summaries for c in suite.cases)
