"""Every change class between two hand-written spec versions, each classified as breaking or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.drift import Side, diff_sides
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.loading import spec_config

# One spec with two operations, every kind of argument and constraint; each test changes one thing in it.
BASE = (Path(__file__).parent / "shop.yaml").read_text(encoding="utf-8")


def drift(write, new_text: str, old_text: str = BASE, **overrides):
    old_path, new_path = write("old/api.yaml", old_text), write("new/api.yaml", new_text)
    sides = []
    for path in (old_path, new_path):
        spec = load_spec(path)
        sides.append(Side(spec, build_toolset(spec, spec_config(path), ToolOverrides(**overrides))))
    return diff_sides(sides[0], sides[1], "old", "new")


def changed(write, old: str, new: str, **overrides):
    assert old in BASE, old
    return [(c.kind, c.tool, c.argument, c.breaking) for c in drift(write, BASE.replace(old, new), **overrides).changes]


def test_the_same_spec_has_no_changes(write):
    report = drift(write, BASE)
    assert report.changes == [] and report.old_tools == report.new_tools == 2


def test_a_removed_tool_breaks_and_an_added_one_does_not(write):
    removed = BASE.replace(BASE[BASE.index("  /orders:\n"):], "")
    assert [(c.kind, c.tool, c.breaking) for c in drift(write, removed).changes] == [
        ("tool-removed", "createOrder", True)]
    assert [(c.kind, c.tool, c.breaking) for c in drift(write, BASE, old_text=removed).changes] == [
        ("tool-added", "createOrder", False)]


def test_a_new_operation_id_renames_the_tool_and_breaks(write):
    assert changed(write, "operationId: getOrder", "operationId: fetchOrder") == [
        ("tool-renamed", "getOrder", "", True)]


def test_a_moved_path_with_the_same_operation_id_is_matched_and_breaks_nothing(write):
    found = changed(write, "  /orders/{orderId}:", "  /v2/orders/{orderId}:")
    assert found == [("tool-moved", "getOrder", "", False)]


def test_an_optional_argument_added_breaks_nothing(write):
    found = changed(write, "                tags:", "                gift: {type: boolean}\n                tags:")
    assert found == [("argument-added", "createOrder", "gift", False)]


def test_in_strict_mode_an_optional_argument_added_still_breaks_nothing(write):
    """Strict mode lists every argument as required (optional ones nullable): the spec's word decides."""
    gift = BASE.replace("                tags:", "                gift: {type: boolean}\n                tags:")
    report = drift(write, gift, vendor="openai", strict=True)
    [change] = report.changes
    assert (change.kind, change.argument, change.breaking) == ("argument-added", "gift", False)


def test_a_required_argument_added_breaks(write):
    new = BASE.replace("required: [customer]", "required: [customer, gift]").replace(
        "                tags:", "                gift: {type: boolean}\n                tags:")
    assert [(c.kind, c.argument, c.breaking) for c in drift(write, new).changes] == [("argument-added", "gift", True)]


def test_a_removed_argument_breaks(write):
    found = changed(write, "                note: {type: string, description: A note for the courier.}\n", "")
    assert found == [("argument-removed", "createOrder", "note", True)]


def test_a_renamed_argument_is_one_rename_not_a_removal_and_an_addition(write):
    found = changed(write, "{name: verbose, in: query", "{name: detailed, in: query")
    assert found == [("argument-renamed", "getOrder", "verbose", True)]


def test_a_renamed_required_body_field_says_the_new_one_is_required(write):
    new = BASE.replace("required: [customer]", "required: [client]").replace("customer: {type", "client: {type")
    [change] = drift(write, new).changes
    assert (change.kind, change.argument, change.breaking) == ("argument-renamed", "customer", True)
    assert "`client`" in change.reason and "required" in change.reason


@pytest.mark.parametrize(("old", "new", "kind", "breaking"), [
    ("quantity: {type: integer,", "quantity: {type: string,", "type-changed", True),
    ("quantity: {type: integer,", "quantity: {type: number,", "type-changed", False),
    ("city: {type: string}", "city: {type: string, format: uuid}", "format-changed", True),
    ("colour: {type: string, enum: [red, green, blue]", "colour: {type: string, enum: [red, green]",
     "enum-narrowed", True),
    ("colour: {type: string, enum: [red, green, blue]", "colour: {type: string, enum: [red, green, blue, black]",
     "enum-widened", False),
    ("minimum: 1, maximum: 100", "minimum: 5, maximum: 100", "constraint-tightened", True),
    ("minimum: 1, maximum: 100", "minimum: 1, maximum: 500", "constraint-loosened", False),
    ("minLength: 1, maxLength: 40", "minLength: 1, maxLength: 20", "constraint-tightened", True),
    ("minLength: 1, maxLength: 40", "minLength: 1", "constraint-loosened", False),
    ('pattern: "^[0-9]{5}$"', 'pattern: "^[0-9]{4}$"', "constraint-tightened", True),
    ('zip: {type: string, pattern: "^[0-9]{5}$"}', "zip: {type: string}", "constraint-loosened", False),
    ("default: red}", "default: green}", "default-changed", True),
])
def test_each_schema_change_is_classified(write, old, new, kind, breaking):
    found = changed(write, old, new)
    assert [(k, b) for k, _tool, _arg, b in found] == [(kind, breaking)]


