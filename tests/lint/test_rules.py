"""Each rule fires where it should and stays quiet where it should not."""

from __future__ import annotations

import re

import pytest

from tests.catalogue import HEAD, ISOLATED, corpus_dir, op
from tests.catalogue import findings as run
from workbench.config import LintConfig
from workbench.examples import CLEAN_EXAMPLE_SPEC, example_path
from workbench.lint import RULES, Severity, lint
from workbench.lint.engine import may_hold_ignore, with_hints
from workbench.spec import load_spec


def test_a_good_operation_has_no_findings(write):
    assert run(write, op("/things")) == []


def annotated_gaps(path) -> set[tuple[str, int]]:
    """`# lint-gap: rule` comments in the example, each applying to the next non-comment line."""
    lines = path.read_text().splitlines()
    gaps = set()
    for i, line in enumerate(lines):
        match = re.match(r"\s*# lint-gap: ([\w-]+)", line)
        if match:
            target = next(j for j in range(i + 1, len(lines)) if not lines[j].strip().startswith("#"))
            gaps.add((match.group(1), target + 1))
    return gaps


def test_example_findings_match_its_annotations_for_every_implemented_rule():
    path = example_path()
    result = lint(load_spec(path), with_hints())  # the example documents the hint rules' gaps too
    found = {(f.rule, (f.locate().key_start or f.locate().start).line) for f in result.findings}
    expected = {(rule, line) for rule, line in annotated_gaps(path) if rule in RULES}
    assert len(expected) >= 10
    assert found == expected


def test_clean_twin_has_no_findings():
    assert lint(load_spec(example_path(CLEAN_EXAMPLE_SPEC))).findings == ()


def test_operation_id_missing_suggests_a_unique_valid_name(write):
    listing = op("/orders/{orderId}/refunds", op_id="listOrdersRefundsByOrderId")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + listing
                           + "    post:\n      summary: Create a refund for the order now\n      tags: [x]\n"
                           "      responses: {'201': {description: ok}, '400': {description: bad}}\n"))
    findings = [f for f in lint(spec).findings if f.rule == "operation-id-missing"]
    assert [f.fix.value for f in findings] == ["createOrdersRefundsByOrderId"]


@pytest.mark.parametrize("op_id, fires", [("repos/get", True), ("1stThing", True), ("a" * 65, True),
                                          ("get_thing-2", False), ("getThing", False)])
def test_tool_name_invalid(write, op_id, fires):
    findings = run(write, op("/things", op_id=f"'{op_id}'"))
    assert (("operation-id-tool-name-invalid", "/paths/~1things/get/operationId") in findings) is fires


def test_duplicate_and_reserved_ids(write):
    findings = run(write, op("/a", op_id="delete") + op("/b", op_id="delete"))
    assert ("operation-id-duplicate", "/paths/~1b/get/operationId") in findings
    assert ("operation-id-duplicate", "/paths/~1a/get/operationId") not in findings
    assert ("operation-id-reserved-word", "/paths/~1a/get/operationId") in findings


def test_thin_description_uses_the_threshold(write):
    assert ("operation-description-thin", "/paths/~1things/get/description") in run(
        write, op("/things"), **{"description-min-chars": 80})
    assert run(write, op("/things"), **{"description-min-chars": 10}) == []


def test_path_params_mismatch(write):
    findings = run(write, op("/things/{id}", extra="      parameters: [{name: thingId, in: path, required: true, "
                                                      "description: the thing, schema: {type: string}}]\n"))
    assert ("path-params-mismatch", "/paths/~1things~1{id}/get") in findings
    assert ("path-params-mismatch", "/paths/~1things~1{id}/get/parameters/0") in findings


def test_path_colon_parameter_fires_on_a_colon_segment_and_is_quiet_on_a_template(write):
    param = ("      parameters: [{name: org, in: path, required: true, description: the organisation's slug, "
             "schema: {type: string}}]\n")
    findings = run(write, op("/orgs/:org", extra=param))
    assert [p for r, p in findings if r == "path-colon-parameter"] == ["/paths/~1orgs~1:org/get"]
    assert [r for r, _ in run(write, op("/orgs/{org}", extra=param))] == []
    assert [r for r, _ in run(write, op("/orgs/:org"))] == []  # no such path parameter: a literal segment


