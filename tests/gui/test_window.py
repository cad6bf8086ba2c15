"""The main window as a user drives it: open (in the background), outline, problems, jumps, F8, filters,
themes, errors, recent files, drag and drop."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDropEvent, QPalette
from PySide6.QtWidgets import QApplication

from tests.catalogue import corpus_dir
from workbench.config import find_config, load_config
from workbench.gui.models import EntryRole
from workbench.gui.panels.status import SCORE_WIDTH
from workbench.gui.theme import DARK_CODE, LIGHT_CODE
from workbench.lint import Severity, lint
from workbench.lint.score import score
from workbench.spec import load_spec
from workbench.workspace import ProblemEntry
from workbench.workspace.loading import KNOWN_NAMES

TRAVEL = corpus_dir() / "readme-v3.1-train-travel.yaml"
GITHUB = corpus_dir() / "github-api.github.com-2022-07-18.json"


def core_result(path: Path):
    spec = load_spec(path)
    return spec, lint(spec, load_config(find_config(path), KNOWN_NAMES).lint)


def problem_leaves(window):
    return window.problems.model.leaf_indexes()


def outline_leaves(window):
    return window.outline.entries()


def assert_cursor_at(window, entry: ProblemEntry) -> None:
    assert window.source.view.cursor_line_column() == (entry.start.line, entry.start.column)
    text = entry.finding.document.text
    # the span as the core gives it, without the whitespace up to the next key
    assert window.source.view.selected_source() == text[entry.start.offset:entry.location.end.offset].rstrip()


def test_open_shows_what_the_core_found(window, open_spec):
    loaded = open_spec(TRAVEL)
    spec, result = core_result(TRAVEL)
    assert window.windowTitle() == "readme-v3.1-train-travel.yaml[*] — Agent Spec Workbench"
    assert window.outline.model.operation_count() == len(spec.operations)
    assert sum(not e.operation.webhook for e in outline_leaves(window)) == len(spec.operations)
    counts = Counter(f.severity for f in result.findings)
    assert window.problems.counts() == {s: counts.get(s, 0) for s in Severity if s is not Severity.OFF}
    assert len(problem_leaves(window)) == len(result.findings) == len(loaded.problems)
    for severity, button in window.status.severity_buttons.items():
        assert button.text() == str(counts.get(severity, 0))
    assert window.status.score_label.text() == f"Readiness {loaded.score.headline()}" == (
        f"Readiness {score(result).score}/100")
    assert window.source.view.toPlainText() == spec.root.text
    assert window.recent.paths() == [str(TRAVEL)]


def test_the_window_collects_garbage_as_rarely_as_a_command_however_it_was_started(qtbot, settings):
    """A full pass of the collector on a worker building the GitHub spec held the interpreter lock 0.2-0.3 s, and the
    UI thread waited that long for its next Python call: the window sets the command line's policy itself."""
    import gc

    from workbench.gui.main_window import MainWindow
    from workbench.spec.limits import FULL_EVERY, MIDDLE_EVERY, YOUNG_PASS_EVERY

    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # Python's default: a window built by another program than ours
    try:
        window = MainWindow(settings)
        qtbot.addWidget(window)
        assert gc.get_threshold() == (YOUNG_PASS_EVERY, MIDDLE_EVERY, FULL_EVERY)
        assert YOUNG_PASS_EVERY >= 50_000 and MIDDLE_EVERY * FULL_EVERY >= 5_000
    finally:
        gc.set_threshold(*before)


