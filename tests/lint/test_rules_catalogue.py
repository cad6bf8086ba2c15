"""The rest of the catalogue: each rule shown firing and staying quiet, on small hand-written specs."""

from __future__ import annotations

import pytest

from tests.catalogue import HEAD, ISOLATED, body, op, rules_at
from tests.catalogue import findings as run
from workbench.config import LintConfig
from workbench.lint import RULES, Severity, lint
from workbench.lint.engine import LintContext
from workbench.lint.rules.similarity import similar_pairs
from workbench.lint.rules.values import expected_format, is_quantity, prose_enum
from workbench.spec import load_spec

# -- prose enums -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, values", [
    ("Order status. One of: pending, paid, shipped.", ["pending", "paid", "shipped"]),
    ("Can be `enabled` or `disabled`.", ["enabled", "disabled"]),
    ("Valid values are 'ClusterFirst', 'Default' or 'None'.", ["ClusterFirst", "Default", "None"]),
    ("It can be empty or it can have the values `required`, `preferred` or `discouraged`.",
     ["required", "preferred", "discouraged"]),
    ("Sort field: `created` | `updated` | `name`", ["created", "updated", "name"]),
    ("The minimum value is `100` and the maximum value is `4096`.", []),
    ("Must be a JSON Path under `.status` or `.spec`.", []),
    ("The text can be set to empty if the `status` is set to `disabled`.", []),
    ("Filter by label, e.g. one of `bug`, `docs`.", []),
    ("Matches items that have either `marketing` or `BoxWorks` within their text.", []),
    ("A free-text note for the courier.", []),
])
def test_prose_enum_extraction(text, values):
    assert prose_enum(text) == values


def test_enum_in_prose_fires_with_a_fix_and_respects_declared_enums(write):
    prose = ("      parameters:\n        - {name: state, in: query, schema: {type: string}, "
             "description: 'Filter by state. One of: open, closed, all.'}\n")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + op("/things", extra=prose)))
    finding = next(f for f in lint(spec, LintConfig(ISOLATED)).findings if f.rule == "enum-in-prose")
    assert finding.pointer == "/paths/~1things/get/parameters/0"
    assert (finding.fix.pointer, finding.fix.value) == ("/paths/~1things/get/parameters/0/schema/enum",
                                                        ["open", "closed", "all"])
    declared = prose.replace("schema: {type: string}", "schema: {type: string, enum: [open, closed, all]}")
    assert rules_at(run(write, op("/things", extra=declared)), "enum-in-prose") == []


def test_enum_in_prose_ignores_sibling_field_names(write):
    props = ("                url: {type: string, description: 'One of `url`, `connector_id` must be given.'}\n"
             "                connector_id: {type: string, description: The connector to use.}\n")
    assert rules_at(run(write, op("/things", "post", "createThing", body(props, "url"))), "enum-in-prose") == []


def test_enum_values_unexplained(write):
    bare = "                reason: {type: string, enum: [a1, b2, c3]}\n"
    findings = run(write, op("/things", "post", "createThing", body(bare, "reason")))
    assert "enum-values-unexplained" in {r for r, _ in findings}
    explained = bare.replace("enum: [a1, b2, c3]", "enum: [a1, b2, c3], description: a1 is new, b2 used, c3 gone")
    assert "enum-values-unexplained" not in {r for r, _ in run(write, op("/things", "post", "createThing",
                                                                           body(explained, "reason")))}


# -- units and formats -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, quantity", [
    ("timeout", True), ("amount", True), ("unitPrice", True), ("file_size", True), ("retention_period", True),
    ("time_limit", True), ("timeoutSeconds", False), ("amount_cents", False), ("page_size", False),
    ("limit", False), ("count", False), ("max_results", False), ("priceUsd", False), ("sizeBytes", False),
])
def test_quantity_names(name, quantity):
    assert is_quantity(name) is quantity


@pytest.mark.parametrize("description, fires", [
    ("How long to wait.", True), ("How long to wait, in seconds.", False), ("Delay in ms.", False),
    ("Relative weight between 0 and 1.", False), (None, True),
])
def test_numeric_unit_missing(write, description, fires):
    desc = f", description: '{description}'" if description else ""
    props = f"                delay: {{type: integer{desc}}}\n"
    findings = run(write, op("/things", "post", "createThing", body(props, "delay")))
    assert bool(rules_at(findings, "numeric-unit-missing")) is fires


def test_numeric_unit_missing_skips_small_bounded_scales(write):
    props = "                delay: {type: number, minimum: 0, maximum: 1, description: How much to wait.}\n"
    assert rules_at(run(write, op("/things", "post", "createThing", body(props, "delay"))),
                    "numeric-unit-missing") == []