def test_parameter_description_reported_once_at_a_shared_component(write):
    text = HEAD.replace("components:\n", "components:\n  parameters:\n    Limit: {name: limit, in: query}\n")
    text += "paths:\n" + op("/a", op_id="getA", extra="      parameters: [{$ref: '#/components/parameters/Limit'}]\n")
    text += op("/b", op_id="getB", extra="      parameters: [{$ref: '#/components/parameters/Limit'}]\n")
    findings = [(f.rule, f.pointer) for f in lint(load_spec(write("s.yaml", text)), LintConfig(ISOLATED)).findings]
    assert findings == [("parameter-description-missing", "/components/parameters/Limit")]


def test_destructive_operations(write):
    id_param = ("      parameters: [{name: id, in: path, required: true, description: the id listThings returns,"
                " schema: {type: string}}]\n")
    marked = op("/things/{id}", "delete", "deleteThing", "      x-agent-requires-approval: true\n" + id_param)
    assert run(write, marked) == []
    unmarked = marked.replace("      x-agent-requires-approval: true\n", "")
    assert ("destructive-operation-unmarked", "/paths/~1things~1{id}/delete") in run(write, unmarked)
    described = unmarked.replace("returns a page of things.", "this cannot be undone.")
    assert run(write, described) == []
    refund = op("/orders/{id}/refund", "post", "refundOrder", id_param)
    assert ("destructive-operation-unmarked", "/paths/~1orders~1{id}~1refund/post") in run(write, refund)
    create = op("/orders", "post", "createOrder")
    assert run(write, create) == []
    token = op("/runners/remove-token", "post", "actions/create-remove-token-for-org")
    assert run(write, token.replace("operationId: actions/", "operationId: ")) == []


def test_responses_rules(write):
    ok = "'200': {description: ok, content: {application/json: {schema: {type: object}}}}"
    not_found = ("        '404': {description: not found, content: {application/problem+json: "
                 "{schema: {type: object}}}}\n")
    only_default = op("/things").replace(ok, "default: {description: any}").replace(not_found, "")
    findings = run(write, only_default)
    assert ("success-response-missing", "/paths/~1things/get/responses") in findings
    assert ("default-only-responses", "/paths/~1things/get/responses") in findings
    no_errors = op("/things").replace(not_found, "")
    assert run(write, no_errors) == [("error-responses-missing", "/paths/~1things/get/responses")]


def test_scope_rules(write):
    many = "".join(op(f"/t{i}", op_id=f"findThing{'ABCDE'[i]}") for i in range(5))
    assert ("too-many-operations", "/paths") in run(write, many, **{"tool-budget": 4})
    assert run(write, many, **{"tool-budget": 5}) == []
    deprecated = op("/old", extra="      deprecated: true\n")
    assert run(write, deprecated) == [("deprecated-operation-exposed", "/paths/~1old/get")]


def test_structure_rules(write):
    spec = load_spec(write("s.yaml", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n" + op(
        "/a", extra="      parameters: [{$ref: '#/components/parameters/Nope'}]\n")))
    rules = {f.rule for f in lint(spec).findings}
    assert {"unresolved-ref", "servers-missing", "security-undeclared"} <= rules


def test_config_severity_ignore_and_inline_ignore(write):
    text = op("/things", extra="      deprecated: true\n")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + text))
    assert [f.severity for f in lint(spec).findings] == [Severity.INFO]
    raised = lint(spec, LintConfig(severities={"deprecated-operation-exposed": Severity.ERROR}))
    assert [f.severity for f in raised.findings] == [Severity.ERROR] and raised.exit_code(Severity.ERROR) == 1
    assert lint(spec, LintConfig(severities={"deprecated-operation-exposed": Severity.OFF})).findings == ()
    assert lint(spec, LintConfig(ignores=(("deprecated-operation-exposed", "/paths/~1things"),))).findings == ()
    inline = load_spec(write("i.yaml", HEAD + "paths:\n  /things:\n    x-lint-ignore: [deprecated-operation-exposed]\n"
                             + text.split("\n", 1)[1]))
    assert lint(inline).findings == ()