def test_a_large_spec_loads_without_blocking_the_ui(window, open_spec, qtbot):
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(window.status.progress_label.text()))
    timer.start(5)
    try:
        loaded = open_spec(GITHUB)
    finally:
        timer.stop()
    assert len(ticks) > 3, "the event loop did not run while the spec loaded"
    assert any(text.startswith(("Reading", "Linting", "Scoring", "Locating")) for text in ticks)
    assert not window.status.progress_label.isVisible()
    assert len(loaded.spec.operations) == 874
    assert window.outline.model.operation_count() == 874
    assert len(problem_leaves(window)) == len(loaded.result.findings)
    # F8 goes to each problem in the panel's order (errors first), Shift+F8 back, both wrap around
    leaves = problem_leaves(window)
    window.next_problem_action.trigger()
    assert window.problems.view.currentIndex() == leaves[0]
    assert_cursor_at(window, window.problems.model.data(leaves[0], EntryRole))
    window.previous_problem_action.trigger()
    last = window.problems.model.data(leaves[-1], EntryRole)
    assert window.problems.view.currentIndex() == leaves[-1]
    assert window.source.view.cursor_line_column() == (last.start.line, last.start.column)


def test_activating_a_problem_jumps_to_its_line_and_column(window, open_spec, qtbot):
    open_spec(TRAVEL)
    view = window.problems.view
    leaves = problem_leaves(window)
    target = leaves[3]
    rect = view.visualRect(target)
    with qtbot.waitSignal(window.problems.problemActivated) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    entry = blocker.args[0]
    assert entry is window.problems.model.data(target, EntryRole)
    assert_cursor_at(window, entry)
    assert window.source.view.textCursor().hasSelection()

    # Enter on another problem
    other = leaves[-1]
    view.setFocus()
    view.setCurrentIndex(other)
    window.source.view.moveCursor(window.source.view.textCursor().MoveOperation.Start)
    with qtbot.waitSignal(window.problems.problemActivated) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert blocker.args[0] is window.problems.model.data(other, EntryRole)
    assert_cursor_at(window, blocker.args[0])


