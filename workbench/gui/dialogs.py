"""The window's questions and read-only text dialogs (the window calls these through methods tests replace)."""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QFont, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from workbench import __version__
from workbench.gui.highlighter import DiffHighlighter
from workbench.gui.theme import is_dark
from workbench.gui.widgets import counted
from workbench.lint import RULES
from workbench.lint.registry import CATEGORIES
from workbench.workspace import ConflictChoice, Preview, SaveChoice
from workbench.workspace.preview import diff_counts

APP_TITLE = "Agent Spec Workbench"
SPEC_FILTER = "API descriptions (*.yaml *.yml *.json);;All files (*)"


def text_dialog(parent: QWidget, title: str, text: str, font: QFont, *, confirm: str = "",
                summary: str = "") -> QDialog:
    """A read-only diff in `font`, its added and removed lines coloured, under a `summary` line (default: how
    many lines it adds and removes); with `confirm`, that button (what it does: "Apply 3 fixes") and Cancel,
    else Close."""
    dialog = QDialog(parent)
    dialog.setObjectName("diffDialog")
    dialog.setWindowTitle(title)
    view = QPlainTextEdit(text)
    view.setObjectName("diffText")
    view.setReadOnly(True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setFont(font)
    view.highlighter = DiffHighlighter(view.document(), dark=is_dark(view.palette()))
    view.highlighter.rehighlight()  # now, not at the next turn of the event loop
    added, removed = diff_counts(text)
    heading = QLabel(summary or f"{counted(added, 'line')} added, {counted(removed, 'line')} removed")
    heading.setObjectName("diffSummary")
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel if confirm
                               else QDialogButtonBox.StandardButton.Close)
    if confirm:
        apply = buttons.addButton(confirm, QDialogButtonBox.ButtonRole.AcceptRole)
        apply.setObjectName("diffConfirm")
        apply.setDefault(True)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(heading)
    layout.addWidget(view, 1)
    layout.addWidget(buttons)
    dialog.resize(900, 600)
    return dialog


def help_dialog(parent: QWidget, title: str, html: str) -> QDialog:
    """A non-modal page of help (rich text), with Close."""
    dialog = QDialog(parent)
    dialog.setObjectName("helpDialog")
    dialog.setWindowTitle(title)
    view = QTextBrowser()
    view.setObjectName("helpText")
    view.setHtml(html)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(view, 1)
    layout.addWidget(buttons)
    dialog.resize(760, 560)
    return dialog


def _code_spans(text: str) -> str:
    """Escaped text with its `backticked` spans set as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def rules_html() -> str:
    """Every lint rule by category: its id, default severity, what it checks and how to fix it (the registry's own
    text, which `workbench lint --explain` prints, SARIF's `help` carries and the config's `rules:` names)."""
    parts = ["<p>The rules <code>workbench lint</code> runs, by category. A <code>.workbench.yaml</code> beside the "
             "spec changes a rule's severity or turns it off (<code>rules: {rule-id: off}</code>). A finding with a "
             "quick fix offers it in the Problems panel's context menu (Fix, Fix All).</p>"]
    for category in CATEGORIES:
        rules = sorted((r for r in RULES.values() if r.category == category), key=lambda r: r.id)
        if not rules:
            continue
        parts.append(f"<h3>{html.escape(category)}</h3><table cellspacing='0' cellpadding='3'>")
        parts.extend(f"<tr><td valign='top'><code>{html.escape(r.id)}</code></td><td valign='top'>{r.severity.label}"
                     f"</td><td>{html.escape(r.summary)}<br><i>How to fix:</i> {_code_spans(r.fix)}</td></tr>"
                     for r in rules)
        parts.append("</table>")
    return "".join(parts)


def shortcuts_html(actions: list[QAction]) -> str:
    """The window's keyboard shortcuts, as its actions have them."""
    rows = [(action.shortcut().toString(QKeySequence.SequenceFormat.NativeText), action.text().replace("&", ""))
            for action in actions if not action.shortcut().isEmpty()]
    table = "".join(f"<tr><td><b>{html.escape(keys)}</b></td><td>{html.escape(text)}</td></tr>"
                    for keys, text in sorted(rows, key=lambda row: row[1]))
    return (f"<table cellspacing='0' cellpadding='3'>{table}</table><p>In the Problems list: Enter or a "
            "double-click goes to the finding; the context menu has its quick fix.</p>")


