"""The Edit form widget and where recovery journals go.

The form shows and collects values; which `Edit`s they make is `workbench.workspace.form`'s, and every change
to the text goes through the core's `apply_edits` (zero-noise splices, verified by a re-parse). The undo
history and the journals are the workspace's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, QStandardPaths, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.widgets import ElidedLabel, shrinkable
from workbench.spec import SourceDocument
from workbench.workspace.form import PROPERTY_FIELDS, PROPERTY_UNITS, format_enum, schema_members, value_at

RECOVERY_ENV = "WORKBENCH_RECOVERY_DIR"


# -- the recovery journal -----------------------------------------------------------------------------------------

def recovery_dir(settings: QSettings | None = None) -> Path:
    """Where journals go: $WORKBENCH_RECOVERY_DIR, else the `recovery/dir` setting, else AppDataLocation."""
    configured = os.environ.get(RECOVERY_ENV) or (settings.value("recovery/dir", "", type=str) if settings else "")
    if configured:
        return Path(configured)
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)) / "recovery"


# -- the form ----------------------------------------------------------------------------------------------------

class OperationForm(QWidget):
    """Summary, operationId and description of one operation, one of its parameters, and the schema property a
    finding is about; `applyRequested` carries the values (the operation pointer is "" when only a property
    is shown)."""

    applyRequested = Signal(str, dict)  # operation pointer, {field: text}

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("operationForm")
        self.pointer: str | None = None
        self.document: SourceDocument | None = None  # where the parameters' values are read
        self.parameter = QComboBox()
        self.parameter.setObjectName("formParameter")
        _narrow(self.parameter)
        self.parameter.currentIndexChanged.connect(self._parameter_changed)
        self.parameter_description = QLineEdit()
        self.parameter_description.setObjectName("formParameterDescription")
        self.parameter_enum = QLineEdit()
        self.parameter_enum.setObjectName("formParameterEnum")
        self.parameter_enum.setPlaceholderText("values, separated by commas")
        self.property_pointer: str | None = None  # the schema node edited: the node shown or one of its properties
        self.property_root: str | None = None  # the schema node shown (a property, array items, a component …)
        self.property_document: SourceDocument | None = None  # the file it is read from
        self.schema_member = QComboBox()  # the node itself, or one of its own properties
        self.schema_member.setObjectName("formSchemaMember")
        _narrow(self.schema_member)
        self.schema_member.setToolTip("Edit the schema itself or one of its properties")
        self.schema_member.currentIndexChanged.connect(self._member_changed)
        self.property_label = ElidedLabel("—", mode=Qt.TextElideMode.ElideMiddle)  # a pointer: both ends say most
        self.property_label.setObjectName("formProperty")
        self.property_description = QLineEdit()
        self.property_description.setObjectName("formPropertyDescription")
        self.property_enum = QLineEdit()
        self.property_enum.setObjectName("formPropertyEnum")
        self.property_enum.setPlaceholderText("values, separated by commas")
        self.property_unit = QComboBox()
        self.property_unit.setObjectName("formPropertyUnit")
        self.property_unit.setEditable(True)
        self.property_unit.addItems(["", *PROPERTY_UNITS])
        _narrow(self.property_unit)
        self.property_unit.setToolTip("The unit of a number: written into the description")
        self._original: dict[str, str] = {}
        self.heading = shrinkable(QLabel("Select an operation (outline) or a finding (problems)."))
        self.summary = QLineEdit()
        self.summary.setObjectName("formSummary")
        self.operation_id = QLineEdit()
        self.operation_id.setObjectName("formOperationId")
        self.description = QPlainTextEdit()
        self.description.setObjectName("formDescription")
        self.description.setTabChangesFocus(True)
        self.note = shrinkable(QLabel())
        self.note.setObjectName("formNote")
        self.apply_button = QPushButton("&Apply")
        self.apply_button.setObjectName("formApply")
        self.apply_button.clicked.connect(self.request_apply)
        self.reset_button = QPushButton("Rese&t")
        self.reset_button.clicked.connect(self.reset)
        form = QFormLayout()
        form.addRow("Summary", self.summary)
        form.addRow("operationId", self.operation_id)
        form.addRow("Description", self.description)
        form.addRow("Parameter", self.parameter)
        form.addRow("  description", self.parameter_description)
        form.addRow("  enum", self.parameter_enum)
        form.addRow("Property", self.property_label)
        form.addRow("  property", self.schema_member)
        form.addRow("  description", self.property_description)
        form.addRow("  enum", self.property_enum)
        form.addRow("  unit", self.property_unit)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.apply_button)
        self._rows = form
        form.setRowVisible(self.schema_member, False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.heading)
        layout.addLayout(form, 1)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        self.set_enabled(False)

    def fields(self) -> dict[str, QLineEdit | QPlainTextEdit]:
        return {"summary": self.summary, "operationId": self.operation_id, "description": self.description}

    def set_enabled(self, enabled: bool) -> None:
        for widget in (*self.fields().values(), self.apply_button, self.reset_button):
            widget.setEnabled(enabled)
        has_parameters = enabled and self.parameter.count() > 0
        for widget in (self.parameter, self.parameter_description, self.parameter_enum):
            widget.setEnabled(has_parameters)
        for widget in (self.schema_member, self.property_description, self.property_enum, self.property_unit):
            widget.setEnabled(self.property_pointer is not None)
        if self.property_pointer is not None:
            self.apply_button.setEnabled(True)
            self.reset_button.setEnabled(True)
        # A schema no operation owns: only its rows, at the top of a low dock (the operation's would be disabled)
        schema_only = not enabled and self.property_pointer is not None
        for widget in (*self.fields().values(), self.parameter, self.parameter_description, self.parameter_enum):
            self._rows.setRowVisible(widget, not schema_only)

    def set_property(self, document: SourceDocument | None, pointer: str | None, note: str = "",
                     select: str | None = None) -> None:
        """Show the schema node at `pointer` of `document` — a property, array items, a component schema … — with
        its own properties to choose from (`select`: the one chosen; None: no node, `note` says why)."""
        self.property_root = pointer if document is not None else None
        self.property_document = document if pointer else None
        members = schema_members(document, pointer) if document is not None and pointer else []
        self.schema_member.blockSignals(True)
        self.schema_member.clear()
        for member, name, described in members:
            label = name or "(this schema)"
            self.schema_member.addItem(label if described else f"{label} (no description)", member)
        position = self.schema_member.findData(select) if select else 0
        self.schema_member.setCurrentIndex(max(position, 0) if members else -1)
        self.schema_member.blockSignals(False)
        self._rows.setRowVisible(self.schema_member, len(members) > 1)
        self._member_changed(note=note)

    def _member_changed(self, _row: int = 0, note: str = "") -> None:
        document = self.property_document
        pointer = self.schema_member.currentData() if document is not None else None
        self.property_pointer = pointer
        value = value_at(document, pointer) if document is not None and pointer else None
        self.property_label.setText(pointer if pointer else note or "—")
        self.property_label.setToolTip(note or pointer or "")
        label = self._rows.labelForField(self.property_label)
        if isinstance(label, QLabel):  # a property is one; array items, a member of anyOf, a component is a schema
            label.setText("Property" if pointer is None or pointer.rsplit("/", 2)[-2:-1] == ["properties"]
                          else "Schema")
        description = value.get("description") if isinstance(value, dict) else None
        self.property_description.setText(description if isinstance(description, str) else "")
        self.property_enum.setText(format_enum(value.get("enum") if isinstance(value, dict) else None))
        self.property_unit.setCurrentIndex(0)
        self.set_enabled(self.pointer is not None)

    def set_parameters(self, document: SourceDocument | None, parameters: list[tuple[str, str]],
                       select: str | None = None) -> None:
        self.document = document
        self.parameter.blockSignals(True)
        self.parameter.clear()
        for pointer, label in parameters:
            self.parameter.addItem(label, pointer)
        position = self.parameter.findData(select) if select else 0
        self.parameter.setCurrentIndex(max(position, 0) if parameters else -1)
        self.parameter.blockSignals(False)
        self._parameter_changed()

    def _parameter_changed(self, _row: int = 0) -> None:
        pointer = self.parameter.currentData()
        if self.document is None or not pointer:
            self.parameter_description.clear()
            self.parameter_enum.clear()
            return
        description = value_at(self.document, f"{pointer}/description")
        self.parameter_description.setText(description if isinstance(description, str) else "")
        self.parameter_enum.setText(format_enum(value_at(self.document, f"{pointer}/schema/enum")))

    def show_operation(self, pointer: str | None, heading: str, current: dict[str, Any],
                       suggestion: tuple[str, str, str] | None = None, note: str = "") -> None:
        """Fill the form; `suggestion` (field, value, why) pre-fills one field with a finding's fix."""
        self.pointer = pointer
        self.heading.setText(heading)
        self._original = {key: value if isinstance(value, str) else "" for key, value in current.items()}
        for key, widget in self.fields().items():
            widget.setPlainText(self._original.get(key, "")) if isinstance(widget, QPlainTextEdit) \
                else widget.setText(self._original.get(key, ""))
        if suggestion is not None and suggestion[0] == "parameterEnum":
            self.parameter_enum.setText(suggestion[1])
            note = note or (f"Pre-filled the parameter's enum with the suggested fix ({suggestion[2]}); "
                            "Apply to make the edit.")
        elif suggestion is not None and suggestion[0] in PROPERTY_FIELDS:
            widget = self.property_enum if suggestion[0] == "propertyEnum" else self.property_description
            widget.setText(suggestion[1])
            note = note or f"Pre-filled the property with the suggested fix ({suggestion[2]}); Apply to make the edit."
        elif suggestion is not None:
            key, value, why = suggestion
            widget = self.fields()[key]
            widget.setPlainText(value) if isinstance(widget, QPlainTextEdit) else widget.setText(value)
            note = note or f"Pre-filled {key} with the suggested fix ({why}); Apply to make the edit."
        self.note.setText(note)
        self.set_enabled(pointer is not None)

    def values(self) -> dict[str, str]:
        values = {key: widget.toPlainText() if isinstance(widget, QPlainTextEdit) else widget.text()
                  for key, widget in self.fields().items()}
        if self.parameter.currentData():
            values.update(parameter=self.parameter.currentData(),
                          parameterDescription=self.parameter_description.text(),
                          parameterEnum=self.parameter_enum.text())
        if self.property_pointer is not None:
            values.update(property=self.property_pointer, propertyDescription=self.property_description.text(),
                          propertyEnum=self.property_enum.text(), propertyUnit=self.property_unit.currentText())
        return values

    def reset(self) -> None:
        self.show_operation(self.pointer, self.heading.text(), dict(self._original))
        self._parameter_changed()
        self.set_property(self.property_document, self.property_root, select=self.property_pointer)

    def request_apply(self) -> None:
        if self.pointer is not None or self.property_pointer is not None:
            self.applyRequested.emit(self.pointer or "", self.values())


def _narrow(combo: QComboBox) -> QComboBox:
    """A combo box that does not ask for its longest item's width (a long parameter name would widen the dock)."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(8)
    return combo
