"""The source view: the spec's text, editable, with line numbers, syntax colours, a severity marker per line
that has findings, the current finding's span highlighted, find and replace, go to line and zoom.

What is typed goes out as `typed(start, end, text)`: a splice of the core text (characters, the file's own
line breaks), never the whole text; the workspace gathers the keystrokes into one undoable step per pause.
Changes the view is given (`set_source`, `apply_splices`) are not sent back out. Undo and redo are the
workspace's (`undoRequested`, `redoRequested`): the view keeps no history of its own.

Positions from the core are 1-based lines and columns in characters, lines split at "\\n" only. Qt counts
columns in UTF-16 units and also breaks lines at a lone "\\r" and U+2029, so the text shown maps those to
visible symbols (one character for one, so every line and column stays where the core says it is), and
positions are converted by line and column, never by raw offset.
"""

from __future__ import annotations

import re
import time
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import accumulate

from PySide6.QtCore import QEvent, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QWheelEvent,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from workbench.edit import Splice
from workbench.edit.engine import apply_splices
from workbench.gui.highlighter import SpecHighlighter
from workbench.gui.theme import SEVERITY_COLORS, code_colors
from workbench.lint import Severity
from workbench.spec import Position

INCREMENTAL_FROM = 512 * 1024  # characters: a bigger text goes in a few slices per event-loop turn
SLICE_CHARS = 8 * 1024  # slices of whole lines, about 2-3 ms of inserting and colouring each on an idle core,
TURN_SECONDS = 0.012  # as many as fit in this much of a turn (at least one): a loaded machine gets fewer per turn
MAP_SLICE_CHARS = 4 * SLICE_CHARS  # the positions' map reads the text faster than it goes in
MAX_SPAN_LINES = 400  # a longer span (a whole document, a big component) is shown by its first line only

ZOOM_RANGE = (-6, 24)  # points below and above the starting size
_MODIFIER_KEYS = frozenset((Qt.Key.Key_Shift, Qt.Key.Key_Control, Qt.Key.Key_Alt, Qt.Key.Key_Meta,
                            Qt.Key.Key_AltGr))
_TRAILING = (" ", "\t", "\u2029", "\n")
_UNEVEN = re.compile("\r\n|[\U00010000-\U0010ffff]")  # one line break for two characters; two units for one
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


class DisplayMap:
    """Qt positions (UTF-16 units of the text shown) to core offsets (characters of the file's text) and back.
    Only a CRLF (two characters, one line break shown) and an astral character (one character, two units) make
    them differ: the map lists where those are, so a text without them costs nothing, and an edit updates the
    map by the splice instead of reading the text again. A big text is read a piece at a time (`scan`, as it
    goes into the view), never all at once on a keystroke."""

    def __init__(self, text: str, *, scan_now: bool = True) -> None:
        self._cores: list[int] = []  # core offset of each uneven item, in order
        self._deltas: list[int] = []  # its units minus its characters: -1 (CRLF) or +1 (astral)
        self._sums: list[int] | None = None  # sums[k]: the deltas of the items before item k
        self._units: list[int] | None = None
        even = text.isascii() and "\r" not in text
        self._text, self._scanned = ("", 0) if even else (text, 0)
        if scan_now:
            self.scan()

    @property
    def complete(self) -> bool:
        return self._scanned >= len(self._text)

    def scan(self, characters: int | None = None) -> None:
        """Read the next `characters` of the text (all the rest: None)."""
        text, start = self._text, self._scanned
        end = len(text) if characters is None else min(len(text), start + characters)
        if 0 < end < len(text) and text[end - 1] == "\r":
            end += 1  # a CRLF is never cut in two
        for match in _UNEVEN.finditer(text, start, end):
            self._cores.append(match.start())
            self._deltas.append(-1 if match.group() == "\r\n" else 1)
        self._scanned = end
        if self.complete:
            self._text, self._scanned = "", 0
        self._sums = self._units = None

    def _prepare(self) -> tuple[list[int], list[int]]:
        if not self.complete:
            self.scan()
        if self._sums is None or self._units is None:
            self._sums = list(accumulate(self._deltas, initial=0))
            self._units = [core + shift for core, shift in zip(self._cores, self._sums, strict=False)]
        return self._sums, self._units

    def to_core(self, unit: int) -> int:
        if not self._cores and self.complete:
            return unit
        sums, units = self._prepare()
        return unit - sums[bisect_left(units, unit)]

    def to_unit(self, core: int) -> int:
        if not self._cores and self.complete:
            return core
        sums, _units = self._prepare()
        return core + sums[bisect_left(self._cores, core)]

    def splice(self, start: int, end: int, text: str) -> None:
        """The core text[start:end] became `text`."""
        if not self.complete:
            self.scan()
        first, last = bisect_left(self._cores, start), bisect_left(self._cores, end)
        added = [(start + m.start(), -1 if m.group() == "\r\n" else 1) for m in _UNEVEN.finditer(text)]
        if first == last == len(self._cores) and not added:
            return  # nothing uneven at or after the edit: the map is the same
        delta = len(text) - (end - start)
        self._cores[first:] = [core for core, _ in added] + [core + delta for core in self._cores[last:]]
        self._deltas[first:] = [d for _, d in added] + self._deltas[last:]
        self._sums = self._units = None


