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
    folder = Path(settings.value("recovery/dir"))
    original = shop.read_text(encoding="utf-8")
    recovered = original.replace("summary: List customers", "summary: Recovered summary")
    past = time.time() - 60
    os.utime(shop, (past, past))
    RecoveryJournal(folder, shop).start(recovered, False)
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