@pytest.mark.parametrize("name, expected", [
    ("created_at", "date-time"), ("updatedAt", "date-time"), ("placedAfter", "date-time"), ("since", "date-time"),
    ("email", "email"), ("callback_url", "uri"), ("request_uuid", "uuid"), ("birth_date", "date"),
    ("timezone", None), ("name", None), ("look_at", None), ("after", None),
])
def test_expected_formats(name, expected):
    assert expected_format(name) == expected


def test_string_format_missing(write):
    props = "                contact_email: {type: string, description: Where receipts go.}\n"
    findings = run(write, op("/things", "post", "createThing", body(props, "contact_email")))
    assert len(rules_at(findings, "string-format-missing")) == 1
    formatted = props.replace("type: string,", "type: string, format: email,")
    assert rules_at(run(write, op("/things", "post", "createThing", body(formatted, "contact_email"))),
                    "string-format-missing") == []


def test_id_param_no_source(write):
    bare = "      parameters: [{name: thingId, in: query, description: The thing., schema: {type: string}}]\n"
    assert rules_at(run(write, op("/things", extra=bare)), "id-param-no-source") == ["/paths/~1things/get/parameters/0"]
    sourced = bare.replace("The thing.", "The id that listThings returns.")
    assert rules_at(run(write, op("/things", extra=sourced)), "id-param-no-source") == []


# -- schemas -----------------------------------------------------------------------------------------------

def test_property_description_missing_reports_coverage(write):
    props = ("                name: {type: string, description: The name shown to people.}\n"
             "                nickname: {type: string}\n")
    findings = lint(load_spec(write("s.yaml", HEAD + "paths:\n" + op("/things", "post", "createThing",
                                                                     body(props, "name")))), LintConfig(ISOLATED))
    [finding] = [f for f in findings.findings if f.rule == "property-description-missing"]
    assert finding.pointer.endswith("/properties/nickname") and "50% of request-body properties" in finding.message


def test_schema_type_missing_and_required_rules(write):
    props = "                note: {description: Anything the courier should know.}\n"
    findings = run(write, op("/things", "post", "createThing", body(props, "note, ghost")))
    assert rules_at(findings, "schema-type-missing")[0].endswith("/properties/note")
    assert rules_at(findings, "required-undefined")[0].endswith("/schema/required/1")
    no_required = run(write, op("/things", "post", "createThing", body(props.replace("{description", "{type: string, "
                                                                                      "description"))))
    assert rules_at(no_required, "required-missing") == ["/paths/~1things/post/requestBody/content/application~1json/"
                                                         "schema"]


def test_required_undefined_trusts_compositions(write):
    text = HEAD + "paths:\n" + op("/things", "post", "createThing", body(
        "                name: {type: string, description: The name.}\n", "name, extra").replace(
        "              type: object\n", "              type: object\n              allOf: [{type: object}]\n"))
    assert "required-undefined" not in {f.rule for f in lint(load_spec(write("s.yaml", text))).findings}


def test_typed_and_duplicated_enum(write):
    props = "                level: {type: integer, enum: [1, 2, two, 2], description: The level.}\n"
    findings = run(write, op("/things", "post", "createThing", body(props, "level")))
    assert rules_at(findings, "typed-enum") == [
        "/paths/~1things/post/requestBody/content/application~1json/schema/properties/level/enum/2"]
    assert rules_at(findings, "duplicated-enum") == [
        "/paths/~1things/post/requestBody/content/application~1json/schema/properties/level/enum/3"]


def test_a_string_enum_is_checked_value_by_value_only_when_a_value_is_not_a_string(write):
    # typed-enum passes a string enum of strings at once; one number in it and each value is checked as before
    props = ("                kind: {type: string, enum: [a, b, c], description: The kind.}\n"
             "                mode: {type: string, enum: [a, 2, c], description: The mode.}\n")
    findings = run(write, op("/things", "post", "createThing", body(props, "kind")))
    assert rules_at(findings, "typed-enum") == [
        "/paths/~1things/post/requestBody/content/application~1json/schema/properties/mode/enum/1"]


def test_schema_unfriendly_for_tools(write):
    text = HEAD.replace("components:\n", """components:
  schemas:
    Node:
      type: object
      description: A tree node.
      properties:
        children: {type: array, description: Sub-nodes., items: {$ref: '#/components/schemas/Node'}}
""") + "paths:\n" + op("/things", "post", "createThing", body(
        "                tree: {$ref: '#/components/schemas/Node'}\n"
        "                meta: {type: object, description: Free-form labels.}\n", "tree"))
    findings = [(f.rule, f.pointer) for f in lint(load_spec(write("s.yaml", text)), LintConfig(ISOLATED)).findings]
    unfriendly = rules_at(findings, "schema-unfriendly-for-tools")
    assert "/components/schemas/Node" in unfriendly  # the recursion, reported once at the definition
    assert any(p.endswith("/properties/meta") for p in unfriendly)