def show_error(parent: QWidget, box: QMessageBox | None, title: str, message: str) -> QMessageBox:
    """A non-modal warning with a one-line message (the same box again when given)."""
    if box is None:
        box = QMessageBox(parent)
        box.setObjectName("errorBox")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setWindowModality(Qt.WindowModality.NonModal)
    box.setWindowTitle(title)
    box.setText(title)
    box.setInformativeText(message)
    box.show()
    box.raise_()
    return box


def dropped_path(event: QDragEnterEvent | QDropEvent) -> str | None:
    """The first local file dragged onto the window, or None."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return None
    files = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
    return files[0] if files else None


def ask_conflict(parent: QWidget, name: str) -> ConflictChoice:
    box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                      f"{name} was changed by another program, and you have unsaved edits.", parent=parent)
    box.setObjectName("conflictBox")
    box.setInformativeText("Keep My Edits: your text stays; saving it then overwrites the other program's change.\n"
                           "Reload Theirs: the file is read again as it is now; your unsaved edits are lost.")
    keep = box.addButton("Keep My Edits", QMessageBox.ButtonRole.RejectRole)
    keep.setToolTip("Saving will overwrite the other program's change")
    theirs = box.addButton("Reload Theirs", QMessageBox.ButtonRole.DestructiveRole)
    theirs.setToolTip("Your unsaved edits are dropped")
    box.exec()
    return ConflictChoice.MINE if box.clickedButton() is keep else ConflictChoice.THEIRS


def ask_save_changes(parent: QWidget, name: str) -> SaveChoice:
    answer = QMessageBox.question(
        parent, "Unsaved edits", f"Save the edits to {name}?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Save)
    return {QMessageBox.StandardButton.Save: SaveChoice.SAVE,
            QMessageBox.StandardButton.Discard: SaveChoice.DISCARD}.get(answer, SaveChoice.CANCEL)


def recovery_box(parent: QWidget, name: str, diff: str) -> QMessageBox:
    """The question whether to recover unsaved edits, saying what it would restore (the diff in its details)."""
    added, removed = diff_counts(diff)
    files = sum(1 for line in diff.splitlines() if line.startswith("+++ "))
    box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved edits",
                      f"{name} has edits that were never saved (the workbench did not close normally). "
                      "Recover them?", QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.setObjectName("recoveryBox")
    box.setInformativeText(f"Recovering restores {counted(added, 'line')} added and {counted(removed, 'line')} "
                           f"removed against the file{'s' if files > 1 else ''} on disk"
                           f"{f' ({files} files)' if files > 1 else ''}, as one step Undo takes back; "
                           "the files on disk change only when you save. No: the edits are forgotten.")
    box.setDetailedText(diff)
    return box


def ask_recover(parent: QWidget, name: str, diff: str) -> bool:
    box = recovery_box(parent, name, diff)
    try:
        return box.exec() == QMessageBox.StandardButton.Yes
    finally:
        box.deleteLater()


def ask_open_path(parent: QWidget, start: str) -> str:
    path, _filter = QFileDialog.getOpenFileName(parent, "Open API description", start, SPEC_FILTER)
    return path


def ask_save_path(parent: QWidget, start: str) -> str:
    chosen, _ = QFileDialog.getSaveFileName(parent, "Save As", start, SPEC_FILTER)
    return chosen


def about(parent: QWidget) -> None:
    QMessageBox.about(parent, f"About {APP_TITLE}",
                      f"<b>{APP_TITLE}</b> {__version__}<p>Make an OpenAPI document trustworthy as a set of "
                      "tools for language-model agents.</p><p>The lint, the score and the config are the ones "
                      "<code>workbench lint</code> uses in CI.</p>")


def preview_summary(preview: Preview) -> tuple[str, str]:
    """(the line above a fix preview's diff, its confirm button): how many fixes, lines and files."""
    added, removed = diff_counts(preview.diff)
    files = f" in {counted(preview.files, 'file')}" if preview.files > 1 else ""
    refused = f"; {len(preview.refused)} refused (listed first)" if preview.refused else ""
    fixes = counted(preview.fixes, "fix") if preview.fixes else "the edit"
    return (f"{fixes.capitalize()}: {counted(added, 'line')} added, {counted(removed, 'line')} removed{files}"
            f"{refused}.", f"Apply {fixes}" if preview.fixes else "Apply")


def preview_dialog(parent: QWidget, preview: Preview, font: QFont) -> QDialog:
    summary, confirm = preview_summary(preview)
    return text_dialog(parent, preview.title, preview.text(), font, confirm=confirm, summary=summary)
