"""The edit session without Qt: steps across two files with undo and redo, the recovery journal, saving exactly
the edited files, and each outcome of a change made on disk."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.catalogue import PET, PET_NAME, PETS_ROOT
from workbench.edit import Edit, apply_edits
from workbench.edit.journal import RecoveryJournal
from workbench.spec.source import parse_text
from workbench.workspace import (
    ConflictChoice,
    DiskOutcome,
    LoadKind,
    SaveError,
    Workspace,
    load_and_lint,
)

SUMMARY = "/paths/~1pets/post/summary"


@pytest.fixture
def files(write) -> tuple[Path, Path]:
    return write("api.yaml", PETS_ROOT), write("schemas/pet.yaml", PET)


def open_workspace(root: Path, recovery: Path) -> Workspace:
    workspace = Workspace(recovery)
    assert workspace.take_loaded(load_and_lint(root), LoadKind.OPEN)
    return workspace


@pytest.fixture
def workspace(files, tmp_path) -> Workspace:
    return open_workspace(files[0], tmp_path / "recovery")


def edit(workspace: Workspace, name: str, pointer: str, value, label: str = "Edit"):
    outcome = apply_edits(workspace.edited[name], [Edit(pointer, value)])
    assert outcome.applied, outcome.refused
    return workspace.apply(outcome, label)


def describe_pet(workspace: Workspace, text: str = "The pet's name."):
    return edit(workspace, PET_NAME, "/Pet/properties/name/description", text)


def test_steps_across_two_files_undo_and_redo_exactly(workspace, files):
    root_name = workspace.root_name
    original = dict(workspace.edited)
    changes = describe_pet(workspace)
    assert [(c.previous, c.document.name, c.from_disk) for c in changes] == [(original[PET_NAME], PET_NAME, False)]
    assert changes[0].splices and workspace.edited[PET_NAME].text.count("description: The pet's name.") == 1
    edit(workspace, root_name, SUMMARY, "Register one pet", "Summary")
    assert workspace.modified_names() == [root_name, PET_NAME]
    assert len(workspace.history) == 2 and workspace.history.undo_label == "Summary"
    assert workspace.edited_others() == [workspace.edited[PET_NAME]]

    undone = workspace.undo()
    assert [c.document for c in undone] == [original[root_name]]  # the very same document back
    assert undone[0].splices is not None  # the inverse splices, for a view to change only those lines
    assert workspace.modified_names() == [PET_NAME]
    workspace.undo()
    assert workspace.edited == original and not workspace.is_modified
    assert workspace.undo() == [] and workspace.history.redo_label == "Edit"
    workspace.redo()
    workspace.redo()
    assert workspace.modified_names() == [root_name, PET_NAME]
    assert "Register one pet" in workspace.root.text and workspace.redo() == []
    # a new step drops the steps undone
    workspace.undo()
    edit(workspace, root_name, SUMMARY, "Register a pet, once", "Again")
    assert len(workspace.history) == 2 and not workspace.history.can_redo


def test_one_step_may_change_several_files(workspace):
    original = dict(workspace.edited)
    outcomes = [apply_edits(workspace.edited[workspace.root_name], [Edit(SUMMARY, "Both files")]),
                apply_edits(workspace.edited[PET_NAME], [Edit("/Pet/properties/name/description", "Named.")])]
    changes = workspace.apply_all(outcomes, "Fix both")
    assert [c.document.name for c in changes] == [workspace.root_name, PET_NAME]
    assert len(workspace.history) == 1
    assert [c.document.name for c in workspace.undo()] == [PET_NAME, workspace.root_name]  # last first
    assert workspace.edited == original


def test_a_refused_edit_is_no_step_and_says_why(workspace):
    outcome = apply_edits(workspace.root, [Edit("/paths/~1pets/post/nothing/here", "x")])
    assert not outcome.applied
    assert workspace.apply(outcome, "Nothing") == []
    assert workspace.last_refused and len(workspace.history) == 0


def test_the_journal_follows_the_unsaved_edits_and_is_offered_back(workspace, files, tmp_path):
    _root, pet = files
    journal = RecoveryJournal(tmp_path / "recovery", pet)
    past = time.time() - 60
    os.utime(pet, (past, past))  # a journal is read back only when newer than its file
    describe_pet(workspace, "First.")
    assert journal.read().text == workspace.edited[PET_NAME].text and journal.read().steps == 0
    describe_pet(workspace, "Second.")
    assert journal.read().text == workspace.edited[PET_NAME].text and journal.read().steps == 1  # appended
    edited = workspace.edited[PET_NAME].text

    after_crash = open_workspace(files[0], tmp_path / "recovery")
    found = after_crash.recoverable()
    assert [(document.name, recovered.text) for document, recovered in found] == [(PET_NAME, edited)]
    changes = after_crash.recover(found)
    assert [c.document.text for c in changes] == [edited]
    assert after_crash.modified_names() == [PET_NAME] and after_crash.history.undo_label == "Recover unsaved edits"
    after_crash.undo()
    assert after_crash.edited[PET_NAME].text == PET

    workspace.undo()
    workspace.undo()
    assert not journal.path.exists()  # back to the text on disk: nothing to recover


def test_save_writes_exactly_the_edited_files(workspace, files):
    root, pet = files
    describe_pet(workspace, "Saved.")
    assert workspace.save() == [PET_NAME]
    assert pet.read_text(encoding="utf-8") == workspace.edited[PET_NAME].text != PET
    assert pet.with_name("pet.yaml.bak").read_text(encoding="utf-8") == PET
    assert root.read_text(encoding="utf-8") == PETS_ROOT and not root.with_name("api.yaml.bak").exists()
    assert not workspace.is_modified and workspace.disk[PET_NAME] == workspace.edited[PET_NAME].text
    assert workspace.save() == [workspace.root_name]  # nothing changed: Save writes the root again
    assert root.with_name("api.yaml.bak").read_text(encoding="utf-8") == PETS_ROOT


def test_save_as_writes_the_root_elsewhere_and_the_other_edits_in_place(workspace, files, tmp_path):
    root, pet = files
    describe_pet(workspace, "Shared.")
    edit(workspace, workspace.root_name, SUMMARY, "Elsewhere")
    target = tmp_path / "copy.yaml"
    workspace.save_as(target)
    assert target.read_text(encoding="utf-8") == workspace.root.text and "Elsewhere" in target.read_text()
    assert root.read_text(encoding="utf-8") == PETS_ROOT
    assert pet.read_text(encoding="utf-8") == workspace.edited[PET_NAME].text


def test_a_file_that_cannot_be_written_raises_save_error(workspace, files):
    _root, pet = files
    describe_pet(workspace)
    (pet.parent / "pet.yaml.bak" / "pet.yaml").mkdir(parents=True)  # the backup cannot be written (even by root)
    with pytest.raises(SaveError) as raised:
        workspace.save()
    assert raised.value.path == pet and str(raised.value).startswith(f"{pet}: ")
    assert workspace.modified_names() == [PET_NAME] and pet.read_text(encoding="utf-8") == PET


def test_nothing_changed_on_disk(workspace):
    assert workspace.merge_from_disk().outcome is DiskOutcome.SAME


def test_a_change_on_disk_without_unsaved_edits_asks_for_a_reload(workspace, files):
    root, _pet = files
    root.write_text(PETS_ROOT.replace("Register a pet", "Register a pet (theirs)"), encoding="utf-8")
    merge = workspace.merge_from_disk()
    assert merge.outcome is DiskOutcome.RELOAD and merge.needs_reload and list(merge.changed) == [str(root)]
    assert workspace.root.text == PETS_ROOT  # nothing taken: the spec is read again


def test_a_change_to_an_unedited_file_is_taken_in_and_the_edits_elsewhere_stay(workspace, files):
    root, _pet = files
    describe_pet(workspace, "Mine.")
    mine = workspace.edited[PET_NAME]
    theirs = PETS_ROOT.replace("Register a pet", "Register a pet (theirs)")
    root.write_text(theirs, encoding="utf-8")
    merge = workspace.merge_from_disk()
    assert merge.outcome is DiskOutcome.MERGED and not merge.needs_reload
    assert [(c.document.name, c.document.text, c.from_disk) for c in merge.taken] == [(str(root), theirs, True)]
    assert workspace.root.text == theirs and workspace.edited[PET_NAME] is mine
    assert workspace.modified_names() == [PET_NAME] and not merge.history_cleared
    assert workspace.merge_from_disk().outcome is DiskOutcome.SAME


def test_a_change_to_an_edited_file_is_a_conflict_until_chosen(workspace, files, tmp_path):
    _root, pet = files
    describe_pet(workspace, "Mine.")
    mine = workspace.edited[PET_NAME]
    theirs = PET.replace("# Pets", "# Their pets")
    pet.write_text(theirs, encoding="utf-8")
    merge = workspace.merge_from_disk()
    assert merge.outcome is DiskOutcome.CONFLICT and merge.conflicting == (PET_NAME,)
    assert workspace.edited[PET_NAME] is mine and workspace.disk[PET_NAME] == PET  # nothing changed yet
    assert workspace.resolve(merge, ConflictChoice.THEIRS).outcome is DiskOutcome.RELOAD_THEIRS
    kept = workspace.resolve(merge, ConflictChoice.MINE)
    assert kept.outcome is DiskOutcome.KEPT and kept.taken == ()
    assert workspace.edited[PET_NAME] is mine and workspace.disk[PET_NAME] == theirs
    assert workspace.modified_names() == [PET_NAME]
    assert workspace.merge_from_disk().outcome is DiskOutcome.SAME  # their text is known now
    workspace.save()
    assert pet.read_text(encoding="utf-8") == mine.text  # Save overwrites theirs


def test_a_half_written_file_is_read_again_later(workspace, files):
    _root, pet = files
    edit(workspace, workspace.root_name, SUMMARY, "Root edited")
    pet.write_text("Pet: [unclosed\n", encoding="utf-8")
    merge = workspace.merge_from_disk()
    assert merge.outcome is DiskOutcome.MERGED and merge.taken == () and len(merge.unreadable) == 1
    assert workspace.edited[PET_NAME].text == PET and workspace.modified_names() == [workspace.root_name]
    theirs = PET.replace("# Pets", "# Their pets")
    pet.write_text(theirs, encoding="utf-8")
    assert workspace.merge_from_disk().outcome is DiskOutcome.MERGED
    assert workspace.edited[PET_NAME].text == theirs


def test_a_file_taken_in_clears_a_history_that_would_put_it_back(workspace, files):
    _root, pet = files
    edit(workspace, workspace.root_name, SUMMARY, "Root edited")
    describe_pet(workspace, "Mine, then undone.")
    workspace.undo()  # pet has no unsaved edit, but redo would bring one back
    pet.write_text(PET.replace("# Pets", "# Their pets"), encoding="utf-8")
    merge = workspace.merge_from_disk()
    assert merge.outcome is DiskOutcome.MERGED and merge.history_cleared and len(workspace.history) == 0


def test_the_root_gone_and_another_file_gone(workspace, files):
    root, pet = files
    edit(workspace, workspace.root_name, SUMMARY, "Root edited")
    pet.unlink()
    assert workspace.merge_from_disk().gone == (PET_NAME,)
    root.unlink()
    assert workspace.merge_from_disk().outcome is DiskOutcome.MISSING


def test_a_re_check_adds_the_files_the_edits_refer_to_and_drops_the_others(workspace, files):
    root, _pet = files
    original = workspace.root
    without_ref = parse_text(PETS_ROOT.replace("{$ref: 'schemas/pet.yaml#/Pet'}", "{type: object}"), original.path,
                             original.name)
    workspace.set_document(without_ref)  # as an edit would leave it
    assert not workspace.is_checked()
    checked = load_and_lint(root, text=workspace.root.text, documents=workspace.edited_others())
    assert workspace.take_loaded(checked, LoadKind.RECHECK)  # the pet file left the spec
    assert PET_NAME not in workspace.edited and workspace.disk[PET_NAME] == PET
    assert workspace.is_checked() and not workspace.take_loaded(checked, LoadKind.RECHECK)
    workspace.set_document(original)  # the $ref back: the next re-check brings the file back
    checked = load_and_lint(root, text=workspace.root.text, documents=workspace.edited_others())
    assert workspace.take_loaded(checked, LoadKind.RECHECK) and workspace.edited[PET_NAME].text == PET
