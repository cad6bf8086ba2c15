"""The source text of the file shown, with the findings' marks in its gutter and a line saying where it is."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from workbench.gui.document import SpecDocument, Target
from workbench.gui.source_view import SourceView
from workbench.lint import Severity
from workbench.spec import SourceDocument
from workbench.workspace import DocumentChange, LoadedSpec, LoadKind


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
        layout.addWidget(self.location_label)
        layout.addWidget(self.view, 1)
        self._shown: SourceDocument | None = None
        document.loaded.connect(self._loaded)
        document.changed.connect(self._changed)
        document.revealed.connect(self.reveal)

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
        view.set_source(shown.text, shown.format)
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
        if recheck and shown is not None and shown is self.document.workspace.edited.get(shown.name):
            self.show_markers(shown)  # the view shows the edited text already: only the markers are new
        else:
            self._shown = None
            if recheck and shown is not None:
                self.show_file(spec.documents.get(shown.name, spec.root))
            else:
                self.show_file(spec.root, keep_position=recheck)
        if not recheck:
            self.location_label.setText(f"{loaded.path.name}  ·  {spec.spec_version}  ·  "
                                        f"{len(spec.operations)} operations")

    def _changed(self, change: DocumentChange) -> None:
        if self.document.spec is None:
            return
        previous, document = change.previous, change.document
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
