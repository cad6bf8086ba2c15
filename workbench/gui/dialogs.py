"""The window's questions and read-only text dialogs (the window calls these through methods tests replace)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QMessageBox, QPlainTextEdit, QVBoxLayout, QWidget

from workbench import __version__
from workbench.workspace import ConflictChoice, SaveChoice

APP_TITLE = "Agent Spec Workbench"
SPEC_FILTER = "API descriptions (*.yaml *.yml *.json);;All files (*)"


def text_dialog(parent: QWidget, title: str, text: str, font: QFont, *, confirm: bool = False) -> QDialog:
    """A read-only text (a diff) in `font`; OK/Cancel when it asks to `confirm`, else Close."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    view = QPlainTextEdit(text)
    view.setReadOnly(True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setFont(font)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                               if confirm else QDialogButtonBox.StandardButton.Close)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(view, 1)
    layout.addWidget(buttons)
    dialog.resize(900, 600)
    return dialog


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
    keep = box.addButton("Keep My Edits", QMessageBox.ButtonRole.RejectRole)
    box.addButton("Reload Theirs", QMessageBox.ButtonRole.DestructiveRole)
    box.exec()
    return ConflictChoice.MINE if box.clickedButton() is keep else ConflictChoice.THEIRS


def ask_save_changes(parent: QWidget, name: str) -> SaveChoice:
    answer = QMessageBox.question(
        parent, "Unsaved edits", f"Save the edits to {name}?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Save)
    return {QMessageBox.StandardButton.Save: SaveChoice.SAVE,
            QMessageBox.StandardButton.Discard: SaveChoice.DISCARD}.get(answer, SaveChoice.CANCEL)


def ask_recover(parent: QWidget, name: str) -> bool:
    return QMessageBox.question(
        parent, "Recover unsaved edits",
        f"{name} has edits that were never saved (the workbench did not close normally). "
        "Recover them?") == QMessageBox.StandardButton.Yes


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