def test_an_inline_ignore_written_with_escapes_still_silences(write):
    """The lint looks for inline ignores only in a document whose text could spell `x-lint-ignore`: a key
    written with escapes must still count."""
    text = op("/things", extra="      deprecated: true\n")
    assert [f.rule for f in lint(load_spec(write("plain.yaml", HEAD + "paths:\n" + text))).findings] == [
        "deprecated-operation-exposed"]
    for key in (r'"\u0078-lint-ignore"', r'"x-lint\x2dignore"', r'"\U00000078-lint-ignore"'):
        escaped = load_spec(write("e.yaml", HEAD + f"paths:\n  /things:\n    {key}: [deprecated-operation-exposed]\n"
                                  + text.split("\n", 1)[1]))
        assert lint(escaped).findings == (), key
    spread = load_spec(write("c.yaml", HEAD + "paths:\n  /things:\n    ? \"x-lint-\\\n      ignore\"\n    : all\n"
                             + text.split("\n", 1)[1]))
    assert lint(spread).findings == ()


def test_a_text_that_cannot_spell_the_ignore_key_is_not_searched_for_it():
    assert not may_hold_ignore('{"a": "caf\\u00e9 \\n \\t", "x-lint": 1}')
    assert may_hold_ignore("x-lint-ignore: all") and may_hold_ignore('"\\u002d"') and may_hold_ignore("a\\\nb")


def test_a_finding_shows_what_tells_it_apart_in_a_failed_assertion():
    finding = lint(load_spec(example_path())).findings[0]
    shown = repr(finding)
    assert shown.startswith(f"Finding({finding.rule!r}, ") and repr(finding.message) in shown
    assert repr(finding.pointer) in shown and f"<{finding.file}>" in shown


def test_every_rule_has_a_category_and_summary():
    assert all(rule.category and rule.summary for rule in RULES.values())


def test_github_every_operation_id_is_an_invalid_tool_name():
    spec = load_spec(corpus_dir() / "github-api.github.com-2022-07-18.json")
    invalid = [f for f in lint(spec).findings if f.rule == "operation-id-tool-name-invalid"]
    assert len(invalid) == 874


def test_linting_only_some_rules_finds_exactly_what_the_whole_lint_finds_for_them():
    spec = load_spec(example_path())
    whole = lint(spec, with_hints())
    wanted = ["operation-id-tool-name-invalid", "enum-in-prose", "operation-id-missing"]
    some = lint(spec, with_hints(), only=wanted)
    assert some.findings == tuple(f for f in whole.findings if f.rule in wanted)
    assert {f.rule for f in some.findings} == set(wanted)  # the example has findings of each


def test_the_schema_sites_are_returned_even_when_another_lint_replaces_the_cache_at_once(monkeypatch):
    # The window lints on two worker threads: another spec's walk may clear the one-spec cache right after this
    # walk stored its sites, and this walk's caller still gets them.
    from workbench.lint import schemas

    class ReplacedAtOnce(dict):
        def __setitem__(self, key, value):
            super().__setitem__(key, value)
            self.clear()

    spec = load_spec(example_path())
    expected = schemas.schema_sites(spec)
    monkeypatch.setattr(schemas, "_CACHE", ReplacedAtOnce())
    assert schemas.schema_sites(spec) == expected and schemas.input_sites(spec)


def test_the_sites_with_a_keyword_are_those_of_the_spec_asked_about_in_order(monkeypatch):
    from workbench.lint import schemas

    example, clean = load_spec(example_path()), load_spec(example_path(CLEAN_EXAMPLE_SPEC))
    for spec in (example, clean, example):
        expected = tuple(site for site in schemas.schema_sites(spec) if "enum" in site.schema)
        assert expected and schemas.sites_with(spec, "enum") == expected
        assert schemas.sites_with(spec, "enum") is schemas.sites_with(spec, "enum")  # found once
        assert schemas.sites_with(spec, "no-such-keyword") == ()
        # only the spec walked last: the GUI's earlier specs (their documents, texts and data) are not kept alive
        assert all(entry[0] is schemas.schema_sites(spec) for entry in schemas._WITH.values())
    monkeypatch.setattr(schemas, "_CACHE", {})  # the sites walked anew: the keyword's sites follow them
    assert schemas.sites_with(example, "enum") == tuple(
        site for site in schemas.schema_sites(example) if "enum" in site.schema)


