"""The Edit form's values as edits, without Qt: units, enums typed by the schema, and refusing to clear."""

from __future__ import annotations

from pathlib import Path

from workbench.spec.source import parse_text
from workbench.workspace.form import form_edits, parse_enum, schema_pointer, with_unit


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
