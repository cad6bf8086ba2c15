"""A jump (a Problems row, a Tools row, Go to Line) leaves its line in view: the window settling after it (a dock
made taller, the theme switched, a big text still going in) does not push the line out of the source view."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.catalogue import corpus_file
from workbench.gui.models import EntryRole

BIG = corpus_file("box-openapi.json")  # 1.7 MB: the source view fills it by slices over several turns

pytestmark = pytest.mark.skipif(not BIG.is_file(), reason="the corpus is not here")


def settle(rounds: int = 5) -> None:
    for _ in range(rounds):
        QApplication.processEvents()


def cursor_in_view(view) -> bool:
    """The cursor's line is wholly inside the source view's viewport."""
    return view.viewport().rect().contains(view.cursorRect())


def centred(view) -> bool:
    """The cursor's line is in the middle of the viewport (within a line)."""
    middle = view.viewport().rect().center().y()
    return abs(view.cursorRect().center().y() - middle) <= view.fontMetrics().height()


def far_problem_row(window, from_line: int):
    """A Problems row (an index of the view) whose finding is at least `from_line` lines down its file."""
    for index in window.problems.model.leaf_indexes():
        entry = window.problems.model.data(index, EntryRole)
        if entry.start.line >= from_line:
            return index, entry
    raise AssertionError(f"no finding below line {from_line}")


def taller_bottom(window, name: str, height: int) -> None:
    dock = window.docks[name]
    dock.show()
    dock.raise_()
    window.resizeDocks([dock], [height], Qt.Orientation.Vertical)


def test_a_jump_from_a_problems_row_stays_in_view_when_the_dock_grows_and_the_theme_changes(window, open_spec,
                                                                                            qtbot):
    window.resize(1024, 700)
    taller_bottom(window, "problems", 120)
    settle()
    open_spec(BIG, timeout=90_000)
    view = window.source.view
    assert not view.is_complete  # the jump comes while the text is still going in
    index, entry = far_problem_row(window, 20_000)
    problems = window.problems.view
    problems.setFocus()
    problems.setCurrentIndex(index)
    with qtbot.waitSignal(window.problems.problemActivated):
        qtbot.keyClick(problems, Qt.Key.Key_Return)
    assert view.cursor_line_column() == (entry.start.line, entry.start.column)
    settle()
    assert cursor_in_view(view)
    taller_bottom(window, "problems", 420)  # the Problems dock made taller: the source view shorter
    settle()
    assert cursor_in_view(view) and centred(view), (view.cursorRect(), view.viewport().rect())
    window.set_theme("dark", save=False)
    settle()
    assert cursor_in_view(view) and centred(view)
    qtbot.waitUntil(lambda: view.is_complete, timeout=60_000)
    settle()
    assert cursor_in_view(view) and centred(view)
    assert view.cursor_line_column() == (entry.start.line, entry.start.column)
    # once the user scrolls, the view stays where the user put it
    view.verticalScrollBar().triggerAction(view.verticalScrollBar().SliderAction.SliderPageStepAdd)
    scrolled = view.verticalScrollBar().value()
    taller_bottom(window, "problems", 300)
    settle()
    assert view.verticalScrollBar().value() == scrolled


def test_a_jump_from_a_tools_row_stays_in_view_when_the_dock_grows(window, open_spec, qtbot):
    window.resize(1024, 700)
    settle()
    window.focus_tools()  # a hidden panel converts nothing
    with qtbot.waitSignal(window.tools.previewReady, timeout=90_000) as blocker:
        window.open_path(BIG)
    toolset = blocker.args[0].toolset
    view = window.source.view
    entries = {(e.operation.method, e.operation.path): e for e in window.loaded.operations}
    tool = max(toolset.tools, key=lambda t: entries[(t.operation.method, t.operation.path)].start.line)
    entry = entries[(tool.operation.method, tool.operation.path)]
    assert entry.start.line > 20_000
    assert window.tools.select_tool(tool.name)
    with qtbot.waitSignal(view.spanShown):
        qtbot.keyClick(window.tools.view, Qt.Key.Key_Return)  # Enter on the row: its operation in the source
    assert view.cursor_line_column() == (entry.start.line, entry.start.column)
    settle()
    assert cursor_in_view(view) and centred(view)
    taller_bottom(window, "tools", 470)
    settle()
    assert cursor_in_view(view) and centred(view), (view.cursorRect(), view.viewport().rect())
    window.set_theme("dark", save=False)
    settle()
    assert cursor_in_view(view) and centred(view)


def test_go_to_line_before_the_text_is_all_in_centres_the_line_once_it_is(window, open_spec, qtbot):
    window.resize(1024, 700)
    settle()
    open_spec(BIG, timeout=90_000)
    view = window.source.view
    assert not view.is_complete
    line = view.document().blockCount() + 2000  # beyond what is in yet
    window.source.go_to_line(line)
    assert view.cursor_line_column()[0] == line
    assert view.document().blockCount() - line < 5  # the text stops just below the line for now
    qtbot.waitUntil(lambda: view.is_complete, timeout=60_000)
    settle()
    assert cursor_in_view(view) and centred(view)
