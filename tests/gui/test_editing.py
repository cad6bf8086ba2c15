"""Editing in the window: the operation form, zero-noise saves, undo/redo, quick fixes with a diff preview,
external changes, and crash recovery."""

from __future__ import annotations

import json
import os
import shutil
import time
from contextlib import nullcontext
from pathlib import Path

import pytest

from tests.catalogue import changed_lines, corpus_dir, run_until_killed
from workbench.edit.journal import RecoveryJournal
from workbench.examples import example_path
from workbench.workspace import ConflictChoice, DiskOutcome, OperationEntry, ProblemEntry, SaveChoice

PETSTORE = corpus_dir() / "oai-v3.0-petstore.json"
NEW_DESCRIPTION = "Cancels an order that has not shipped yet. Use it when the customer asks to cancel."


@pytest.fixture
def petstore(tmp_path) -> Path:
    target = tmp_path / "petstore.json"
    shutil.copyfile(PETSTORE, target)
    return target


def problem(window, rule: str, pointer_part: str = "") -> ProblemEntry:
    return next(e for e in window.problems.entries()
                if e.finding.rule == rule and pointer_part in e.finding.pointer)


def operation(window, method: str, path: str) -> OperationEntry:
    return next(e for e in window.loaded.operations if e.operation.method == method and e.operation.path == path)


def apply_description(window, text: str) -> bool:
    window.edit.form.description.setPlainText(text)
    return window.edit.apply(window.edit.form.pointer, window.edit.form.values())


def test_yaml_form_edit_saves_exactly_the_intended_lines(window, open_spec, shop):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    entry = problem(window, "operation-description-missing")
    window.document.reveal_problem(entry)
    assert window.edit.form.pointer == "/paths/~1orders~1{orderId}~1cancel/post"
    assert entry.finding.fix is None  # no placeholder to pre-fill: the author writes the description
    assert window.edit.form.description.toPlainText() == ""
    assert window.edit.form.operation_id.text() == "cancelOrder"
    assert not window.isWindowModified()

    window.edit.form.description.setPlainText(NEW_DESCRIPTION)
    window.edit.form.apply_button.click()
    assert window.document.workspace.last_refused == []
    assert window.isWindowModified()
    assert window.windowTitle().startswith("shop-api.yaml[*]")
    assert window.source.view.toPlainText() == window.document.workspace.root.text != original
    assert shop.read_text(encoding="utf-8") == original  # nothing written before Save

    assert window.save()
    saved = shop.read_text(encoding="utf-8")
    removed, added = changed_lines(original, saved)
    assert removed == []
    assert added == [f"      description: {NEW_DESCRIPTION}\n"]
    at = saved.index("operationId: cancelOrder")
    assert saved[at:].startswith(
        f"operationId: cancelOrder\n      description: {NEW_DESCRIPTION}\n      tags: [orders]")
    assert "# lint-gap: operation-description-missing" in saved  # comments survive
    assert shop.with_name("shop-api.yaml.bak").read_text(encoding="utf-8") == original
    assert not window.isWindowModified()


def test_json_form_edit_saves_exactly_the_intended_lines(window, open_spec, petstore):
    original = petstore.read_text(encoding="utf-8")
    open_spec(petstore)
    window.document.reveal_operation(operation(window, "get", "/pets"))
    assert window.edit.form.summary.text() == "List all pets"
    assert apply_description(window, "Lists the pets, a page at a time.")
    assert window.save()
    saved = petstore.read_text(encoding="utf-8")
    removed, added = changed_lines(original, saved)
    assert removed == []
    assert added == ['        "description": "Lists the pets, a page at a time.",\n']  # after "summary"
    assert saved.index('"summary": "List all pets",\n        "description"') > 0
    assert json.loads(saved)["paths"]["/pets"]["get"]["description"] == "Lists the pets, a page at a time."


