"""Previews and prompts say what they will do: coloured diffs with their counts, a confirm button naming the
fixes, a recovery question that shows what it restores, a conflict question that says what keeping costs."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDialogButtonBox, QLabel, QMessageBox, QPlainTextEdit, QPushButton

from workbench.edit.journal import RecoveryJournal
from workbench.examples import example_path
from workbench.gui import dialogs
from workbench.gui.highlighter import DIFF_COLORS


@pytest.fixture
def shop(tmp_path) -> Path:
    target = tmp_path / "shop-api.yaml"
    shutil.copyfile(example_path(), target)
    return target


def background_of_line(view: QPlainTextEdit, number: int) -> QColor | None:
    block = view.document().findBlockByNumber(number)
    ranges = block.layout().formats()
    return ranges[0].format.background().color() if ranges else None


def test_a_fix_all_preview_counts_its_fixes_and_colours_its_lines(window, open_spec, shop):
    open_spec(shop)
    rule = "string-format-missing"
    entries = [e for e in window.problems.entries() if e.finding.rule == rule]
    seen = []

    def look(preview):
        dialog = dialogs.preview_dialog(window, preview, window.source.view.font())
        try:
            confirm = dialog.findChild(QPushButton, "diffConfirm")
            summary = dialog.findChild(QLabel, "diffSummary").text()
            view = dialog.findChild(QPlainTextEdit, "diffText")
            lines = view.toPlainText().splitlines()
            added = next(n for n, line in enumerate(lines) if line.startswith("+") and not line.startswith("+++"))
            removed = next(n for n, line in enumerate(lines) if line.startswith("-") and not line.startswith("---"))
            seen.append((confirm.text(), summary, background_of_line(view, added), background_of_line(view, removed),
                         dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)))
        finally:
            dialog.deleteLater()
        return False

    window.confirm_preview = look
    assert not window.fix_rule(rule)
    (confirm, summary, added, removed, ok), = seen
    assert confirm == f"Apply {len(entries)} fixes" and ok is None
    assert summary == f"{len(entries)} fixes: 2 lines added, 2 lines removed."
    assert added == QColor(DIFF_COLORS["added"][0][1]) and removed == QColor(DIFF_COLORS["removed"][0][1])


def test_the_recovery_question_shows_what_it_restores(window, open_spec, shop, settings):
    recovered = shop.read_text(encoding="utf-8").replace("summary: List customers", "summary: Recovered summary")
    os.utime(shop, (time.time() - 60, time.time() - 60))  # a journal newer than its file is offered back
    RecoveryJournal(Path(settings.value("recovery/dir")), shop).start(recovered, False)
    asked = []

    def ask():
        diff = window.recovery_diff()
        box = dialogs.recovery_box(window, shop.name, diff)
        asked.append((box.informativeText(), box.detailedText()))
        box.deleteLater()
        return True

    window.ask_recover = ask
    open_spec(shop)
    (text, details), = asked
    assert "1 line added and 1 line removed" in text and "Undo" in text
    assert "-    summary: List customers" in details or "-      summary: List customers" in details
    assert "Recovered summary" in details
    assert window.document.workspace.root.text == recovered


def test_keep_my_edits_says_saving_overwrites_the_other_change(window, qtbot):
    from PySide6.QtCore import QTimer

    seen = []

    def answer():
        box = next(w for w in window.findChildren(QMessageBox) if w.objectName() == "conflictBox" and w.isVisible())
        keep = next(b for b in box.buttons() if b.text() == "Keep My Edits")
        seen.append((box.informativeText(), keep.toolTip()))
        keep.click()

    QTimer.singleShot(200, answer)
    choice = dialogs.ask_conflict(window, "shop-api.yaml")
    (text, tip), = seen
    assert "overwrites the other program's change" in text and "overwrite" in tip
    assert choice.value == "mine"


def many_findings_spec(folder: Path, count: int = 60) -> Path:
    """`count` string properties without a format their names call for: one Fix All of that many fixes."""
    properties = "".join(f"        contact{n}Email: {{type: string, description: Where contact {n} reads mail.}}\n"
                         for n in range(count))
    path = folder / "many.yaml"
    path.write_text(f"""openapi: 3.1.0
info: {{title: t, version: '1'}}
paths:
  /contacts:
    post:
      operationId: createContact
      requestBody:
        content:
          application/json:
            schema: {{$ref: '#/components/schemas/Contact'}}
      responses: {{'201': {{description: created}}}}
components:
  schemas:
    Contact:
      type: object
      description: A contact.
      properties:
{properties}""", encoding="utf-8")
    return path


def test_a_big_fix_all_is_previewed_in_the_background_with_progress(window, open_spec, tmp_path, qtbot):
    open_spec(many_findings_spec(tmp_path))
    entries = [e for e in window.problems.entries() if e.finding.rule == "string-format-missing"]
    assert len(entries) == 60
    shown = []
    window.confirm_preview = lambda preview: shown.append(preview) or True
    progress = []
    window.document.busy.connect(progress.append)
    with qtbot.waitSignal(window.document.fixFinished, timeout=30_000) as finished:
        assert not window.fix_rule("string-format-missing")  # not yet: the preview is being made
        assert window.status.cancel_button.isVisible() and window.document.fix_jobs.current is not None
    assert finished.args[0].value == "applied"
    assert shown[0].fixes == 60
    assert any(text.startswith("Applying 60 edits") for text in progress) and progress[-1] == ""
    assert window.document.workspace.root.text.count("format: email") == 60
    assert not window.status.cancel_button.isVisible()


def test_a_big_fix_all_can_be_cancelled(window, open_spec, tmp_path, qtbot):
    path = many_findings_spec(tmp_path)
    open_spec(path)
    window.confirm_preview = lambda preview: pytest.fail("cancelled: no preview to confirm")
    with qtbot.waitSignal(window.document.fixFinished, timeout=30_000) as finished:
        window.fix_rule("string-format-missing")
        window.status.cancel_button.click()
    assert finished.args[0].value == "declined"
    qtbot.wait(300)  # a result arriving after the cancel is dropped
    assert not window.isWindowModified() and window.document.workspace.root.text == path.read_text(encoding="utf-8")
