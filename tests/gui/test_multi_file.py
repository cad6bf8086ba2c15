"""A spec in several files: findings in a referenced file are fixed in that file, through the form or a quick
fix; saving writes exactly that file's edited lines; the journal, the diff, undo and the watcher cover it."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from workbench.edit.journal import RecoveryJournal
from workbench.workspace import ConflictChoice, DiskOutcome, SaveChoice

ROOT = """\
openapi: 3.1.0
info: {title: Pets, version: '1'}
servers: [{url: 'https://pets.example.com'}]
paths:
  /pets:
    post:
      operationId: createPet
      summary: Register a pet
      description: Registers a new pet with its owner's contact address; use it once per animal.
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: 'schemas/pet.yaml#/Pet'}
      responses:
        '201': {description: The pet as stored.}
        '400': {description: The pet was not valid.}
"""

PET = """\
# Pets, shared by every operation that takes or returns one.
Pet:
  type: object
  description: A pet and how to reach its owner.
  required: [nickname]
  properties:
    nickname:
      type: string
    ownerEmail:
      type: string
      description: Where the owner reads messages about the pet.
"""


@pytest.fixture
def two_files(write) -> tuple[Path, Path]:
    return write("api.yaml", ROOT), write("schemas/pet.yaml", PET)


def finding(window, rule: str):
    return next(e for e in window.problems.entries() if e.finding.rule == rule)


def changed(old: str, new: str) -> list[str]:
    return [line for line in difflib.unified_diff(old.splitlines(True), new.splitlines(True), n=0)
            if line[:1] in "+-" and line[:3] not in ("+++", "---")]

def describe_pet_name(window, text: str) -> None:
    """Through the form: a description for the property the finding in the pet file is about."""
    window.document.reveal_problem(finding(window, "property-description-missing"))
    window.edit.form.property_description.setText(text)
    window.edit.form.apply_button.click()


def edit_root_summary(window, text: str) -> None:
    """Through the form: a new summary for the root file's operation."""
    window.document.reveal_operation(window.loaded.operations[0])
    window.edit.form.summary.setText(text)
    window.edit.form.apply_button.click()



def test_a_property_in_a_referenced_file_is_described_and_saved_there(window, open_spec, two_files, qtbot, settings):
    root, pet = two_files
    open_spec(root)
    entry = finding(window, "property-description-missing")
    assert entry.finding.file == "schemas/pet.yaml"
    window.document.reveal_problem(entry, focus=True)
    assert window.source.view.toPlainText() == PET  # the referenced file is shown, at the finding
    assert window.edit.form.property_pointer == "/Pet/properties/nickname"
    window.edit.form.property_description.setText("The pet's name, as its owner calls it.")
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000) as blocker:  # the re-check sees the edit
        window.edit.form.apply_button.click()
    assert window.document.workspace.last_refused == []
    assert "property-description-missing" not in {p.finding.rule for p in blocker.args[0].problems}
    assert window.isWindowModified() and window.document.workspace.modified_names() == ["schemas/pet.yaml"]
    assert window.source.view.toPlainText() == window.document.workspace.edited["schemas/pet.yaml"].text
    assert "+++ schemas/pet.yaml (edited)" in window.document.workspace.disk_diff()
    journal = RecoveryJournal(Path(settings.value("recovery/dir")), pet)
    assert journal.path.exists()
    assert pet.read_text(encoding="utf-8") == PET  # nothing written before Save
    assert window.save()
    assert changed(PET, pet.read_text(encoding="utf-8")) == [
        "+      description: The pet's name, as its owner calls it.\n"]
    assert root.read_text(encoding="utf-8") == ROOT and not window.isWindowModified()
    assert not journal.path.exists()


def test_undo_of_an_edit_in_a_referenced_file_restores_it(window, open_spec, two_files):
    root, _pet = two_files
    open_spec(root)
    describe_pet_name(window, "The name.")
    assert window.document.workspace.edited["schemas/pet.yaml"].text != PET
    window.undo_action.trigger()
    assert window.document.workspace.edited["schemas/pet.yaml"].text == PET and not window.isWindowModified()
    window.redo_action.trigger()
    assert window.document.workspace.modified_names() == ["schemas/pet.yaml"]


def test_a_quick_fix_in_a_referenced_file(window, open_spec, two_files, qtbot):
    root, pet = two_files
    open_spec(root)
    entry = finding(window, "string-format-missing")
    assert entry.finding.file == "schemas/pet.yaml"
    window.confirm_preview = lambda preview: "+++ b/schemas/pet.yaml\n" in preview.diff
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        assert window.fix_problem(entry)
    assert window.save()
    assert changed(PET, pet.read_text(encoding="utf-8")) == ["+      format: email\n"]
    assert root.read_text(encoding="utf-8") == ROOT


