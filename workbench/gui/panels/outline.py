"""The outline: the operations by path, by tag or by operationId, or the shared schemas with their properties;
a filter box; choosing a row reveals it through the document."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.document import SpecDocument, Target
from workbench.gui.models import (
    OUTLINE_MODE_LABELS,
    OUTLINE_MODES,
    EntryRole,
    LocationRole,
    OutlineFilter,
    OutlineModel,
)
from workbench.gui.widgets import ElidedLabel, counted
from workbench.workspace import LoadedSpec, LoadKind, OperationEntry, PropertyEntry

EXPAND_OUTLINE_UP_TO = 150  # operations (or properties); bigger outlines open collapsed (a filter expands them)
EXPAND_FILTERED_UP_TO = 400  # rows a filter leaves: more stay in their collapsed groups (laying them out is slow)
FILTER_DELAY_MS = 150  # the filter follows the box this long after the last keystroke
DETAILS_SAMPLE = "99 operations"  # as wide as the Details column gets at first
DETAILS_MIN_WIDTH = 60


class OutlinePanel(QWidget):
    """`set_mode`, `set_filter_text`, `entries()` (the leaves shown), `activate(index)`, `count_text()`."""

    TITLE = "Outline"

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.model = OutlineModel(self)
        self.proxy = OutlineFilter(self)
        self.proxy.setSourceModel(self.model)

        self.mode_combo = QComboBox()
        self.mode_combo.setObjectName("outlineMode")
        for mode in OUTLINE_MODES:
            self.mode_combo.addItem(OUTLINE_MODE_LABELS[mode], mode)
        self.mode_combo.setToolTip("Group the operations by path, by tag, or list them by operationId")
        self.mode_combo.currentIndexChanged.connect(self._mode_changed)

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("outlineFilter")
        self.filter_edit.setPlaceholderText("Filter: path, method, operationId, tag…")
        self.filter_edit.setClearButtonEnabled(True)
        # Typing filters once the keystrokes pause; text set otherwise (a shortcut, a test) filters at once.
        self._typed = False
        self.filter_edit.textEdited.connect(self._typing)
        self.filter_edit.textChanged.connect(self._text_changed)
        self.filter_edit.returnPressed.connect(self._filter_return)
        self.filter_timer = QTimer(self)
        self.filter_timer.setSingleShot(True)
        self.filter_timer.setInterval(FILTER_DELAY_MS)
        self.filter_timer.timeout.connect(self._apply_filter)

        self.view = QTreeView()
        self.view.setObjectName("outlineView")
        # (before the model: the stretched last section never gets narrower than the size it starts at)
        self.view.header().setDefaultSectionSize(DETAILS_MIN_WIDTH)
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # A long path is cut in the middle (both ends tell paths apart; the tooltip has all of it). Both columns
        # can be resized; until the user does, the first takes what the Details column leaves.
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.view.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(40)
        self._user_sized = False
        self._sizing = False
        header.sectionResized.connect(self._section_resized)
        self.view.viewport().installEventFilter(self)
        self.view.activated.connect(self.activate)

        self.count_label = ElidedLabel(fit=True)
        self.count_label.setObjectName("outlineCount")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.mode_combo)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.count_label)
        document.loaded.connect(self._loaded)
        document.revealed.connect(self._revealed)

    # -- the public surface --------------------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self.model.mode

    def set_mode(self, mode: str) -> None:
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(mode))

    def set_filter_text(self, text: str) -> None:
        self.filter_edit.setText(text)

    def details_width(self) -> int:
        """What the Details column needs: a group's count, in bold."""
        font = self.view.font()
        font.setBold(True)
        return QFontMetrics(font).horizontalAdvance(DETAILS_SAMPLE) + 16

    def fit_columns(self) -> None:
        """The first column as wide as the view leaves beside the Details column (unless the user sized it)."""
        if self._user_sized:
            return
        viewport = self.view.viewport().width()
        width = max(120, viewport - max(DETAILS_MIN_WIDTH, min(self.details_width(), viewport * 2 // 5)))
        self._sizing = True
        try:
            self.view.setColumnWidth(0, width)
        finally:
            self._sizing = False

    def _section_resized(self, section: int, _old: int, _new: int) -> None:
        if section == 0 and not self._sizing:
            self._user_sized = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            self.fit_columns()
        return super().eventFilter(watched, event)

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def count_text(self) -> str:
        return self.count_label.text()

    def entries(self) -> list:
        """The operations (or properties) shown, in the order shown."""
        proxy, leaves = self.proxy, []
        for row in range(proxy.rowCount()):
            index = proxy.index(row, 0)
            children = [proxy.index(r, 0, index) for r in range(proxy.rowCount(index))] or [index]
            leaves.extend(proxy.data(child, EntryRole) for child in children if proxy.data(child, EntryRole))
        return leaves

    def current_entry(self):
        """The entry of the current row (an operation, a property), or None."""
        index = self.view.currentIndex()
        return self.proxy.data(index.siblingAtColumn(0), EntryRole) if index.isValid() else None

    def select_operation(self, entry: OperationEntry) -> bool:
        """Make the operation's row current (shown, scrolled to) without revealing it again; False when the
        outline does not list it now (another mode, or filtered out)."""
        proxy, origin = self.proxy, entry.operation.origin
        wanted = (origin.document.name, origin.pointer)  # (comparing the documents would compare their texts)
        for row in range(proxy.rowCount()):
            parent = proxy.index(row, 0)
            for index in [proxy.index(r, 0, parent) for r in range(proxy.rowCount(parent))] or [parent]:
                found = proxy.data(index, EntryRole)
                if isinstance(found, OperationEntry) and (found.operation.origin.document.name,
                                                          found.operation.origin.pointer) == wanted:
                    self.view.setCurrentIndex(index)
                    self.view.scrollTo(index)
                    return True
        return False

    def _revealed(self, target: Target) -> None:
        if target.operation is not None and self.current_entry() is not target.operation:
            self.select_operation(target.operation)

    def activate(self, index: QModelIndex) -> None:
        """Reveal the row at `index` (of the view's model): an operation, a property, a path item or a schema."""
        entry = self.proxy.data(index, EntryRole)
        if isinstance(entry, OperationEntry):
            self.document.reveal_operation(entry, focus=True)
        elif isinstance(entry, PropertyEntry):
            self.document.reveal_property(entry, focus=True)
        else:
            location = self.proxy.data(index, LocationRole)
            if location is not None and self.document.spec is not None:
                self.document.reveal_location(location, focus=True)

    # -- reacting ------------------------------------------------------------------------------------------------

    def _loaded(self, loaded: LoadedSpec, _kind: LoadKind) -> None:
        self.model.set_operations(loaded.operations, loaded.spec.tag_names(), loaded.path_locations, loaded.schemas)
        self._expand(reset=True)
        self._update_count()

    def _mode_changed(self, _row: int) -> None:
        mode = self.mode_combo.currentData()
        self.model.set_mode(mode)
        self.filter_edit.setPlaceholderText("Filter: schema or property name…" if mode == "schema"
                                            else "Filter: path, method, operationId, tag…")
        self._expand()
        self._update_count()

    def _typing(self, _text: str) -> None:
        self._typed = True  # (textEdited comes before its textChanged)
        self.filter_timer.start()

    def _text_changed(self, _text: str) -> None:
        if self._typed:
            self._typed = False
        else:
            self._apply_filter()

    def _apply_filter(self) -> None:
        self.filter_timer.stop()
        self.proxy.set_text(self.filter_edit.text())
        self._expand()
        self._update_count()

    def _expand(self, *, reset: bool = False) -> None:
        """`reset`: the model was just reset, so the view is collapsed already (collapseAll would still lay out
        every row: ~30 ms on 900 operations)."""
        model = self.model
        rows = model.schema_counts()[1] if model.mode == "schema" else model.operation_count()
        shown = self.proxy.leaf_count() if self.proxy.filter_text() else rows
        if shown <= (EXPAND_FILTERED_UP_TO if self.proxy.filter_text() else EXPAND_OUTLINE_UP_TO):
            self.view.expandToDepth(0)  # (the groups: the tree has two levels, and expandAll visits every leaf)
        elif not reset:
            self.view.collapseAll()

    def _filter_return(self) -> None:
        if self.filter_timer.isActive():
            self._apply_filter()
        for row in range(self.proxy.rowCount()):
            index = self.proxy.index(row, 0)
            if self.proxy.rowCount(index):
                index = self.proxy.index(0, 0, index)
            if self.proxy.data(index, EntryRole) is not None:
                self.view.setCurrentIndex(index)
                self.activate(index)
                return

    def _update_count(self) -> None:
        ops = self.model.operation_count()
        if self.document.spec is None:
            self.count_label.setText("")
        elif self.model.mode == "schema":
            schemas, properties = self.model.schema_counts()
            if self.proxy.filter_text():
                self.count_label.setText(f"{self.proxy.group_count()} of {counted(schemas, 'schema')}, "
                                         f"{self.proxy.leaf_count()} of {counted(properties, 'property')} shown")
            else:
                self.count_label.setText(f"{counted(schemas, 'schema')}, {counted(properties, 'property')}")
        elif self.proxy.filter_text():
            self.count_label.setText(f"{self.proxy.leaf_count()} shown of {counted(ops, 'operation')}")
        else:
            self.count_label.setText(counted(ops, "operation"))