class _Gutter(QWidget):
    def __init__(self, view: SourceView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self) -> QSize:
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._view.paint_gutter(event)


class SourceView(QPlainTextEdit):
    """The source text; `show_span` moves the cursor to a finding and highlights it. Read-only until a file is
    shown (`set_editable`) and while a big text is still going in."""

    spanShown = Signal(int, int)  # line, column (1-based, characters) of the cursor after a jump
    sourceComplete = Signal()  # all of the text set last is in the view (a big text goes in by chunks)
    typed = Signal(int, int, str)  # the core text[start:end] became this text (typed, pasted, cut, replaced)
    undoRequested = Signal()
    redoRequested = Signal()
    zoomChanged = Signal(int)  # points above (below) the starting size

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
        self._chunk_timer.timeout.connect(self._append_turn)
        self.document().setUndoRedoEnabled(False)  # undo is the workspace's: no history kept for the text here
        self.highlighter = SpecHighlighter(self.document(), "yaml", self._colors)
        self.setObjectName("sourceView")
        self._editable = False  # a file is shown (the text can be typed in once it is all in)
        # The last jump (a finding, an operation, go to line, find), while it is the last thing the user did: the
        # viewport height and line height it was centred at, and whether the text below its line was still to
        # come. The window settling after a jump (a dock made taller, a theme's fonts, the text going in) centres
        # it again, so the line jumped to never ends up outside the view.
        self._jump: tuple[int, int] | None = None
        self._jump_short = False
        self._quiet = 0  # > 0: the text changes because it was given, not typed
        self._map = DisplayMap("")  # the positions of the text shown (a big text is read as it goes in)
        self._core_length = 0
        self.newline = "\n"  # what Enter types: the file's own line break
        self.setReadOnly(True)
        self.document().contentsChange.connect(self._contents_changed)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setAcceptDrops(False)  # a dropped file goes to the window, which opens it
        self.viewport().setAcceptDrops(False)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSizeF(max(font.pointSizeF(), 10.0))
        self._base_points = font.pointSizeF()
        self.zoom = 0
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.sourceComplete.connect(self._update_read_only)
        self.blockCountChanged.connect(self._update_gutter_width)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._update_extra_selections)
        self.verticalScrollBar().actionTriggered.connect(self._user_moved)
        self._update_gutter_width()

    # -- content ---------------------------------------------------------------------------------------------

    def set_source(self, text: str, fmt: str, newline: str = "\n") -> None:
        """Show `text` (a file's text as edited) coloured as `fmt` ("yaml" or "json"); Enter types `newline`."""
        self._map = DisplayMap(text, scan_now=len(text) <= INCREMENTAL_FROM)
        self._core_length, self.newline = len(text), newline
        self._span = None
        self._markers = {}
        self._user_moved()
        self._chunk_timer.stop()
        self._pending = None
        self.highlighter.set_language(fmt)
        shown = display_text(text)
        if len(shown) > INCREMENTAL_FROM:
            # Setting (and colouring) megabytes at once freezes the window for a second or more: the text goes in
            # by slices from the next event-loop turn on (the first screens within a few milliseconds), so a load
            # shown now costs no colouring at all. Anything that needs a position puts the text in as far as that
            # position first.
            shown, self._pending, self._pending_at = "", shown, 0
        # The highlighter colours the new text while it goes in, asking for a repaint per line: keep our own
        # slots (gutter, current line) out of that and update them once afterwards.
        with self._given():
            self.setPlainText(shown)
        self._update_read_only()
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

    def _append_turn(self) -> None:
        """One event-loop turn's share of a big text: slices of whole lines (SLICE_CHARS at most) until TURN_SECONDS
        are spent. Bounded by time, not by size: a big chunk (48 KiB took 30-150 ms on a busy machine) is a stall."""
        ends = time.perf_counter() + TURN_SECONDS
        while self._pending is not None:
            at = self._pending_at
            cut = self._pending.rfind("\n", at, at + SLICE_CHARS) + 1 if at + SLICE_CHARS < len(self._pending) else 0
            self._append_chunk((cut or at + SLICE_CHARS) - at)
            if time.perf_counter() >= ends:
                break
        if self._pending is None:
            self._chunk_timer.stop()

    def _append_chunk(self, size: int) -> None:
        """Append the next `size` characters of the text still to come (the positions' map reads on by
        MAP_SLICE_CHARS; what it has not read when a position is asked, it reads then)."""
        if self._pending is None:
            self._chunk_timer.stop()
            return
        chunk = self._pending[self._pending_at:self._pending_at + size]
        self._pending_at += len(chunk)
        self._map.scan(MAP_SLICE_CHARS)
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        with self._given():
            cursor.insertText(chunk)
        if self._pending_at >= len(self._pending):
            self._pending = None
            self._chunk_timer.stop()
            self._update_gutter_width()
            self._gutter.update()
        if self._jump_short:
            self._centre_jump()  # the text below the line jumped to is in now: the line can be centred
        if self._pending is None:
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
        with self._given():
            cursor.beginEditBlock()
            for begin, end, shown in reversed(pieces):  # from the end: earlier positions stay valid
                cursor.setPosition(begin)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText(shown)
            cursor.endEditBlock()
        self._map_splices(splices)
        if self._pending is not None:
            # The rest still to come is unchanged text after the edits; keep it as the edited text's, so a
            # second edit before the text is complete is applied in place too.
            new = display_text(apply_splices(old, list(splices)))
            self._pending_at += len(new) - len(self._pending)
            self._pending = new
        self._update_gutter_width()
        self._update_extra_selections()
        return True

    # -- typing --------------------------------------------------------------------------------------------------

    @contextmanager
    def _given(self) -> Iterator[None]:
        """The text changes because it was given: neither typed out again nor seen by our own slots (the
        highlighter asks for a repaint per line while it colours: gutter and current line are updated after)."""
        self._quiet += 1
        self.blockSignals(True)
        try:
            yield
        finally:
            self.blockSignals(False)
            self._quiet -= 1

    def set_editable(self, editable: bool) -> None:
        """A file is shown (True) or none (False): typing in it is allowed once all of its text is in."""
        self._editable = editable
        self._update_read_only()

    def _update_read_only(self) -> None:
        self.setReadOnly(not (self._editable and self._pending is None))

    def _map_splices(self, splices: Sequence[Splice]) -> None:
        """The text given changed by `splices` (planned together): the positions' map follows, from the end."""
        display_map = self._map
        for splice in sorted(splices, key=lambda s: (s.start, s.end), reverse=True):
            display_map.splice(splice.start, splice.end, splice.text)
            self._core_length += len(splice.text) - (splice.end - splice.start)

    def _contents_changed(self, position: int, removed: int, added: int) -> None:
        if self._quiet or self.isReadOnly() or removed == added == 0:
            return
        document = self.document()
        display_map = self._map
        start = display_map.to_core(position)
        end = min(display_map.to_core(position + removed), self._core_length)  # Qt counts the last break too
        cursor = QTextCursor(document)
        cursor.setPosition(position)
        cursor.setPosition(min(position + added, document.characterCount() - 1), QTextCursor.MoveMode.KeepAnchor)
        text = cursor.selectedText().replace("\u2029", self.newline).replace("\u2028", self.newline)
        display_map.splice(start, end, text)
        self._core_length += len(text) - (end - start)
        self._span = None  # a finding's span is where it was in the text checked: shown again after the check
        self.typed.emit(start, end, text)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and (event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo)):
            event.accept()  # ours, not the text control's (which keeps no history) nor the menu's
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() not in _MODIFIER_KEYS:
            self._user_moved()
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undoRequested.emit()
        elif event.matches(QKeySequence.StandardKey.Redo):
            self.redoRequested.emit()
        elif event.key() == Qt.Key.Key_Tab and not event.modifiers() and not self.isReadOnly():
            self.textCursor().insertText("  ")  # YAML indents with spaces, never tabs
        else:
            super().keyPressEvent(event)

    # -- find, go to line, zoom ----------------------------------------------------------------------------------

    def find_text(self, text: str, *, backward: bool = False, case: bool = False) -> bool:
        """Select the next (previous) occurrence of `text` after (before) the cursor, wrapping around."""
        if not text:
            return False
        self.finish_loading()
        flags = QTextDocument.FindFlag(0)
        if backward:
            flags |= QTextDocument.FindFlag.FindBackward
        if case:
            flags |= QTextDocument.FindFlag.FindCaseSensitively
        document = self.document()
        found = document.find(text, self.textCursor(), flags)
        if found.isNull():  # wrap around
            cursor = QTextCursor(document)
            cursor.movePosition(QTextCursor.MoveOperation.End if backward else QTextCursor.MoveOperation.Start)
            found = document.find(text, cursor, flags)
        if found.isNull():
            return False
        self.setTextCursor(found)
        self._centre_jump()
        return True

    def _selection_is(self, text: str, case: bool) -> bool:
        selected = self.textCursor().selectedText()
        return selected == text if case else selected.casefold() == text.casefold()

    def replace_next(self, text: str, replacement: str, *, case: bool = False) -> bool:
        """Replace the selected occurrence of `text` (typed, like any typing) and select the next one."""
        if self.isReadOnly() or not text:
            return False
        if self._selection_is(text, case):
            self.textCursor().insertText(replacement)
        return self.find_text(text, case=case)

    def replace_all(self, text: str, replacement: str, *, case: bool = False) -> int:
        """Replace every occurrence of `text` as one change of the text; how many were replaced."""
        if self.isReadOnly() or not text:
            return 0
        flags = QTextDocument.FindFlag.FindCaseSensitively if case else QTextDocument.FindFlag(0)
        document = self.document()
        cursor = QTextCursor(document)
        edit = QTextCursor(document)
        count = 0
        edit.beginEditBlock()
        while True:
            cursor = document.find(text, cursor, flags)
            if cursor.isNull():
                break
            cursor.insertText(replacement)
            count += 1
        edit.endEditBlock()
        return count

    def go_to_line(self, line: int, column: int = 1) -> None:
        """Put the cursor at a 1-based line (and column), in the middle of the view."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.qt_position(max(line, 1), column))
        self.setTextCursor(cursor)
        self._centre_jump()
        self.spanShown.emit(*self.cursor_line_column())

    def set_zoom(self, points: int) -> None:
        """The text this many points bigger (smaller) than at the start."""
        points = min(max(points, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        if points == self.zoom:
            return
        self.zoom = points
        font = self.font()
        font.setPointSizeF(self._base_points + points)
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.zoomChanged.emit(points)

    def wheelEvent(self, event: QWheelEvent) -> None:
        self._user_moved()
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() // 120
            if steps:
                self.set_zoom(self.zoom + steps)
            return
        super().wheelEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._user_moved()
        super().mousePressEvent(event)

    # -- centring a jump -------------------------------------------------------------------------------------

    def _centre_jump(self) -> None:
        """The cursor's line in the middle of the view, centred again whenever the view's height or line height
        changes, or the text below the line comes in, until the user moves (types, clicks, scrolls)."""
        self.centerCursor()
        line_height = max(self.fontMetrics().height(), 1)
        self._jump = (self.viewport().height(), line_height)
        below = self.document().blockCount() - 1 - self.textCursor().blockNumber()
        self._jump_short = self._pending is not None and below < self.viewport().height() // line_height

    def _user_moved(self, _action: int = 0) -> None:
        self._jump, self._jump_short = None, False

    def _settled(self) -> None:
        """The view's geometry or font changed: a jump still the last thing done is centred for the new one."""
        if self._jump is not None and self._jump != (self.viewport().height(), max(self.fontMetrics().height(), 1)):
            self._centre_jump()

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
        self._centre_jump()
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
            self._settled()

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
        self._settled()

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
