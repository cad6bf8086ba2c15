"""The Tools panel end to end: a corpus file opened in the window, a vendor and a tag picked, and the list, the
export and the config checked against what `workbench tools` prints for the same file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QLabel

from workbench.cli import main as cli_main
from workbench.config import ToolsConfig
from workbench.gui.panels import tools as tools_panel
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace import LoadKind
from workbench.workspace.loading import spec_config

CORPUS = Path("/work/shared/corpus")
README = CORPUS / "readme-v3.0-readme.yaml"

pytestmark = pytest.mark.skipif(not README.is_file(), reason="the corpus is not here")


@pytest.fixture
def readme(tmp_path) -> Path:
    target = tmp_path / "readme.yaml"
    shutil.copyfile(README, target)
    return target


def wait_preview(qtbot, window, change=None, timeout: int = 30_000):
    """Do `change` and wait for the preview it causes (or the first one, when a load started it)."""
    with qtbot.waitSignal(window.tools.previewReady, timeout=timeout) as blocker:
        if change is not None:
            change()
    return blocker.args[0]


def open_with_preview(qtbot, window, path: Path):
    window.focus_tools()  # a hidden panel converts nothing (see the last test)
    with qtbot.waitSignal(window.tools.previewReady, timeout=30_000) as blocker:
        window.open_path(path)
    return blocker.args[0]


def cli_json(tmp_path: Path, spec: Path, *flags: str) -> str:
    out = tmp_path / "cli.json"
    assert cli_main(["tools", str(spec), "--format", "json", "--output", str(out), *flags]) == 0
    return out.read_text(encoding="utf-8")


def test_vendor_and_tag_write_the_config_and_the_list_is_what_the_cli_prints(qtbot, window, readme, tmp_path):
    preview = open_with_preview(qtbot, window, readme)
    assert preview.toolset.vendor == "openai" and len(window.tools.shown_names()) == len(preview.toolset.tools) > 20
    assert not (readme.parent / ".workbench.yaml").exists()  # nothing written until the user changes something
    wait_preview(qtbot, window, lambda: window.tools.set_choice("Anthropic"))
    preview = wait_preview(qtbot, window, lambda: window.tools.set_tags(("Categories",)))
    assert spec_config(readme).tools == ToolsConfig(vendor="anthropic", tags=("Categories",))
    expected = build_toolset(window.loaded.spec, spec_config(readme), ToolOverrides())
    assert preview.toolset.vendor == "anthropic"
    assert window.tools.shown_names() == [t.name for t in expected.tools] and len(expected.tools) == 6
    printed = json.loads(cli_json(tmp_path, readme))
    assert list(printed["mapping"]) == window.tools.shown_names()
    assert printed["tools"] == preview.toolset.native
    assert {r["path"] for r in printed["rejected"]} == {row[0].split(" ", 1)[1] for row in window.tools.rejected_rows()}


def test_the_export_is_byte_for_byte_the_cli_output(qtbot, window, readme, tmp_path):
    open_with_preview(qtbot, window, readme)
    wait_preview(qtbot, window, lambda: window.tools.set_choice("Gemini"))
    exported = tmp_path / "panel.json"
    window.tools.export_to(exported)
    assert exported.read_text(encoding="utf-8") == cli_json(tmp_path, readme)  # with --output FILE
    window.tools.copy_all()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() + "\n" == exported.read_text(encoding="utf-8")


def test_anthropic_strict_excluded_tags_and_geminis_json_schema_form_are_what_the_cli_prints(
        qtbot, window, readme, tmp_path):
    open_with_preview(qtbot, window, readme)
    wait_preview(qtbot, window, lambda: window.tools.set_choice("Anthropic strict"))
    preview = wait_preview(qtbot, window, lambda: window.tools.set_exclude_tags(("Categories",)))
    assert spec_config(readme).tools == ToolsConfig(vendor="anthropic", strict=True, exclude_tags=("Categories",))
    assert all(tool.get("strict") is True for tool in preview.toolset.native)
    assert json.loads(cli_json(tmp_path, readme))["tools"] == preview.toolset.native
    assert "Categories" not in {tag for t in preview.toolset.tools for tag in t.operation.tags}

    wait_preview(qtbot, window, lambda: window.tools.set_choice("Gemini"))
    plain = json.loads(window.tools.json_text())
    preview = wait_preview(qtbot, window, lambda: window.tools.set_choice("Gemini JSON Schema"))
    assert spec_config(readme).tools.vendor == "gemini"  # the form is a way of looking, not written
    assert json.loads(cli_json(tmp_path, readme, "--gemini-json-schema"))["tools"] == preview.toolset.native
    assert "parametersJsonSchema" in json.dumps(preview.toolset.native)
    assert json.loads(window.tools.json_text()) != plain
    assert window.tools.vendor_combo.currentText() == "Gemini JSON Schema"


def test_an_existing_config_keeps_its_comments(qtbot, window, readme):
    config = readme.parent / ".workbench.yaml"
    original = ("# the team's settings\nrules:\n  enum-in-prose: warn  # we care\n"
                "tools:\n  vendor: openai  # the default\n  read-only: false\n")
    config.write_text(original, encoding="utf-8")
    open_with_preview(qtbot, window, readme)
    preview = wait_preview(qtbot, window, lambda: window.tools.set_option("read_only", True))
    text = config.read_text(encoding="utf-8")
    assert text == original.replace("read-only: false", "read-only: true")
    assert all(t.operation.method in ("get", "head", "options") for t in preview.toolset.tools)
    assert window.tools.checks["read_only"].isChecked()


def test_a_tool_jumps_to_its_operation_and_an_operation_to_its_tool(qtbot, window, readme):
    preview = open_with_preview(qtbot, window, readme)
    tool = preview.toolset.tools[3]
    assert window.tools.select_tool(tool.name)
    assert window.tools.go_to_operation()
    entry = next(e for e in window.loaded.operations
                 if (e.operation.method, e.operation.path) == (tool.operation.method, tool.operation.path))
    assert window.source.view.cursor_line_column() == (entry.start.line, entry.start.column)
    assert window.outline.current_entry() is entry
    other = next(e for e in window.loaded.operations if e.operation.path != tool.operation.path)
    window.document.reveal_operation(other)
    current = preview.toolset.tool(window.tools.current_tool())
    assert (current.operation.method, current.operation.path) == (other.operation.method, other.operation.path)
    assert window.tools.wire_rows() == [(b.argument, b.location + (" (person)" if b.human else ""),
                                         ".".join(b.body_path) if b.location == "body-field" and b.body_path
                                         else b.name, "yes" if b.required else "") for b in current.bindings]
    assert json.loads(window.tools.json_text()) == preview.toolset.native[preview.toolset.tools.index(current)]


def test_a_description_fixed_in_the_edit_form_changes_the_tool(qtbot, window, readme):
    preview = open_with_preview(qtbot, window, readme)
    tool = preview.toolset.tools[0]
    entry = next(e for e in window.loaded.operations
                 if (e.operation.method, e.operation.path) == (tool.operation.method, tool.operation.path))
    window.document.reveal_operation(entry)
    text = "Lists every category of the project's documentation, with the number of pages in each."
    window.edit.form.description.setPlainText(text)

    def apply() -> None:
        assert window.edit.apply(window.edit.form.pointer, window.edit.form.values())

    with qtbot.waitSignal(window.document.loaded, timeout=30_000,
                          check_params_cb=lambda _loaded, kind: kind is LoadKind.RECHECK):
        after = wait_preview(qtbot, window, apply, timeout=30_000)
    new = after.toolset.tools[0]
    assert new.name == tool.name and text in new.description and text not in tool.description
    assert text in window.tools.json_text()
    assert f"{tool.name}: description changed" in window.tools.changes_text()


def test_side_by_side_marks_what_differs_between_two_vendors(qtbot, window, readme):
    preview = open_with_preview(qtbot, window, readme)
    window.tools.select_tool(preview.toolset.tools[1].name)
    with qtbot.waitSignal(window.tools.comparisonReady, timeout=30_000) as blocker:
        window.tools.compare("OpenAI Chat", "Gemini")
    sides = blocker.args[0]
    assert json.loads(sides.left) == preview.toolset.native[1]
    assert json.loads(sides.right)["name"] == preview.toolset.tools[1].name
    assert sides.left_changed and sides.right_changed
    assert window.tools.left_view.toPlainText() == sides.left
    assert len(window.tools.left_view.extraSelections()) == len(sides.left_changed)


def test_the_list_filters_and_sorts_and_the_bar_says_the_limits(qtbot, window, readme):
    preview = open_with_preview(qtbot, window, readme)
    count = len(preview.toolset.tools)
    assert window.tools.bar.property("level") == ("amber" if count > 40 else "ok")
    # the count is said in a line of the window's text colour above the bar, never drawn on the coloured chunk
    label = window.tools.limit_label
    assert not window.tools.bar.isTextVisible()
    assert label.full_text().startswith(f"{count} tools · ~{preview.total_tokens} tokens")
    assert (count > 40) == (" · over Cursor 40" in label.full_text())
    assert label.fontMetrics().horizontalAdvance(QLabel.text(label)) <= label.contentsRect().width()
    window.tools.filter_edit.setText("categor")
    shown = window.tools.shown_names()
    assert shown and all("categor" in n.lower() or "categor" in preview.toolset.tool(n).operation.path.lower()
                         for n in shown)
    window.tools.filter_edit.setText("")
    window.tools.view.sortByColumn(2, window.tools.view.horizontalHeader().sortIndicatorOrder().DescendingOrder)
    tokens = [preview.toolset.tokens.per_tool[n] for n in window.tools.shown_names()]
    assert tokens == sorted(tokens, reverse=True)


def test_an_operation_id_renamed_in_the_form_is_said_as_a_renamed_tool_and_undo_brings_it_back(qtbot, window,
                                                                                                 readme):
    preview = open_with_preview(qtbot, window, readme)
    tool = preview.toolset.tools[2]
    window.tools.select_tool(tool.name)
    window.tools.go_to_operation()  # the Edit form shows the tool's operation
    window.edit.form.operation_id.setText("renamedForAgents")

    def recheck_done(_loaded, kind) -> bool:
        return kind is LoadKind.RECHECK

    with qtbot.waitSignal(window.document.loaded, timeout=30_000, check_params_cb=recheck_done):
        after = wait_preview(qtbot, window, lambda: window.edit.apply(window.edit.form.pointer,
                                                                      window.edit.form.values()))
    assert after.toolset.tools[2].name == "renamedForAgents" and tool.name not in window.tools.shown_names()
    assert f"{tool.name} renamed renamedForAgents" in window.tools.changes_text()
    assert window.tools.current_tool() == "renamedForAgents"  # still the tool of the operation shown
    with qtbot.waitSignal(window.document.loaded, timeout=30_000, check_params_cb=recheck_done):
        back = wait_preview(qtbot, window, window.document.undo)
    assert [t.name for t in back.toolset.tools] == [t.name for t in preview.toolset.tools]


def test_a_hidden_panel_converts_once_it_is_shown(qtbot, window, open_spec, readme):
    open_spec(readme)  # the Tools tab is behind Problems
    assert window.tools.preview is None and window.tools.is_stale and not window.tools.is_building
    with qtbot.waitSignal(window.tools.previewReady, timeout=30_000) as blocker:
        window.focus_tools()
    assert [t.name for t in blocker.args[0].toolset.tools] == window.tools.shown_names()
    assert not window.tools.is_stale


def test_a_conversion_overtaken_by_a_newer_choice_is_dropped(qtbot, window, readme):
    open_with_preview(qtbot, window, readme)
    shown = []
    window.tools.previewReady.connect(lambda preview: shown.append(preview.toolset.vendor))
    with qtbot.waitSignal(window.tools.build_timer.timeout, timeout=10_000):
        window.tools.set_choice("Anthropic")
    assert window.tools.jobs.current is not None  # converting for Anthropic now
    with qtbot.waitSignal(window.tools.previewReady, timeout=30_000):
        window.tools.set_choice("MCP")
    qtbot.wait(200)  # the dropped conversion has ended by now or reports nothing when it does
    assert shown == ["mcp"] and window.tools.preview.toolset.vendor == "mcp"
    assert spec_config(readme).tools.vendor == "mcp"
    warned = next(t for t in window.tools.preview.toolset.tools if t.warnings)
    window.tools.select_tool(warned.name)
    assert set(warned.warnings) <= set(window.tools.warnings())
    assert window.tools.warnings_list.count() == len(window.tools.warnings())


def test_the_list_is_filled_in_slices_while_the_previous_one_stays_shown(qtbot, window, readme, monkeypatch):
    monkeypatch.setattr(tools_panel, "ROWS_PER_SLICE", 7)
    filled: list[tools_panel.SlicedModel] = []
    built = window.tools._built

    def keep_filling(job, preview) -> None:
        built(job, preview)
        filled.append(window.tools.filling)
        assert window.tools.model.rowCount() == 0 and window.tools.is_building  # the list shown is the old one

    window.tools.jobs.succeeded.disconnect(built)
    window.tools.jobs.succeeded.connect(keep_filling)
    preview = open_with_preview(qtbot, window, readme)
    assert len(filled) == 1 and sum(filled[0].slices) == len(preview.rows) > 20
    assert max(filled[0].slices) <= 7 and len(filled[0].slices) == -(-len(preview.rows) // 7)
    assert window.tools.shown_names() == [t.name for t in preview.toolset.tools] and not window.tools.is_building
    assert window.tools.current_row() is not None


def test_a_newer_conversion_stops_the_filling_of_an_older_list(qtbot, window, readme, monkeypatch):
    monkeypatch.setattr(tools_panel, "ROWS_PER_SLICE", 1)
    open_with_preview(qtbot, window, readme)
    shown = []
    window.tools.previewReady.connect(lambda preview: shown.append(preview.toolset.vendor))
    with qtbot.waitSignal(window.tools.jobs.succeeded, timeout=30_000):
        window.tools.set_choice("Anthropic")
    assert window.tools.filling is not None and window.tools.filling.slices == []
    with qtbot.waitSignal(window.tools.previewReady, timeout=30_000):
        window.tools.set_choice("MCP")
    qtbot.wait(100)
    assert shown == ["mcp"] and window.tools.shown_names() == [t.name for t in window.tools.preview.toolset.tools]


def test_a_big_files_conversion_waits_until_its_text_is_all_shown(qtbot, window):
    from tests.catalogue import GITHUB, corpus_file

    window.focus_tools()
    complete_when_started: list[bool] = []
    start = window.tools.jobs.start

    def noting(fn, tag=None):
        complete_when_started.append(window.source.view.is_complete)
        return start(fn, tag)

    window.tools.jobs.start = noting
    with qtbot.waitSignal(window.tools.previewReady, timeout=240_000) as blocker:
        window.open_path(corpus_file(GITHUB))
    assert complete_when_started == [True] and len(blocker.args[0].toolset.tools) > 800
    assert window.tools.shown_names() == [t.name for t in blocker.args[0].toolset.tools]


def test_at_1024_by_700_the_scope_controls_fit_their_column_uncut(qtbot, window, readme):
    """The column of scope controls is narrow at 1024 pixels: each control is as wide as it needs and inside the
    column's width (a combo with its arrow, a spin box with its buttons, a check box with its whole text), none cut
    off at the right (the column scrolls up and down, never sideways)."""
    window.resize(1024, 700)
    open_with_preview(qtbot, window, readme)
    QApplication.processEvents()
    panel = window.tools
    viewport = panel.controls.viewport()
    assert panel.controls.width() <= 220  # the column is as narrow as the window leaves it
    for widget in (panel.vendor_combo, panel.tags_edit, panel.exclude_edit, panel.operations_edit, panel.depth_spin,
                   *panel.checks.values(), panel.config_label):
        placed = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
        assert placed.left() >= 0 and placed.right() <= viewport.rect().right(), (widget.objectName(), placed,
                                                                                  viewport.rect())
        assert widget.width() >= widget.minimumSizeHint().width(), widget.objectName()
    for box in panel.checks.values():
        assert box.width() >= box.sizeHint().width(), box.text()  # its whole text shown
    label = panel.limit_label  # the count against the caps: cut to its width with an ellipsis, never clipped
    assert label.fontMetrics().horizontalAdvance(QLabel.text(label)) <= label.contentsRect().width()


TWO_OPERATIONS = """openapi: 3.0.3
info: {title: Two, version: '1'}
paths:
  /items:
    get:
      operationId: listItems
      responses: {'200': {description: ok}}
  /old:
    get:
      operationId: oldItems
      deprecated: true
      responses: {'200': {description: ok}}
