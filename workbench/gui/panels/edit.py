"""The Edit form as a panel: shows what was revealed (an operation, a schema property, a finding's suggested
fix), follows the edited texts, and turns Apply into one undoable step of the document."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from workbench.edit import apply_edits
from workbench.gui.document import SpecDocument, Target
from workbench.gui.editing import OperationForm
from workbench.lint import Finding
from workbench.workspace import DocumentChange, LoadedSpec, LoadKind, OperationEntry
from workbench.workspace.form import (
    form_edits,
    form_target,
    inline_parameters,
    schema_heading,
    schema_members,
    schema_pointer,
    suggestion_for,
    value_at,
)

EMPTY_HEADING = "Select an operation (outline) or a finding (problems)."


class EditPanel(QWidget):
    """`form` is the form; `fill(...)` shows an operation and/or property; `apply(pointer, values)` edits."""

    TITLE = "Edit"

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.form = OperationForm()
        self.form.applyRequested.connect(self.apply)
        # The form scrolls down when the dock is low (a 700-pixel screen); it never scrolls across: it takes the
        # dock's width, so no field sets the window's minimum width.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.form)
        self._scroll = scroll
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        self._entry: OperationEntry | None = None
        self._property: str | None = None  # the schema property shown
        self._document_name: str | None = None  # the name of the document the form edits
        document.loaded.connect(self._loaded)
        document.revealed.connect(self._revealed)
        document.edited.connect(self._edited)

    @property
    def document_name(self) -> str | None:
        """The file the form edits (None: nothing shown)."""
        return self._document_name

    def fill(self, entry: OperationEntry | None, finding: Finding | None = None, *, prop: str | None = None,
             document_name: str | None = None) -> None:
        """Show an operation (or none) and the schema property a finding is about (or `prop` in the file named
        `document_name`) in the form, with the finding's suggested fix pre-filled; any file of the spec."""
        ws = self.document.workspace
        form = self.form
        if finding is not None:
            prop = schema_pointer(finding.pointer)
            document_name = finding.document.name
        elif entry is not None:
            document_name = entry.operation.origin.document.name
        document = ws.edited.get(document_name) if document_name else None
        # the same node again (after an edit): the property chosen in it stays chosen
        same = finding is None and (prop, document_name) == (form.property_root, self._document_name)
        self._document_name = document_name if document is not None else None
        form.set_property(document if prop else None, prop if document is not None else None,
                          select=form.property_pointer if same else None)
        self._property = prop if document is not None else None
        self._entry = entry
        note = self._members_note(document, prop) if finding is not None else ""
        if entry is None or document is None:
            form.set_parameters(None, [])
            suggestion = suggestion_for(finding, "") if finding is not None and document is not None else None
            heading = "A shared schema (no operation)"
            if document is not None and prop:
                loaded = ws.loaded
                heading = schema_heading(document_name, prop,
                                         loaded.operations_using(document_name, prop) if loaded is not None else 0,
                                         ws.file_label(document) if document is not ws.root else "")
            form.show_operation(None, heading, {}, suggestion, "" if suggestion else note)
            return
        op = entry.operation
        pointer = op.origin.pointer
        current = {key: value_at(document, f"{pointer}/{key}") for key in form.fields()}
        suggestion = suggestion_for(finding, pointer) if finding is not None else None
        selected = form.parameter.currentData() if form.pointer == pointer else None
        if suggestion is not None and suggestion[0] == "parameterEnum":
            selected = finding.fix.pointer.rsplit("/schema/enum", 1)[0]
        form.set_parameters(document, inline_parameters(document, pointer), selected)
        heading = f"{op.method.upper()} {op.path}"
        if document is not ws.root:
            heading += f"  ({ws.file_label(document)})"
        form.show_operation(pointer, heading, current, suggestion, "" if suggestion else note)
        if finding is not None and prop is not None:
            # the node the finding is on sits below the operation's fields: scroll it into view (a low dock)
            QTimer.singleShot(0, self._show_node_rows)

    def _show_node_rows(self) -> None:
        form = self.form
        for widget in (form.property_unit, form.property_label):  # the last row, then the first: all, if they fit
            self._scroll.ensureWidgetVisible(widget, 0, 4)

    @staticmethod
    def _members_note(document, pointer: str | None) -> str:
        """What to do when the node shown holds properties without a description (one finding names them all)."""
        if document is None or not pointer:
            return ""
        missing = [name for _member, name, described in schema_members(document, pointer)[1:] if not described]
        if not missing:
            return ""
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        return f"{len(missing)} of its properties have no description ({shown}): choose each under “property”."

    def refill(self) -> None:
        """After an edit: the same operation and property, with their values as they are now."""
        if self._entry is not None or self._property is not None:
            self.fill(self._entry, prop=self._property, document_name=self._document_name)

    def apply(self, pointer: str, values: dict) -> bool:
        """The form's Apply: its changed fields become edits applied to the edited document (one undo step)."""
        ws = self.document.workspace
        document = ws.edited.get(self._document_name) if self._document_name else None
        if document is None or self.document.refuse_while_reading():
            return False
        edits, refused = form_edits(document, pointer, values)
        if not edits:
            ws.last_refused = refused
            self.form.note.setText("\n".join(refused) or "Nothing changed.")
            return False
        applied = self.document.apply(apply_edits(document, edits), f"Edit {pointer or values.get('property')}")
        ws.last_refused = refused + ws.last_refused
        note = "\n".join(f"Refused: {line}" for line in ws.last_refused)
        self.form.note.setText(note or "Applied.")
        self.document.message.emit("Edit applied." if applied else "The edit was refused.", 5000)
        return applied

    def _loaded(self, loaded: LoadedSpec, kind: LoadKind) -> None:
        if kind is LoadKind.RECHECK:
            return
        if self.document.reloaded_from_disk and (self._entry is not None or self._property is not None):
            self._entry = self._same_operation(loaded, self._entry)
            if self._entry is not None or self._property is not None:
                self.refill()  # the same operation and property, with their values as they are on disk now
                return
        self._entry = None
        self._property = None
        self.form.set_property(None, None)
        self.form.set_parameters(None, [])
        self.form.show_operation(None, EMPTY_HEADING, {})

    @staticmethod
    def _same_operation(loaded: LoadedSpec, entry: OperationEntry | None) -> OperationEntry | None:
        """The operation of a spec read again that is at the place `entry` was (None: gone, or none shown)."""
        if entry is None:
            return None
        origin = entry.operation.origin
        return next((found for found in loaded.operations
                     if (found.operation.origin.document.name, found.operation.origin.pointer)
                     == (origin.document.name, origin.pointer)), None)

    def _revealed(self, target: Target) -> None:
        if target.problem is not None:
            finding = target.problem.finding
            operation = self.document.workspace.operation_of(finding)
            if form_target(finding, operation) is not None:
                self.fill(operation, finding)
        elif target.operation is not None:
            self.fill(target.operation)
        elif target.prop is not None:
            self.fill(None, prop=target.prop.pointer, document_name=target.prop.document.name)

    def _edited(self, changes: list[DocumentChange]) -> None:
        # An edit, undo or redo: the form shows the values as they are now. A file taken in from disk: only when
        # it is the form's (what the user typed into the form for another file stays).
        if any(not change.from_disk for change in changes):
            if self.form.pointer is not None or self.form.property_pointer is not None:
                self.refill()
        elif self._document_name in {change.document.name for change in changes}:
            self.refill()