def test_f8_and_shift_f8_are_window_shortcuts(window, open_spec, qtbot):
    open_spec(TRAVEL)
    leaves = problem_leaves(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.source.view.setFocus()
    qtbot.keyClick(window.source, Qt.Key.Key_F8)
    assert window.problems.view.currentIndex() == leaves[0]
    qtbot.keyClick(window.source, Qt.Key.Key_F8)
    assert window.problems.view.currentIndex() == leaves[1]
    assert_cursor_at(window, window.problems.model.data(leaves[1], EntryRole))
    qtbot.keyClick(window.source, Qt.Key.Key_F8, Qt.KeyboardModifier.ShiftModifier)
    assert window.problems.view.currentIndex() == leaves[0]


def test_filter_boxes(window, open_spec, qtbot):
    open_spec(TRAVEL)
    _spec, result = core_result(TRAVEL)
    everything = outline_leaves(window)
    qtbot.keyClicks(window.outline.filter_edit, "booking")
    qtbot.waitUntil(lambda: window.outline.proxy.filter_text() == "booking", timeout=2_000)  # after a pause
    kept = outline_leaves(window)
    assert kept and len(kept) < len(everything)
    assert all("booking" in f"{e.operation.path} {e.operation.operation_id}".lower() for e in kept)
    assert window.outline.count_text() == f"{len(kept)} shown of {len(_spec.operations)} operations"
    window.outline.filter_edit.clear()
    assert len(outline_leaves(window)) == len(everything)

    rule = "property-description-missing"
    window.problems.set_rule_filter(rule)
    shown = [window.problems.model.data(i, EntryRole) for i in problem_leaves(window)]
    assert len(shown) == sum(1 for f in result.findings if f.rule == rule)
    assert {e.finding.rule for e in shown} == {rule}
    assert window.problems.count_text() == f"{len(shown)} of {len(result.findings)} shown"
    qtbot.keyClicks(window.problems.filter_edit, "address_line")  # the text filter works within the rule filter
    assert 0 < len(problem_leaves(window)) == len(shown)
    window.problems.filter_edit.clear()
    qtbot.keyClicks(window.problems.filter_edit, "no such text anywhere")
    assert len(problem_leaves(window)) == 0
    window.problems.set_rule_filter(None)
    window.problems.filter_edit.clear()
    assert len(problem_leaves(window)) == len(result.findings)


def test_outline_modes_and_jump_to_an_operation(window, open_spec, qtbot):
    loaded = open_spec(TRAVEL)
    by = {window.outline.mode_combo.itemData(i): i for i in range(window.outline.mode_combo.count())}
    window.outline.mode_combo.setCurrentIndex(by["tag"])
    tags = [window.outline.proxy.data(window.outline.proxy.index(r, 0))
            for r in range(window.outline.proxy.rowCount())]
    assert tags[: len(loaded.spec.tag_names())] == [t for t in loaded.spec.tag_names() if t in tags]
    window.outline.mode_combo.setCurrentIndex(by["operationId"])
    assert window.outline.proxy.rowCount() == len(loaded.operations)
    index = window.outline.proxy.index(0, 0)
    entry = window.outline.proxy.data(index, EntryRole)
    window.outline.view.setCurrentIndex(index)
    window.outline.view.activated.emit(index)
    assert window.source.view.cursor_line_column() == (entry.start.line, entry.start.column)
    assert window.source.view.selected_source() in (entry.operation.method, entry.operation.method.upper())


def test_theme_switching_changes_the_palette(window, settings, qtbot):
    app = QApplication.instance()

    def base(widget) -> int:
        return widget.palette().color(QPalette.ColorRole.Base).lightness()

    window.theme_actions["dark"].trigger()
    assert window.theme == "dark" and window.theme_actions["dark"].isChecked()
    assert base(app) < 128
    qtbot.waitUntil(lambda: base(window.source) < 128)  # widgets follow on the next turn of the event loop
    assert window.source.view.highlighter.colors == DARK_CODE  # the source colours follow the theme
    assert settings.value("theme", type=str) == "dark"
    window.theme_actions["light"].trigger()
    assert base(app) > 200
    qtbot.waitUntil(lambda: window.source.view.highlighter.colors == LIGHT_CODE)


def test_a_file_that_cannot_be_loaded_shows_a_message_not_a_traceback(window, qtbot, tmp_path, open_spec):
    open_spec(TRAVEL)
    bad = tmp_path / "broken.yaml"
    bad.write_bytes(b"openapi: 3.0.0\ninfo: {title: \x80\x81}\npaths: {}\n")  # not text: it cannot be shown
    with qtbot.waitSignal(window.loadFailed) as blocker:
        window.open_path(bad)
    message = blocker.args[0]
    box = window.error_box
    assert box is not None and box.isVisible() and not box.isModal()
    assert box.informativeText() == message and "broken.yaml" in message
    assert "\n" not in message and "Traceback" not in message
    assert box.text() == "Cannot open broken.yaml"
    assert window.windowTitle().startswith("readme-v3.1-train-travel.yaml")  # what was open stays open
    assert window.statusBar().currentMessage() == message
    with qtbot.waitSignal(window.loadFailed) as blocker:
        window.open_path(tmp_path / "missing.yaml")
    assert "missing.yaml" in blocker.args[0]
    box.close()


def test_recent_files_are_existence_checked_and_can_be_cleared(window, open_spec, settings, tmp_path):
    gone = tmp_path / "gone.yaml"
    settings.setValue("recentFiles", [str(gone)])
    open_spec(TRAVEL)
    assert window.recent.paths() == [str(TRAVEL), str(gone)]
    window.recent.refresh_menu()
    labels = [a.text() for a in window.recent.menu.actions() if not a.isSeparator()]
    assert labels[0] == "&1 readme-v3.1-train-travel.yaml" and not any("gone" in label for label in labels)
    assert window.recent.paths() == [str(TRAVEL)]
    window.recent.clear_action.trigger()
    assert window.recent.paths() == []
    assert next(a.text() for a in window.recent.menu.actions() if not a.isSeparator()) == "No recent files"


def test_dropping_a_file_opens_it(window, qtbot):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(TRAVEL))])
    event = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.documentLoaded):
        window.dropEvent(event)
    assert event.isAccepted()
    assert window.loaded.path == TRAVEL


