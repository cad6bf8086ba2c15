"""The Tools panel: the spec's operations as one vendor's tools, live. The vendor and the scope are the config's
`tools:` section (written back with the zero-noise edit engine), so `workbench tools SPEC` prints what the panel
shows; the set is re-converted on a background job after every load, re-check or change of options (a stale
result is dropped), and what changed since the last preview is said."""

from __future__ import annotations

from collections.abc import Callable
from heapq import nlargest
from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QObject, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QStandardItem,
    QStandardItemModel,
    QTextCursor,
    QTextFormat,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.config import ToolsConfig
from workbench.gui.document import SpecDocument, Target
from workbench.gui.highlighter import SpecHighlighter
from workbench.gui.jobs import Job, JobRunner
from workbench.gui.panels.onscreen import OnScreen
from workbench.gui.theme import code_colors, is_dark
from workbench.gui.widgets import ElidedLabel, EmptyNote, code_view
from workbench.spec import SpecError
from workbench.workspace import LoadedSpec, LoadKind, OperationEntry
from workbench.workspace.toolpreview import (
    VENDOR_CHOICES,
    SideBySide,
    ToolChange,
    ToolPreview,
    ToolRow,
    build_preview,
    changes_between,
    choice_index,
    compare_vendors,
    export_text,
    limit_state,
    native_text,
    operation_key,
    tool_warnings,
    with_choice,
    write_export,
    write_tools_section,
)

BUILD_DELAY_MS = 300  # after a load, a re-check or a change of options (changes in a row make one conversion)
RowRole = Qt.ItemDataRole.UserRole + 1
SortRole = Qt.ItemDataRole.UserRole + 2
BAR_COLORS = {"ok": "#3fa45b", "amber": "#e8a33d", "red": "#e5484d"}
COLUMNS = ("Tool", "Operation", "Tokens", "Warn.")
COLUMN_TIPS = ("The tool's name", "The operation it calls", "Its token estimate",
               "What the conversion lost or moved (warnings)")
OPERATION_SHARE = 0.35  # the least of the list's width the Operation column keeps when the tool names need more
MEASURED = 24  # the longest tool names and operations measured for the columns' widths
CELL_PADDING = 14  # a cell's margins around its text (and a bold, changed name's extra width)
NOTHING_LEFT_OUT = "Nothing left out: every operation in scope became a tool."


ROWS_PER_SLICE = 100  # tools put in the list per turn of the event loop (GitHub's 874 in one go held it 0.2 s)


def tools_model(rows: list[ToolRow], changes: list[ToolChange], parent=None) -> QStandardItemModel:
    """The tools as rows (name, operation, tokens, warnings), changed tools (since the last preview) in bold.

    The data lives in Qt's own items, not in a Python model: while a conversion runs on a worker thread, every
    call from Qt into Python waits for the interpreter (up to its 5 ms switch interval), and a Python `data()`
    asked a few hundred times per paint made the window stall for 0.4 s on the GitHub description. The panel
    fills it in slices (`SlicedModel`); this fills it at once."""
    model = _empty_model(len(rows), parent)
    _fill_rows(model, rows, _said(changes), range(len(rows)))
    return model


def _empty_model(count: int, parent=None) -> QStandardItemModel:
    model = QStandardItemModel(count, len(COLUMNS), parent)
    model.setHorizontalHeaderLabels(list(COLUMNS))
    for column, tip in enumerate(COLUMN_TIPS):
        model.horizontalHeaderItem(column).setToolTip(tip)
    return model


def _said(changes: list[ToolChange]) -> dict[str, list[str]]:
    said: dict[str, list[str]] = {}
    for change in changes:
        said.setdefault(change.name, []).append(change.text)
    return said


def _fill_rows(model: QStandardItemModel, rows: list[ToolRow], said: dict[str, list[str]], where: range) -> None:
    bold = QFont()
    bold.setBold(True)
    right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    for r in where:
        row = rows[r]
        tip = "\n".join([row.name, row.operation, *said.get(row.name, [])])
        for column, (shown, key) in enumerate(((row.name, row.name.lower()), (row.operation, row.operation),
                                               (str(row.tokens), row.tokens),
                                               (str(row.warnings) if row.warnings else "", row.warnings))):
            item = QStandardItem(shown)
            item.setEditable(False)
            item.setData(key, SortRole)
            item.setToolTip(tip)
            if column >= 2:
                item.setTextAlignment(right)
            if row.name in said:
                item.setFont(bold)
            if column == 0:
                item.setData(row, RowRole)
            model.setItem(r, column, item)


