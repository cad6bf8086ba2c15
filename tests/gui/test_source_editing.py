"""The source view as an editor: typing goes through the workspace (one undo step per pause, journaled, saved
exactly), find and replace, go to line, zoom kept in the settings, and a spec that does not parse opened as text
with its `parser` finding, fixed by typing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from tests.catalogue import PET, PET_NAME, PETS_ROOT, run_until_killed
from workbench.examples import example_path
from workbench.gui.document import TYPING_PAUSE_MS
from workbench.gui.main_window import MainWindow
from workbench.workspace import LoadKind, SaveChoice
from workbench.workspace.typing import TypedDocument


@pytest.fixture
def shop(tmp_path) -> Path:
    target = tmp_path / "shop-api.yaml"
    shutil.copyfile(example_path(), target)
    return target


def put_cursor(view, line: int, column: int = 1) -> None:
    cursor = QTextCursor(view.document())
    cursor.setPosition(view.qt_position(line, column))
    view.setTextCursor(cursor)
    view.setFocus()


def type_keys(qtbot, view, text: str) -> None:
    """Type as a person does: one key event per character (Enter for a line break)."""
    for char in text:
        if char == "\n":
            qtbot.keyClick(view, Qt.Key.Key_Return)
        else:
            qtbot.keyClicks(view, char)


def wait_settled(qtbot, window) -> None:
    """Until the pause has made the typing a step and the re-check after it has been taken."""
    ws = window.document.workspace
    qtbot.waitUntil(lambda: not ws.is_typing and not window.document.is_loading and ws.is_checked(),
                    timeout=30_000)


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def typed_at_start(qtbot, window, open_spec, path: Path, keys: str):
    """Open `path` and type `keys` at its start: (the text as on disk, the view, the workspace)."""
    text = path.read_text(encoding="utf-8")
    open_spec(path)
    view = window.source.view
    put_cursor(view, 1)
    type_keys(qtbot, view, keys)
    return text, view, window.document.workspace


def test_typing_edits_the_document_undo_restores_and_save_writes_exactly_that(window, open_spec, shop, qtbot):
    original = shop.read_bytes()
    text = original.decode("utf-8")
    open_spec(shop)
    view = window.source.view
    assert not view.isReadOnly()
    line = line_of(text, "title:")
    put_cursor(view, line + 1)
    type_keys(qtbot, view, "# Typed in the source view\n")
    ws = window.document.workspace
    assert ws.is_typing and window.isWindowModified()  # the title says so at once; the step comes at the pause
    wait_settled(qtbot, window)
    lines = text.split("\n")
    expected = "\n".join([*lines[:line], "# Typed in the source view", *lines[line:]])
    assert ws.root.text == expected and view.toPlainText() == expected
    assert len(ws.history) == 1 and window.undo_action.text() == "&Undo Typing"
    assert not isinstance(ws.root, TypedDocument)  # the re-check parsed it
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the workspace's undo, in the view
    assert ws.root.text == text and view.toPlainText() == text and not window.isWindowModified()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert ws.root.text == expected and view.toPlainText() == expected
    window.save()
    assert shop.read_bytes() == expected.encode("utf-8")
    assert shop.with_name(shop.name + ".bak").read_bytes() == original


def test_keystrokes_within_a_pause_are_one_step_and_a_pause_starts_another(window, open_spec, shop, qtbot):
    text, view, ws = typed_at_start(qtbot, window, open_spec, shop, "# one\n")
    wait_settled(qtbot, window)
    put_cursor(view, 1)
    type_keys(qtbot, view, "# two\n")
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    type_keys(qtbot, view, "\n")
    wait_settled(qtbot, window)
    assert ws.root.text == "# two\n# one\n" + text and len(ws.history) == 2
    window.undo_action.trigger()
    assert ws.root.text == "# one\n" + text and view.toPlainText() == ws.root.text
    window.undo_action.trigger()
    assert ws.root.text == text and view.toPlainText() == text


def test_a_form_edit_after_typing_flows_into_the_view_without_echo(window, open_spec, shop, qtbot):
    _text, view, ws = typed_at_start(qtbot, window, open_spec, shop, "# typed\n")
    wait_settled(qtbot, window)
    entry = next(e for e in window.problems.entries() if e.finding.rule == "operation-description-missing")
    window.document.reveal_problem(entry)
    window.edit.form.description.setPlainText("Cancels an order that has not shipped yet.")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    assert view.toPlainText() == ws.root.text and ws.root.text.startswith("# typed\n")
    assert "Cancels an order that has not shipped yet." in ws.root.text
    assert len(ws.history) == 2 and not ws.is_typing  # the form's splices did not come back as typing
    window.undo_action.trigger()
    window.undo_action.trigger()
    assert ws.root.text == shop.read_text(encoding="utf-8") == view.toPlainText()


def test_an_edit_in_the_form_before_the_recheck_is_refused_with_the_reason(window, open_spec, shop, qtbot):
    open_spec(shop)
    view = window.source.view
    ws = window.document.workspace
    entry = next(e for e in window.problems.entries() if e.finding.rule == "operation-description-missing")
    window.document.reveal_problem(entry)
    put_cursor(view, 1)
    type_keys(qtbot, view, "# typed\n")
    window.edit.form.description.setPlainText("Cancels an order.")
    assert not window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    assert any("being checked" in reason for reason in ws.last_refused)
    assert ws.root.text.startswith("# typed\n") and "Cancels an order." not in ws.root.text
    wait_settled(qtbot, window)
    window.document.reveal_problem(next(e for e in window.problems.entries()
                                        if e.finding.rule == "operation-description-missing"))
    window.edit.form.description.setPlainText("Cancels an order.")
    assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())
    assert "Cancels an order." in ws.root.text == view.toPlainText()


def test_crlf_and_astral_text_map_keystrokes_to_the_right_characters(window, open_spec, tmp_path, qtbot):
    text = shutil.copyfile(example_path(), tmp_path / "x.yaml").read_text(encoding="utf-8")
    text = text.replace("title:", "title: 🚢 ships", 1).replace("\n", "\r\n")
    path = tmp_path / "crlf.yaml"
    path.write_bytes(text.encode("utf-8"))
    open_spec(path)
    view = window.source.view
    line = line_of(text, "🚢")
    put_cursor(view, line, len(text.split("\r\n")[line - 1]) + 1)  # the end of the line with the emoji
    type_keys(qtbot, view, " ahoy\n# next")
    wait_settled(qtbot, window)
    lines = text.split("\r\n")
    expected = "\r\n".join([*lines[: line - 1], lines[line - 1] + " ahoy", "# next", *lines[line:]])
    assert window.document.workspace.root.text == expected
    window.save()
    assert path.read_bytes() == expected.encode("utf-8")


def test_find_replace_and_go_to_line(window, open_spec, shop, qtbot):
    text = shop.read_text(encoding="utf-8")
    open_spec(shop)
    view = window.source.view
    bar = window.source.find_bar
    put_cursor(view, 1)
    view.find_text("orderId")
    first = view.cursor_line_column()
    assert first[0] == line_of(text, "orderId") and view.textCursor().selectedText() == "orderId"
    next(a for a in window.source.find_actions if a.text() == "&Find…").trigger()
    assert bar.isVisible() and bar.find_edit.text() == "orderId"  # the selection is what is looked for
    assert bar.find_next() and view.cursor_line_column() > first
    assert bar.find_previous() and view.cursor_line_column() == first
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return)  # Enter: the next one
    assert view.cursor_line_column() > first
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # Shift+Enter: back
    assert view.cursor_line_column() == first
    bar.find_edit.setText("no such words anywhere")
    assert not bar.find_next() and bar.result.text() == "Not found"
    next(a for a in window.source.find_actions if a.text() == "Find and &Replace…").trigger()
    bar.find_edit.setText("orderId")
    bar.replace_edit.setText("orderKey")
    bar.case.setChecked(True)
    count = text.count("orderId")
    assert count > 1
    assert bar.replace_all() == count and bar.result.text() == f"{count} replaced"
    wait_settled(qtbot, window)
    ws = window.document.workspace
    assert ws.root.text == text.replace("orderId", "orderKey") == view.toPlainText()
    assert len(ws.history) == 1
    window.undo_action.trigger()
    assert ws.root.text == text
    put_cursor(view, 1)
    bar.find_edit.setText("orderId")
    assert bar.replace_next()  # the first found and selected
    assert bar.replace_next()  # that one replaced, the next selected
    wait_settled(qtbot, window)
    assert ws.root.text == text.replace("orderId", "orderKey", 1)
    qtbot.keyClick(bar.find_edit, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    next(a for a in window.source.find_actions if a.text() == "&Go to Line…").trigger()
    dialog = window.source.line_dialog
    assert dialog.isVisible()
    dialog.setIntValue(40)
    dialog.accept()
    assert view.cursor_line_column() == (40, 1)


def test_zoom_changes_the_font_and_is_kept_in_the_settings(window, settings, qtbot):
    view = window.source.view
    size = view.font().pointSizeF()
    zoom_in, zoom_out, actual = window.source.zoom_actions
    zoom_in.trigger()
    zoom_in.trigger()
    assert view.font().pointSizeF() == size + 2 and settings.value("source/zoom", type=int) == 2
    zoom_out.trigger()
    assert view.font().pointSizeF() == size + 1 and settings.value("source/zoom", type=int) == 1
    again = MainWindow(settings)
    qtbot.addWidget(again)
    assert again.source.view.font().pointSizeF() == size + 1  # a new window starts at the size kept
    actual.trigger()
    assert view.font().pointSizeF() == size and settings.value("source/zoom", type=int) == 0


def test_a_yaml_syntax_error_opens_as_text_and_typing_the_fix_loads_the_spec(window, open_spec, shop, qtbot):
    good = shop.read_text(encoding="utf-8")
    line = line_of(good, "title:")
    bad = good.replace("title: ", "title: [", 1)
    shop.write_text(bad, encoding="utf-8")
    loaded = open_spec(shop)
    assert not loaded.parsed and window.error_box is None  # no popup: the text, with the finding
    view = window.source.view
    assert view.toPlainText() == bad and not view.isReadOnly()
    (entry,) = window.problems.entries()
    assert entry.finding.rule == "parser" and entry.start.line >= line
    cli = subprocess.run([sys.executable, "-m", "workbench", "lint", str(shop)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert f"{shop}:{entry.start.line}:{entry.start.column} error parser" in cli.stdout  # where the CLI says
    assert "does not parse" in window.source.location_label.text()
    window.document.reveal_problem(entry, focus=True)
    assert view.cursor_line_column() == (entry.start.line, entry.start.column)
    column = bad.split("\n")[line - 1].index("[") + 1
    put_cursor(view, line, column + 1)
    qtbot.keyClick(view, Qt.Key.Key_Backspace)  # the stray bracket typed away
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded.parsed, timeout=30_000)
    wait_settled(qtbot, window)
    assert window.document.workspace.root.text == good == view.toPlainText()
    assert window.loaded.operations and all(e.finding.rule != "parser" for e in window.problems.entries())
    assert "operations" in window.source.location_label.text()


KILLED_TYPIST = """
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication
from PySide6.QtTest import QTest
from workbench.gui.app import configure_application
from workbench.gui.main_window import MainWindow

