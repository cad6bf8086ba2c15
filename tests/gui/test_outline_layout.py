"""The outline at the width a dock gets: long paths cut in the middle (the whole path in the tooltip), the
Details column whole, resizable columns; its filter follows the box after a pause and its count follows it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QHeaderView

from tests.catalogue import HEAD
from workbench.gui.models import EntryRole

LONG_PATH = "/v2/Services/{ServiceSid}/AccessTokens/{AccessTokenSid}/Verifications/{VerificationSid}/Attempts"


def write_spec(folder):
    path = folder / "twilio-like.yaml"
    paths = "".join(f"""  {LONG_PATH}/{n}:
    get:
      operationId: get{n}
      summary: Get {n}
      responses: {{'200': {{description: ok}}}}
""" for n in range(3))
    path.write_text(HEAD + "paths:\n" + paths + """  /short:
    get: {operationId: short, responses: {'200': {description: ok}}}
    post: {operationId: shortPost, responses: {'200': {description: ok}}}
components:
  schemas:
    Attempt:
      type: object
      properties: {status: {type: string}, sid: {type: string}, channel: {type: string}}
    Service:
      type: object
      properties: {status: {type: string}, name: {type: string}}
    Empty: {type: object}
""", encoding="utf-8")
    return path


def test_long_paths_are_cut_in_the_middle_and_the_details_stay_whole(window, open_spec, tmp_path):
    open_spec(write_spec(tmp_path))
    outline = window.outline
    window.docks["outline"].show()
    window.resizeDocks([window.docks["outline"]], [300], Qt.Orientation.Horizontal)  # as on a 1024-pixel screen
    QApplication.processEvents()
    view, header = outline.view, outline.view.header()
    assert view.textElideMode() is Qt.TextElideMode.ElideMiddle
    assert header.sectionResizeMode(0) is QHeaderView.ResizeMode.Interactive
    font = view.font()
    font.setBold(True)  # (a group's count is bold)
    metrics = QFontMetrics(font)
    proxy = outline.proxy
    details = [proxy.index(row, 1).data() for row in range(proxy.rowCount())]
    assert "1 operation" in details and "2 operations" in details
    assert header.sectionSize(1) >= max(metrics.horizontalAdvance(text) for text in details) + 8  # not "1 oper"
    assert header.sectionSize(0) + header.sectionSize(1) <= view.viewport().width() + 1
    first = proxy.index(0, 0)
    assert first.data() == f"{LONG_PATH}/0"
    assert metrics.horizontalAdvance(first.data()) > header.sectionSize(0)  # so it is cut...
    assert first.data(Qt.ItemDataRole.ToolTipRole).startswith(f"{LONG_PATH}/0")  # ...and whole in the tooltip
    # the user's width for the first column stays when the dock is resized
    header.resizeSection(0, 90)
    window.resizeDocks([window.docks["outline"]], [window.docks["outline"].width() + 60], Qt.Orientation.Horizontal)
    QApplication.processEvents()
    assert header.sectionSize(0) == 90


def test_the_filter_waits_for_a_pause_in_typing_and_the_count_follows_it(window, open_spec, tmp_path, qtbot):
    open_spec(write_spec(tmp_path))
    outline = window.outline
    outline.set_mode("schema")
    assert outline.count_text() == "3 schemas, 5 properties"
    qtbot.keyClicks(outline.filter_edit, "status")
    assert outline.proxy.filter_text() == ""  # not a filter for each keystroke
    qtbot.waitUntil(lambda: outline.proxy.filter_text() == "status", timeout=2_000)
    assert [(e.schema, e.name) for e in outline.entries()] == [("Attempt", "status"), ("Service", "status")]
    assert outline.count_text() == "2 of 3 schemas, 2 of 5 properties shown"
    outline.set_filter_text("Empty")  # a schema without properties is found by its name
    assert outline.count_text() == "1 of 3 schemas, 0 of 5 properties shown"
    outline.set_mode("path")
    outline.set_filter_text("short")
    assert outline.count_text() == "2 shown of 5 operations"
    assert [outline.proxy.index(0, 0).data()] == ["/short"]
    outline.set_filter_text("")
    assert outline.count_text() == "5 operations"
    assert all(outline.proxy.data(outline.proxy.index(r, 0, outline.proxy.index(0, 0)), EntryRole)
               for r in range(outline.proxy.rowCount(outline.proxy.index(0, 0))))