def test_unsaved_edits_in_a_referenced_file_are_offered_back(window, open_spec, two_files, settings, qtbot):
    from workbench.gui.main_window import MainWindow

    root, pet = two_files
    open_spec(root)
    describe_pet_name(window, "Recovered description.")
    edited = window.document.workspace.edited["schemas/pet.yaml"].text
    other = MainWindow(settings)  # a second window, as after a crash: the journal is still there
    qtbot.addWidget(other)
    other.ask_recover = lambda: True
    other.ask_save_changes = lambda: SaveChoice.DISCARD
    with qtbot.waitSignal(other.documentLoaded, timeout=30_000):
        other.open_path(root)
    assert other.document.workspace.edited["schemas/pet.yaml"].text == edited and other.isWindowModified()
    assert pet.read_text(encoding="utf-8") == PET
    other.close()


def test_a_referenced_file_changed_by_another_editor_is_reloaded(window, open_spec, two_files, qtbot):
    root, pet = two_files
    open_spec(root)
    name = "    nickname:\n      type: string\n"
    theirs = PET.replace(name, name + "      description: Theirs.\n")
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        pet.write_text(theirs, encoding="utf-8")
    assert window.document.workspace.edited["schemas/pet.yaml"].text == theirs
    assert "property-description-missing" not in {e.finding.rule for e in window.problems.entries()}


def test_a_change_on_disk_to_an_unedited_file_is_taken_in_and_the_edits_elsewhere_stay(window, open_spec,
                                                                                      two_files, qtbot):
    root, pet = two_files
    open_spec(root)
    describe_pet_name(window, "Mine.")
    mine = window.document.workspace.edited["schemas/pet.yaml"].text
    window.ask_conflict = lambda: pytest.fail("no conflict: the changed file has no unsaved edits")
    window.document.reveal_operation(window.loaded.operations[0])  # the form shows the root's operation
    theirs_root = ROOT.replace("summary: Register a pet", "summary: Register a pet (theirs)")
    root.write_text(theirs_root, encoding="utf-8")
    # the watcher took it in
    qtbot.waitUntil(lambda: window.document.workspace.root.text == theirs_root, timeout=20_000)
    assert window.edit.form.summary.text() == "Register a pet (theirs)"
    assert window.document.workspace.modified_names() == ["schemas/pet.yaml"]
    assert window.save()
    assert root.read_text(encoding="utf-8") == theirs_root and pet.read_text(encoding="utf-8") == mine


def test_a_change_on_disk_to_an_edited_file_asks_and_keeping_mine_overwrites_it(window, open_spec, two_files,
                                                                                 qtbot):
    root, pet = two_files
    open_spec(root)
    describe_pet_name(window, "Mine.")
    mine = window.document.workspace.edited["schemas/pet.yaml"].text
    asked = []
    window.ask_conflict = lambda: asked.append(True) or ConflictChoice.MINE
    pet.write_text(PET.replace("A pet and how", "Their pet and how"), encoding="utf-8")
    qtbot.waitUntil(lambda: bool(asked), timeout=20_000)
    assert window.document.check_disk() is DiskOutcome.SAME
    assert window.document.workspace.modified_names() == ["schemas/pet.yaml"]
    assert window.save()
    assert pet.read_text(encoding="utf-8") == mine and root.read_text(encoding="utf-8") == ROOT


def test_reset_brings_back_the_property_as_it_is(window, open_spec, two_files):
    root, _pet = two_files
    open_spec(root)
    window.document.reveal_problem(finding(window, "property-description-missing"))
    window.edit.form.property_description.setText("Typed, then reset.")
    window.edit.form.reset_button.click()
    assert window.edit.form.property_pointer == "/Pet/properties/nickname"
    assert window.edit.form.property_description.text() == "" and window.edit.form.property_description.isEnabled()


def test_a_save_during_a_re_check_does_not_leave_the_findings_stale(window, open_spec, two_files, qtbot):
    root, _pet = two_files
    open_spec(root)
    window.document.reveal_problem(finding(window, "property-description-missing"))
    window.edit.form.property_description.setText("Saved while the re-check runs.")
    window.document.recheck_timer.setInterval(0)  # the re-check starts at once
    saved = []

    def save_as_the_recheck_starts() -> None:  # connected after the document's own slot: the job has started
        window.document.recheck_timer.timeout.disconnect(save_as_the_recheck_starts)
        saved.append((window.is_loading, window.save()))

    window.document.recheck_timer.timeout.connect(save_as_the_recheck_starts)
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        window.edit.form.apply_button.click()
        qtbot.waitUntil(lambda: bool(saved), timeout=10_000)
    assert saved == [(True, True)]  # saved while the re-check ran, whatever its speed
    qtbot.waitUntil(lambda: not window.is_loading, timeout=30_000)
    assert "property-description-missing" not in {e.finding.rule for e in window.problems.entries()}
    edited = window.document.workspace.edited
    assert window.loaded.spec.documents["schemas/pet.yaml"].text == edited["schemas/pet.yaml"].text