def test_undo_and_redo_restore_the_exact_text_and_the_marker(window, open_spec, shop):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    window.document.reveal_operation(operation(window, "get", "/customers"))
    window.edit.form.summary.setText("List the customers")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    edited = window.document.workspace.root.text
    assert window.isWindowModified() and window.undo_action.isEnabled()
    window.undo_action.trigger()
    assert window.document.workspace.root.text == original
    assert window.source.view.toPlainText() == original
    assert not window.isWindowModified()
    assert window.edit.form.summary.text() == "List customers"  # the form follows the document
    window.redo_action.trigger()
    assert window.document.workspace.root.text == edited
    assert window.isWindowModified()
    removed, added = changed_lines(original, edited)
    assert removed == ["      summary: List customers\n"] and added == ["      summary: List the customers\n"]


def test_clearing_a_field_is_refused_with_a_reason(window, open_spec, shop):
    open_spec(shop)
    window.document.reveal_operation(operation(window, "get", "/customers"))
    window.edit.form.summary.setText("")
    assert not window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    assert any("clearing" in reason for reason in window.document.workspace.last_refused)
    assert "clearing" in window.edit.form.note.text()
    assert not window.isWindowModified()


def test_diff_against_disk(window, open_spec, shop):
    open_spec(shop)
    assert window.document.workspace.disk_diff() == ""
    window.document.reveal_problem(problem(window, "operation-description-missing"))
    apply_description(window, NEW_DESCRIPTION)
    diff = window.document.workspace.disk_diff()
    assert f"+      description: {NEW_DESCRIPTION}\n" in diff
    assert [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")] == []
    window.show_disk_diff()
    assert window.diff_dialog is not None and window.diff_dialog.isVisible()
    window.diff_dialog.close()


def test_close_with_unsaved_edits_asks(window, open_spec, shop):
    open_spec(shop)
    window.document.reveal_problem(problem(window, "operation-description-missing"))
    apply_description(window, NEW_DESCRIPTION)
    window.ask_save_changes = lambda: SaveChoice.CANCEL
    assert not window.close()
    assert window.isVisible()
    window.ask_save_changes = lambda: SaveChoice.SAVE
    assert window.close()
    assert NEW_DESCRIPTION in shop.read_text(encoding="utf-8")


def test_quick_fix_with_preview_is_one_undoable_step(window, open_spec, shop, qtbot):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    entry = problem(window, "operation-id-missing")
    preview = window.document.workspace.fix_preview([entry], "Fix")
    assert preview is not None
    assert "+      operationId: getCustomersLoyaltyByCustomerId\n" in preview.diff
    assert window.document.workspace.root.text == original  # a preview changes nothing

    shown = []
    window.confirm_preview = lambda p: shown.append(p) or False
    assert not window.fix_problem(entry)
    assert shown and window.document.workspace.root.text == original

    window.confirm_preview = lambda p: True
    with qtbot.waitSignal(window.documentLoaded, timeout=20_000) as blocker:  # re-linted in the background
        assert window.fix_problem(entry)
    removed, added = changed_lines(original, window.document.workspace.root.text)
    assert removed == [] and added == ["      operationId: getCustomersLoyaltyByCustomerId\n"]
    assert "operation-id-missing" not in {p.finding.rule for p in blocker.args[0].problems}
    assert shop.read_text() == original  # the re-check reads the edited text in memory: nothing is written
    assert blocker.args[0].problems[0].finding.file == str(shop)  # findings name the real file
    assert len(window.document.workspace.history) == 1
    window.undo_action.trigger()
    assert window.document.workspace.root.text == original


def test_fix_all_findings_of_a_rule(window, open_spec, shop):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    window.confirm_preview = lambda p: True
    assert window.fix_rule("string-format-missing")
    removed, added = changed_lines(original, window.document.workspace.root.text)
    # both schemas are flow mappings on one line each: exactly those two lines change
    assert sorted(line.strip() for line in removed) == ["email: { type: string }", "schema: { type: string }"]
    assert sorted(line.strip() for line in added) == ["email: { type: string, format: email }",
                                                      "schema: { type: string, format: date-time }"]
    assert len(window.document.workspace.history) == 1


def atomic_replace(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.other-editor.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def test_an_atomic_save_by_another_editor_reloads(window, open_spec, shop, qtbot):
    open_spec(shop)
    theirs = shop.read_text(encoding="utf-8").replace("summary: List customers", "summary: List all customers")
    with qtbot.waitSignal(window.documentLoaded, timeout=20_000):
        atomic_replace(shop, theirs)
    assert window.source.view.toPlainText() == theirs
    assert not window.isWindowModified()
    theirs2 = theirs.replace("List all customers", "List every customer")
    with qtbot.waitSignal(window.documentLoaded, timeout=20_000):  # still watched after the inode changed
        atomic_replace(shop, theirs2)
    assert window.document.workspace.root.text == theirs2


def test_an_external_change_with_unsaved_edits_asks(window, open_spec, shop, qtbot):
    open_spec(shop)
    window.document.reveal_problem(problem(window, "operation-description-missing"))
    apply_description(window, NEW_DESCRIPTION)
    mine = window.document.workspace.root.text
    asked = []
    window.ask_conflict = lambda: asked.append(1) or ConflictChoice.MINE
    theirs = shop.read_text(encoding="utf-8").replace("summary: List customers", "summary: List all customers")
    atomic_replace(shop, theirs)
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    assert window.document.workspace.root.text == mine and window.isWindowModified()
    assert window.document.workspace.root_disk_text == theirs

    window.ask_conflict = lambda: ConflictChoice.THEIRS
    theirs2 = theirs.replace("List all customers", "List every customer")
    atomic_replace(shop, theirs2)
    qtbot.waitUntil(lambda: window.document.workspace.root.text == theirs2, timeout=20_000)
    assert not window.isWindowModified()
    assert window.source.view.toPlainText() == theirs2


def test_recovery_journal_is_written_and_offered(window, open_spec, shop, settings):
    folder = Path(settings.value("recovery/dir"))
    open_spec(shop)
    window.document.reveal_problem(problem(window, "operation-description-missing"))
    apply_description(window, NEW_DESCRIPTION)
    journal = RecoveryJournal(folder, shop)
    past = time.time() - 60
    os.utime(shop, (past, past))  # the journal must be newer than the file to be read back
    edited = window.document.workspace.root.text
    assert journal.read().text == edited and NEW_DESCRIPTION in edited
    first_step = journal.path.stat().st_size
    apply_description(window, NEW_DESCRIPTION + " Twice.")
    assert journal.read().text == window.document.workspace.root.text and journal.read().steps == 1
    assert journal.path.stat().st_size - first_step < 500  # a step appends its splices, not the whole text
    window.undo_action.trigger()
    edited = window.document.workspace.root.text
    assert journal.read().text == edited and NEW_DESCRIPTION + " Twice." not in edited
    window.undo_action.trigger()
    assert not journal.path.exists()  # back to the saved text: nothing to recover


def test_opening_a_file_with_a_newer_journal_offers_recovery(window, open_spec, shop, settings):
    folder = Path(settings.value("recovery/dir"))
    original = shop.read_text(encoding="utf-8")
    recovered = original.replace("summary: List customers", "summary: Recovered summary")
    past = time.time() - 60
    os.utime(shop, (past, past))
    RecoveryJournal(folder, shop).start(recovered, False)
    offered = []
    window.ask_recover = lambda: offered.append(1) or True
    open_spec(shop)
    assert offered
    assert window.document.workspace.root.text == recovered and window.isWindowModified()
    window.undo_action.trigger()
    assert window.document.workspace.root.text == original


def test_a_declined_recovery_removes_the_journal(window, open_spec, shop, settings):
    folder = Path(settings.value("recovery/dir"))
    past = time.time() - 60
    os.utime(shop, (past, past))
    RecoveryJournal(folder, shop).start(shop.read_text(encoding="utf-8") + "# more\n", False)
    window.ask_recover = lambda: False
    open_spec(shop)
    assert not window.isWindowModified()
    assert not RecoveryJournal(folder, shop).path.exists()


def test_a_journal_that_does_not_parse_is_recovered_as_text_with_its_finding(window, open_spec, shop, settings,
                                                                             qtbot):
    folder = Path(settings.value("recovery/dir"))
    past = time.time() - 60
    os.utime(shop, (past, past))
    RecoveryJournal(folder, shop).start("info: [unclosed\n", False)  # typed half way when the process died
    window.ask_recover = lambda: True
    open_spec(shop)
    assert window.error_box is None and window.isWindowModified()
    assert window.document.workspace.root.text == "info: [unclosed\n" == window.source.view.toPlainText()
    qtbot.waitUntil(lambda: window.loaded is not None and not window.loaded.parsed, timeout=30_000)
    (entry,) = window.problems.entries()
    assert entry.finding.rule == "parser" and entry.start.line == 2
    window.undo_action.trigger()  # the recovery is one step: the file as saved comes back
    assert window.document.workspace.root.text == shop.read_text(encoding="utf-8")


def test_a_big_text_goes_in_by_chunks_and_positions_finish_it(qtbot):
    from workbench.gui.source_view import INCREMENTAL_FROM, SourceView

    view = SourceView()
    qtbot.addWidget(view)
    lines = [f"key{n}: value {n}  # comment" for n in range(INCREMENTAL_FROM // 20)]
    text = "\n".join(lines) + "\n"
    view.set_source(text, "yaml")
    assert not view.is_complete
    assert view.document().characterCount() < len(text)
    with qtbot.waitSignal(view.sourceComplete, timeout=20_000):
        pass
    assert view.is_complete and view.toPlainText() == text
    view.set_source(text, "yaml")
    assert view.qt_position(len(lines), 1) > 0  # a position finishes the text at once
    assert view.is_complete
    assert view.document().findBlockByNumber(len(lines) - 1).text() == lines[-1]
    view.set_source(text, "yaml")
    assert view.qt_position(10, 3) == len("\n".join(lines[:9])) + 1 + 2
    assert not view.is_complete  # a jump near the top does not wait for the rest


@pytest.mark.parametrize("turn_seconds", [0.0, 60.0])
def test_a_big_text_goes_in_by_slices_of_whole_lines_as_many_a_turn_as_its_time_allows(qtbot, monkeypatch,
                                                                                     turn_seconds):
    from workbench.gui import source_view
    from workbench.gui.source_view import INCREMENTAL_FROM, SLICE_CHARS, SourceView

    monkeypatch.setattr(source_view, "TURN_SECONDS", turn_seconds)
    view = SourceView()
    qtbot.addWidget(view)
    lines = [f"key{n}: value {n}  # comment {'x' * (n % 50)}" for n in range(INCREMENTAL_FROM // 30)]
    text = "\n".join(lines) + "\n"
    inserted: list[int] = []  # characters added by each insertion (colouring a block changes none)
    view.document().contentsChange.connect(lambda _at, removed, added: removed == 0 and inserted.append(added))
    view.set_source(text, "yaml")
    start = view.document().characterCount() - 1  # the first screens, set at once
    inserted.clear()
    per_turn: list[int] = []
    view._chunk_timer.timeout.connect(lambda: per_turn.append(len(inserted)))  # runs after the view's own slot
    with qtbot.waitSignal(view.sourceComplete, timeout=20_000):
        pass
    assert view.toPlainText() == text
    assert inserted and max(inserted) <= SLICE_CHARS
    for added in inserted[:-1]:  # each slice ends at a line's end: no line is coloured twice
        start += added
        assert text[start - 1] == "\n"
    counts = [after - before for before, after in zip([0, *per_turn], per_turn, strict=False)]
    if turn_seconds == 0:  # no time to spare: one slice a turn, and the text still goes in
        assert set(counts) == {1} and len(per_turn) == len(inserted)
    else:  # time enough: the first turn goes on slice after slice
        assert counts[0] == len(inserted) > 1


@pytest.mark.parametrize("where", ["near the top", "not shown yet", "the last line"])
def test_splices_go_in_while_a_big_text_is_still_going_in(qtbot, where):
    from workbench.edit.engine import Splice, apply_splices
    from workbench.gui.source_view import INCREMENTAL_FROM, SourceView

    view = SourceView()
    qtbot.addWidget(view)
    lines = [f"key{n}: value {n}  # comment" for n in range(INCREMENTAL_FROM // 20)]
    text = "\n".join(lines) + "\n"
    view.set_source(text, "yaml")
    line = {"near the top": 5, "not shown yet": len(lines) // 2, "the last line": len(lines) - 1}[where]
    at = text.index(lines[line])
    splices = [Splice(at + 4, at + 4 + len(str(line)), "EDITED\nnew: line"), Splice(at, at, "# before\n")]
    assert view.apply_splices(text, splices)
    assert view.is_complete == (where == "the last line")  # only as far as the edit was put in at once
    edited = apply_splices(text, splices)
    second = [Splice(edited.index("key3:"), edited.index("key3:") + 4, "KEY3")]  # another edit, still loading
    assert view.apply_splices(edited, second)
    with qtbot.waitSignal(view.sourceComplete, timeout=20_000) if not view.is_complete else nullcontext():
        pass
    assert view.toPlainText() == apply_splices(edited, second)


def test_a_parameter_enum_from_the_suggested_fix(window, open_spec, shop):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    entry = problem(window, "enum-in-prose")
    window.document.reveal_problem(entry)
    assert window.edit.form.parameter.currentText() == "status (query)"
    assert window.edit.form.parameter_enum.text() == "pending, paid, shipped, delivered, cancelled"
    assert window.edit.form.parameter_description.text().startswith("Filter by order status")
    window.edit.form.apply_button.click()
    assert window.document.workspace.last_refused == []
    assert window.save()
    removed, added = changed_lines(original, shop.read_text(encoding="utf-8"))
    assert removed == ["          schema: { type: string }\n"]
    assert added == ["          schema: { type: string, enum: [pending, paid, shipped, delivered, cancelled] }\n"]


def test_a_parameter_description_edit(window, open_spec, shop):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    window.document.reveal_operation(operation(window, "get", "/orders"))
    window.edit.form.parameter.setCurrentIndex(window.edit.form.parameter.findText("customerId (query)"))
    assert window.edit.form.parameter_description.text().startswith("Only orders of this customer.")
    window.edit.form.parameter_description.setText("Only the orders of this customer (an id from listCustomers).")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    removed, added = changed_lines(original, window.document.workspace.root.text)
    assert [line.strip() for line in removed] == [
        "description: Only orders of this customer. Take the id from listCustomers or createCustomer."]
    assert [line.strip() for line in added] == [
        "description: Only the orders of this customer (an id from listCustomers)."]
    assert window.edit.form.parameter.currentText() == "customerId (query)"  # the form keeps the parameter chosen


@pytest.mark.parametrize("variant", ["crlf", "emoji"])
def test_an_edit_changes_the_shown_text_in_place_and_undo_restores_it(window, open_spec, shop, variant):
    """The edit's splices go into the view's document (no whole text set again); after the edit, undo and redo
    the view shows exactly the edited text (CRLF shown as one line break, astral characters as two units)."""
    from workbench.gui.source_view import display_text

    text = shop.read_text(encoding="utf-8")
    if variant == "crlf":
        text = text.replace("\n", "\r\n")
    else:
        text = text.replace("  title: Acme Shop API", "  title: Acme Shop API \U0001f6d2\U0001f98a")
        text = text.replace("    ticket. Returns", "    ticket \U0001f3ab. Returns")
    shop.write_bytes(text.encode("utf-8"))
    open_spec(shop)
    assert window.source.view.toPlainText() == display_text(text)
    sets: list[str] = []
    original_set = window.source.view.set_source
    window.source.view.set_source = lambda *args: (sets.append("set"), original_set(*args))

    window.document.reveal_operation(operation(window, "get", "/customers"))
    window.edit.form.summary.setText("List the customers \U0001f465" if variant == "emoji" else "List the customers")
    window.edit.form.description.setPlainText(window.edit.form.description.toPlainText() + " Stable order \U0001f4cb.")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    edited = window.document.workspace.root.text
    assert edited != text and ("\r\n" in edited) == (variant == "crlf")
    assert window.source.view.toPlainText() == display_text(edited)
    assert sets == []  # applied in place
    block = window.source.view.document().findBlockByNumber(edited.count("\n", 0, edited.index("List the customers")))
    assert block.text().strip().startswith("summary: List the customers")

    window.undo_action.trigger()
    assert window.document.workspace.root.text == text
    assert window.source.view.toPlainText() == display_text(text)
    window.redo_action.trigger()
    assert window.document.workspace.root.text == edited
    assert window.source.view.toPlainText() == display_text(edited)
    window.undo_action.trigger()
    assert window.source.view.toPlainText() == display_text(text)
    assert sets == []
    assert not window.isWindowModified()


def test_splices_applied_to_the_view_match_the_whole_text(qtbot):
    from workbench.edit import Splice
    from workbench.gui.source_view import SourceView, display_text

    view = SourceView()
    qtbot.addWidget(view)
    old = "a: 1\r\nb: \U0001f600x\r\nc: \u2028y\rz\r\nd: 4"
    view.set_source(old, "yaml")
    cases = [
        [Splice(0, 0, "top\r\n")],
        [Splice(len(old), len(old), "\r\ne: \U0001f600")],
        [Splice(old.index("x"), old.index("x") + 1, "\U0001f601\r\nnew: 1")],
        [Splice(old.index("\r\nc"), old.index("\r\nc") + 1, "")],  # the CR of a CRLF alone
        [Splice(old.index("1"), old.index("1") + 1, "2"), Splice(old.index("y"), old.index("4"), "")],
        [Splice(old.index("b"), len(old), "")],
    ]
    for splices in cases:
        view.set_source(old, "yaml")
        assert view.apply_splices(old, splices)
        new = old
        for splice in sorted(splices, key=lambda s: s.start, reverse=True):
            new = splice.apply(new)
        assert view.toPlainText() == display_text(new), splices


KILLED_EDITOR = r"""
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication
from workbench.gui.main_window import MainWindow

spec, settings_file, expected_file = sys.argv[1:4]
app = QApplication([])
window = MainWindow(QSettings(settings_file, QSettings.Format.IniFormat))
window.show()
loop = QEventLoop()
window.documentLoaded.connect(lambda _loaded: loop.quit())
window.open_path(spec)
loop.exec()
for entry in window.loaded.operations[:3]:  # three undoable steps, each journaled
    pointer = entry.operation.origin.pointer
    window.edit.fill(entry)
    window.edit.form.description.setPlainText(f"Unsaved description of {pointer}.")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
with open(expected_file, "w", encoding="utf-8", newline="") as handle:
    handle.write(window.document.workspace.root.text)
print("edited", flush=True)
QTimer.singleShot(120_000, app.quit)  # never reached: the test kills this process
app.exec()
"""


def test_unsaved_edits_are_recovered_after_the_process_is_killed(window, open_spec, shop, settings, tmp_path):
    expected = tmp_path / "expected.txt"
    run_until_killed(KILLED_EDITOR, [str(shop), settings.fileName(), str(expected)], "edited")
    assert shop.read_text(encoding="utf-8") == example_path().read_text(encoding="utf-8")  # never saved
    offered = []
    window.ask_recover = lambda: offered.append(True) or True
    open_spec(shop)
    assert offered and window.isWindowModified()
    edited = expected.read_text(encoding="utf-8")
    assert window.document.workspace.root.text == edited and edited.count("Unsaved description of") == 3


def test_a_shared_schema_property_gets_its_unit_through_the_form(window, open_spec, shop, qtbot):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    entry = problem(window, "numeric-unit-missing", "/Product/")
    window.document.reveal_problem(entry)
    assert window.edit.form.pointer is None  # a component: no operation, only the property
    assert window.edit.form.property_pointer == "/components/schemas/Product/properties/weight"
    assert window.edit.form.property_description.text() == "Shipping weight of one unit."
    window.edit.form.property_unit.setCurrentText("kilograms")
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):  # the background re-check
        window.edit.form.apply_button.click()
    assert window.document.workspace.last_refused == []
    assert not [e for e in window.problems.entries()
                if e.finding.rule == "numeric-unit-missing" and "/Product/" in e.finding.pointer]
    assert window.edit.form.property_description.text() == "Shipping weight of one unit (in kilograms)."
    assert window.save()
    removed, added = changed_lines(original, shop.read_text(encoding="utf-8"))
    assert removed == ["        weight: { type: number, minimum: 0, description: Shipping weight of one unit. }\n"]
    assert added == ["        weight: { type: number, minimum: 0, "
                     "description: Shipping weight of one unit (in kilograms). }\n"]


def test_a_property_of_a_request_body_is_described_beside_its_operation(window, open_spec, shop):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    window.document.reveal_problem(problem(window, "property-description-missing", "~1refund/"))
    assert window.edit.form.pointer == "/paths/~1orders~1{orderId}~1refund/post"
    assert window.edit.form.property_pointer.endswith("/schema/properties/reason")
    window.edit.form.property_description.setText("Why the order is refunded.")
    window.edit.form.apply_button.click()
    assert window.document.workspace.last_refused == []
    assert window.save()
    removed, added = changed_lines(original, shop.read_text(encoding="utf-8"))
    assert removed == []
    assert added == ["                  description: Why the order is refunded.\n"]
    saved = shop.read_text(encoding="utf-8").splitlines()
    at = saved.index("                  description: Why the order is refunded.")
    assert saved[at - 2:at] == ["                reason:", "                  type: string"]


def test_save_as_writes_the_edits_to_another_file_and_goes_on_with_it(window, open_spec, shop, qtbot, tmp_path):
    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    window.document.reveal_problem(problem(window, "operation-description-missing"))
    apply_description(window, NEW_DESCRIPTION)
    edited = window.document.workspace.root.text
    copy = tmp_path / "copy" / "shop-copy.yaml"
    copy.parent.mkdir()
    window.ask_save_path = lambda: str(copy)
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        window.save_as_action.trigger()
    assert copy.read_text(encoding="utf-8") == edited
    assert shop.read_text(encoding="utf-8") == original  # the old file keeps its text
    assert window.loaded.path == copy and not window.isWindowModified()
    assert window.windowTitle().startswith("shop-copy.yaml[*]")
    assert window.recent.paths()[0] == str(copy)
    window.ask_save_path = lambda: ""
    assert not window.save_as()  # cancelled: nothing written


def test_a_big_corpus_yaml_file_is_fixed_through_the_form_with_a_one_line_diff(window, open_spec, tmp_path):
    """The 3 MB OpenAI description: jump from a finding to its line, describe the operation in the form, save;
    the file changes by exactly the one line inserted after the summary."""
    target = tmp_path / "openai-openapi.yaml"
    shutil.copyfile(corpus_dir() / "openai-openapi.yaml", target)
    original = target.read_text(encoding="utf-8")
    open_spec(target, timeout=60_000)
    entry = problem(window, "operation-description-thin", "/paths/~1assistants/get")
    window.document.reveal_problem(entry, focus=True)
    assert window.source.view.cursor_line_column() == (entry.start.line, entry.start.column)
    assert original.splitlines()[entry.start.line - 1].strip() == "summary: Returns a list of assistants."
    text = "Lists the assistants of the organisation, newest first; use it to find an assistant's id."
    assert apply_description(window, text)
    assert window.save()
    removed, added = changed_lines(original, target.read_text(encoding="utf-8"))
    assert removed == [] and added == [f"      description: {text}\n"]
    saved = target.read_text(encoding="utf-8").splitlines()
    assert saved[entry.start.line] == f"      description: {text}"  # right after the summary


def test_a_file_reloaded_while_a_fix_preview_is_open_is_not_overwritten(window, open_spec, shop, qtbot):
    open_spec(shop)
    entry = problem(window, "operation-id-missing")
    theirs = shop.read_text(encoding="utf-8").replace("summary: List customers", "summary: Changed elsewhere")

    def reload_meanwhile(_preview) -> bool:  # another editor saves while the user reads the diff
        shop.write_text(theirs, encoding="utf-8")
        with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
            assert window.document.check_disk() is DiskOutcome.RELOAD
        return True

    window.confirm_preview = reload_meanwhile
    assert not window.fix_problem(entry)
    assert window.document.workspace.root.text == theirs and not window.isWindowModified()



def test_a_property_chosen_in_the_outline_is_edited_in_the_form(window, open_spec, shop):
    from PySide6.QtCore import Qt

    from workbench.gui.models import EntryRole

    original = shop.read_text(encoding="utf-8")
    open_spec(shop)
    window.outline.mode_combo.setCurrentIndex(window.outline.mode_combo.findData("schema"))
    assert window.outline.model.headerData(0, Qt.Orientation.Horizontal) == "Schema / property"
    schemas = window.loaded.spec.root.data["components"]["schemas"]
    properties = sum(len(schema.get("properties") or {}) for schema in schemas.values())
    assert window.outline.count_text() == f"{len(schemas)} schemas, {properties} properties"
    window.outline.filter_edit.setText("product weight")  # the filter matches "<schema> <property>"
    proxy = window.outline.proxy
    group = proxy.index(0, 0)
    assert proxy.data(group) == "Product" and proxy.rowCount(group) == 1
    index = proxy.index(0, 0, group)
    window.outline.view.setCurrentIndex(index)
    window.outline.view.activated.emit(index)
    entry = proxy.data(index, EntryRole)
    assert window.source.view.cursor_line_column() == (entry.location.key_start.line, entry.location.key_start.column)
    assert window.edit.form.property_pointer == "/components/schemas/Product/properties/weight"
    window.edit.form.property_unit.setCurrentText("kilograms")
    window.edit.form.apply_button.click()
    assert window.save()
    removed, added = changed_lines(original, shop.read_text(encoding="utf-8"))
    assert [line.strip() for line in added] == [
        "weight: { type: number, minimum: 0, description: Shipping weight of one unit (in kilograms). }"]
    assert len(removed) == 1


def test_a_json_files_span_index_is_built_off_the_ui_thread_after_a_load_and_after_an_edit(
        qtbot, window, open_spec, tmp_path, monkeypatch):
    import threading

    import yaml

    from workbench.spec import source

    on_ui_thread: list[bool] = []
    whole_index = source.index_json

    def recorded(*args, **kwargs):
        if kwargs.get("only") is None:  # the whole index, not a lint's few spans
            on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return whole_index(*args, **kwargs)

    monkeypatch.setattr(source, "index_json", recorded)
    spec = tmp_path / "shop.json"
    spec.write_text(json.dumps(yaml.safe_load(example_path().read_text(encoding="utf-8")), indent=2),
                    encoding="utf-8")
    loaded = open_spec(spec)
    workspace = window.document.workspace
    qtbot.waitUntil(lambda: workspace.root.is_indexed, timeout=30_000)
    assert on_ui_thread == [False]
    entry = loaded.operations[0]
    window.edit.fill(entry)
    window.edit.form.summary.setText("Lists the products, to check where the index is built")
    window.edit.form.apply_button.click()
    assert "to check where the index is built" in workspace.root.text
    qtbot.waitUntil(lambda: workspace.root.is_indexed and window.document.index_jobs.current is None, timeout=30_000)
    assert on_ui_thread and not any(on_ui_thread)