class SlicedModel(QObject):
    """A preview's tools model filled ROWS_PER_SLICE rows per turn of the event loop, off screen (the list shows
    the previous model meanwhile); `ready` when it is whole. `slices` says how many rows each turn filled."""

    ready = Signal()

    def __init__(self, preview: ToolPreview, tag: object, parent: QObject) -> None:
        super().__init__(parent)
        self.preview, self.tag = preview, tag
        self.model = _empty_model(len(preview.rows), parent)
        self.slices: list[int] = []
        self._said = _said(preview.changes)
        self._next = 0
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)

    def start(self) -> None:
        self._timer.start()

    def cancel(self) -> None:
        self._timer.stop()
        self.model.deleteLater()
        self.deleteLater()

    def _slice(self) -> None:
        rows = self.preview.rows
        end = min(self._next + ROWS_PER_SLICE, len(rows))
        _fill_rows(self.model, rows, self._said, range(self._next, end))
        self.slices.append(end - self._next)
        self._next = end
        if end >= len(rows):
            self._timer.stop()
            self.ready.emit()


class ToolsFilter(QSortFilterProxyModel):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(-1)
        self.setSortRole(SortRole)


def operation_width(room: int, names: int, operations: int) -> int:
    """The Operation column's width in `room` pixels (the Tool and Operation columns'): the whole operations
    (`operations`, their widest) if the whole names (`names`) fit beside them; else what the names leave, but at
    least OPERATION_SHARE of the room. The Tool column stretches over the rest."""
    return max(0, min(operations, max(room - names, int(room * OPERATION_SHARE))))