def test_too_many_parameters(write):
    props = "".join(f"                p{i}: {{type: string, description: Field number {i}.}}\n" for i in range(9))
    required = ", ".join(f"p{i}" for i in range(8))
    findings = run(write, op("/things", "post", "createThing", body(props, required)))
    assert rules_at(findings, "too-many-parameters") == ["/paths/~1things/post"]
    assert rules_at(run(write, op("/things", "post", "createThing", body(props, "p0"))), "too-many-parameters") == []


# -- responses ---------------------------------------------------------------------------------------------

def test_success_and_error_schema_rules(write):
    plain = op("/things").replace(
        "'200': {description: ok, content: {application/json: {schema: {type: object}}}}", "'200': {description: ok}")
    plain = plain.replace("{description: not found, content: {application/problem+json: {schema: {type: object}}}}",
                          "{description: not found}")
    findings = run(write, plain)
    assert rules_at(findings, "success-response-schema-missing") == ["/paths/~1things/get/responses/200"]
    assert rules_at(findings, "error-schema-unstructured") == []  # a bare 404 says all an agent needs
    conflict = plain.replace("'404': {description: not found}", "'409': {description: taken}")
    assert rules_at(run(write, conflict), "error-schema-unstructured") == ["/paths/~1things/get/responses/409"]


def test_pagination_undocumented(write):
    envelope = ("'200': {description: ok, content: {application/json: {schema: {type: object, properties: "
                "{data: {type: array, items: {type: string}}, next_cursor: {type: string}}}}}}")
    listing = op("/things").replace("'200': {description: ok, content: {application/json: {schema: {type: object}}}}",
                                    envelope)
    assert rules_at(run(write, listing), "pagination-undocumented") == ["/paths/~1things/get"]
    paged = listing + ("      parameters: [{name: cursor, in: query, description: next_cursor of the previous page,"
                       " schema: {type: string}}]\n")
    assert rules_at(run(write, paged), "pagination-undocumented") == []
    holder = listing.replace("next_cursor: {type: string}", "title: {type: string}")
    assert rules_at(run(write, holder), "pagination-undocumented") == []  # an object holding an array is no page


def test_examples_missing(write):
    without = op("/things", "post", "createThing", body(
        "                name: {type: string, description: The name.}\n", "name").replace(
        "            example: {}\n", ""))
    assert rules_at(run(write, without), "examples-missing") == ["/paths/~1things/post/requestBody"]
    with_example = op("/things", "post", "createThing", body("                name: {type: string, description: N.}\n",
                                                            "name"))
    assert rules_at(run(write, with_example), "examples-missing") == []