def test_cancel_drops_the_result(window, qtbot):
    with qtbot.waitSignal(window.loadCancelled):
        window.open_path(GITHUB)
        assert window.is_loading and window.status.cancel_button.isVisible()
        window.status.cancel_button.click()
    with qtbot.assertNotEmitted(window.documentLoaded, wait=50):
        assert window.document.jobs.wait(30_000)
        QApplication.processEvents()
    assert window.loaded is None and not window.is_loading


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_columns_count_characters_as_the_core_does(window, open_spec, tmp_path, newline):
    text = newline.join([
        "openapi: 3.0.3",
        "info: {title: \"Emoji 🚀🚀 API\", version: '1'}",
        "paths:",
        "  /things:",
        "    get:",
        "      summary: 🚀🚀 Get things",
        "      responses: {'200': {description: ok}}",
        "",
    ])
    path = tmp_path / "emoji.yaml"
    path.write_bytes(text.encode())
    loaded = open_spec(path)
    for entry in loaded.problems:
        window.document.reveal_problem(entry)
        assert window.source.view.cursor_line_column() == (entry.start.line, entry.start.column)


def test_a_finding_in_another_file_of_the_spec_opens_that_file(window, open_spec, tmp_path):
    (tmp_path / "root.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: Multi, version: '1'}\npaths:\n  /things:\n    get:\n"
        "      operationId: listThings\n      responses:\n        '200':\n          description: ok\n"
        "          content:\n            application/json:\n              schema:\n"
        "                $ref: 'schemas.yaml#/Thing'\n")
    schemas = "Thing:\n  type: object\n  properties:\n    size:\n      type: integer\n"
    (tmp_path / "schemas.yaml").write_text(schemas)
    loaded = open_spec(tmp_path / "root.yaml")
    elsewhere = next(e for e in loaded.problems if e.finding.document is not loaded.spec.root)
    window.document.reveal_problem(elsewhere)
    assert window.source.view.toPlainText() == schemas
    assert window.source.view.cursor_line_column() == (elsewhere.start.line, elsewhere.start.column)
    assert window.source.location_label.text().startswith(f"schemas.yaml:{elsewhere.start.line}:")
    root_entry = next(e for e in loaded.problems if e.finding.document is loaded.spec.root)
    window.document.reveal_problem(root_entry)
    assert window.source.view.toPlainText() == loaded.spec.root.text
    assert window.windowTitle() == "root.yaml[*] — Agent Spec Workbench"


def test_a_big_schema_outline_opens_collapsed_even_with_few_operations(window, open_spec, tmp_path):
    properties = "".join(f"        p{n}: {{type: string, description: Property {n}.}}\n" for n in range(200))
    spec = tmp_path / "many.yaml"
    spec.write_text("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n"
                    "      operationId: getA\n      responses: {'200': {description: ok}}\n"
                    "components:\n  schemas:\n    Big:\n      type: object\n      properties:\n" + properties,
                    encoding="utf-8")
    open_spec(spec)
    assert window.outline.view.isExpanded(window.outline.proxy.index(0, 0))  # one operation: open
    window.outline.mode_combo.setCurrentIndex(window.outline.mode_combo.findData("schema"))
    assert window.outline.proxy.rowCount(window.outline.proxy.index(0, 0)) == 200
    assert not window.outline.view.isExpanded(window.outline.proxy.index(0, 0))  # 200 properties: closed