"""


def test_an_empty_left_out_tab_says_that_nothing_was_left_out(qtbot, window, tmp_path):
    spec = tmp_path / "two.yaml"
    spec.write_text(TWO_OPERATIONS, encoding="utf-8")
    window.resize(1024, 700)
    tools = window.tools
    note = tools.rejected_note
    assert not note.is_shown()  # nothing converted yet: a bare table, no claim
    open_with_preview(qtbot, window, spec)
    tools.tabs.setCurrentWidget(tools.rejected_table)
    assert tools.rejected_rows() == [("GET /old", "deprecated (use --include-deprecated)")]
    assert not note.is_shown()  # rows: no note over them
    wait_preview(qtbot, window, lambda: tools.set_option("include_deprecated", True))
    assert tools.rejected_rows() == [] and tools.tabs.tabText(3) == "Left Out"
    assert note.is_shown() and note.isVisible()
    assert note.text() == "Nothing left out: every operation in scope became a tool."
    viewport = tools.rejected_table.viewport()
    assert note.geometry() == viewport.rect() and viewport.width() > 200  # over the table's whole area
    room = note.contentsRect()
    wrapped = note.fontMetrics().boundingRect(room, int(Qt.TextFlag.TextWordWrap), note.text())
    assert wrapped.width() <= room.width() and wrapped.height() <= room.height()  # all of it readable
    wait_preview(qtbot, window, lambda: tools.set_option("include_deprecated", False))
    assert len(tools.rejected_rows()) == 1 and not note.is_shown()


def test_the_operation_column_leaves_the_tool_names_their_room_first():
    assert tools_panel.operation_width(400, 200, 150) == 150  # both whole: the operations as wide as they are
    assert tools_panel.operation_width(400, 230, 250) == 170  # what the names leave
    assert tools_panel.operation_width(400, 390, 250) == 140  # but at least its share of the room
    assert tools_panel.operation_width(400, 100, 900) == 300  # long operations, short names: the rest


def test_at_1024_pixels_the_tool_names_are_shown_whole_and_the_operations_fit_beside_them(qtbot, window, readme):
    window.resize(1024, 700)
    preview = open_with_preview(qtbot, window, readme)
    tools = window.tools
    view, header = tools.view, tools.view.horizontalHeader()
    metrics = view.fontMetrics()
    names = max(metrics.horizontalAdvance(r.name) for r in preview.rows)
    operations = max(metrics.horizontalAdvance(r.operation) for r in preview.rows)
    room = view.viewport().width() - header.sectionSize(2) - header.sectionSize(3)
    assert header.sectionSize(0) + header.sectionSize(1) == room  # the four columns fill the list
    assert header.sectionSize(1) == tools_panel.operation_width(room, *tools._needed)
    if names + operations + 2 * tools_panel.CELL_PADDING <= room:  # both fit: neither is shortened
        assert header.sectionSize(0) >= names + tools_panel.CELL_PADDING
        assert header.sectionSize(1) >= operations + tools_panel.CELL_PADDING
    else:  # the names first: the Tool column is the wider, unless the names are whole already
        assert (header.sectionSize(0) >= names + tools_panel.CELL_PADDING
                or header.sectionSize(1) == int(room * tools_panel.OPERATION_SHARE))
    first = tools.proxy.index(0, 0)
    assert first.data(Qt.ItemDataRole.ToolTipRole).split("\n")[0] == first.data()  # the whole name in its tip
    width = view.width()
    tools.splitter.setSizes([190, 300, 540])  # a narrower list: fitted again
    qtbot.waitUntil(lambda: view.width() != width)
    room = view.viewport().width() - header.sectionSize(2) - header.sectionSize(3)
    assert header.sectionSize(1) == tools_panel.operation_width(room, *tools._needed)
