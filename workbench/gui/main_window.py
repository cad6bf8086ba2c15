"""The main window: the outline, the source view and the problems, over one loaded spec.

The window only presents: loading and linting happen in `workers.load_and_lint` (on a thread pool), the item
models adapt the result, and every jump goes through a `Location` the core computed.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QModelIndex, QSettings, Qt, QThreadPool, Signal
from PySide6.QtGui import QAction, QActionGroup, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench import __version__
from workbench.examples import example_path
from workbench.gui.models import (
    OUTLINE_MODE_LABELS,
    OUTLINE_MODES,
    EntryRole,
    LocationRole,
    OutlineFilter,
    OutlineModel,
    ProblemsFilter,
    ProblemsModel,
    SeverityRole,
)
from workbench.gui.source_view import SourceView
from workbench.gui.theme import SEVERITY_ORDER, SEVERITY_TITLES, THEME_LABELS, THEMES, apply_theme, severity_icon
from workbench.gui.workers import LoadedSpec, LoadTask, OperationEntry, ProblemEntry
from workbench.lint import Severity
from workbench.spec import SourceDocument

APP_TITLE = "Agent Spec Workbench"
SPEC_FILTER = "API descriptions (*.yaml *.yml *.json);;All files (*)"
EXPAND_OUTLINE_UP_TO = 150  # operations; bigger outlines open collapsed (a filter expands what it keeps)


class MainWindow(QMainWindow):
    """One spec at a time. `open_path` loads off the UI thread; `documentLoaded` or `loadFailed` follows."""

    documentLoaded = Signal(object)  # LoadedSpec
    loadFailed = Signal(str)  # the one-line message shown to the user
    loadCancelled = Signal()
    problemActivated = Signal(object)  # ProblemEntry, after a double-click or Enter (or F8) has jumped to it
    MAX_RECENT = 10

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings if settings is not None else QSettings()
        self.loaded: LoadedSpec | None = None
        self.last_error: str | None = None
        self.error_box: QMessageBox | None = None
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(2)
        self._generation = 0
        self._task: LoadTask | None = None
        self._tasks: dict[int, LoadTask] = {}  # kept alive until their `finished`
        self._shown_document: SourceDocument | None = None
        self._theme = "system"
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self._build_source()
        self._build_outline()
        self._build_problems()
        self._build_status()
        self._build_menus()
        self._restore_settings()
        self._update_title()
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._system_scheme_changed)

    # -- building ----------------------------------------------------------------------------------------------

    def _build_source(self) -> None:
        self.source = SourceView()
        self.source.setPlaceholderText("Open an OpenAPI or Swagger document (Ctrl+O), or drop one here.")
        self.location_label = QLabel()
        self.location_label.setObjectName("locationLabel")
        self.location_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.location_label.setContentsMargins(6, 3, 6, 3)
        self.source_container = QWidget()
        self.source_container.setObjectName("sourceContainer")
        layout = QVBoxLayout(self.source_container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.location_label)
        layout.addWidget(self.source, 1)
        self.setCentralWidget(self.source_container)

    def _build_outline(self) -> None:
        self.outline_model = OutlineModel(self)
        self.outline_filter = OutlineFilter(self)
        self.outline_filter.setSourceModel(self.outline_model)

        self.outline_mode = QComboBox()
        self.outline_mode.setObjectName("outlineMode")
        for mode in OUTLINE_MODES:
            self.outline_mode.addItem(OUTLINE_MODE_LABELS[mode], mode)
        self.outline_mode.setToolTip("Group the operations by path, by tag, or list them by operationId")
        self.outline_mode.currentIndexChanged.connect(self._outline_mode_changed)

        self.outline_filter_edit = QLineEdit()
        self.outline_filter_edit.setObjectName("outlineFilter")
        self.outline_filter_edit.setPlaceholderText("Filter: path, method, operationId, tag…")
        self.outline_filter_edit.setClearButtonEnabled(True)
        self.outline_filter_edit.textChanged.connect(self._outline_filter_changed)
        self.outline_filter_edit.returnPressed.connect(self._outline_filter_return)

        self.outline_view = QTreeView()
        self.outline_view.setObjectName("outlineView")
        self.outline_view.setModel(self.outline_filter)
        self.outline_view.setUniformRowHeights(True)
        self.outline_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.outline_view.header().setStretchLastSection(True)
        self.outline_view.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.outline_view.setColumnWidth(0, 250)
        self.outline_view.activated.connect(self._outline_activated)

        self.outline_count = QLabel()
        self.outline_count.setObjectName("outlineCount")

        panel = QWidget()
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.outline_mode)
        layout.addWidget(self.outline_filter_edit)
        layout.addWidget(self.outline_view, 1)
        layout.addWidget(self.outline_count)
        self.outline_dock = QDockWidget("Outline", self)
        self.outline_dock.setObjectName("outlineDock")
        self.outline_dock.setWidget(panel)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.outline_dock)
        self.resizeDocks([self.outline_dock], [380], Qt.Orientation.Horizontal)

    def _build_problems(self) -> None:
        self.problems_model = ProblemsModel(self)
        self.problems_filter = ProblemsFilter(self)
        self.problems_filter.setSourceModel(self.problems_model)

        self.rule_combo = QComboBox()
        self.rule_combo.setObjectName("ruleFilter")
        self.rule_combo.setToolTip("Show the findings of one rule")
        self.rule_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.rule_combo.currentIndexChanged.connect(self._rule_changed)

        self.problems_filter_edit = QLineEdit()
        self.problems_filter_edit.setObjectName("problemsFilter")
        self.problems_filter_edit.setPlaceholderText("Filter problems: message, rule, JSON pointer…")
        self.problems_filter_edit.setClearButtonEnabled(True)
        self.problems_filter_edit.textChanged.connect(self._problems_filter_changed)

        self.problems_count = QLabel()
        self.problems_count.setObjectName("problemsCount")

        self.problems_view = QTreeView()
        self.problems_view.setObjectName("problemsView")
        self.problems_view.setModel(self.problems_filter)
        self.problems_view.setUniformRowHeights(True)
        self.problems_view.setAlternatingRowColors(True)
        self.problems_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.problems_view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 240)
        header.resizeSection(2, 90)
        self.problems_view.activated.connect(self._problem_activated)
        self.problems_view.selectionModel().currentChanged.connect(self._problem_current_changed)

        bar = QHBoxLayout()
        bar.addWidget(self.rule_combo)
        bar.addWidget(self.problems_filter_edit, 1)
        bar.addWidget(self.problems_count)
        panel = QWidget()
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.problems_view, 1)
        self.problems_dock = QDockWidget("Problems", self)
        self.problems_dock.setObjectName("problemsDock")
        self.problems_dock.setWidget(panel)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.problems_dock)
        self.resizeDocks([self.problems_dock], [240], Qt.Orientation.Vertical)
        self._fill_rule_combo({})

    def _build_status(self) -> None:
        status = self.statusBar()
        self.progress_label = QLabel()
        self.progress_label.setObjectName("progressLabel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 0)  # busy: the core reports steps, not percentages
        self.progress_bar.setMaximumWidth(120)
        self.progress_bar.setMaximumHeight(14)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setAutoRaise(True)
        self.cancel_button.clicked.connect(self.cancel_load)
        for widget in (self.progress_bar, self.progress_label, self.cancel_button):
            status.addWidget(widget)
            widget.hide()
        self.severity_buttons: dict[Severity, QToolButton] = {}
        for severity in SEVERITY_ORDER:
            button = QToolButton()
            button.setObjectName(f"count-{severity.label}")
            button.setIcon(severity_icon(severity))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setAutoRaise(True)
            button.clicked.connect(lambda _checked=False, s=severity: self.show_severity(s))
            status.addPermanentWidget(button)
            self.severity_buttons[severity] = button
        self.score_label = QLabel()
        self.score_label.setObjectName("scoreLabel")
        self.score_label.setContentsMargins(8, 0, 6, 0)
        status.addPermanentWidget(self.score_label)
        self._update_counts()

    def _build_menus(self) -> None:
        menu = self.menuBar().addMenu("&File")
        self.open_action = self._action("&Open…", self.choose_file, QKeySequence.StandardKey.Open)
        menu.addAction(self.open_action)
        self.recent_menu = QMenu("Open &Recent", self)
        self.recent_menu.setObjectName("recentMenu")
        self.recent_menu.aboutToShow.connect(self.refresh_recent_menu)
        menu.addMenu(self.recent_menu)
        self.clear_recent_action = self._action("&Clear Recent Files", self.clear_recent_files)
        menu.addAction(self._action("Open Bundled &Example", lambda: self.open_path(example_path())))
        self.reload_action = self._action("Re&load", self.reload, QKeySequence.StandardKey.Refresh)
        self.reload_action.setEnabled(False)
        menu.addAction(self.reload_action)
        menu.addSeparator()
        menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        menu = self.menuBar().addMenu("&Go")
        self.next_problem_action = self._action("&Next Problem", self.next_problem, QKeySequence(Qt.Key.Key_F8))
        self.previous_problem_action = self._action("&Previous Problem", self.previous_problem,
                                                    QKeySequence(Qt.Modifier.SHIFT | Qt.Key.Key_F8))
        menu.addAction(self.next_problem_action)
        menu.addAction(self.previous_problem_action)
        menu.addSeparator()
        menu.addAction(self._action("Filter &Operations", self.focus_outline_filter,
                                    QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_O)))
        menu.addAction(self._action("Show P&roblems", self.focus_problems,
                                    QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_M)))

        menu = self.menuBar().addMenu("&View")
        theme_menu = menu.addMenu("&Theme")
        group = QActionGroup(self)
        group.setExclusive(True)
        self.theme_actions: dict[str, QAction] = {}
        for theme in THEMES:
            action = self._action(THEME_LABELS[theme], lambda _checked=False, t=theme: self.set_theme(t))
            action.setCheckable(True)
            group.addAction(action)
            theme_menu.addAction(action)
            self.theme_actions[theme] = action
        menu.addSeparator()
        menu.addAction(self.outline_dock.toggleViewAction())
        menu.addAction(self.problems_dock.toggleViewAction())

        menu = self.menuBar().addMenu("&Help")
        menu.addAction(self._action("&About Agent Spec Workbench", self.about))

    def _action(self, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)  # shortcuts work wherever the focus is in the window, menus shown or not
        return action

    # -- settings ----------------------------------------------------------------------------------------------

    def _restore_settings(self) -> None:
        geometry = self.settings.value("window/geometry", QByteArray(), type=QByteArray)
        if geometry.isEmpty() or not self.restoreGeometry(geometry):
            self.resize(1280, 820)
        state = self.settings.value("window/state", QByteArray(), type=QByteArray)
        if not state.isEmpty():
            self.restoreState(state)
        self.set_theme(self.settings.value("theme", "system", type=str), save=False)

    def _save_settings(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    # -- theme -------------------------------------------------------------------------------------------------

    @property
    def theme(self) -> str:
        return self._theme

    def set_theme(self, theme: str, *, save: bool = True) -> None:
        app = QApplication.instance()
        self._theme = apply_theme(app, theme) if isinstance(app, QApplication) else "system"
        self.theme_actions[self._theme].setChecked(True)
        if save:
            self.settings.setValue("theme", self._theme)

    def _system_scheme_changed(self, _scheme) -> None:
        if self._theme == "system":
            self.set_theme("system", save=False)

    # -- opening -----------------------------------------------------------------------------------------------

    def choose_file(self) -> None:
        start = str(self.loaded.path.parent) if self.loaded else str(Path.home())
        path, _filter = QFileDialog.getOpenFileName(self, "Open API description", start, SPEC_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str | os.PathLike) -> None:
        """Load and lint `path` on the thread pool; the window stays responsive and shows progress."""
        path = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
        if self._task is not None:
            self._task.cancel()
        self._generation += 1
        task = LoadTask(path, self._generation)
        task.signals.progress.connect(self._load_progress)
        task.signals.loaded.connect(self._load_succeeded)
        task.signals.failed.connect(self._load_failed)
        task.signals.cancelled.connect(self._load_cancelled)
        task.signals.finished.connect(self._load_finished)
        self._tasks[self._generation] = task
        self._task = task
        self._set_busy(f"Opening {path.name}…")
        self._pool.start(task)

    def reload(self) -> None:
        if self.loaded is not None:
            self.open_path(self.loaded.path)

    def cancel_load(self) -> None:
        """Stop waiting for the current load (the worker stops at its next step; its result is dropped)."""
        if self._task is None:
            return
        self._task.cancel()
        self._task = None
        self._generation += 1
        self._set_busy(None)
        self.statusBar().showMessage("Cancelled.", 5000)
        self.loadCancelled.emit()

    @property
    def is_loading(self) -> bool:
        return self._task is not None

    def wait_for_workers(self, msecs: int = -1) -> bool:
        return self._pool.waitForDone(msecs)

    def _set_busy(self, text: str | None) -> None:
        busy = text is not None
        self.progress_label.setText(text or "")
        for widget in (self.progress_bar, self.progress_label, self.cancel_button):
            widget.setVisible(busy)

    def _load_progress(self, generation: int, text: str) -> None:
        if generation == self._generation and self._task is not None:
            self.progress_label.setText(text)

    def _load_succeeded(self, generation: int, loaded: LoadedSpec) -> None:
        if generation != self._generation:
            return
        self._task = None
        self._set_busy(None)
        self._show_loaded(loaded)
        self.last_error = None
        if self.error_box is not None:
            self.error_box.hide()
        self._add_recent(loaded.path)
        spec = loaded.spec
        loading = f"; {len(spec.problems)} problems while loading" if spec.problems else ""
        self.statusBar().showMessage(
            f"Opened {loaded.path.name}: {len(spec.operations)} operations, {len(loaded.problems)} findings "
            f"in {loaded.seconds:.2f} s{loading}.", 8000)
        self.documentLoaded.emit(loaded)

    def _load_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        path = self._tasks[generation].path if generation in self._tasks else None
        self._task = None
        self._set_busy(None)
        self.show_error(f"Cannot open {path.name if path else 'the file'}", message)
        self.loadFailed.emit(message)

    def _load_cancelled(self, generation: int) -> None:
        if generation == self._generation:
            self._task = None
            self._set_busy(None)
            self.loadCancelled.emit()

    def _load_finished(self, generation: int) -> None:
        self._tasks.pop(generation, None)

    def show_error(self, title: str, message: str) -> None:
        """A non-modal message box with the core's one-line message (never a traceback)."""
        self.last_error = message
        if self.error_box is None:
            self.error_box = QMessageBox(self)
            self.error_box.setObjectName("errorBox")
            self.error_box.setIcon(QMessageBox.Icon.Warning)
            self.error_box.setStandardButtons(QMessageBox.StandardButton.Ok)
            self.error_box.setWindowModality(Qt.WindowModality.NonModal)
        self.error_box.setWindowTitle(title)
        self.error_box.setText(title)
        self.error_box.setInformativeText(message)
        self.error_box.show()
        self.error_box.raise_()
        self.statusBar().showMessage(message, 15000)

    # -- showing a loaded spec ---------------------------------------------------------------------------------

    def _show_loaded(self, loaded: LoadedSpec) -> None:
        self.loaded = loaded
        spec = loaded.spec
        self._shown_document = None
        self._show_document(spec.root)
        self.outline_model.set_operations(loaded.operations, spec.tag_names(), loaded.path_locations)
        self._expand_outline()
        self.problems_model.set_problems(loaded.problems, spec.root.name)
        self._fill_rule_combo(self.problems_model.rules())
        self.problems_view.expandAll()
        self._update_counts()
        self._update_title()
        self.reload_action.setEnabled(True)
        self.location_label.setText(f"{loaded.path.name}  ·  {spec.spec_version}  ·  "
                                    f"{len(spec.operations)} operations")

    def _show_document(self, document: SourceDocument) -> None:
        if document is self._shown_document:
            return
        self._shown_document = document
        self.source.set_source(document.text, document.format)
        markers: dict[int, Severity] = {}
        if self.loaded is not None:
            for entry in self.loaded.problems:
                if entry.finding.document is document:
                    line = entry.start.line
                    markers[line] = max(markers.get(line, Severity.HINT), entry.finding.severity)
        self.source.set_markers(markers)

    def _file_label(self, document: SourceDocument) -> str:
        """The root file by its name; another file of the spec as the spec names it (relative to the root)."""
        if self.loaded is not None and document is self.loaded.spec.root:
            return self.loaded.path.name
        return document.name

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.loaded.path.name} — {APP_TITLE}" if self.loaded else APP_TITLE)

    def _update_counts(self) -> None:
        counts = self.problems_model.counts()
        for severity, button in self.severity_buttons.items():
            count = counts[severity]
            button.setText(str(count))
            noun = SEVERITY_TITLES[severity].lower() if count != 1 else severity.label
            button.setToolTip(f"{count} {noun}: show them in the Problems panel")
        if self.loaded is None:
            self.score_label.setText("")
            self.score_label.setToolTip("")
        else:
            config = self.loaded.config_path
            self.score_label.setText(f"Readiness {self.loaded.score.score}/100")
            self.score_label.setToolTip(f"{self.loaded.score.to_text()}\n\nLint config: "
                                        f"{config if config else 'none found beside the spec (the defaults)'}")
        self._update_shown_counts()

    def _update_shown_counts(self) -> None:
        total = len(self.problems_model.entries())
        shown = len(self.problems_filter.leaf_indexes())
        self.problems_count.setText(f"{total} problems" if shown == total else f"{shown} of {total} shown")
        ops = self.outline_model.operation_count()
        if self.loaded is None:
            self.outline_count.setText("")
        elif self.outline_filter_edit.text().strip():
            self.outline_count.setText(f"{self.outline_filter.leaf_count()} shown of {ops} operations")
        else:
            self.outline_count.setText(f"{ops} operations")

    def severity_counts(self) -> dict[Severity, int]:
        return self.problems_model.counts()

    # -- outline -----------------------------------------------------------------------------------------------

    def _outline_mode_changed(self, _row: int) -> None:
        self.outline_model.set_mode(self.outline_mode.currentData())
        self._expand_outline()

    def _outline_filter_changed(self, text: str) -> None:
        self.outline_filter.set_text(text)
        self._expand_outline()
        self._update_shown_counts()

    def _expand_outline(self) -> None:
        if self.outline_filter_edit.text().strip() or self.outline_model.operation_count() <= EXPAND_OUTLINE_UP_TO:
            self.outline_view.expandAll()
        else:
            self.outline_view.collapseAll()

    def _outline_filter_return(self) -> None:
        for row in range(self.outline_filter.rowCount()):
            index = self.outline_filter.index(row, 0)
            if self.outline_filter.rowCount(index):
                index = self.outline_filter.index(0, 0, index)
            if self.outline_filter.data(index, EntryRole) is not None:
                self.outline_view.setCurrentIndex(index)
                self._outline_activated(index)
                return

    def _outline_activated(self, index: QModelIndex) -> None:
        entry = self.outline_filter.data(index, EntryRole)
        if isinstance(entry, OperationEntry):
            self.reveal_operation(entry, focus=True)
            return
        location = self.outline_filter.data(index, LocationRole)  # a path item
        if location is not None and self.loaded is not None:
            self._show_document(self.loaded.spec.root)
            start = location.key_start or location.start
            self.source.show_span(start, location.key_end or start, focus=True)

    def reveal_operation(self, entry: OperationEntry, *, focus: bool = False) -> None:
        op = entry.operation
        self._show_document(op.origin.document)
        location = entry.location
        self.source.show_span(entry.start, location.key_end or entry.start, focus=focus)
        self.location_label.setText(f"{self._file_label(op.origin.document)}  ›  {op.origin.pointer}   "
                                    f"{op.method.upper()} {op.path}")

    def focus_outline_filter(self) -> None:
        self.outline_dock.show()
        self.outline_dock.raise_()
        self.outline_filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.outline_filter_edit.selectAll()

    # -- problems ----------------------------------------------------------------------------------------------

    def _fill_rule_combo(self, rules: dict[str, int]) -> None:
        current = self.rule_combo.currentData()
        self.rule_combo.blockSignals(True)
        self.rule_combo.clear()
        self.rule_combo.addItem(f"All rules ({sum(rules.values())})", None)
        for rule in sorted(rules):
            self.rule_combo.addItem(f"{rule} ({rules[rule]})", rule)
        position = self.rule_combo.findData(current) if current else 0
        self.rule_combo.setCurrentIndex(max(position, 0))
        self.rule_combo.blockSignals(False)
        self.problems_filter.set_rule(self.rule_combo.currentData())

    def set_rule_filter(self, rule: str | None) -> None:
        position = self.rule_combo.findData(rule) if rule else 0
        self.rule_combo.setCurrentIndex(max(position, 0))

    def _rule_changed(self, _row: int) -> None:
        self.problems_filter.set_rule(self.rule_combo.currentData())
        self.problems_view.expandAll()
        self._update_shown_counts()

    def _problems_filter_changed(self, text: str) -> None:
        self.problems_filter.set_text(text)
        self.problems_view.expandAll()
        self._update_shown_counts()

    def _entry_at(self, index: QModelIndex) -> ProblemEntry | None:
        entry = self.problems_filter.data(index.siblingAtColumn(0), EntryRole) if index.isValid() else None
        return entry if isinstance(entry, ProblemEntry) else None

    def _problem_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        # Browsing the list (arrow keys, a click) previews each finding; a filter that moves the current row
        # while the user types elsewhere does not move the source view.
        entry = self._entry_at(current)
        if entry is not None and self.problems_view.hasFocus():
            self.reveal_problem(entry)

    def _problem_activated(self, index: QModelIndex) -> None:
        entry = self._entry_at(index)
        if entry is None:  # a severity group: Enter opens or closes it (a double-click already did)
            return
        self.reveal_problem(entry, focus=True)
        self.problemActivated.emit(entry)

    def reveal_problem(self, entry: ProblemEntry, *, focus: bool = False) -> None:
        """Show the finding's file, put the cursor at its line and column, and select and highlight its span."""
        finding = entry.finding
        self._show_document(finding.document)
        self.source.show_span(entry.start, entry.location.end, finding.severity, focus=focus)
        where = f"{self._file_label(finding.document)}:{entry.start.line}:{entry.start.column}"
        self.location_label.setText(f"{where}  ›  {finding.pointer or '/'}    "
                                    f"{finding.severity.label} · {finding.rule}")
        self.location_label.setToolTip(finding.message)

    def next_problem(self) -> None:
        self._step_problem(+1)

    def previous_problem(self) -> None:
        self._step_problem(-1)

    def _step_problem(self, step: int) -> None:
        leaves = self.problems_filter.leaf_indexes()
        if not leaves:
            self.statusBar().showMessage("No problems to go to.", 4000)
            return
        current = self.problems_view.currentIndex().siblingAtColumn(0)
        position = {(leaf.parent().row(), leaf.row()): n for n, leaf in enumerate(leaves)}
        if current.isValid() and current.parent().isValid():
            target = (position.get((current.parent().row(), current.row()), -1 if step > 0 else 0) + step) \
                % len(leaves)
        elif current.isValid():  # a group: its first finding, or the one before it
            firsts = [n for n, leaf in enumerate(leaves) if leaf.parent().row() == current.row()]
            target = (firsts[0] if step > 0 else firsts[0] - 1) % len(leaves) if firsts else 0
        else:
            target = 0 if step > 0 else len(leaves) - 1
        index = leaves[target]
        self.problems_view.expand(index.parent())
        self.problems_view.setCurrentIndex(index)
        self.problems_view.scrollTo(index)
        entry = self._entry_at(index)
        if entry is not None:
            self.reveal_problem(entry)
            self.problemActivated.emit(entry)
        self.statusBar().showMessage(f"Problem {target + 1} of {len(leaves)}", 3000)

    def show_severity(self, severity: Severity) -> None:
        """The status bar's count buttons: show the Problems panel at that severity's group."""
        self.focus_problems()
        for row in range(self.problems_filter.rowCount()):
            index = self.problems_filter.index(row, 0)
            if self.problems_filter.data(index, SeverityRole) == int(severity):
                self.problems_view.expand(index)
                self.problems_view.setCurrentIndex(index)
                self.problems_view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
                return

    def focus_problems(self) -> None:
        self.problems_dock.show()
        self.problems_dock.raise_()
        self.problems_view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    # -- recent files ------------------------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.settings.value("recentFiles", [], type=list)
        return [str(item) for item in value or [] if item]

    def _store_recent(self, paths: list[str]) -> None:
        self.settings.setValue("recentFiles", paths[: self.MAX_RECENT])

    def _add_recent(self, path: Path) -> None:
        text = str(path)
        self._store_recent([text, *(p for p in self.recent_files() if p != text)])

    def clear_recent_files(self) -> None:
        self._store_recent([])
        self.refresh_recent_menu()

    def refresh_recent_menu(self) -> None:
        """Rebuild Open Recent from the files that still exist (the missing ones are dropped)."""
        recent = self.recent_files()
        existing = [p for p in recent if Path(p).is_file()]
        if existing != recent:
            self._store_recent(existing)
        self.recent_menu.clear()
        names = [Path(p).name for p in existing]
        for number, path in enumerate(existing, 1):
            name = Path(path).name
            folder = str(Path(path).parent).replace(str(Path.home()), "~", 1)
            label = name + (f"  —  {folder}" if names.count(name) > 1 else "")
            action = self.recent_menu.addAction(f"&{number % 10} " + label.replace("&", "&&"))
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        if not existing:
            placeholder = self.recent_menu.addAction("No recent files")
            placeholder.setEnabled(False)
        self.recent_menu.addSeparator()
        self.recent_menu.addAction(self.clear_recent_action)
        self.clear_recent_action.setEnabled(bool(existing))

    # -- drag and drop -----------------------------------------------------------------------------------------

    @staticmethod
    def _dropped_path(event: QDragEnterEvent | QDropEvent) -> str | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        files = [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]
        return files[0] if files else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_path(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if self._dropped_path(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_path(event)
        if path:
            event.acceptProposedAction()
            self.open_path(path)

    # -- the rest ----------------------------------------------------------------------------------------------

    def about(self) -> None:
        QMessageBox.about(self, f"About {APP_TITLE}",
                          f"<b>{APP_TITLE}</b> {__version__}<p>Make an OpenAPI document trustworthy as a set of "
                          "tools for language-model agents.</p><p>The lint, the score and the config are the ones "
                          "<code>workbench lint</code> uses in CI.</p>")

    def closeEvent(self, event) -> None:
        self._save_settings()
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self.error_box is not None:
            self.error_box.close()
        self._pool.waitForDone()
        super().closeEvent(event)
