"""The source view: the spec's text (read-only for now) with line numbers, syntax colours, a severity marker
per line that has findings, and the current finding's span highlighted.

Positions from the core are 1-based lines and columns in characters, lines split at "\\n" only. Qt counts
columns in UTF-16 units and also breaks lines at a lone "\\r" and U+2029, so the text shown maps those to
visible symbols (one character for one, so every line and column stays where the core says it is), and
positions are converted by line and column, never by raw offset.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QTextCharFormat,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from workbench.edit import Splice
from workbench.edit.engine import apply_splices
from workbench.gui.highlighter import SpecHighlighter
from workbench.gui.theme import SEVERITY_COLORS, code_colors
from workbench.lint import Severity
from workbench.spec import Position

INCREMENTAL_FROM = 512 * 1024  # characters: a bigger text goes in a chunk per event-loop turn
FIRST_CHUNK_CHARS = 16 * 1024  # the first screens, shown at once (about 5 ms)
CHUNK_CHARS = 48 * 1024  # then about 10-15 ms of inserting and colouring per event-loop turn
MAX_SPAN_LINES = 400  # a longer span (a whole document, a big component) is shown by its first line only

_TRAILING = (" ", "\t", "\u2029", "\n")
_DISPLAY = str.maketrans({"\r": "\u240d", "\u2028": "\u2424", "\u2029": "\u2424"})


def display_text(text: str) -> str:
    """The text as shown: CRLF as one line break, and no line break Qt would add where the core sees none."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if "\r" in text or "\u2028" in text or "\u2029" in text:
        text = text.translate(_DISPLAY)
    return text


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class _Gutter(QWidget):
    def __init__(self, view: SourceView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self) -> QSize:
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._view.paint_gutter(event)


