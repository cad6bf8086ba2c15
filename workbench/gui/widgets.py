"""Small widgets the panels share: labels that never ask for their text's width, so no text (a long pointer, a
path, a file name) can widen a dock or the window; and how the panels count things."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontDatabase, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QLabel, QPlainTextEdit, QSizePolicy, QTableView, QWidget


class ElidedLabel(QLabel):
    """A one-line label that never asks for its text's width: the text is elided to the width it gets, the whole
    of it in the tooltip (`text()`, `full_text()`). Qt paints it; Python runs only when the text or the width
    changes."""

    def __init__(self, text: str = "", parent: QWidget | None = None, *,
                 mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight, fit: bool = False) -> None:
        """`fit`: the label asks for its whole text's width (it still shrinks, eliding, when there is less)."""
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred if fit else QSizePolicy.Policy.Ignored,
                           QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(1)
        self._mode = mode
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        return self._full

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + margins.left() + margins.right() + 2,
                     super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(1, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = self.contentsRect().width()
        super().setText(self.fontMetrics().elidedText(self._full, self._mode, width) if width > 1 else self._full)


def shrinkable(label: QLabel) -> QLabel:
    """A word-wrapped label that takes the width it is given instead of asking for its longest word's (a long
    operationId or pointer in a note); the whole text stays in its tooltip."""
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, label.sizePolicy().verticalPolicy())
    label.setMinimumWidth(1)
    return label


def counted(number: int, noun: str) -> str:
    """"1 operation", "2 operations", "1 property", "3 properties", "2 fixes"."""
    if number == 1:
        return f"1 {noun}"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return f"{number} {noun[:-1]}ies"
    return f"{number} {noun}es" if noun.endswith(("s", "x", "sh", "ch")) else f"{number} {noun}s"


def code_view(name: str) -> QPlainTextEdit:
    """A read-only monospaced text to select and copy (a tool's JSON, a wire request)."""
    view = QPlainTextEdit()
    view.setObjectName(name)
    view.setReadOnly(True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                 | Qt.TextInteractionFlag.TextSelectableByKeyboard)
    return view


def item_model(columns: tuple[str, ...], parent) -> QStandardItemModel:
    """An empty table of Qt's own items (a Python model would be asked for every cell it paints)."""
    model = QStandardItemModel(0, len(columns), parent)
    model.setHorizontalHeaderLabels(list(columns))
    return model


def text_item(text: str, tip: str | None = None, editable: bool = False) -> QStandardItem:
    """A cell: its text, the whole of it in the tooltip (the column may elide it)."""
    item = QStandardItem(text)
    item.setEditable(editable)
    item.setToolTip(tip if tip is not None else text)
    return item


def item_table(name: str, model: QStandardItemModel) -> QTableView:
    """A table view of rows: whole rows selected, text elided on one line, the last column stretching, never
    wider than a small dock asks."""
    view = QTableView()
    view.setObjectName(name)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 6)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.horizontalHeader().setStretchLastSection(True)
    view.setMinimumSize(80, 40)
    return view