def _table(name: str, headers: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    table.horizontalHeader().setStretchLastSection(True)
    table.setWordWrap(False)
    return table


def _fill(table: QTableWidget, rows: list[tuple[str, ...]]) -> None:
    """Fill the rows; the columns but the last fit their contents, none wider than a third of the table (the
    last one, the reason or the flag, stretches; every cell's whole text is its tooltip)."""
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            table.setItem(r, c, item)
    header = table.horizontalHeader()
    widest = max(80, table.viewport().width() // 3)
    for column in range(table.columnCount() - 1):
        table.resizeColumnToContents(column)
        header.resizeSection(column, min(header.sectionSize(column), widest))


def _csv(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


class ToolsPanel(OnScreen, QWidget):
    """`settings`, `set_choice(label)`, `set_tags(...)`, `set_operations(...)`, `set_option(name, value)`,
    `preview` (the last built), `shown_names()`, `select_tool(name)`, `current_tool()`, `json_text()`,
    `warnings()`, `wire_rows()`, `rejected_rows()`, `go_to_operation()`, `compare(left, right)`, `export_to(path)`,
    `copy_tool()`, `copy_all()`, `changes_text()`."""

    TITLE = "Tools"
    previewReady = Signal(object)  # ToolPreview, once shown
    previewFailed = Signal(str)
    comparisonReady = Signal(object)  # SideBySide, once shown
    configWritten = Signal(object)  # Path of the config file written

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.jobs = JobRunner(self, max_threads=1)
        self.filling: SlicedModel | None = None  # a conversion's list being filled, before it is shown
        self.jobs.succeeded.connect(self._built)
        self.jobs.failed.connect(self._build_failed)
        self.compare_jobs = JobRunner(self, max_threads=1)
        self.compare_jobs.succeeded.connect(self._compared)
        self.compare_jobs.failed.connect(lambda _job, error: self.sides_label.setText(f"Cannot compare: {error}"))
        self.build_timer = QTimer(self)
        self.build_timer.setSingleShot(True)
        self.build_timer.setInterval(BUILD_DELAY_MS)
        self.build_timer.timeout.connect(self._start_build)
        # Is the window still taking in what was loaded (a big text goes into the source view by chunks)? Then a
        # conversion waits for `source_shown`: converting meanwhile competed with the chunks' colouring for the
        # interpreter lock, and both stalled the window for up to a second on the GitHub description.
        self.showing_source: Callable[[], bool] = lambda: False
        self._waiting_for_source = False
        self.preview: ToolPreview | None = None
        self.settings = ToolsConfig()
        self.json_schema_form = False  # the vendor selector's "Gemini JSON Schema": shown, never written
        self._written = ToolsConfig()  # what the config file says (to write only what the user changed)
        self._config_path: Path | None = None
        self._following = False  # selecting a tool because the document revealed its operation
        self._stale = False  # a conversion is due once the panel is shown

        self._build_controls()
        self._build_list()
        self._build_details()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("toolsSplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.controls)
        splitter.addWidget(self.list_box)
        splitter.addWidget(self.details)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 3)
        splitter.setSizes([190, 400, 440])
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter, 1)
        self._show_settings()
        document.loaded.connect(self._loaded)
        document.revealed.connect(self._revealed)

    # -- building the widgets ------------------------------------------------------------------------------------

    def _build_controls(self) -> None:
        self.vendor_combo = QComboBox()
        self.vendor_combo.setObjectName("toolsVendor")
        for choice in VENDOR_CHOICES:
            self.vendor_combo.addItem(choice.label, choice)
        self.vendor_combo.setToolTip("The vendor's tool format (the config's tools: vendor and strict)")
        # The column is narrow at 1024 pixels: the combo asks for a few characters, not its longest label's width
        # (which pushed its arrow out of the column).
        self.vendor_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.vendor_combo.setMinimumContentsLength(8)
        self.vendor_combo.currentIndexChanged.connect(self._vendor_changed)
        self.tags_edit = QLineEdit()
        self.tags_edit.setObjectName("toolsTags")
        self.tags_edit.setPlaceholderText("tags: a, b (all)")
        self.tags_edit.setToolTip("Only the operations with one of these tags (tools: tags); Enter applies")
        self.tags_edit.editingFinished.connect(lambda: self._edit_list("tags", self.tags_edit))
        self.exclude_edit = QLineEdit()
        self.exclude_edit.setObjectName("toolsExcludeTags")
        self.exclude_edit.setPlaceholderText("tags: c, d (none)")
        self.exclude_edit.setToolTip("Leave out the operations with one of these tags (tools: exclude-tags); "
                                     "Enter applies")
        self.exclude_edit.editingFinished.connect(lambda: self._edit_list("exclude_tags", self.exclude_edit))
        self.operations_edit = QLineEdit()
        self.operations_edit.setObjectName("toolsOperations")
        self.operations_edit.setPlaceholderText("operationIds (all)")
        self.operations_edit.setToolTip("An allowlist of operationIds (tools: operations); Enter applies")
        self.operations_edit.editingFinished.connect(lambda: self._edit_list("operations", self.operations_edit))
        self.checks: dict[str, QCheckBox] = {}
        for name, text, tip in (("read_only", "Read-only", "Only the safe methods (tools: read-only)"),
                                ("include_deprecated", "Deprecated", "Include deprecated operations"),
                                ("nested", "Nested", "Arguments grouped as {path, query, header, body}; "
                                                     "off: flat"),
                                ("split_unions", "Split unions", "One tool per variant of a oneOf body")):
            box = QCheckBox(text)
            box.setObjectName(f"tools_{name}")
            box.setToolTip(tip)
            box.toggled.connect(lambda checked, n=name: self.set_option(n, checked))
            self.checks[name] = box
        self.depth_spin = QSpinBox()
        self.depth_spin.setObjectName("toolsFlattenDepth")
        self.depth_spin.setRange(0, 9)
        self.depth_spin.setToolTip("Lift nested body objects into flat arguments this many levels down")
        self.depth_spin.valueChanged.connect(lambda value: self.set_option("flatten_depth", value))
        self.config_label = ElidedLabel()
        self.config_label.setObjectName("toolsConfig")

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Vendor", self.vendor_combo)
        form.addRow("Tags", self.tags_edit)
        form.addRow("Not tags", self.exclude_edit)
        form.addRow("Only", self.operations_edit)
        form.addRow("Flatten", self.depth_spin)
        boxes = QVBoxLayout()  # one a row: two side by side are wider than the column at 1024 pixels
        boxes.setContentsMargins(0, 0, 0, 0)
        boxes.setSpacing(2)
        for box in self.checks.values():
            boxes.addWidget(box)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 4, 0)
        column.addLayout(form)
        column.addLayout(boxes)
        column.addWidget(self.config_label)
        column.addStretch(1)
        inner = QWidget()
        inner.setLayout(column)
        self.controls = QScrollArea()
        self.controls.setObjectName("toolsControls")
        self.controls.setWidget(inner)
        self.controls.setWidgetResizable(True)
        self.controls.setFrameShape(QScrollArea.Shape.NoFrame)
        self.controls.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.controls.setMinimumWidth(150)

    def _build_list(self) -> None:
        self.model = tools_model([], [], self)
        self.proxy = ToolsFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("toolsFilter")
        self.filter_edit.setPlaceholderText("Filter tools: name, operation…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self._filter_changed)
        self.view = QTableView()
        self.view.setObjectName("toolsView")
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the converter's order until a header is clicked
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setAlternatingRowColors(True)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.view.horizontalHeader()
        # The tool names get their room first: the Tool column stretches, the Operation column is as wide as its
        # widest cell up to what the names leave (`operation_width`; measured once per conversion, not by Qt's
        # fitting to contents, which asks every row), fitted again when the list changes width; it can be dragged.
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self._needed = (0, 0)  # the widest tool name and operation of the last conversion, in pixels
        header.installEventFilter(self)  # resized with the list's viewport (the view itself is told before it)
        # Fixed widths for the numbers: fitting a column to its contents asks every row's size (900 tools: 0.4 s).
        for column in (2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, self.fontMetrics().horizontalAdvance(COLUMNS[column]) + 22)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.view.activated.connect(lambda _index: self.go_to_operation())
        # The count against the caps is a line of text above a thin bar, not text on the bar: text in one colour
        # over the green, amber or red chunk and the groove beside it is unreadable on one of them in either theme
        # (light text on amber in the dark one), and a bar's text is cut, not elided, at its width.
        self.limit_label = ElidedLabel()
        self.limit_label.setObjectName("toolsLimitText")
        self.bar = QProgressBar()
        self.bar.setObjectName("toolsLimit")
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.bar.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        limit = QVBoxLayout()
        limit.setContentsMargins(0, 0, 0, 0)
        limit.setSpacing(1)
        limit.addWidget(self.limit_label)
        limit.addWidget(self.bar)
        self.status_label = ElidedLabel()
        self.status_label.setObjectName("toolsStatus")
        self.copy_all_button = QPushButton("Copy All")
        self.copy_all_button.setToolTip("Copy the whole tool set as `workbench tools --format json` prints it")
        self.copy_all_button.clicked.connect(self.copy_all)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save the tool set as `workbench tools --format json --output FILE` does")
        self.export_button.clicked.connect(self._ask_export)
        below = QHBoxLayout()
        below.addLayout(limit, 1)
        below.addWidget(self.copy_all_button)
        below.addWidget(self.export_button)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(3)
        column.addWidget(self.filter_edit)
        column.addWidget(self.view, 1)
        column.addLayout(below)
        column.addWidget(self.status_label)  # what the last edit changed, else what was built
        self.list_box = QWidget()
        self.list_box.setLayout(column)

    def _build_details(self) -> None:
        self.tool_label = ElidedLabel()
        self.tool_label.setObjectName("toolsCurrent")
        self.go_button = QPushButton("Go to Operation")
        self.go_button.setToolTip("Show the tool's operation in the source view and the outline (Enter in the list)")
        self.go_button.clicked.connect(self.go_to_operation)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy this tool's JSON")
        self.copy_button.clicked.connect(self.copy_tool)
        top = QHBoxLayout()
        top.addWidget(self.tool_label, 1)
        top.addWidget(self.go_button)
        top.addWidget(self.copy_button)

        self.json_view = code_view("toolsJson")
        self.json_highlighter = SpecHighlighter(self.json_view.document(), "json", code_colors(self.palette()))
        self.warnings_list = QListWidget()
        self.warnings_list.setObjectName("toolsWarnings")
        self.warnings_list.setWordWrap(True)
        self.wire_table = _table("toolsWire", ("Argument", "Goes to", "Wire name", "Required"))
        self.rejected_table = _table("toolsRejected", ("Operation", "Reason"))
        self.rejected_note = EmptyNote(self.rejected_table)  # said once a conversion left nothing out
        self.tabs = QTabWidget()
        self.tabs.setObjectName("toolsTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)
        self.tabs.addTab(self.json_view, "JSON")
        self.tabs.addTab(self.warnings_list, "Warnings")
        self.tabs.addTab(self.wire_table, "Wire")
        self.tabs.addTab(self.rejected_table, "Left Out")
        self.tabs.addTab(self._build_sides(), "Side by Side")
        self.tabs.currentChanged.connect(lambda _i: self._maybe_compare())
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addWidget(self.tabs, 1)
        self.details = QWidget()
        self.details.setLayout(column)

    def _build_sides(self) -> QWidget:
        self.left_combo, self.right_combo = QComboBox(), QComboBox()
        labels = [c.label for c in VENDOR_CHOICES]
        for combo, name, default in ((self.left_combo, "toolsLeftVendor", 0),
                                     (self.right_combo, "toolsRightVendor", labels.index("Gemini"))):
            combo.setObjectName(name)
            for choice in VENDOR_CHOICES:
                combo.addItem(choice.label, choice)
            combo.setCurrentIndex(default)
            combo.currentIndexChanged.connect(lambda _i: self._maybe_compare())
        self.left_view, self.right_view = code_view("toolsLeft"), code_view("toolsRight")
        self.side_highlighters = [SpecHighlighter(v.document(), "json", code_colors(self.palette()))
                                  for v in (self.left_view, self.right_view)]
        self.sides_label = ElidedLabel("Choose a tool to compare it in two vendors.")
        self.sides_label.setObjectName("toolsSidesStatus")
        combos = QHBoxLayout()
        combos.addWidget(self.left_combo, 1)
        combos.addWidget(self.right_combo, 1)
        panes = QSplitter(Qt.Orientation.Horizontal)
        panes.addWidget(self.left_view)
        panes.addWidget(self.right_view)
        column = QVBoxLayout()
        column.setContentsMargins(0, 4, 0, 0)
        column.addLayout(combos)
        column.addWidget(panes, 1)
        column.addWidget(self.sides_label)
        box = QWidget()
        box.setLayout(column)
        self.sides_tab = box
        self.last_comparison: SideBySide | None = None
        return box

    # -- options -------------------------------------------------------------------------------------------------

    def _show_settings(self) -> None:
        """The controls as `self.settings` says, without writing anything back."""
        s = self.settings
        widgets = [self.vendor_combo, self.tags_edit, self.exclude_edit, self.operations_edit, self.depth_spin,
                   *self.checks.values()]
        for widget in widgets:
            widget.blockSignals(True)
        self.vendor_combo.setCurrentIndex(choice_index(s, self.json_schema_form))
        self.tags_edit.setText(", ".join(s.tags))
        self.exclude_edit.setText(", ".join(s.exclude_tags))
        self.operations_edit.setText(", ".join(s.operations))
        self.depth_spin.setValue(s.flatten_depth)
        for name, box in self.checks.items():
            box.setChecked(bool(getattr(s, name)))
        for widget in widgets:
            widget.blockSignals(False)
        loaded = self.document.spec
        where = self._config_path.name if self._config_path else "defaults (no config file yet)"
        self.config_label.setText(f"Config: {where}" if loaded else "")

    def set_choice(self, label: str) -> None:
        """Pick a vendor by its selector label ("OpenAI Chat", "Anthropic", …)."""
        self.vendor_combo.setCurrentIndex(next(i for i, c in enumerate(VENDOR_CHOICES) if c.label == label))

    def set_tags(self, tags: tuple[str, ...]) -> None:
        self.tags_edit.setText(", ".join(tags))
        self._edit_list("tags", self.tags_edit)

    def set_exclude_tags(self, tags: tuple[str, ...]) -> None:
        self.exclude_edit.setText(", ".join(tags))
        self._edit_list("exclude_tags", self.exclude_edit)

    def set_operations(self, operations: tuple[str, ...]) -> None:
        self.operations_edit.setText(", ".join(operations))
        self._edit_list("operations", self.operations_edit)

    def _vendor_changed(self, index: int) -> None:
        choice = VENDOR_CHOICES[index]
        form_changed = choice.json_schema_form != self.json_schema_form
        self.json_schema_form = choice.json_schema_form  # a way of looking at Gemini's tools, not a config value
        settings = with_choice(self.settings, choice)
        if settings == self.settings and form_changed:
            self.rebuild()
        self._change(settings)

    def _edit_list(self, name: str, edit: QLineEdit) -> None:
        self._change(self.settings._replace(**{name: _csv(edit.text())}))

    def set_option(self, name: str, value) -> None:
        """One scope or shape option (a field of `ToolsConfig`): written to the config, then re-converted."""
        self._change(self.settings._replace(**{name: value}))

    def _change(self, settings: ToolsConfig) -> None:
        if settings == self.settings:
            return
        self.settings = settings
        loaded = self.document.spec
        if loaded is None:
            return
        try:
            path = write_tools_section(loaded.path, self._config_path, self._written, settings)
        except (SpecError, OSError) as exc:
            self.document.message.emit(f"The config was not written: {exc}", 10000)
        else:
            self._written, self._config_path = settings, path
            self.document.message.emit(f"{path.name}: tools: written.", 4000)
            self.configWritten.emit(path)
        self._show_settings()
        self.rebuild()

    # -- building the tool set -----------------------------------------------------------------------------------

    def _loaded(self, loaded: LoadedSpec, kind: LoadKind) -> None:
        if kind is not LoadKind.RECHECK:  # opening or reloading: the file's config holds
            self.settings = self._written = loaded.config.tools
            self._config_path = loaded.config_path
            self.preview = None
        tags = loaded.spec.tag_names()
        self.tags_edit.setToolTip("Only the operations with one of these tags (tools: tags); Enter applies.\n"
                                  + (f"Tags here: {', '.join(tags[:40])}" + (", …" if len(tags) > 40 else "")
                                     if tags else "This spec has no tags."))
        self._show_settings()
        self.rebuild()

    def rebuild(self) -> None:
        """Convert again in the background, a moment from now; an earlier build still running is dropped when it
        ends. While the panel is hidden (its dock closed, or a tab behind another) nothing is converted until it
        is shown: a conversion competes with the window's own work for the interpreter (1 s on the GitHub
        description), and the moment's wait lets the other panels lay out what was just loaded first."""
        if self.document.spec is None:
            return
        self.jobs.cancel()
        self._stop_filling()
        self._waiting_for_source = False
        if not self.is_shown:
            self._stale = True
            self.build_timer.stop()
            return
        self._stale = False
        self.build_timer.start()
        self.status_label.setText("Converting…")

    def source_shown(self) -> None:
        """What was loaded is all shown: a conversion that waited for it starts."""
        if self._waiting_for_source:
            self._waiting_for_source = False
            self._start_build()

    def _start_build(self) -> None:
        loaded = self.document.spec
        if loaded is None:
            return
        if self.showing_source():
            self._waiting_for_source = True
            return
        spec, config, settings, before = loaded.spec, loaded.config, self.settings, self.preview
        form = self.json_schema_form

        def work(_progress, cancelled) -> ToolPreview | None:
            preview = build_preview(spec, config, settings, form)
            if cancelled():
                return None
            same_options = before is not None and (before.settings, before.json_schema_form) == (settings, form)
            preview.changes = changes_between(before.toolset, preview.toolset) if same_options else []
            return preview

        self.jobs.start(work, (settings, form))

    @property
    def is_building(self) -> bool:
        """A conversion is due or running (`previewReady` follows)."""
        return (self.build_timer.isActive() or self._waiting_for_source or self.jobs.current is not None
                or self.filling is not None)

    @property
    def is_stale(self) -> bool:
        """The spec or the options changed while the panel was hidden: shown, it converts again."""
        return self._stale

    def _built(self, job: Job, preview: ToolPreview | None) -> None:
        """A conversion ended: its list is filled in slices (`SlicedModel`), then shown (`_show_built`)."""
        if preview is None or job.tag != (self.settings, self.json_schema_form):
            return
        self._stop_filling()
        self.filling = SlicedModel(preview, job.tag, self)
        self.filling.ready.connect(self._show_built)
        self.filling.start()

    def _stop_filling(self) -> None:
        if self.filling is not None:
            self.filling.cancel()
            self.filling = None

    def _show_built(self) -> None:
        filling, self.filling = self.filling, None
        if filling is None:
            return
        if filling.tag != (self.settings, self.json_schema_form):  # the options changed while it was filled
            filling.cancel()
            return
        preview = filling.preview
        current = self.current_row()
        key = operation_key(self.preview.toolset.tools[current.index]) if current and self.preview else None
        self.preview = preview
        old, self.model = self.model, filling.model
        self.proxy.setSourceModel(self.model)
        old.deleteLater()
        filling.deleteLater()
        toolset = preview.toolset
        state = limit_state(len(toolset.tools), preview.total_tokens)
        self.bar.setRange(0, state.maximum)
        self.bar.setValue(len(toolset.tools))
        self.limit_label.setText(state.text)
        tip = (f"{state.text}\nTool caps: Cursor 40, Windsurf 50, OpenAI 128 "
               "(amber: over a client's cap; red: over OpenAI's)")
        self.limit_label.setToolTip(tip)
        self.bar.setToolTip(tip)
        self.bar.setProperty("level", state.level)
        self._style_bar()
        built = (f"{len(toolset.tools)} tools for {toolset.vendor}, {len(toolset.rejected)} left out, "
                 f"~{preview.total_tokens} tokens ({toolset.tokens.method}); converted in {preview.seconds:.2f} s")
        self.status_label.setText(self.changes_text() if preview.changes else built)
        if preview.changes:
            self.status_label.setToolTip("\n".join(c.text for c in preview.changes) + "\n\n" + built)
        _fill(self.rejected_table, [(f"{r.method.upper()} {r.path}".strip(), r.reason) for r in toolset.rejected])
        self.rejected_note.setText(NOTHING_LEFT_OUT)
        metrics = self.view.fontMetrics()  # the longest few texts measured, not all (828 took 36 ms)
        self._needed = tuple(max((metrics.horizontalAdvance(text) for text in nlargest(MEASURED, texts, key=len)),
                                 default=0) + CELL_PADDING
                             for texts in ((r.name for r in preview.rows), (r.operation for r in preview.rows)))
        self._fit_columns()
        self.tabs.setTabText(3, f"Left Out ({len(toolset.rejected)})" if toolset.rejected else "Left Out")
        self._update_count()
        self._reselect(current.name if current else None, key)
        self.previewReady.emit(preview)

    def _fit_columns(self) -> None:
        header = self.view.horizontalHeader()
        room = header.width() - header.sectionSize(2) - header.sectionSize(3)
        if room > 0 and self._needed[1]:
            header.resizeSection(1, operation_width(room, *self._needed))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view.horizontalHeader() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _style_bar(self) -> None:
        """The whole bar styled in the theme's colours (a style sheet on the chunk alone gives the groove a white
        background in dark; `palette(...)` in a style sheet is read when it is set, so it is set again on a
        theme change)."""
        palette = self.palette()
        base, text = (palette.color(role) for role in (palette.ColorRole.Base, palette.ColorRole.Text))
        # the groove's edge in the text colour, faded: the theme's Mid vanishes against a dark window, and with it
        # how far the bar goes (the cap)
        edge = f"rgba({text.red()}, {text.green()}, {text.blue()}, 40%)"
        level = self.bar.property("level") or "ok"
        self.bar.setStyleSheet(f"QProgressBar {{ border: 1px solid {edge}; border-radius: 3px; "
                               f"background: {base.name()}; }} "
                               f"QProgressBar::chunk {{ background: {BAR_COLORS[level]}; }}")

    def _reselect(self, name: str | None, key: tuple[str, str, bool] | None) -> None:
        """After a new preview: the same tool again, else the tool of the same operation (renamed), else the first."""
        renamed = next((t.name for t in self.preview.toolset.tools if operation_key(t) == key), None) if key else None
        if any(wanted and self.select_tool(wanted) for wanted in (name, renamed)):
            return
        if self.proxy.rowCount():
            self.view.setCurrentIndex(self.proxy.index(0, 0))
        else:
            self._show_tool(None)

    def _build_failed(self, _job: Job, error: BaseException) -> None:
        message = str(error) if isinstance(error, SpecError) else f"{type(error).__name__}: {error}"
        self.status_label.setText(f"Cannot convert: {message}")
        self.previewFailed.emit(message)

    def changes_text(self) -> str:
        changes = self.preview.changes if self.preview else []
        if not changes:
            return "No change since the last preview." if self.preview else ""
        return f"Changed: {'; '.join(c.text for c in changes[:6])}" + ("; …" if len(changes) > 6 else "")

    # -- the list ------------------------------------------------------------------------------------------------

    def _filter_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self._update_count()

    def _update_count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.filter_edit.setToolTip(f"{shown} of {total} tools shown")

    def shown_names(self) -> list[str]:
        """The tools listed, in the order shown (after the filter and the sort)."""
        return [self.proxy.data(self.proxy.index(r, 0), RowRole).name for r in range(self.proxy.rowCount())]

    def select_tool(self, name: str) -> bool:
        for r in range(self.proxy.rowCount()):
            index = self.proxy.index(r, 0)
            if self.proxy.data(index, RowRole).name == name:
                self.view.setCurrentIndex(index)
                self.view.scrollTo(index)
                return True
        return False

    def current_row(self) -> ToolRow | None:
        index = self.view.currentIndex()
        return self.proxy.data(index.siblingAtColumn(0), RowRole) if index.isValid() else None

    def current_tool(self) -> str | None:
        row = self.current_row()
        return row.name if row else None

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_tool(self.proxy.data(current.siblingAtColumn(0), RowRole) if current.isValid() else None)

    def _show_tool(self, row: ToolRow | None) -> None:
        toolset = self.preview.toolset if self.preview else None
        if row is None or toolset is None:
            self.tool_label.setText("")
            self.json_view.setPlainText("")
            self.warnings_list.clear()
            _fill(self.wire_table, [])
            return
        tool = toolset.tools[row.index]
        self.tool_label.setText(f"{tool.name}  ·  {row.operation}  ·  {row.tokens} tokens")
        self.json_view.setPlainText(native_text(toolset, row.index))
        self.warnings_list.clear()
        warnings = tool_warnings(toolset, tool)
        self.warnings_list.addItems(warnings or ["Nothing lost in the conversion."])
        self.tabs.setTabText(1, f"Warnings ({len(warnings)})" if warnings else "Warnings")
        _fill(self.wire_table, self.wire_rows())
        self._maybe_compare()

    def json_text(self) -> str:
        return self.json_view.toPlainText()

    def warnings(self) -> list[str]:
        row = self.current_row()
        if row is None or self.preview is None:
            return []
        return tool_warnings(self.preview.toolset, self.preview.toolset.tools[row.index])

    def wire_rows(self) -> list[tuple[str, str, str, str]]:
        """The current tool's arguments: (argument, where it goes, its wire name, required)."""
        row = self.current_row()
        if row is None or self.preview is None:
            return []
        tool = self.preview.toolset.tools[row.index]
        return [(b.argument, b.location + (" (person)" if b.human else ""),
                 ".".join(b.body_path) if b.location == "body-field" and b.body_path else b.name,
                 "yes" if b.required else "") for b in tool.bindings]

    def rejected_rows(self) -> list[tuple[str, str]]:
        rows = self.rejected_table.rowCount()
        return [(self.rejected_table.item(r, 0).text(), self.rejected_table.item(r, 1).text()) for r in range(rows)]

    # -- jumping -------------------------------------------------------------------------------------------------

    def _operation_entry(self, row: ToolRow) -> OperationEntry | None:
        loaded = self.document.spec
        if loaded is None or self.preview is None:
            return None
        key = operation_key(self.preview.toolset.tools[row.index])
        return next((e for e in loaded.operations
                     if (e.operation.method, e.operation.path, e.operation.webhook) == key), None)

    def go_to_operation(self) -> bool:
        """The current tool's operation in the source view (and the outline); False when there is none."""
        row = self.current_row()
        entry = self._operation_entry(row) if row else None
        if entry is None:
            return False
        self._following = True
        try:
            self.document.reveal_operation(entry, focus=True)
        finally:
            self._following = False
        return True

    def _revealed(self, target: Target) -> None:
        """An operation shown elsewhere (the outline, a finding): its tool becomes the current one."""
        if self._following or target.operation is None or self.preview is None:
            return
        op = target.operation.operation
        key = (op.method, op.path, op.webhook)
        tool = next((t for t in self.preview.toolset.tools if operation_key(t) == key), None)
        if tool is not None and self.select_tool(tool.name):
            return
        reason = next((r.reason for r in self.preview.toolset.rejected if (r.method, r.path) == (op.method, op.path)),
                      None)
        if reason:
            self.status_label.setText(f"{op.label()} is not a tool: {reason}")

    # -- side by side ------------------------------------------------------------------------------------------

    def compare(self, left: str, right: str) -> None:
        """Show the current tool in two vendors (by selector label) in the Side by Side tab."""
        labels = [c.label for c in VENDOR_CHOICES]
        self.left_combo.setCurrentIndex(labels.index(left))
        self.right_combo.setCurrentIndex(labels.index(right))
        self.tabs.setCurrentWidget(self.sides_tab)
        self._maybe_compare()

    def _maybe_compare(self) -> None:
        row, loaded = self.current_row(), self.document.spec
        if self.tabs.currentWidget() is not self.sides_tab or row is None or loaded is None or self.preview is None:
            return
        spec, config, settings = loaded.spec, loaded.config, self.settings
        key = operation_key(self.preview.toolset.tools[row.index])
        left, right = self.left_combo.currentData(), self.right_combo.currentData()
        self.compare_jobs.start(lambda _p, cancelled: compare_vendors(spec, config, settings, key, left, right,
                                                                      cancelled), (row.name, left, right))
        self.sides_label.setText(f"Converting {row.operation} for {left.label} and {right.label}…")

    def _compared(self, job: Job, sides: SideBySide | None) -> None:
        if sides is None:
            return
        name, left, right = job.tag
        self.last_comparison = sides
        for view, text, changed in ((self.left_view, sides.left, sides.left_changed),
                                    (self.right_view, sides.right, sides.right_changed)):
            view.setPlainText(text)
            self._mark_lines(view, changed)
        self.sides_label.setText(f"{name}: {len(sides.left_changed)} lines only in {left.label}, "
                                 f"{len(sides.right_changed)} only in {right.label} (marked)")
        self.comparisonReady.emit(sides)

    def _mark_lines(self, view: QPlainTextEdit, lines: frozenset[int]) -> None:
        tint = QColor("#e8a33d")
        tint.setAlpha(70 if is_dark(self.palette()) else 55)
        selections = []
        document = view.document()
        for line in sorted(lines):
            block = document.findBlockByNumber(line)
            if not block.isValid():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(tint)
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.cursor = QTextCursor(block)
            selections.append(selection)
        view.setExtraSelections(selections)

    # -- copying and exporting ---------------------------------------------------------------------------------

    def copy_tool(self) -> None:
        QGuiApplication.clipboard().setText(self.json_text())

    def copy_all(self) -> None:
        if self.preview is not None:
            QGuiApplication.clipboard().setText(export_text(self.preview.toolset))

    def export_to(self, path: Path) -> None:
        """Write the tool set as `workbench tools --format json --output FILE` does."""
        if self.preview is not None:
            write_export(self.preview.toolset, path)

    def _ask_export(self) -> None:
        loaded = self.document.spec
        if self.preview is None or loaded is None:
            return
        suggested = loaded.path.with_name(f"{loaded.path.stem}.tools.{self.preview.toolset.vendor}.json")
        name, _ = QFileDialog.getSaveFileName(self, "Export the Tool Set", str(suggested), "JSON (*.json)")
        if name:
            try:
                self.export_to(Path(name))
            except OSError as exc:
                self.document.message.emit(f"Cannot write {name}: {exc.strerror or exc}", 10000)
            else:
                self.document.message.emit(f"Exported {len(self.preview.toolset.tools)} tools to {name}.", 6000)

    # -- theme and closing ---------------------------------------------------------------------------------------

    def shown_changed(self) -> None:
        if self._stale and self.is_shown:
            self.rebuild()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            colors = code_colors(self.palette())
            for highlighter in (self.json_highlighter, *self.side_highlighters):
                highlighter.configure("json", colors)
            if self.preview is not None:
                self._style_bar()
            if self.last_comparison is not None:
                self._mark_lines(self.left_view, self.last_comparison.left_changed)
                self._mark_lines(self.right_view, self.last_comparison.right_changed)

    def shutdown(self) -> None:
        self.build_timer.stop()
        self._stop_filling()
        for jobs in (self.jobs, self.compare_jobs):
            jobs.cancel()
            jobs.wait()