def test_example_invalid_is_opt_in_and_cached(write, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    text = HEAD + "paths:\n" + op("/things", "post", "createThing", body(
        "                count: {type: integer, description: How many pieces.}\n", "count").replace(
        "example: {}", "example: {count: many}"))
    spec = load_spec(write("s.yaml", text))
    assert "example-invalid" not in {f.rule for f in lint(spec).findings}
    enabled = LintConfig(severities={**ISOLATED, "example-invalid": Severity.WARN})
    [finding] = [f for f in lint(spec, enabled).findings if f.rule == "example-invalid"]
    assert finding.pointer == "/paths/~1things/post/requestBody/content/application~1json/example"
    assert "count: 'many' is not of type 'integer'" in finding.message
    cache = tmp_path / "cache" / "agent-spec-workbench" / "example-validation.json"
    assert cache.is_file() and "is not of type" in cache.read_text()
    again = [f for f in lint(spec, enabled).findings if f.rule == "example-invalid"]
    assert [f.message for f in again] == [finding.message]


# -- naming and descriptions -------------------------------------------------------------------------------

def test_a_shared_parameter_is_reported_once_and_a_shared_path_parameter_where_its_path_does_not_explain_it(write):
    spec = load_spec(write("s.yaml", HEAD + """paths:
  /labels/{name}:
    get: {operationId: getLabel, parameters: [{$ref: '#/components/parameters/Name'},
          {$ref: '#/components/parameters/Q'}], responses: {'200': {description: ok}}}
  /{name}/parts:
    get: {operationId: listParts, parameters: [{$ref: '#/components/parameters/Name'},
          {$ref: '#/components/parameters/Q'}], responses: {'200': {description: ok}}}
    post: {operationId: addPart, parameters: [{$ref: '#/components/parameters/Name'},
           {$ref: '#/components/parameters/Q'}], responses: {'200': {description: ok}}}
components:
  parameters:
    Name: {name: name, in: path, required: true, schema: {type: string}}
    Q: {name: q, in: query, schema: {type: string}}
"""))
    reports = list(RULES["parameter-description-missing"].check(spec, LintContext(LintConfig(), None)))
    # `/labels/{name}` says what `name` is; `/{name}/parts` does not: reported from there, once
    assert sorted((r.pointer, r.message.split(" has")[0]) for r in reports) == [
        ("/components/parameters/Name", "path parameter 'name'"), ("/components/parameters/Q", "query parameter 'q'")]



@pytest.mark.parametrize("op_id, opaque", [
    ("op1", True), ("a1b2c3d4e5f6", True), ("pets_petId_get", True), ("petsById", True),
    ("getPet", False), ("repos/get", False), ("listCoreV1Namespace", False), ("delete_files_id", False),
    # a verb run together with three letters or more is still a verb; with fewer, or a verb under three letters, not
    ("Getorganizationspendlimit", False), ("Listabc", False), ("Listab", True), ("Goahead", True),
])
def test_operation_id_opaque(write, op_id, opaque):
    findings = run(write, op("/things", op_id=op_id))
    assert bool(rules_at(findings, "operation-id-opaque")) is opaque


def test_operation_id_inconsistent_style(write):
    ops = op("/a", op_id="getThingA") + op("/b", op_id="getThingB") + op("/c", op_id="fetchThingC")
    ops += op("/d", op_id="get_thing_d")
    findings = run(write, ops)
    assert sorted(rules_at(findings, "operation-id-inconsistent-style")) == ["/paths/~1c/get/operationId",
                                                                             "/paths/~1d/get/operationId"]


def test_restates_signature_and_no_when_to_use(write):
    restating = op("/orders/{orderId}", op_id="getOrderById").replace(
        "description: Use this to look up things; returns a page of things.", "description: Get the order by its id.")
    restating = restating.replace("      summary: Find things that match the query and return them\n", "")
    restating += "      parameters: [{name: orderId, in: path, required: true, description: From listOrders.}]\n"
    findings = run(write, restating, **{"description-min-chars": 10})
    assert rules_at(findings, "operation-description-restates-signature") == [
        "/paths/~1orders~1{orderId}/get/description"]
    assert rules_at(findings, "operation-description-no-when-to-use") == []  # one finding per gap
    vague = restating.replace("Get the order by its id.", "Order lookup for the shipping desk team members.")
    findings = run(write, vague, **{"description-min-chars": 10})
    assert rules_at(findings, "operation-description-restates-signature") == []
    assert rules_at(findings, "operation-description-no-when-to-use") == ["/paths/~1orders~1{orderId}/get/description"]


def test_near_duplicates_need_the_same_method_and_shape(write):
    def twin(path, method, op_id, text):
        return (f"  {path}:\n    {method}:\n      operationId: {op_id}\n      tags: [t]\n      summary: {text}\n"
                "      responses: {'200': {description: ok}, '404': {description: nf}}\n")
    same = twin("/orders/{id}", "get", "getOrder", "Retrieve one order with its line items and totals") + twin(
        "/orders/{id}/details", "get", "getOrderDetails", "Retrieve one order with its line items and totals")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + same))
    findings = [f for f in lint(spec).findings if f.rule == "near-duplicate-operations"]
    assert [f.pointer for f in findings] == ["/paths/~1orders~1{id}~1details/get"]
    assert "GET /orders/{id} (similarity" in findings[0].message
    different_verb = same.replace("    get:\n      operationId: getOrderDetails", "    delete:\n      operationId: "
                                  "getOrderDetails")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + different_verb))
    assert [f for f in lint(spec).findings if f.rule == "near-duplicate-operations"] == []


def test_similarity_scores_unrelated_operations_low(write):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + op("/a", op_id="getInvoice").replace(
        "Find things that match the query and return them", "Download the invoice PDF of a paid order") + op(
        "/b", op_id="getWeather").replace("Find things that match the query and return them",
                                          "Current weather forecast for a city")))
    assert similar_pairs(spec.operations, 0.5) == []


def test_repeated_enum_values_found_by_a_set_as_pairwise():
    # duplicated-enum looks strings, integers, booleans and nulls up in a set: the same repeats as comparing pairwise
    # (which any other value, a float or a list, still makes it do)
    import random

    from workbench.lint.rules import schemas

    def pairwise(values):
        return [i for i, value in enumerate(values)
                if any(value == s and type(value) is type(s) for s in values[:i])]

    rng = random.Random(3)
    pool = ["a", "b", "1", 1, 0, True, False, None, 1.0, float("nan"), [1], {"a": 1}]
    lists = [[rng.choice(pool) for _ in range(rng.randint(0, 8))] for _ in range(2000)]
    lists += [["a", 1, True, None, "a", 1, True, None, 0, False]]
    for values in lists:
        assert schemas.repeated_values(values) == pairwise(values), values