def test_a_referenced_file_moved_away_does_not_stop_the_watch(window, open_spec, two_files, qtbot):
    root, pet = two_files
    open_spec(root)
    pet.rename(pet.with_name("animal.yaml"))
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):  # another editor moves the schema and its ref
        root.write_text(ROOT.replace("schemas/pet.yaml", "schemas/animal.yaml"), encoding="utf-8")
    edited = window.document.workspace.edited
    assert "schemas/animal.yaml" in edited and "schemas/pet.yaml" not in edited


def test_a_file_taken_in_from_disk_cannot_be_reverted_by_undo(window, open_spec, two_files, qtbot):
    root, pet = two_files
    open_spec(root)
    edit_root_summary(window, "Root edited")  # an unsaved edit elsewhere: a change to pet is taken in, not reloaded
    describe_pet_name(window, "Mine, then undone.")
    window.undo_action.trigger()  # pet has no unsaved edit, but redo would bring one back
    theirs = PET.replace("A pet and how", "Their pet and how")
    pet.write_text(theirs, encoding="utf-8")
    qtbot.waitUntil(lambda: window.document.workspace.edited["schemas/pet.yaml"].text == theirs, timeout=20_000)
    assert len(window.document.workspace.history) == 0  # no step can bring back the pet file from before their change
    assert window.document.workspace.modified_names() == [str(root)]


def test_a_file_half_written_on_disk_is_read_again_later(window, open_spec, two_files, qtbot):
    root, pet = two_files
    open_spec(root)
    edit_root_summary(window, "Root edited")
    window.ask_conflict = lambda: pytest.fail("pet has no unsaved edits: nothing to ask")
    pet.write_text("Pet: [unclosed\n", encoding="utf-8")  # another editor, in the middle of saving
    with qtbot.waitSignal(window.document.diskChanged) as blocker:
        assert window.document.check_disk() is DiskOutcome.MERGED
    assert blocker.args[0].outcome is DiskOutcome.MERGED and len(blocker.args[0].unreadable) == 1
    assert window.document.workspace.modified_names() == [str(root)]  # the unreadable text is not taken for an edit
    theirs = PET.replace("A pet and how", "Their pet and how")
    pet.write_text(theirs, encoding="utf-8")
    assert window.document.check_disk() is DiskOutcome.MERGED
    assert window.document.workspace.edited["schemas/pet.yaml"].text == theirs


def test_undo_brings_back_a_file_a_re_check_dropped(window, open_spec, two_files, qtbot):
    root, _pet = two_files
    open_spec(root)
    describe_pet_name(window, "Described.")
    assert window.save()
    window.document.reveal_operation(window.loaded.operations[0])
    # The root no longer refers to the pet file: the re-check drops it from the spec.
    window.edit.form.description.setPlainText("Registers a new pet; the body is free-form now.")
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        window.edit.apply(window.edit.form.pointer, window.edit.form.values())
        edited = window.document.workspace.root.text.replace("{$ref: 'schemas/pet.yaml#/Pet'}", "{type: object}")
        from workbench.spec.source import parse_text
        root = window.document.workspace.root
        window.document.set_document(parse_text(edited, root.path, root.name))
    assert "schemas/pet.yaml" not in window.document.workspace.edited
    window.undo_action.trigger()  # back to the text with the $ref (the direct set above is not a step)
    window.undo_action.trigger()  # and the pet description undone: pet is in the spec again, edited
    assert window.document.workspace.disk_diff().count("+++") == len(window.document.workspace.modified_names())
    assert window.document.check_disk() is DiskOutcome.SAME


def test_no_edit_is_made_while_the_files_are_being_read_again(window, open_spec, two_files, qtbot):
    root, _pet = two_files
    open_spec(root)
    window.document.reveal_problem(finding(window, "property-description-missing"))
    window.edit.form.property_description.setText("Typed during a reload.")
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        window.reload()
        assert not window.edit.apply(window.edit.form.pointer or "", window.edit.form.values())
    assert not window.isWindowModified() and len(window.document.workspace.history) == 0
