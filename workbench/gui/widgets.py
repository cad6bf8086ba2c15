"""Small widgets the panels share: labels that never ask for their text's width, so no text (a long pointer, a
path, a file name) can widen a dock or the window; and how the panels count things."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtGui import QFontDatabase, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QStatusBar,
    QTableView,
    QWidget,
)


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
        self._fit = fit
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()
        if self._fit:  # the width it asks for changed even when its elided text did not (narrow, "…" both times)
            self.updateGeometry()

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


class ElidingStatusBar(QStatusBar):
    """A status bar whose message gives way to its permanent widgets (the counts, the score): Qt cuts a message
    at the first of them, mid-word; here it is elided to the room left of them, the whole of it in the bar's
    tooltip and in `currentMessage()` (`shown_message()`: what is painted). A message's timeout is kept here, so
    eliding it again (the window or a count changed width) does not restart it."""

    LEFT, GAP = 6, 2  # where Qt paints the message, and how far it stays from the first permanent widget

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self._shown = ""
        self._permanent: list[QWidget] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clearMessage)
        self.messageChanged.connect(self._message_changed)

    def showMessage(self, text: str, timeout: int = 0) -> None:
        if not text:
            self.clearMessage()
            return
        self._full = text
        self._timer.stop()
        if timeout > 0:
            self._timer.start(timeout)
        self._elide(new=True)

    def clearMessage(self) -> None:
        self._full = self._shown = ""
        self._timer.stop()
        super().clearMessage()

    def currentMessage(self) -> str:
        shown = super().currentMessage()
        return self._full if shown and shown == self._shown else shown  # else a status tip Qt showed itself

    def shown_message(self) -> str:
        return super().currentMessage()

    def message_room(self) -> int:
        """The width the message may take: from its left edge to the first visible permanent widget."""
        right = self.width() - 12
        for widget in self._permanent:
            if widget.isVisibleTo(self):
                right = min(right, widget.x() - self.GAP)
        return max(0, right - self.LEFT - self.GAP)

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:
        super().addPermanentWidget(widget, stretch)
        self._watch(widget)

    def insertPermanentWidget(self, index: int, widget: QWidget, stretch: int = 0) -> int:
        at = super().insertPermanentWidget(index, widget, stretch)
        self._watch(widget)
        return at

    def _watch(self, widget: QWidget) -> None:
        self._permanent.append(widget)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show, QEvent.Type.Hide):
            self._elide()
        return False

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self, new: bool = False) -> None:
        """Elide the message to the room it has now (unless Qt shows a status tip of its own over it)."""
        if not self._full or not (new or super().currentMessage() == self._shown):
            return
        room = self.message_room()
        self._shown = (self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room)
                       if room > 1 and self.isVisible() else self._full)  # not laid out yet: on its first resize
        super().showMessage(self._shown)
        self.setToolTip(self._full)

    def _message_changed(self, text: str) -> None:
        if not text or text != self._shown:
            self.setToolTip("")


class EmptyNote(QLabel):
    """A line of text over an item view while it has no rows ("Nothing left out: ..."), in the theme's placeholder
    colour, so an empty table says why it is empty; `setText("")`: a bare table again. Qt paints it."""

    def __init__(self, view: QAbstractItemView, text: str = "") -> None:
        super().__init__(view.viewport())
        self._view = view
        self.setObjectName(f"{view.objectName()}Empty")
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setWordWrap(True)
        self.setContentsMargins(8, 12, 8, 8)
        self.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        view.viewport().installEventFilter(self)
        model = view.model()
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(self._update)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update()

    def is_shown(self) -> bool:
        return not self.isHidden()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(self._view.viewport().rect())
        return False

    def _update(self, *_args) -> None:
        self.setGeometry(self._view.viewport().rect())
        self.setVisible(bool(self.text()) and self._view.model().rowCount() == 0)


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