def test_nested_required_added_breaks_and_removed_does_not(write):
    nested = "                  properties:\n                    city:"
    tightened = BASE.replace(nested, "                  required: [city]\n" + nested)
    assert [(c.kind, c.argument, c.breaking) for c in drift(write, tightened).changes] == [
        ("required-added", "address.city", True)]
    assert [(c.kind, c.argument, c.breaking) for c in drift(write, BASE, old_text=tightened).changes] == [
        ("required-removed", "address.city", False)]


def test_a_change_inside_array_items_and_a_recursive_schema_is_found_once(write):
    found = changed(write, "label: {type: string}", "label: {type: string, maxLength: 10}")
    assert found == [("constraint-tightened", "createOrder", "tree.label", True)]
    found = changed(write, "tags: {type: array, items: {type: string}}", "tags: {type: array, items: {type: integer}}")
    assert found == [("type-changed", "createOrder", "tags[]", True)]


def test_a_reworded_description_is_reported_with_how_alike_it_is(write):
    report = drift(write, BASE.replace("A note for the courier.", "Instructions for delivery staff."))
    [change] = report.changes
    assert (change.kind, change.argument, change.breaking) == ("description-changed", "note", False)
    assert change.similarity is not None and change.similarity < 0.5
    report = drift(write, BASE.replace("Returns one order by its id.", "Returns one order by its ID."))
    [change] = report.changes
    assert change.argument == "" and change.similarity > 0.7


def test_approval_added_breaks_and_removed_does_not(write):
    marked = BASE.replace("      operationId: createOrder\n",
                          "      operationId: createOrder\n      x-agent-requires-approval: true\n")
    def safety(report):  # (the tool's description says it needs approval too: a change of its own)
        return [(c.kind, c.breaking) for c in report.changes if c.kind != "description-changed"]

    assert safety(drift(write, marked)) == [("safety-changed", True)]
    assert safety(drift(write, BASE, old_text=marked)) == [("safety-changed", False)]


def test_security_changed_breaks_and_dropped_does_not(write):
    other = BASE.replace("      operationId: getOrder\n",
                         "      operationId: getOrder\n      security: [{other: []}]\n")
    assert [(c.kind, c.breaking) for c in drift(write, other).changes] == [("auth-changed", True)]
    either = BASE.replace("security:\n  - key: []\n", "security:\n  - key: []\n  - other: []\n")
    assert [(c.kind, c.breaking) for c in drift(write, either).changes] == [("auth-changed", False), ] * 2
    anonymous = BASE.replace("security:\n  - key: []\n", "")
    assert {(c.kind, c.breaking) for c in drift(write, anonymous).changes} == {("auth-changed", False)}


def test_a_response_shape_change_is_reported_and_breaks_no_call(write):
    [change] = drift(write, BASE.replace("total: {type: number}", "total: {type: string}")).changes
    assert (change.kind, change.tool, change.breaking) == ("response-changed", "getOrder", False)
    assert "total" in change.reason


def test_an_argument_moved_on_the_wire_is_reported_and_breaks_nothing(write):
    found = changed(write, "{name: verbose, in: query", "{name: verbose, in: header")
    assert found == [("argument-moved", "getOrder", "verbose", False)]


def test_every_change_is_located_in_both_versions(write):
    report = drift(write, BASE.replace("colour: {type: string, enum: [red, green, blue]",
                                       "colour: {type: string, enum: [red, green]"))
    [change] = report.changes
    assert change.old.file.endswith("old/api.yaml") and change.new.file.endswith("new/api.yaml")
    assert change.new.pointer == "/paths/~1orders/post/requestBody/content/application~1json/schema/properties/colour"
    line = BASE.splitlines().index(next(x for x in BASE.splitlines() if "colour:" in x)) + 1
    assert (change.new.line, change.old.line) == (line, line)
    assert str(change.new).endswith(f"api.yaml:{line}:17#{change.new.pointer}")


def test_a_changed_parameter_is_located_at_its_parameter(write):
    [change] = drift(write, BASE.replace("{type: boolean, default: false}", "{type: boolean, default: true}")).changes
    assert change.new.pointer == "/paths/~1orders~1{orderId}/get/parameters/1"


def test_the_vendor_options_apply_to_both_versions(write):
    new = BASE.replace("minimum: 1, maximum: 100", "minimum: 5, maximum: 100")
    report = drift(write, new, vendor="anthropic", operations=("getOrder",))
    assert report.vendor == "anthropic" and report.changes == [] and report.new_tools == 1


def test_nested_arguments_are_located_too(write):
    report = drift(write, BASE.replace("{type: boolean, default: false}", "{type: boolean, default: true}")
                   .replace("enum: [red, green, blue]", "enum: [red]"), nested=True)
    assert sorted((c.kind, c.argument) for c in report.changes) == [("default-changed", "query.verbose"),
                                                                    ("enum-narrowed", "body.colour")]
    pointers = {c.argument: c.new.pointer for c in report.changes}
    assert pointers["query.verbose"] == "/paths/~1orders~1{orderId}/get/parameters/1"
    assert pointers["body.colour"].endswith("/schema/properties/colour")


def test_a_boolean_schema_that_accepted_anything_and_now_does_not_breaks(write):
    old = BASE.replace("tags: {type: array, items: {type: string}}", "tags: {type: array, items: true}")
    new = BASE.replace("tags: {type: array, items: {type: string}}", "tags: {type: array, items: false}")
    [change] = drift(write, new, old_text=old).changes
    assert (change.kind, change.argument, change.breaking) == ("type-changed", "tags[]", True)
    assert drift(write, old, old_text=new).changes[0].breaking is False