class SourceView(QPlainTextEdit):
    """Read-only source text; `show_span` moves the cursor to a finding and highlights it."""

    spanShown = Signal(int, int)  # line, column (1-based, characters) of the cursor after a jump
    sourceComplete = Signal()  # all of the text set last is in the view (a big text goes in by chunks)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._gutter = _Gutter(self)
        self._markers: dict[int, Severity] = {}  # line → most severe finding on it
        self._span: tuple[int, int, Severity] | None = None  # Qt positions and severity of the current finding
        self._colors = code_colors(self.palette())
        self._pending: str | None = None  # the rest of a big text, still to be appended
        self._pending_at = 0
        self._chunk_timer = QTimer(self)
        self._chunk_timer.setInterval(0)
        self._chunk_timer.timeout.connect(self._append_chunk)
        self.document().setUndoRedoEnabled(False)  # read-only: no undo history to keep for the text
        self.highlighter = SpecHighlighter(self.document(), "yaml", self._colors)
        self.setObjectName("sourceView")
        self.setReadOnly(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setAcceptDrops(False)  # a dropped file goes to the window, which opens it
        self.viewport().setAcceptDrops(False)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10.0))
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._update_extra_selections)
        self._update_gutter_width()

    # -- content ---------------------------------------------------------------------------------------------

    def set_source(self, text: str, fmt: str) -> None:
        """Show `text` (as read from disk) coloured as `fmt` ("yaml" or "json")."""
        self._span = None
        self._markers = {}
        self._chunk_timer.stop()
        self._pending = None
        self.highlighter.set_language(fmt)
        shown = display_text(text)
        if len(shown) > INCREMENTAL_FROM:
            # Setting (and colouring) megabytes at once freezes the window for a second or more: show the start
            # now and append the rest a chunk per event-loop turn. Anything that needs a position puts the text
            # in as far as that position first.
            cut = shown.rfind("\n", 0, FIRST_CHUNK_CHARS) + 1 or FIRST_CHUNK_CHARS
            shown, self._pending, self._pending_at = shown[:cut], shown, cut
        # The highlighter colours the new text while it goes in, asking for a repaint per line: keep our own
        # slots (gutter, current line) out of that and update them once afterwards.
        self.blockSignals(True)
        try:
            self.setPlainText(shown)
        finally:
            self.blockSignals(False)
        if self._pending is not None:
            self._chunk_timer.start()
        else:
            self.sourceComplete.emit()
        self._update_gutter_width()
        self.moveCursor(QTextCursor.MoveOperation.Start)
        self._update_extra_selections()

    @property
    def is_complete(self) -> bool:
        return self._pending is None

    def _append_chunk(self, size: int = CHUNK_CHARS) -> None:
        if self._pending is None:
            self._chunk_timer.stop()
            return
        chunk = self._pending[self._pending_at:self._pending_at + size]
        self._pending_at += len(chunk)
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self.blockSignals(True)
        try:
            cursor.insertText(chunk)
        finally:
            self.blockSignals(False)
        if self._pending_at >= len(self._pending):
            self._pending = None
            self._chunk_timer.stop()
            self._update_gutter_width()
            self._gutter.update()
            self.sourceComplete.emit()

    def finish_loading(self, up_to_line: int | None = None) -> None:
        """Put the rest of a big text in now (before anything that needs its positions); with `up_to_line`,
        only as far as that 1-based line (a jump near the top does not wait for megabytes below it)."""
        if self._pending is None:
            return
        if up_to_line is not None:
            missing = up_to_line + 1 - self.document().blockCount()  # the line must be complete, so one more
            if missing <= 0:
                return
            cut = self._pending_at
            for _ in range(missing):
                cut = self._pending.find("\n", cut) + 1
                if cut <= 0:
                    break
            if cut > 0:
                self._append_chunk(cut - self._pending_at)
                return
        self._append_chunk(len(self._pending))

    def toPlainText(self) -> str:
        self.finish_loading()
        return super().toPlainText()

    def apply_splices(self, old: str, splices: Sequence[Splice]) -> bool:
        """Change the shown text from `old` (the core text shown now) by `splices` planned together against it,
        in place: one edit block per call, only the lines the splices touch are replaced (and recoloured).

        Each splice is widened to whole lines of `old`, so no piece boundary falls inside a CRLF (shown as one
        line break) and a line's display maps one to one; a line number is a block number, whatever astral
        characters or stray separators the text holds. While a big text is still going in by chunks, the lines
        the splices touch are put in first; the rest still to come is the same text after them. Returns False
        (nothing changed) when the view does not show `old`: the caller then sets the whole text."""
        if not splices:
            return True
        document = self.document()
        if self._pending is None and document.blockCount() != old.count("\n") + 1:
            return False
        if self._pending is not None and len(self._pending) != len(display_text(old)):
            return False
        regions: list[list] = []  # [first, last, [splices]]: old[first:last] spans whole lines
        for splice in sorted(splices, key=lambda s: (s.start, s.end)):
            if not 0 <= splice.start <= splice.end <= len(old):
                return False
            first = old.rfind("\n", 0, splice.start) + 1
            newline = old.find("\n", splice.end)
            last = len(old) if newline < 0 else newline + 1
            if regions and first <= regions[-1][1]:
                regions[-1][1] = max(regions[-1][1], last)
                regions[-1][2].append(splice)
            else:
                regions.append([first, last, [splice]])
        if self._pending is not None:  # the block after the last region must be in the view
            last = regions[-1][1]
            self.finish_loading(None if last == len(old) else old.count("\n", 0, last))
        pieces = []  # (Qt start, Qt end, shown replacement), in document order
        for first, last, group in regions:
            chunk = old[first:last]
            for splice in sorted(group, key=lambda s: s.start, reverse=True):
                chunk = chunk[: splice.start - first] + splice.text + chunk[splice.end - first:]
            begin = document.findBlockByNumber(old.count("\n", 0, first)).position()
            end = document.characterCount() - 1 if last == len(old) \
                else document.findBlockByNumber(old.count("\n", 0, last)).position()
            pieces.append((begin, end, display_text(chunk)))
        self._span = None
        cursor = QTextCursor(document)
        self.blockSignals(True)
        try:
            cursor.beginEditBlock()
            for begin, end, shown in reversed(pieces):  # from the end: earlier positions stay valid
                cursor.setPosition(begin)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText(shown)
            cursor.endEditBlock()
        finally:
            self.blockSignals(False)
        if self._pending is not None:
            # The rest still to come is unchanged text after the edits; keep it as the edited text's, so a
            # second edit before the text is complete is applied in place too.
            new = display_text(apply_splices(old, list(splices)))
            self._pending_at += len(new) - len(self._pending)
            self._pending = new
        self._update_gutter_width()
        self._update_extra_selections()
        return True

    def set_markers(self, markers: dict[int, Severity]) -> None:
        self._markers = dict(markers)
        self._gutter.update()

    # -- positions -------------------------------------------------------------------------------------------

    def qt_position(self, line: int, column: int) -> int:
        """The Qt document position of a 1-based line and column (in characters), clamped to the text."""
        self.finish_loading(up_to_line=max(line, 1))
        document = self.document()
        block = document.findBlockByNumber(max(line, 1) - 1)
        if not block.isValid():
            return max(document.characterCount() - 1, 0)
        prefix = block.text()[: max(column, 1) - 1]
        return block.position() + min(_utf16_units(prefix), block.length() - 1)

    def cursor_line_column(self) -> tuple[int, int]:
        """The cursor's 1-based line and column, in characters (as the core and the command line count)."""
        cursor = self.textCursor()
        block = cursor.block()
        units = cursor.positionInBlock()
        prefix = block.text().encode("utf-16-le")[: units * 2].decode("utf-16-le", errors="ignore")
        return block.blockNumber() + 1, len(prefix) + 1

    def selected_source(self) -> str:
        return self.textCursor().selectedText().replace("\u2029", "\n")

    def show_span(self, start: Position, end: Position, severity: Severity | None = None, *,
                  focus: bool = False) -> None:
        """Put the cursor at `start`, select up to `end` and highlight the span (long spans: the first line)."""
        self.finish_loading(up_to_line=max(start.line, end.line) + 1)
        begin = self.qt_position(start.line, start.column)
        if end.line - start.line > MAX_SPAN_LINES or (end.line, end.column) < (start.line, start.column):
            finish = self.document().findBlock(begin)
            finish_pos = finish.position() + finish.length() - 1
        else:
            finish_pos = self.qt_position(end.line, end.column)
        document = self.document()
        while finish_pos > begin + 1 and document.characterAt(finish_pos - 1) in _TRAILING:
            finish_pos -= 1  # a block's span runs to the next key's indentation: show it without that
        cursor = QTextCursor(document)
        cursor.setPosition(finish_pos)
        cursor.setPosition(begin, QTextCursor.MoveMode.KeepAnchor)  # anchored at the end: the cursor is at start
        self._span = (begin, finish_pos, severity) if severity is not None else None
        self.setTextCursor(cursor)
        self.centerCursor()
        self._update_extra_selections()
        if focus:
            self.setFocus(Qt.FocusReason.OtherFocusReason)
        self.spanShown.emit(*self.cursor_line_column())

    # -- painting --------------------------------------------------------------------------------------------

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            colors = code_colors(self.palette())
            if colors != self._colors:
                self._colors = colors
                self._recolor(self.highlighter.language)
            self._update_extra_selections()
        elif event.type() == event.Type.FontChange:
            self._update_gutter_width()

    def _recolor(self, fmt: str) -> None:
        # A full rehighlight asks for a repaint of every block: keep our gutter slot out of that storm.
        self.blockSignals(True)
        try:
            self.highlighter.configure(fmt, self._colors)
        finally:
            self.blockSignals(False)
        self._gutter.update()

    def gutter_width(self) -> int:
        digits = max(3, len(str(max(1, self.blockCount()))))
        return 14 + self.fontMetrics().horizontalAdvance("9") * digits + 8

    def _update_gutter_width(self, _count: int = 0) -> None:
        width = self.gutter_width()
        if width != self.viewportMargins().left():
            self.setViewportMargins(width, 0, 0, 0)
            contents = self.contentsRect()
            self._gutter.setGeometry(QRect(contents.left(), contents.top(), width, contents.height()))

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        contents = self.contentsRect()
        self._gutter.setGeometry(QRect(contents.left(), contents.top(), self.gutter_width(), contents.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        painter = QPainter(self._gutter)
        painter.fillRect(event.rect(), QColor(self._colors.gutter_background))
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        height = self.fontMetrics().height()
        current = self.textCursor().blockNumber()
        width = self._gutter.width()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                line = number + 1
                severity = self._markers.get(line)
                if severity is not None:
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(QColor(SEVERITY_COLORS[severity]))
                    size = 7
                    painter.drawEllipse(4, top + (height - size) // 2, size, size)
                color = self.palette().color(self.palette().ColorRole.Text) if number == current \
                    else QColor(self._colors.gutter_text)
                painter.setPen(color)
                painter.drawText(0, top, width - 6, height, Qt.AlignmentFlag.AlignRight, str(line))
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        painter.end()

    def _update_extra_selections(self) -> None:
        selections = []
        if not self.textCursor().hasSelection():  # the current line's band would hide a selection's first line
            line = QTextEdit.ExtraSelection()
            line.format.setBackground(QColor(self._colors.current_line))
            line.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            line.cursor = QTextCursor(self.textCursor())
            line.cursor.clearSelection()
            selections.append(line)
        if self._span is not None:
            begin, finish, severity = self._span
            color = QColor(SEVERITY_COLORS[severity])
            span = QTextEdit.ExtraSelection()
            fmt = QTextCharFormat()
            tint = QColor(color)
            tint.setAlpha(48)
            fmt.setBackground(tint)
            fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            fmt.setUnderlineColor(color)
            span.format = fmt
            cursor = QTextCursor(self.document())
            cursor.setPosition(begin)
            last = max(self.document().characterCount() - 1, 0)
            cursor.setPosition(min(max(finish, begin + 1), last), QTextCursor.MoveMode.KeepAnchor)
            span.cursor = cursor
            selections.append(span)
        self.setExtraSelections(selections)
        self._gutter.update()