app = QApplication([])
configure_application(app)
window = MainWindow(QSettings(sys.argv[2], QSettings.Format.IniFormat))
window.show()
window.documentLoaded.connect(lambda _loaded: app.quit())
window.open_path(Path(sys.argv[1]))
app.exec()
view = window.source.view
view.setFocus()
view.moveCursor(QTextCursor.MoveOperation.Start)
QTest.keyClicks(view, "# typed before the crash")
QTest.keyClick(view, Qt.Key.Key_Return)
QTest.qWait(1500)  # a pause: the keystrokes become a step, written to the journal
assert not window.document.workspace.is_typing
Path(sys.argv[3]).write_text(window.document.workspace.root.text, encoding="utf-8")
print("typed", flush=True)
QTimer.singleShot(120_000, app.quit)  # never reached: the test kills this process
app.exec()
"""


def test_typed_text_is_recovered_after_the_process_is_killed(window, open_spec, shop, settings, tmp_path):
    expected = tmp_path / "expected.txt"
    run_until_killed(KILLED_TYPIST, [str(shop), settings.fileName(), str(expected)], "typed")
    assert shop.read_text(encoding="utf-8") == example_path().read_text(encoding="utf-8")  # never saved
    window.ask_recover = lambda: True
    open_spec(shop)
    typed = expected.read_text(encoding="utf-8")
    assert typed.startswith("# typed before the crash\n")
    assert window.document.workspace.root.text == typed == window.source.view.toPlainText()
    assert window.isWindowModified()


def test_closing_with_typing_not_yet_a_step_asks_to_save(window, open_spec, shop, qtbot):
    typed_at_start(qtbot, window, open_spec, shop, "# x\n")
    asked = []
    window.ask_save_changes = lambda: asked.append(True) or SaveChoice.SAVE
    window.close()
    QApplication.processEvents()
    assert asked and shop.read_text(encoding="utf-8").startswith("# x\n")
    assert TYPING_PAUSE_MS > 0


def test_the_positions_map_follows_splices_and_reads_a_big_text_piecewise():
    import random

    from workbench.gui.source_view import DisplayMap, display_text

    def units(text: str) -> int:
        return len(display_text(text).encode("utf-16-le")) // 2

    rng = random.Random(3)
    pieces = ("a", "é", "🚢", "\r\n", "\n", "xyz")  # (a lone CR beside a typed LF would make a new CRLF)
    text = "".join(rng.choice(pieces) for _ in range(400))
    partial = DisplayMap(text, scan_now=False)
    while not partial.complete:
        partial.scan(7)  # a few characters at a time: a CRLF at a cut is never split
    edited = DisplayMap(text)
    for _ in range(60):
        start = rng.randint(0, len(text))
        while start and text[start - 1] == "\r" and start < len(text) and text[start] == "\n":
            start -= 1  # never between the two characters of a CRLF (no Qt position is there)
        end = min(len(text), start + rng.choice((0, 1, 4)))
        if end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
            end += 1
        typed = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 3)))
        edited.splice(start, end, typed)
        text = text[:start] + typed + text[end:]
    fresh = DisplayMap(text)
    for core in range(len(text) + 1):
        if core and text[core - 1] == "\r" and core < len(text) and text[core] == "\n":
            continue
        unit = units(text[:core])
        assert edited.to_unit(core) == fresh.to_unit(core) == unit
        assert edited.to_core(unit) == core
    assert partial.to_unit(0) == 0




def test_typing_into_a_referenced_file_is_checked_and_saved_there(window, open_spec, write, qtbot):
    root, pet = write("api.yaml", PETS_ROOT), write(PET_NAME, PET)
    described = PET + "      description: The name the pet answers to\n"
    open_spec(root)
    ws = window.document.workspace
    window.source.show_file(ws.edited[PET_NAME])
    view = window.source.view
    put_cursor(view, 6, len("      type: string") + 1)
    type_keys(qtbot, view, "\n      description: The name the pet answers to")
    wait_settled(qtbot, window)
    assert ws.edited[PET_NAME].text == described
    assert ws.root.text == PETS_ROOT and view.toPlainText() == described
    put_cursor(view, 5, 5)
    type_keys(qtbot, view, "[")  # a syntax error in the referenced file: its parser finding, in that file
    qtbot.waitUntil(lambda: window.loaded is not None and not window.loaded.parsed, timeout=30_000)
    (entry,) = window.problems.entries()
    assert entry.finding.rule == "parser" and entry.finding.document.name == PET_NAME
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: window.loaded is not None and window.loaded.parsed, timeout=30_000)
    wait_settled(qtbot, window)
    window.save()
    assert pet.read_text() == described and root.read_text() == PETS_ROOT


def test_a_recheck_that_ends_while_typing_does_not_cut_the_typing_in_two(window, open_spec, shop, qtbot):
    text, view, ws = typed_at_start(qtbot, window, open_spec, shop, "# one\n")
    ws.settle()  # the pause
    window.document.recheck_timer.stop()
    window.document.recheck()  # its re-check runs while the typing goes on
    assert window.document.is_loading
    pause = window.document.typing_timer
    pause.setInterval(600_000)  # the pause comes after the re-check has ended, however slow the machine
    type_keys(qtbot, view, "# two\n")
    qtbot.waitUntil(lambda: not window.document.is_loading, timeout=30_000)
    assert ws.is_typing and len(ws.history) == 1  # the result was dropped, the typing left as it is
    pause.setInterval(TYPING_PAUSE_MS)
    pause.start()
    wait_settled(qtbot, window)
    assert len(ws.history) == 2 and ws.root.text == "# one\n# two\n" + text


def test_no_typing_while_the_file_is_read_again_and_typing_that_cancels_out_leaves_it_unmodified(
        window, open_spec, shop, qtbot):
    open_spec(shop)
    view = window.source.view
    assert not view.isReadOnly()
    with qtbot.waitSignal(window.documentLoaded, timeout=30_000):
        window.document.open(shop, LoadKind.RELOAD)
        assert window.document.is_reading and view.isReadOnly()  # what is typed now would be replaced
    assert not view.isReadOnly()
    put_cursor(view, 1)
    type_keys(qtbot, view, "#")
    assert window.isWindowModified() or window.document.workspace.is_typing
    qtbot.keyClick(view, Qt.Key.Key_Backspace)  # typed away again
    qtbot.waitUntil(lambda: not window.isWindowModified(), timeout=10_000)  # once the pause has come
    assert not window.document.workspace.is_modified and not window.revert_action.isEnabled()
