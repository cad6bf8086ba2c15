"""The files on disk while the window shows them: one question at a time when they change under unsaved edits,
other files in the spec's folder ignored, and a reload that keeps the place."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from workbench.examples import example_path
from workbench.workspace import ConflictChoice


@pytest.fixture
def shop(tmp_path) -> Path:
    target = tmp_path / "shop-api.yaml"
    shutil.copyfile(example_path(), target)
    return target


def replace_atomically(path: Path, text: str) -> None:
    """As many editors save: a temporary file renamed over the file."""
    temporary = path.with_name(f".{path.name}.editor.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def edit_a_description(window) -> str:
    entry = next(e for e in window.problems.entries() if e.finding.rule == "operation-description-missing")
    window.document.reveal_problem(entry)
    window.edit.form.description.setPlainText("Cancels an order that has not shipped yet.")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    return window.document.workspace.root.text


def test_one_conflict_question_at_a_time(window, open_spec, shop, qtbot):
    open_spec(shop)
    mine = edit_a_description(window)
    asked = []

    def ask():  # a modal question: the event loop runs (and the folder changes) while it is open
        asked.append(1)
        for n in range(3):
            (shop.parent / f"unrelated-{n}.txt").write_text("build output", encoding="utf-8")
            qtbot.wait(150)
        qtbot.wait(500)
        return ConflictChoice.MINE

    window.ask_conflict = ask
    theirs = shop.read_text(encoding="utf-8").replace("summary: List customers", "summary: List all customers")
    replace_atomically(shop, theirs)
    qtbot.waitUntil(lambda: bool(asked), timeout=10_000)
    qtbot.wait(1500)  # any check the question's answer scheduled has run
    assert asked == [1]
    assert window.document.workspace.root.text == mine and window.isWindowModified()
    assert window.document.workspace.root_disk_text == theirs


def test_files_that_are_not_part_of_the_spec_are_ignored(window, open_spec, shop, qtbot):
    open_spec(shop)
    edit_a_description(window)
    window.ask_conflict = lambda: pytest.fail("the spec did not change: nothing to ask")
    timer = window.document.disk_timer
    for n in range(3):
        (shop.parent / f"notes-{n}.md").write_text("# notes", encoding="utf-8")
        deadline = time.monotonic() + 0.4  # the folder's notification arrives within this
        while time.monotonic() < deadline:
            qtbot.wait(10)
            assert not timer.isActive()
    # the spec's own file written in place is still noticed
    shop.write_text(shop.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    qtbot.waitUntil(timer.isActive, timeout=5_000)


def test_a_change_on_disk_without_edits_reloads_in_place(window, open_spec, shop, qtbot):
    open_spec(shop)
    entry = next(e for e in window.problems.entries() if e.finding.rule == "operation-description-missing")
    window.document.reveal_problem(entry)
    view = window.source.view
    line, column = view.cursor_line_column()
    assert line > 5
    selected = view.selected_source()
    assert selected
    form = window.edit.form
    pointer = form.pointer
    assert pointer  # the form shows the finding's operation
    # another program adds a comment line at the end: everything above stays where it was
    theirs = shop.read_text(encoding="utf-8") + "# reviewed\n"
    with qtbot.waitSignal(window.documentLoaded, timeout=20_000):
        replace_atomically(shop, theirs)
    assert window.document.workspace.root.text == theirs == view.toPlainText()
    assert view.cursor_line_column() == (line, column)
    assert view.selected_source() == selected
    assert form.pointer == pointer and form.operation_id.text()  # the form shows the same operation
    message = window.statusBar().currentMessage()
    assert "reloaded: changed on disk" in message and "Opened" not in message
    assert shop.name in message