def test_schema_sites_mark_a_ref_back_to_an_ancestor_recursive_and_visit_a_shared_schema_once_per_role(write):
    # The walk looks for a place among its ancestors only when the place was seen before (an ancestor always
    # was), and calls for the children only of a schema with a keyword holding some: a self-reference through a
    # property and through items, a mutual cycle, a shared leaf reached from two parents, and a leaf root.
    from workbench.lint.schemas import schema_sites

    spec = load_spec(write("s.json", """{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
      "paths": {"/n": {"post": {"operationId": "make",
        "parameters": [{"name": "q", "in": "query", "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
        "responses": {"200": {"description": "ok",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}}}}}},
      "components": {"schemas": {
        "Node": {"type": "object", "properties": {"child": {"$ref": "#/components/schemas/Node"},
          "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
          "other": {"$ref": "#/components/schemas/Other"}, "tag": {"$ref": "#/components/schemas/Tag"}}},
        "Other": {"type": "object", "properties": {"back": {"$ref": "#/components/schemas/Node"},
          "tag": {"$ref": "#/components/schemas/Tag"}}},
        "Tag": {"type": "string"}}}}"""))
    node, other, tag = "/components/schemas/Node", "/components/schemas/Other", "/components/schemas/Tag"
    body = [(node, False, 0, "root"), (node, True, 1, "property"), (f"{node}/properties/children", False, 1,
            "property"), (node, True, 2, "items"), (other, False, 1, "property"), (node, True, 2, "property"),
            (tag, False, 2, "property")]
    assert [(s.role, s.pointer, s.recursive, s.depth, s.slot) for s in schema_sites(spec)] == [
        ("parameter", "/paths/~1n/post/parameters/0/schema", False, 0, "root"),
        *[("request", *site) for site in body], *[("response", *site) for site in body]]


def test_returns_list_reads_each_media_type_schema_once_and_still_every_different_one(write):
    # A Swagger 2.0 response has one schema for every type the operation produces (the repeats are skipped); an
    # OpenAPI 3 response's media types each have their own, and a list in the second one counts.
    from workbench.lint.rules.responses import returns_list

    swagger = load_spec(write("s.json", """{"swagger": "2.0", "info": {"title": "t", "version": "1"},
      "produces": ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"],
      "paths": {"/a": {"get": {"responses": {"200": {"description": "ok", "schema": {"type": "array"}}}}},
        "/b": {"get": {"responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Page"}}}}},
        "/c": {"get": {"responses": {"200": {"description": "ok", "schema": {"type": "object"}},
                                     "404": {"description": "no"}}}}},
      "definitions": {"Page": {"type": "object", "properties": {"items": {"type": "array"},
                                                                "total_count": {"type": "integer"}}}}}"""))
    assert [returns_list(swagger, op) for op in swagger.operations] == [True, True, False]
    openapi = load_spec(write("o.json", """{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
      "paths": {"/a": {"get": {"responses": {"200": {"description": "ok", "content": {
        "application/json": {"schema": {"type": "object"}}, "text/csv": {"schema": {"type": "array"}}}}}}},
        "/b": {"get": {"responses": {"200": {"description": "ok", "content": {
          "application/json": {"schema": {"type": "object"}}, "text/plain": {}}}}}}}}"""))
    assert [returns_list(openapi, op) for op in openapi.operations] == [True, False]


def test_returns_list_reads_responses_as_written_and_a_nullable_list_in_an_envelope_counts(write):
    from workbench.lint.rules.responses import returns_list

    spec = load_spec(write("n.yaml", """
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Page'}}}}
  /orders/{id}/lines:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok, content: {application/json: {schema: {type: object, properties: {
          lines: {type: array, items: {type: string}}, note: {type: string}}}}}}
components:
  schemas:
    Page: {type: object, properties: {data: {$ref: '#/components/schemas/Orders'}, has_more: {type: boolean}}}
    Orders: {type: array, nullable: true, items: {type: object}}
"""))
    assert [returns_list(spec, op) for op in spec.operations] == [True, False]  # (an order's lines: no page)
    assert all(m._later is not None for op in spec.operations for r in op.responses for m in r.content.values())
