"""The item models: Qt's model contract (qtmodeltester), and that they show exactly what the core found."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QModelIndex

from tests.catalogue import corpus_dir
from workbench.gui.models import (
    OUTLINE_MODES,
    EntryRole,
    LocationRole,
    OutlineFilter,
    OutlineModel,
    ProblemsModel,
)
from workbench.lint import Severity
from workbench.workspace import load_and_lint

TRAVEL = corpus_dir() / "readme-v3.1-train-travel.yaml"


@pytest.fixture(scope="module")
def travel():
    return load_and_lint(TRAVEL)


def _leaves(model, parent=QModelIndex()):  # noqa: B008
    found = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if model.rowCount(index):
            found.extend(_leaves(model, index))
        elif model.data(index, EntryRole) is not None:
            found.append(model.data(index, EntryRole))
    return found


def test_problems_model(qtmodeltester, travel):
    model = ProblemsModel()
    model.set_problems(travel.problems, travel.spec.root.name)
    qtmodeltester.check(model, force_py=True)
    expected = Counter(f.severity for f in travel.result.findings)
    assert model.counts() == {sev: expected.get(sev, 0) for sev in (Severity.ERROR, Severity.WARN, Severity.INFO,
                                                                    Severity.HINT)}
    assert len(_leaves(model)) == len(travel.result.findings)
    # groups are errors first, and each group keeps the core's (source) order
    severities = [model.data(model.index(row, 0), EntryRole) for row in range(model.rowCount())]
    assert severities == [None] * model.rowCount()
    first_group = model.index(0, 0)
    assert model.data(first_group).startswith(("Errors", "Warnings"))


def test_problems_filter(qtmodeltester, travel):
    model = ProblemsModel()
    model.set_problems(travel.problems, travel.spec.root.name)
    qtmodeltester.check(model, force_py=True)
    everything = _leaves(model)
    rule = "property-description-missing"
    model.set_rule(rule)  # the tester keeps checking every change the model signals
    shown = _leaves(model)
    assert shown and {e.finding.rule for e in shown} == {rule}
    assert len(shown) == sum(1 for f in travel.result.findings if f.rule == rule)
    assert model.data(model.index(0, 0)).endswith(f"({len(shown)})")  # the group counts what is shown
    assert model.shown_entries() == shown and len(model.entries()) == len(everything)  # all: the status bar
    assert model.counts() == _unfiltered(travel).counts()  # the status bar counts every finding
    model.set_rule(None)
    model.set_text("BOOKING")  # case-insensitive, over message, rule and pointer
    assert shown != _leaves(model)
    assert all("booking" in (e.finding.message + e.finding.pointer).lower() for e in _leaves(model))
    hidden = next(e for e in everything if e not in _leaves(model))
    assert not model.index_of(hidden).isValid()
    kept = _leaves(model)[-1]
    assert model.entry(model.index_of(kept)) is kept
    model.set_text("no such text anywhere")
    assert model.rowCount() == 0 and model.leaf_indexes() == []
    model.set_text("")
    assert _leaves(model) == everything


def _unfiltered(loaded) -> ProblemsModel:
    model = ProblemsModel()
    model.set_problems(loaded.problems, loaded.spec.root.name)
    return model


@pytest.mark.parametrize("mode", [mode for mode in OUTLINE_MODES if mode != "schema"])
def test_outline_model(qtmodeltester, travel, mode):
    model = OutlineModel()
    model.set_operations(travel.operations, travel.spec.tag_names(), travel.path_locations)
    model.set_mode(mode)
    qtmodeltester.check(model, force_py=True)
    leaves = _leaves(model)
    path_ops = [e for e in leaves if not e.operation.webhook]
    if mode == "tag":  # an operation appears under each of its tags
        assert {id(e.operation) for e in path_ops} == {id(op) for op in travel.spec.operations}
    else:
        assert len(path_ops) == len(travel.spec.operations) == model.operation_count()
    if mode == "operationId":
        ids = [model.data(model.index(row, 0)) for row in range(model.rowCount())]
        named = [i for i in ids if i != "(no operationId)"]
        assert named == sorted(named, key=lambda i: (i.lower(), i))


def test_outline_filter(qtmodeltester, travel):
    model = OutlineModel()
    model.set_operations(travel.operations, travel.spec.tag_names(), travel.path_locations)
    proxy = OutlineFilter()
    proxy.setSourceModel(model)
    proxy.set_text("BOOKING")
    qtmodeltester.check(proxy, force_py=True)
    kept = _leaves(proxy)
    assert kept and len(kept) < len(_leaves(model))
    assert all("booking" in (e.operation.path + (e.operation.operation_id or "")).lower() for e in kept)
    proxy.set_text("")
    assert len(_leaves(proxy)) == len(_leaves(model))


def test_outline_schema_mode_lists_every_property_where_it_is_written(qtmodeltester, travel):
    model = OutlineModel()
    model.set_operations(travel.operations, travel.spec.tag_names(), travel.path_locations, travel.schemas)
    model.set_mode("schema")
    qtmodeltester.check(model, force_py=True)
    components = travel.spec.root.data["components"]["schemas"]
    assert [model.data(model.index(row, 0)) for row in range(model.rowCount())] == list(components)
    first = model.data(model.index(0, 0), LocationRole)  # a schema row jumps to where the schema is written
    assert first.exact and first.pointer == f"/components/schemas/{next(iter(components))}"
    leaves = _leaves(model)
    expected = [(name, prop) for name, schema in components.items() for prop in (schema.get("properties") or {})]
    assert [(leaf.schema, leaf.name) for leaf in leaves] == expected
    for leaf in leaves:
        assert leaf.location.exact and leaf.location.pointer == leaf.pointer
        assert leaf.document.text[leaf.location.key_start.offset:].startswith(leaf.name)


def _moved(loaded):
    """The same spec re-checked with a comment line at the top: every operation and finding one line lower."""
    text = loaded.spec.root.text
    return load_and_lint(TRAVEL, text=text.replace("\n", "\n# moved down a line\n", 1))


def test_a_recheck_that_only_moves_lines_is_taken_without_a_reset(qtmodeltester, travel):
    moved = _moved(travel)
    problems, outline = ProblemsModel(), OutlineModel()
    problems.set_problems(travel.problems, travel.spec.root.name)
    outline.set_operations(travel.operations, travel.spec.tag_names(), travel.path_locations)
    qtmodeltester.check(problems, force_py=True)
    resets, changed = [], []
    for model in (problems, outline):
        model.modelReset.connect(lambda model=model: resets.append(model))
    problems.dataChanged.connect(lambda first, last, _roles: changed.append((first.parent().row(), first.row(),
                                                                            last.row(), first.column())))
    problems.set_problems(moved.problems, moved.spec.root.name)
    outline.set_operations(moved.operations, moved.spec.tag_names(), moved.path_locations)
    assert resets == []
    assert _leaves(problems) == list(problems.shown_entries()) and set(map(id, _leaves(problems))) == set(
        map(id, moved.problems))
    assert {id(e) for e in _leaves(outline)} == {id(e) for e in moved.operations}
    first = _leaves(problems)[0]
    assert problems.data(problems.index_of(first).siblingAtColumn(2)) == f"{first.start.line}:{first.start.column}"
    old_first = next(e for e in travel.problems if e.finding.pointer == first.finding.pointer
                     and e.finding.rule == first.finding.rule)
    assert first.start.line == old_first.start.line + 1
    assert sorted(changed) == [(row, 0, len(group) - 1, 2) for row, (_sev, group) in enumerate(problems._groups)]


def test_a_recheck_that_changes_what_is_shown_resets(qtmodeltester, travel):
    text = travel.spec.root.text
    operation = travel.spec.operations[0]
    renamed = load_and_lint(TRAVEL, text=text.replace(f"operationId: {operation.operation_id}\n",
                                                      "operationId: renamedForTheTest\n", 1))
    assert any(e.operation.operation_id == "renamedForTheTest" for e in renamed.operations)
    problems, outline = ProblemsModel(), OutlineModel()
    problems.set_problems(travel.problems, travel.spec.root.name)
    outline.set_operations(travel.operations, travel.spec.tag_names(), travel.path_locations)
    outline.set_mode("operationId")
    resets = []
    for model in (problems, outline):
        model.modelReset.connect(lambda model=model: resets.append(model))
    outline.set_operations(renamed.operations, renamed.spec.tag_names(), renamed.path_locations)
    assert resets == [outline]
    assert "renamedForTheTest" in [outline.data(outline.index(row, 0)) for row in range(outline.rowCount())]
    problems.set_problems(travel.problems[1:], travel.spec.root.name)
    assert resets == [outline, problems] and len(_leaves(problems)) == len(travel.problems) - 1