def test_a_long_status_message_is_elided_before_the_counts_with_the_whole_of_it_in_the_tooltip(window, open_spec,
                                                                                                qtbot):
    window.resize(1024, 700)
    open_spec(TRAVEL)  # the counts and the readiness score take their room on the right
    bar, score = window.statusBar(), window.status.score_label
    qtbot.waitUntil(lambda: score.width() >= min(score.sizeHint().width(), SCORE_WIDTH))  # laid out, with its text
    assert score.width() <= SCORE_WIDTH  # a long score is elided (the whole of it in its tooltip), not the message
    message = ("Opened github-api.github.com-2022-07-18.json: 874 operations, 1959 findings in 1.18 s; "
               "the readiness score and the lint config in use are on the right of this bar.")

    def elided_before_the_counts() -> bool:
        shown = bar.shown_message()
        first_count = min(b.x() for b in window.status.severity_buttons.values())
        return (shown.endswith("\u2026") and message.startswith(shown[:-1])
                and bar.LEFT + bar.fontMetrics().horizontalAdvance(shown) <= first_count)

    bar.showMessage(message, 60_000)
    qtbot.waitUntil(elided_before_the_counts)
    assert bar.currentMessage() == message and bar.toolTip() == message  # the whole of it is still there
    shown = bar.shown_message()
    assert len(shown) > 60  # it gives way to the counts, no more
    window.resize(2400, 700)  # room enough: the whole message
    qtbot.waitUntil(lambda: bar.shown_message() == message)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: bar.shown_message() == shown)
    assert bar.currentMessage() == message
    bar.showMessage("Saved.", 5000)  # a short one is shown whole
    assert bar.shown_message() == bar.currentMessage() == "Saved." and bar.toolTip() == "Saved."
    bar.clearMessage()
    assert bar.currentMessage() == "" and bar.toolTip() == ""


def _contrast(a, b) -> float:
    """The WCAG contrast ratio of two colours."""
    def luminance(color) -> float:
        channels = [c / 255 for c in (color.red(), color.green(), color.blue())]
        r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _indicator_colors(box) -> list:
    """The colours painted in a check box's square (its outline, its fill, its mark), as the style lays it out."""
    style = box.style()
    side = style.pixelMetric(style.PixelMetric.PM_IndicatorWidth, None, box)
    image = box.grab().toImage()
    top = (box.height() - side) // 2
    return [image.pixelColor(x, y) for x in range(side) for y in range(top, top + side)]


def test_dark_check_boxes_show_their_square_and_tick_and_light_ones_are_unchanged(window, qtbot):
    from PySide6.QtWidgets import QCheckBox, QVBoxLayout, QWidget

    from workbench.gui.theme import dark_palette, light_palette

    holder = QWidget(window)  # shown inside the window: its palette is the one the themes set
    layout = QVBoxLayout(holder)
    off, on = QCheckBox("Read-only"), QCheckBox("Nested")
    on.setChecked(True)
    for box in (off, on):
        layout.addWidget(box)
    holder.show()
    window.set_theme("light", save=False)
    light = light_palette()
    roles = (QPalette.ColorRole.Window, QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.Base)
    qtbot.waitUntil(lambda: all(off.palette().color(r) == light.color(r) for r in roles))  # boxes as they were
    window.set_theme("dark", save=False)
    qtbot.waitUntil(lambda: off.palette().color(QPalette.ColorRole.Base).lightness() < 128)
    dark = dark_palette()
    window_color, fill = dark.color(QPalette.ColorRole.Window), dark.color(QPalette.ColorRole.Base)
    assert off.palette().color(QPalette.ColorRole.WindowText) == dark.color(QPalette.ColorRole.WindowText)  # label
    outline = max(_indicator_colors(off), key=lambda c: c.lightness())  # an unticked square: its outline
    assert _contrast(outline, window_color) >= 3 and _contrast(outline, fill) >= 3  # WCAG's 3:1 for controls
    mark = max(_indicator_colors(on), key=lambda c: c.lightness())
    assert _contrast(mark, fill) >= 7
    window.set_theme("light", save=False)  # and back: the check boxes take the light palette again
    qtbot.waitUntil(lambda: all(off.palette().color(r) == light.color(r) for r in roles))
