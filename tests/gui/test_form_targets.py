"""The Edit form edits the schema node a finding is on: array `items` (never the property holding them) and a
component schema no operation owns (with how many operations use it); typing there, the re-check drops the
finding and the save changes only the lines typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalogue import HEAD, body, changed_lines, op
from workbench.spec.pointer import lookup

MODE_SCHEMA = "  schemas:\n    Mode:\n      type: string\n      enum: [fast, slow]\n"
LABELS = """                labels:
                  type: array
                  description: |-
                    The labels to add to the issue.
                    A label that does not exist yet is created.
                  items:
                    type: object
                    properties:
                      shade: {type: string}
                      group: {type: string}
                mode: {$ref: '#/components/schemas/Mode'}
"""
MODE = "                mode: {$ref: '#/components/schemas/Mode'}\n"
# Two operations use the component `Mode` (undescribed); the labels' items hold two undescribed properties.
SPEC = (HEAD.replace("components:\n", "components:\n" + MODE_SCHEMA) + "paths:\n"
        + op("/labels", "post", "addLabels", body(LABELS)) + op("/modes", "put", "setMode", body(MODE)))
LABELS_PROPERTY = "/paths/~1labels/post/requestBody/content/application~1json/schema/properties/labels"
ITEMS = LABELS_PROPERTY + "/items"
PARENT_DESCRIPTION = "The labels to add to the issue.\nA label that does not exist yet is created."


@pytest.fixture
def labels(tmp_path) -> Path:
    path = tmp_path / "labels.yaml"
    path.write_text(SPEC, encoding="utf-8")
    return path


def findings_at(window, pointer: str) -> list:
    return [e for e in window.problems.entries()
            if e.finding.rule == "property-description-missing" and e.finding.pointer == pointer]


def type_and_apply(window, qtbot, text: str) -> None:
    field = window.edit.form.property_description
    field.clear()
    qtbot.keyClicks(field, text)
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):  # the background re-check
        window.edit.form.apply_button.click()
    assert window.document.workspace.last_refused == []


def test_a_finding_under_array_items_edits_the_items_and_never_the_parent(window, open_spec, labels, qtbot):
    original = labels.read_text(encoding="utf-8")
    open_spec(labels)
    window.document.reveal_problem(findings_at(window, ITEMS)[0])
    form = window.edit.form
    assert form.pointer == "/paths/~1labels/post"  # the operation it is inside, and in it the items node
    assert form.property_root == ITEMS and form.property_pointer == ITEMS
    assert form.property_description.text() == ""  # the items' own description (none), not the parent's
    assert form.property_description.isEnabled() and form.apply_button.isEnabled()
    assert not form.summary.isHidden() and not form.schema_member.isHidden()
    assert [form.schema_member.itemText(i) for i in range(form.schema_member.count())] \
        == ["(this schema) (no description)", "shade (no description)", "group (no description)"]
    assert "2 of its properties have no description (shade, group)" in form.note.text()
    for name, text in (("shade", "The colour of the label in six hex digits."),
                       ("group", "The group the label is listed under.")):
        form.schema_member.setCurrentIndex(form.schema_member.findData(f"{ITEMS}/properties/{name}"))
        assert form.property_pointer == f"{ITEMS}/properties/{name}" and form.property_description.text() == ""
        type_and_apply(window, qtbot, text)
        assert form.property_pointer == f"{ITEMS}/properties/{name}"  # still chosen after the re-check
        assert form.property_description.text() == text
    assert findings_at(window, ITEMS) == []  # the re-check dropped the finding
    edited = window.document.workspace.root
    assert lookup(edited.data, f"{LABELS_PROPERTY}/description") == PARENT_DESCRIPTION  # the parent is unchanged
    assert window.save()
    removed, added = changed_lines(original, labels.read_text(encoding="utf-8"))
    assert removed == ["                      shade: {type: string}\n", "                      group: {type: string}\n"]
    assert added == ["                      shade: {type: string, description: The colour of the label in six hex "
                     "digits.}\n",
                     "                      group: {type: string, description: The group the label is listed under.}\n"]


def test_a_finding_on_a_component_schema_edits_the_schema_and_says_who_uses_it(window, open_spec, labels, qtbot):
    original = labels.read_text(encoding="utf-8")
    open_spec(labels)
    window.document.reveal_problem(findings_at(window, "/components/schemas/Mode")[0])
    form = window.edit.form
    assert form.pointer is None  # no operation owns it
    assert form.property_root == "/components/schemas/Mode" == form.property_pointer
    assert form.heading.text() == "Schema Mode (used by 2 operations)"
    assert form._rows.labelForField(form.property_label).text() == "Schema"
    assert form.property_enum.text() == "fast, slow"
    assert all(w.isEnabled() for w in (form.property_description, form.property_enum, form.property_unit,
                                       form.apply_button))
    assert form.summary.isHidden() and form.description.isHidden()  # no operation's fields: only the schema's
    type_and_apply(window, qtbot, "How fast the job runs")
    assert findings_at(window, "/components/schemas/Mode") == []
    assert form.property_description.text() == "How fast the job runs"
    assert window.save()
    removed, added = changed_lines(original, labels.read_text(encoding="utf-8"))
    assert removed == []
    assert added == ["      description: How fast the job runs\n"]
    saved = labels.read_text(encoding="utf-8").splitlines()
    at = saved.index("      description: How fast the job runs")
    assert saved[at - 2:at + 2] == ["    Mode:", "      type: string", "      description: How fast the job runs",
                                    "      enum: [fast, slow]"]
