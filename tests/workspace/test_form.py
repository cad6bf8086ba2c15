"""The Edit form's values as edits, without Qt: units, enums typed by the schema, and refusing to clear."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalogue import GITHUB, HEAD, OPENAI, body, corpus_file, op
from workbench.spec.source import parse_text
from workbench.workspace import LoadKind, Workspace, load_and_lint
from workbench.workspace.form import (
    DESCRIPTION_RULES,
    form_edits,
    parse_enum,
    schema_heading,
    schema_members,
    schema_pointer,
    untargeted,
    with_unit,
)


def test_form_values_for_a_property():
    assert with_unit("Time to wait.", "seconds") == "Time to wait (in seconds)."
    assert with_unit("", "milliseconds") == "In milliseconds."
    assert with_unit("Timeout in seconds.", "seconds") == "Timeout in seconds."  # says it already
    assert with_unit("Time to wait.", "") == "Time to wait."
    assert parse_enum("1, 2,3", {"type": "integer"}) == [1, 2, 3]
    assert parse_enum("0.5, 1", {"type": ["number", "null"]}) == [0.5, 1]
    assert parse_enum("true, false", {"type": "boolean"}) == [True, False]
    assert parse_enum("a, 2", {"type": "integer"}) == ["a", "2"]  # not numbers: the re-check says so
    assert parse_enum("a, b ,, c") == ["a", "b", "c"]
    assert schema_pointer("/components/schemas/A/properties/b/properties/c/description") \
        == "/components/schemas/A/properties/b/properties/c"
    named_properties = "/components/schemas/A/properties/properties"
    assert schema_pointer(named_properties) == named_properties
    assert schema_pointer("/paths/~1a/get/parameters/0/schema") is None


def test_form_values_become_edits_and_clearing_is_refused():
    document = parse_text("paths:\n  /a:\n    get:\n      summary: Old\n      parameters:\n"
                          "        - {name: n, in: query, schema: {type: integer}}\n", Path("s.yaml"), "s.yaml")
    op, parameter = "/paths/~1a/get", "/paths/~1a/get/parameters/0"
    edits, refused = form_edits(document, op, {"summary": "", "description": "New.", "parameter": parameter,
                                               "parameterDescription": "", "parameterEnum": "1, 2"})
    assert [(e.pointer, e.value) for e in edits] == [(f"{op}/description", "New."),
                                                     (f"{parameter}/schema/enum", [1, 2])]
    assert refused == ["summary: clearing a field is not supported (the key would have to be removed)"]
    assert form_edits(document, op, {"summary": "Old"}) == ([], [])  # unchanged: nothing to do


def test_the_schema_node_a_pointer_is_on():
    schema = "/paths/~1a/post/requestBody/content/application~1json/schema"
    assert schema_pointer(f"{schema}/properties/tags/items") == f"{schema}/properties/tags/items"  # not `tags`
    items = f"{schema}/properties/tags/items"
    assert schema_pointer(f"{items}/properties/x/enum/0") == f"{items}/properties/x"
    assert schema_pointer("/components/schemas/A/properties/t/anyOf/0") == "/components/schemas/A/properties/t/anyOf/0"
    assert schema_pointer("/components/schemas/A") == "/components/schemas/A"  # a component itself
    assert schema_pointer("/components/schemas/A/required/2") == "/components/schemas/A"
    values = "/definitions/A/additionalProperties"
    assert schema_pointer(f"{values}/properties/n") == f"{values}/properties/n"
    assert schema_pointer("/Pet/properties/name") == "/Pet/properties/name"  # a schema file's own map
    assert schema_pointer("/paths/~1a/get/parameters/0/schema/enum") is None  # the parameter's: edited as such
    assert schema_pointer("/paths/~1a/get/parameters/0/schema/items") == "/paths/~1a/get/parameters/0/schema/items"
    assert schema_pointer("/paths/~1a/get") is None and schema_pointer("/components/schemas") is None


def test_a_schema_node_offers_its_properties_and_says_who_uses_it():
    document = parse_text("components:\n  schemas:\n    A:\n      description: An A.\n      properties:\n"
                          "        b: {type: string}\n        c: {type: string, description: The c.}\n"
                          "        d: {$ref: '#/components/schemas/A'}\n", Path("s.yaml"), "s.yaml")
    assert schema_members(document, "/components/schemas/A") == [
        ("/components/schemas/A", "", True), ("/components/schemas/A/properties/b", "b", False),
        ("/components/schemas/A/properties/c", "c", True), ("/components/schemas/A/properties/d", "d", True)]
    assert schema_heading("s.yaml", "/components/schemas/A", 0) == "Schema A (used by no operation)"
    assert schema_heading("s.yaml", "/components/schemas/A/items", 1) \
        == "Schema A (used by 1 operation)"
    assert schema_heading("s.yaml", "/definitions/B", 3, "b.yaml") == "Schema B (used by 3 operations)  (b.yaml)"


def test_operations_using_a_schema_count_the_refs_that_reach_it(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(HEAD.replace("components:\n", "components:\n  schemas:\n    Mode: {type: string}\n"
                                 "    Unused: {type: string}\n") + "paths:\n"
                    + op("/a", "post", "a", body("                m: {$ref: '#/components/schemas/Mode'}\n"))
                    + op("/b", "post", "b", body("                m: {$ref: '#/components/schemas/Mode'}\n")),
                    encoding="utf-8")
    loaded = load_and_lint(spec)
    name = loaded.spec.root.name
    assert loaded.operations_using(name, "/components/schemas/Mode") == 2
    assert loaded.operations_using(name, "/components/schemas/Unused") == 0
    assert loaded.operations_using(name, "/paths/~1a/post/requestBody") == 1


def description_findings_without_a_form_target(path: Path) -> tuple[int, list[str]]:
    """(description findings, pointers of those whose selection gives the Edit form nothing to edit)."""
    workspace = Workspace(path.parent / "recovery-not-written")
    workspace.take_loaded(load_and_lint(path), LoadKind.OPEN)
    findings = workspace.loaded.result.findings
    return (sum(1 for f in findings if f.rule in DESCRIPTION_RULES),
            [f.pointer for f in untargeted(findings, workspace.operation_of)])


def test_every_description_finding_of_a_small_corpus_file_has_a_form_target():
    # Twilio Lookups: four findings on component schemas no operation owns had none before
    total, dead = description_findings_without_a_form_target(corpus_file("twilio-lookups-v2.json"))
    assert total >= 10 and dead == []


@pytest.mark.corpus_sweep
@pytest.mark.parametrize("name", ["twilio-verify-v2.yaml", GITHUB, OPENAI])
def test_every_description_finding_of_the_big_corpus_files_has_a_form_target(name):
    # before: Twilio Verify 3, GitHub 2, OpenAI 8 (component schemas), besides the findings under array items
    # and anyOf members that showed the parent property (GitHub 7, OpenAI 5)
    total, dead = description_findings_without_a_form_target(corpus_file(name))
    assert total >= 100 and dead == []
