"""The source text of the file shown, editable, with the findings' marks in its gutter, a line saying where it
is, a find and replace bar (Ctrl+F, Ctrl+H, F3), go to line (Ctrl+G) and zoom (Ctrl+=, Ctrl+-, Ctrl+0)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.document import SpecDocument, Target
from workbench.gui.source_view import SourceView
from workbench.lint import Severity
from workbench.spec import SourceDocument
from workbench.workspace import DocumentChange, LoadedSpec, LoadKind

ZOOM_KEY = "source/zoom"
TRIM_UP_TO = 8192  # characters: a typed change up to this size is cut to what it changes


class FindBar(QWidget):
    """Find (and replace) in the source view: Enter finds the next, Shift+Enter the previous, Esc closes."""

    def __init__(self, view: SourceView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.setObjectName("findBar")
        self.find_edit = QLineEdit()
        self.find_edit.setPlaceholderText("Find")
        self.find_edit.setClearButtonEnabled(True)
        self.replace_edit = QLineEdit()
        self.replace_edit.setPlaceholderText("Replace with")
        self.case = QCheckBox("Aa")
        self.case.setToolTip("Match case")
        self.result = QLabel()
        self.result.setObjectName("findResult")
        buttons = []
        for text, tip, slot in (("↓", "Find next (F3)", self.find_next),
                                ("↑", "Find previous (Shift+F3)", self.find_previous),
                                ("Replace", "Replace this one and find the next", self.replace_next),
                                ("All", "Replace every one", self.replace_all),
                                ("✕", "Close (Esc)", self.close_bar)):
            button = QToolButton()
            button.setText(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda _checked=False, slot=slot: slot())
            buttons.append(button)
        self.replace_buttons = buttons[2:4]
        # Two short rows: the source view can be narrow (the docks take the rest of 1024 pixels), and the bar
        # must never widen it.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(1)
        for edit in (self.find_edit, self.replace_edit):
            edit.setMinimumWidth(60)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(6, 2, 6, 2)
        rows.setSpacing(2)
        find_row, replace_row = QHBoxLayout(), QHBoxLayout()
        for row, widgets in ((find_row, (self.find_edit, buttons[0], buttons[1], self.case, self.result, buttons[4])),
                             (replace_row, (self.replace_edit, buttons[2], buttons[3]))):
            for widget in widgets:
                row.addWidget(widget, 1 if isinstance(widget, QLineEdit) else 0)
            rows.addLayout(row)
        self.replace_row = replace_row
        self.find_edit.returnPressed.connect(self._return_pressed)
        self.replace_edit.returnPressed.connect(self.replace_next)
        self.hide()

    def open_bar(self, replace: bool = False) -> None:
        selected = self.view.textCursor().selectedText()
        if selected and "\u2029" not in selected:
            self.find_edit.setText(selected)
        for widget in (self.replace_edit, *self.replace_buttons):
            widget.setVisible(replace)
        self.show()
        (self.replace_edit if replace and self.find_edit.text() else self.find_edit).setFocus()
        self.find_edit.selectAll()

    def close_bar(self) -> None:
        self.hide()
        self.view.setFocus()

    def _said(self, found: bool) -> bool:
        self.result.setText("" if found else "Not found")
        return found

    def find_next(self) -> bool:
        return self._said(self.view.find_text(self.find_edit.text(), case=self.case.isChecked()))

    def find_previous(self) -> bool:
        return self._said(self.view.find_text(self.find_edit.text(), backward=True, case=self.case.isChecked()))

    def replace_next(self) -> bool:
        return self._said(self.view.replace_next(self.find_edit.text(), self.replace_edit.text(),
                                                 case=self.case.isChecked()))

    def replace_all(self) -> int:
        count = self.view.replace_all(self.find_edit.text(), self.replace_edit.text(), case=self.case.isChecked())
        self.result.setText(f"{count} replaced")
        return count

    def _return_pressed(self) -> None:
        if QApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.find_previous()
        else:
            self.find_next()

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
        else:
            super().keyPressEvent(event)


class SourcePanel(QWidget):
    """Shows a file of the spec as edited: the whole text when another file is shown, the splices of an edit in
    place. `view` is the text view; `location_label` says what was revealed last."""

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.setObjectName("sourceContainer")
        self.view = SourceView()
        self.view.setPlaceholderText("Open an OpenAPI or Swagger document (Ctrl+O), or drop one here.")
        self.location_label = QLabel()
        self.location_label.setObjectName("locationLabel")
        self.location_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.location_label.setContentsMargins(6, 3, 6, 3)
        # A long pointer must not widen the window (it has to fit 1024 pixels): the text is cut, not the window.
        self.location_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.location_label.setMinimumWidth(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.find_bar = FindBar(self.view)
        layout.addWidget(self.location_label)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.view, 1)
        self._shown: SourceDocument | None = None
        self._settings: QSettings | None = None
        document.loaded.connect(self._loaded)
        document.changed.connect(self._changed)
        document.revealed.connect(self.reveal)
        document.busy.connect(self._busy)
        self.view.typed.connect(self._typed)
        self.view.undoRequested.connect(document.undo)
        self.view.redoRequested.connect(document.redo)
        self.view.zoomChanged.connect(self._zoomed)
        self.find_actions = [
            self._action("&Find…", lambda: self.find_bar.open_bar(), QKeySequence.StandardKey.Find),
            self._action("Find and &Replace…", lambda: self.find_bar.open_bar(replace=True),
                         QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_H)),
            self._action("Find &Next", self.find_bar.find_next, QKeySequence(Qt.Key.Key_F3)),
            self._action("Find Pre&vious", self.find_bar.find_previous,
                         QKeySequence(Qt.Modifier.SHIFT | Qt.Key.Key_F3)),
            self._action("&Go to Line…", self.ask_line, QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_G)),
        ]
        self.zoom_actions = [
            self._action("Zoom &In", lambda: self.view.set_zoom(self.view.zoom + 1),
                         QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Equal), QKeySequence.StandardKey.ZoomIn),
            self._action("Zoom &Out", lambda: self.view.set_zoom(self.view.zoom - 1),
                         QKeySequence.StandardKey.ZoomOut),
            self._action("&Actual Size", lambda: self.view.set_zoom(0), QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_0)),
        ]
        self.line_dialog: QInputDialog | None = None

    # -- actions (the window puts them in its menus) -------------------------------------------------------------

    def _action(self, text: str, slot, *shortcuts) -> QAction:
        action = QAction(text, self)
        action.setShortcuts([QKeySequence(shortcut) for shortcut in shortcuts])
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def add_actions(self, menu: QMenu, actions: list[QAction]) -> None:
        """Put `actions` in a menu of the window, their shortcuts working wherever the focus is in it."""
        menu.addSeparator()
        for action in actions:
            menu.addAction(action)
            self.window().addAction(action)

    def use_settings(self, settings: QSettings) -> None:
        """Where the zoom is kept (and taken from now)."""
        self._settings = settings
        self.view.set_zoom(int(settings.value(ZOOM_KEY, 0, type=int)))

    def _zoomed(self, points: int) -> None:
        if self._settings is not None:
            self._settings.setValue(ZOOM_KEY, points)

    def ask_line(self) -> None:
        """Go to Line: a small dialog asking for the line (the cursor's line offered)."""
        dialog = QInputDialog(self)
        dialog.setObjectName("goToLineDialog")
        dialog.setWindowTitle("Go to Line")
        dialog.setInputMode(QInputDialog.InputMode.IntInput)
        dialog.setIntRange(1, max(self.view.document().blockCount(), 1))
        dialog.setIntValue(self.view.cursor_line_column()[0])
        dialog.setLabelText(f"Line (1–{self.view.document().blockCount()}):")
        dialog.intValueSelected.connect(self.go_to_line)
        self.line_dialog = dialog
        dialog.open()

    def go_to_line(self, line: int) -> None:
        self.view.go_to_line(line)
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- typing --------------------------------------------------------------------------------------------------

    def _busy(self, _text: str) -> None:
        """No typing while a file is opened or read again: its text would replace what was typed."""
        reading = self.document.is_reading
        self.view.set_editable(not reading and self._shown is not None and self.document.workspace.loaded is not None)

    def _typed(self, start: int, end: int, text: str) -> None:
        """The view's text[start:end] became `text`: the same splice of the file's text in the workspace (Qt
        sometimes reports more than changed: the splice is cut to what did)."""
        shown = self._shown
        ws = self.document.workspace
        old = ws.typed_slice(shown.name, start, end) if shown is not None and ws.loaded is not None else None
        if old is None or old == text:
            return  # no file, or nothing changed (Qt reported a change of format only)
        if len(old) + len(text) > TRIM_UP_TO:  # a big replace: cutting it character by character costs more
            self.document.type_text(shown.name, start, end, text)
            return
        same = 0
        limit = min(len(old), len(text))
        while same < limit and old[same] == text[same]:
            same += 1
        tail = 0
        while tail < limit - same and old[len(old) - 1 - tail] == text[len(text) - 1 - tail]:
            tail += 1
        self.document.type_text(shown.name, start + same, end - tail, text[same:len(text) - tail])

    @property
    def shown(self) -> SourceDocument | None:
        """The document whose text the view shows."""
        return self._shown

    def show_file(self, document: SourceDocument, *, keep_position: bool = False) -> None:
        """Show a file of the spec, as edited."""
        ws = self.document.workspace
        shown = ws.edited.get(document.name, document) if ws.loaded is not None else document
        if shown is self._shown:
            return
        view = self.view
        if keep_position:
            scroll = view.verticalScrollBar().value()
            line, column = view.cursor_line_column()
        self._shown = shown
        view.set_source(shown.text, shown.format, shown.newline)
        view.set_editable(ws.loaded is not None)
        if keep_position:
            cursor = view.textCursor()
            cursor.setPosition(view.qt_position(line, column))
            view.setTextCursor(cursor)
            view.verticalScrollBar().setValue(scroll)
        self.show_markers(document)

    def show_markers(self, document: SourceDocument) -> None:
        """The gutter's marks: the most severe finding on each line of `document` (a file of the spec)."""
        markers: dict[int, Severity] = {}
        loaded = self.document.spec
        if loaded is not None:
            for entry in loaded.problems:
                if entry.finding.document.name == document.name:
                    line = entry.start.line
                    markers[line] = max(markers.get(line, Severity.HINT), entry.finding.severity)
        self.view.set_markers(markers)

    def _loaded(self, loaded: LoadedSpec, kind: LoadKind) -> None:
        spec = loaded.spec
        shown = self._shown
        recheck = kind is LoadKind.RECHECK
        edited = self.document.workspace.edited.get(shown.name) if shown is not None else None
        if recheck and shown is not None and edited is not None and (edited is shown or edited.text == shown.text):
            self._shown = edited  # the typed text, parsed by the re-check: the same text
            self.show_markers(edited)  # the view shows the edited text already: only the markers are new
        else:
            self._shown = None
            if recheck and shown is not None:
                self.show_file(spec.documents.get(shown.name, spec.root))
            else:
                self.show_file(spec.root, keep_position=recheck)
        if not loaded.parsed:
            self.location_label.setText(f"{loaded.path.name}  ·  does not parse: fix the text (the finding is in "
                                        "Problems)")
        elif not recheck or self.location_label.property("unparsed"):
            self.location_label.setText(f"{loaded.path.name}  ·  {spec.spec_version}  ·  "
                                        f"{len(spec.operations)} operations")
        self.location_label.setProperty("unparsed", not loaded.parsed)

    def _changed(self, change: DocumentChange) -> None:
        if self.document.spec is None:
            return
        previous, document = change.previous, change.document
        if change.typed and self._shown is previous:  # typed here: the view shows it already
            self._shown = document
            return
        if change.from_disk:  # taken in from disk: shown again where the view was, if it is the file shown
            if self._shown is previous:
                self._shown = None
                self.show_file(document, keep_position=True)
            return
        if change.splices and previous is not None and self._shown is previous \
                and self.view.apply_splices(previous.text, change.splices):
            self._shown = document
            return
        same = previous is not None and self._shown is previous
        self._shown = None
        self.show_file(document, keep_position=same)

    def reveal(self, target: Target) -> None:
        """Show the target's file with the cursor at its start and its span selected."""
        ws = self.document.workspace
        if target.problem is not None:
            entry = target.problem
            finding = entry.finding
            self.show_file(finding.document)
            self.view.show_span(entry.start, entry.location.end, finding.severity, focus=target.focus)
            where = f"{ws.file_label(finding.document)}:{entry.start.line}:{entry.start.column}"
            self.location_label.setText(f"{where}  ›  {finding.pointer or '/'}    "
                                        f"{finding.severity.label} · {finding.rule}")
            self.location_label.setToolTip(finding.message)
        elif target.operation is not None:
            entry, op = target.operation, target.operation.operation
            self.show_file(op.origin.document)
            self.view.show_span(entry.start, entry.location.key_end or entry.start, focus=target.focus)
            self.location_label.setText(f"{ws.file_label(op.origin.document)}  ›  {op.origin.pointer}   "
                                        f"{op.method.upper()} {op.path}")
        elif target.prop is not None:
            entry = target.prop
            self.show_file(entry.document)
            start = entry.location.key_start or entry.location.start
            self.view.show_span(start, entry.location.key_end or start, focus=target.focus)
            self.location_label.setText(f"{ws.file_label(entry.document)}  ›  {entry.pointer}")
        elif target.location is not None and ws.loaded is not None:  # a path item or a schema
            location, spec = target.location, ws.loaded.spec
            self.show_file(spec.documents.get(location.file, spec.root))
            start = location.key_start or location.start
            self.view.show_span(start, location.key_end or start, focus=target.focus)
