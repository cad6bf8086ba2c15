"""The main window: the outline, the source view and the problems, over one loaded spec.

The window only presents: loading and linting happen in `workers.load_and_lint` (on a thread pool), the item
models adapt the result, and every jump goes through a `Location` the core computed.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QFileSystemWatcher,
    QModelIndex,
    QPoint,
    QSettings,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QDragEnterEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from workbench import __version__
from workbench.edit import apply_edits, write_atomically
from workbench.edit.fixes import quick_fixes
from workbench.edit.journal import RecoveryJournal
from workbench.examples import example_path
from workbench.gui.editing import (
    DocumentCommand,
    OperationForm,
    Preview,
    form_edits,
    inline_parameters,
    outcome_diff,
    property_pointer,
    recovery_dir,
    suggestion_for,
    text_diff,
    value_at,
)
from workbench.gui.models import (
    OUTLINE_MODE_LABELS,
    OUTLINE_MODES,
    EntryRole,
    LocationRole,
    OutlineFilter,
    OutlineModel,
    ProblemsModel,
    SeverityRole,
)
from workbench.gui.source_view import SourceView
from workbench.gui.theme import SEVERITY_ORDER, SEVERITY_TITLES, THEME_LABELS, THEMES, apply_theme, severity_icon
from workbench.gui.workers import LoadedSpec, LoadTask, OperationEntry, ProblemEntry, PropertyEntry
from workbench.lint import Severity
from workbench.spec import SourceDocument, SpecError
from workbench.spec.source import parse_text, read_text

APP_TITLE = "Agent Spec Workbench"
SPEC_FILTER = "API descriptions (*.yaml *.yml *.json);;All files (*)"
EXPAND_OUTLINE_UP_TO = 150  # operations (or properties); bigger outlines open collapsed (a filter expands them)
RELINT_DELAY_MS = 500  # after the last edit
DISK_CHECK_DELAY_MS = 300  # after the last file-system notification


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
        # Every file of the spec as edited now, and as last read or written, by the document's name.
        self.edited_documents: dict[str, SourceDocument] = {}
        self.disk_texts: dict[str, str] = {}
        self.last_refused: list[str] = []  # why the last edits (form or fix) were not made
        self._journaled: dict[str, SourceDocument] = {}  # by name: the edited document its journal gives back
        self.diff_dialog: QDialog | None = None
        self._form_entry: OperationEntry | None = None
        self._form_property: str | None = None  # the schema property shown in the form
        self._form_document: str | None = None  # the name of the document the form edits
        self.undo_stack = QUndoStack(self)
        self._relint_timer = QTimer(self)
        self._relint_timer.setSingleShot(True)
        self._relint_timer.setInterval(RELINT_DELAY_MS)
        self._relint_timer.timeout.connect(self.relint)
        self._disk_timer = QTimer(self)
        self._disk_timer.setSingleShot(True)
        self._disk_timer.setInterval(DISK_CHECK_DELAY_MS)
        self._disk_timer.timeout.connect(self.check_disk)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._disk_changed)
        self.watcher.directoryChanged.connect(self._disk_changed)
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self._build_source()
        self._build_outline()
        self._build_problems()
        self._build_form()
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
        self.problems_view.setModel(self.problems_model)
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

    def _build_form(self) -> None:
        self.form = OperationForm()
        self.form.applyRequested.connect(self.apply_form)
        self.form_dock = QDockWidget("Edit", self)
        self.form_dock.setObjectName("formDock")
        self.form_dock.setWidget(self.form)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.form_dock)
        self.resizeDocks([self.form_dock], [340], Qt.Orientation.Horizontal)
        self.problems_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.problems_view.customContextMenuRequested.connect(self._problems_menu)

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
        self.save_action = self._action("&Save", self.save, QKeySequence.StandardKey.Save)
        self.save_action.setEnabled(False)
        menu.addAction(self.save_action)
        self.save_as_action = self._action("Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        self.save_as_action.setEnabled(False)
        menu.addAction(self.save_as_action)
        self.revert_action = self._action("Re&vert to Saved", self.revert)
        self.revert_action.setEnabled(False)
        menu.addAction(self.revert_action)
        self.diff_action = self._action("Show &Diff Against Disk", self.show_disk_diff,
                                        QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_D))
        menu.addAction(self.diff_action)
        menu.addSeparator()
        menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        menu = self.menuBar().addMenu("&Edit")
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcut(QKeySequence.StandardKey.Redo)
        for action in (self.undo_action, self.redo_action):
            self.addAction(action)
            menu.addAction(action)

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
        menu.addAction(self.form_dock.toggleViewAction())

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
        if not self.confirm_discard():
            return
        path = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
        self._start_load(path, "open")

    def _start_load(self, path: Path, kind: str, text: str | None = None,
                    documents: list[SourceDocument] | None = None) -> None:
        """kind: "open" (a file chosen), "reload" (the file again, edits dropped), "relint" (the edited text:
        `text` for the root, `documents` for the other files with unsaved edits)."""
        if self._task is not None:
            self._task.cancel()
        if kind != "relint":
            self._relint_timer.stop()
        self._generation += 1
        task = LoadTask(path, self._generation, text, self.edited.bom if text is not None and self.edited else False,
                        documents=documents or (), thaw=kind != "relint")
        task.kind = kind
        task.edited = dict(self.edited_documents)  # what a re-check's result describes (by identity)
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
        if self.loaded is not None and self.confirm_discard():
            self._start_load(self.loaded.path, "reload")

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
        task = self._tasks.get(generation)
        kind = getattr(task, "kind", "open")
        self._task = None
        self._set_busy(None)
        if kind == "relint":
            if task is None or task.edited != self.edited_documents:
                self._relint_timer.start()  # edited (or saved) meanwhile: check what is there now
                return
            self._show_loaded(loaded, kind)
            self.statusBar().showMessage(f"Re-checked: {len(loaded.problems)} findings.", 4000)
            self.documentLoaded.emit(loaded)
            return
        self._show_loaded(loaded, kind)
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
        if getattr(self._tasks.get(generation), "kind", "open") == "relint":
            self.statusBar().showMessage(f"Cannot re-check the edited text: {message}", 15000)
            self.loadFailed.emit(message)
            return
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

    def _show_loaded(self, loaded: LoadedSpec, kind: str = "open") -> None:
        self.loaded = loaded
        spec = loaded.spec
        if kind != "relint":
            if kind == "reload":
                self._forget_journals()  # the edits were dropped for the files as they are on disk
            self.edited_documents = dict(spec.documents)
            self.disk_texts = {name: document.text for name, document in spec.documents.items()}
            self._journaled = {}
            self.undo_stack.clear()
            self._watch()
            self._form_entry = None
            self._form_property = None
            self.form.set_property(None, None)
            self.form.set_parameters(None, [])
            self.form.show_operation(None, "Select an operation (outline) or a finding (problems).", {})
        else:  # files the edits now refer to join the spec as on disk; files no longer referred to leave it
            joined = [name for name in spec.documents if name not in self.edited_documents]
            for name in joined:
                self.edited_documents[name] = spec.documents[name]
                self.disk_texts[name] = spec.documents[name].text
            modified = set(self.modified_names())
            left = [name for name in self.edited_documents if name not in spec.documents and name not in modified]
            for name in left:  # its text on disk stays known: an undo may bring the file back into the spec
                del self.edited_documents[name]
            if joined or left:
                self._watch()
        shown = self._shown_document
        if kind == "relint" and shown is not None and shown is self.edited_documents.get(shown.name):
            self._show_markers(shown)  # the view shows the edited text already: only the markers are new
        else:
            self._shown_document = None
            if kind == "relint" and shown is not None:
                self._show_document(spec.documents.get(shown.name, spec.root))
            else:
                self._show_document(spec.root, keep_position=kind == "relint")
        self.outline_model.set_operations(loaded.operations, spec.tag_names(), loaded.path_locations, loaded.schemas)
        self._expand_outline(reset=True)
        self.problems_model.set_problems(loaded.problems, spec.root.name)
        self._fill_rule_combo(self.problems_model.rules())
        self._expand_problems()
        self._update_counts()
        self._update_title()
        self.reload_action.setEnabled(True)
        self._update_modified()
        if kind == "relint":
            return
        self.location_label.setText(f"{loaded.path.name}  ·  {spec.spec_version}  ·  "
                                    f"{len(spec.operations)} operations")
        if kind == "open":
            self._offer_recovery()

    def _show_document(self, document: SourceDocument, *, keep_position: bool = False) -> None:
        """Show a file of the spec, as edited."""
        shown = self.edited_documents.get(document.name, document) if self.loaded is not None else document
        if shown is self._shown_document:
            return
        if keep_position:
            scroll = self.source.verticalScrollBar().value()
            line, column = self.source.cursor_line_column()
        self._shown_document = shown
        self.source.set_source(shown.text, shown.format)
        if keep_position:
            cursor = self.source.textCursor()
            cursor.setPosition(self.source.qt_position(line, column))
            self.source.setTextCursor(cursor)
            self.source.verticalScrollBar().setValue(scroll)
        self._show_markers(document)

    def _show_markers(self, document: SourceDocument) -> None:
        """The gutter's marks: the most severe finding on each line of `document` (a file of the spec)."""
        markers: dict[int, Severity] = {}
        if self.loaded is not None:
            for entry in self.loaded.problems:
                if entry.finding.document.name == document.name:
                    line = entry.start.line
                    markers[line] = max(markers.get(line, Severity.HINT), entry.finding.severity)
        self.source.set_markers(markers)

    def _file_label(self, document: SourceDocument) -> str:
        """The root file by its name; another file of the spec as the spec names it (relative to the root)."""
        if self.loaded is not None and document.name == self.loaded.spec.root.name:
            return self.loaded.path.name
        return document.name

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.loaded.path.name}[*] — {APP_TITLE}" if self.loaded else APP_TITLE)

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
        shown = len(self.problems_model.shown_entries())
        self.problems_count.setText(f"{total} problems" if shown == total else f"{shown} of {total} shown")
        ops = self.outline_model.operation_count()
        if self.loaded is None:
            self.outline_count.setText("")
        elif self.outline_model.mode == "schema":
            schemas, properties = self.outline_model.schema_counts()
            self.outline_count.setText(f"{schemas} schemas, {properties} properties")
        elif self.outline_filter_edit.text().strip():
            self.outline_count.setText(f"{self.outline_filter.leaf_count()} shown of {ops} operations")
        else:
            self.outline_count.setText(f"{ops} operations")

    def _expand_problems(self) -> None:
        """Open every severity group (the tree has two levels; `expandAll` walks every finding: slow at 2,500)."""
        model = self.problems_model
        for row in range(model.rowCount()):
            self.problems_view.expand(model.index(row, 0))

    def severity_counts(self) -> dict[Severity, int]:
        return self.problems_model.counts()

    # -- outline -----------------------------------------------------------------------------------------------

    def _outline_mode_changed(self, _row: int) -> None:
        mode = self.outline_mode.currentData()
        self.outline_model.set_mode(mode)
        self.outline_filter_edit.setPlaceholderText("Filter: schema or property name…" if mode == "schema"
                                                    else "Filter: path, method, operationId, tag…")
        self._expand_outline()
        self._update_shown_counts()

    def _outline_filter_changed(self, text: str) -> None:
        self.outline_filter.set_text(text)
        self._expand_outline()
        self._update_shown_counts()

    def _expand_outline(self, *, reset: bool = False) -> None:
        """`reset`: the model was just reset, so the view is collapsed already (collapseAll would still lay out
        every row: ~30 ms on 900 operations)."""
        model = self.outline_model
        rows = model.schema_counts()[1] if model.mode == "schema" else model.operation_count()
        if self.outline_filter_edit.text().strip() or rows <= EXPAND_OUTLINE_UP_TO:
            self.outline_view.expandAll()
        elif not reset:
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
        if isinstance(entry, PropertyEntry):
            self.reveal_property(entry, focus=True)
            return
        location = self.outline_filter.data(index, LocationRole)  # a path item or a schema
        if location is not None and self.loaded is not None:
            self._show_document(self.loaded.spec.documents.get(location.file, self.loaded.spec.root))
            start = location.key_start or location.start
            self.source.show_span(start, location.key_end or start, focus=True)

    def reveal_property(self, entry: PropertyEntry, *, focus: bool = False) -> None:
        """A property of a shared schema: its file at the property, and the property in the form."""
        self.fill_form(None, prop=entry.pointer, document_name=entry.document.name)
        self._show_document(entry.document)
        start = entry.location.key_start or entry.location.start
        self.source.show_span(start, entry.location.key_end or start, focus=focus)
        self.location_label.setText(f"{self._file_label(entry.document)}  ›  {entry.pointer}")

    def reveal_operation(self, entry: OperationEntry, *, focus: bool = False) -> None:
        op = entry.operation
        self.fill_form(entry)
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
        self.problems_model.set_rule(self.rule_combo.currentData())

    def set_rule_filter(self, rule: str | None) -> None:
        position = self.rule_combo.findData(rule) if rule else 0
        self.rule_combo.setCurrentIndex(max(position, 0))

    def _rule_changed(self, _row: int) -> None:
        self._refilter_problems(lambda: self.problems_model.set_rule(self.rule_combo.currentData()))

    def _problems_filter_changed(self, text: str) -> None:
        self._refilter_problems(lambda: self.problems_model.set_text(text))

    def _refilter_problems(self, change) -> None:
        """Apply a filter change; the current finding stays current while the filter still shows it."""
        current = self._entry_at(self.problems_view.currentIndex())
        change()
        self._expand_problems()
        if current is not None:
            index = self.problems_model.index_of(current)
            if index.isValid():
                self.problems_view.setCurrentIndex(index)
                self.problems_view.scrollTo(index)
        self._update_shown_counts()

    def _entry_at(self, index: QModelIndex) -> ProblemEntry | None:
        return self.problems_model.entry(index.siblingAtColumn(0)) if index.isValid() else None

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
        operation = self.operation_of(finding)
        if operation is not None or property_pointer(finding.pointer) is not None:
            self.fill_form(operation, finding)
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
        leaves = self.problems_model.leaf_indexes()
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
        for row in range(self.problems_model.rowCount()):
            index = self.problems_model.index(row, 0)
            if self.problems_model.data(index, SeverityRole) == int(severity):
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

    # -- editing -----------------------------------------------------------------------------------------------

    @property
    def recovery_folder(self) -> Path:
        return recovery_dir(self.settings)

    def _forget_journals(self) -> None:
        """The unsaved edits are saved or discarded: no file of the spec has anything to recover."""
        self._journaled = {}
        for document in self.edited_documents.values():
            RecoveryJournal(self.recovery_folder, document.path).remove()

    @property
    def edited(self) -> SourceDocument | None:
        """The root file as edited now (None: nothing open)."""
        return self.edited_documents.get(self.loaded.spec.root.name) if self.loaded is not None else None

    @property
    def disk_text(self) -> str | None:
        """The root file's text as last read or written."""
        return self.disk_texts.get(self.loaded.spec.root.name) if self.loaded is not None else None

    def modified_names(self) -> list[str]:
        """The files of the spec with unsaved edits, the root first."""
        return [name for name, document in self.edited_documents.items() if document.text != self.disk_texts.get(name)]

    @property
    def is_modified(self) -> bool:
        return bool(self.modified_names())

    def _edited_others(self) -> list[SourceDocument]:
        """The other files' documents with unsaved edits (a re-check reads these instead of the files)."""
        root = self.loaded.spec.root.name if self.loaded is not None else None
        return [self.edited_documents[name] for name in self.modified_names() if name != root]

    def _update_modified(self) -> None:
        modified = self.is_modified
        self.setWindowModified(modified)
        self.save_action.setEnabled(self.loaded is not None)
        self.save_as_action.setEnabled(self.loaded is not None)
        self.revert_action.setEnabled(modified)
        self.diff_action.setEnabled(modified)

    def set_edited_document(self, document: SourceDocument, splices: list | None = None) -> None:
        """Make `document` the edited version of its file (the undo stack calls this): show it, journal it,
        re-check the spec. `splices` (against the text of that file until now) turn it into `document`'s: when
        the view shows that text, they are applied to it in place instead of setting the whole text again."""
        previous = self.edited_documents.get(document.name)
        self.edited_documents[document.name] = document
        if self.loaded is not None:  # show the file as it is now
            if splices and previous is not None and self._shown_document is previous \
                    and self.source.apply_splices(previous.text, splices):
                self._shown_document = document
            else:
                same = previous is not None and self._shown_document is previous
                self._shown_document = None
                self._show_document(document, keep_position=same)
            self._journal_step(previous, document, splices)
        self._update_modified()
        if self.form.pointer is not None or self.form.property_pointer is not None:
            self._refill_form()
        self._relint_timer.start()

    def _journal_step(self, previous: SourceDocument | None, document: SourceDocument, splices: list | None) -> None:
        """Keep the file's recovery journal equal to its unsaved edits: one appended step when it can be."""
        name = document.name
        journal = RecoveryJournal(self.recovery_folder, document.path)
        try:
            if document.text == self.disk_texts.get(name):
                journal.remove()
                self._journaled.pop(name, None)
                return
            if splices and previous is not None and self._journaled.get(name) is previous:
                journal.append(splices)  # one short line per step
            else:
                journal.start(document.text, document.bom)
            self._journaled[name] = document
        except OSError as exc:
            self._journaled.pop(name, None)  # the next step starts the journal again
            self.statusBar().showMessage(f"Cannot write the recovery journal: {exc.strerror or exc}", 8000)

    def relint(self) -> None:
        """Lint the edited files in the background (at their own paths, so relative refs resolve)."""
        if self.loaded is None or self.edited is None:
            return
        checked = self.loaded.spec.documents
        if all(name in checked and checked[name].text == document.text
               for name, document in self.edited_documents.items()):
            return  # the findings shown are those of these texts already
        self._start_load(self.loaded.path, "relint", self.edited.text, self._edited_others())

    def push_outcome(self, outcome, label: str) -> bool:
        """Make the applied part of an edit outcome one undoable step; remember what was refused."""
        self.last_refused = [f"{edit.pointer}: {reason}" for edit, reason in outcome.refused]
        before = self.edited_documents.get(outcome.document.name)
        if not outcome.applied or before is None:
            return False
        self.undo_stack.push(DocumentCommand(self, before, outcome.document, label, outcome.splices))
        return True

    def operation_of(self, finding) -> OperationEntry | None:
        """The operation a finding is inside (the longest operation pointer that prefixes its pointer)."""
        if self.loaded is None:
            return None
        best = None
        for entry in self.loaded.operations:
            origin = entry.operation.origin
            if origin.document is not finding.document:
                continue
            inside = finding.pointer == origin.pointer or finding.pointer.startswith(origin.pointer + "/")
            if inside and (best is None or len(origin.pointer) > len(best.operation.origin.pointer)):
                best = entry
        return best

    def fill_form(self, entry: OperationEntry | None, finding=None, *, prop: str | None = None,
                  document_name: str | None = None) -> None:
        """Show an operation (or none) and the schema property a finding is about (or `prop` in the file named
        `document_name`) in the form, with the finding's suggested fix pre-filled; any file of the spec."""
        if finding is not None:
            prop = property_pointer(finding.pointer)
            document_name = finding.document.name
        elif entry is not None:
            document_name = entry.operation.origin.document.name
        document = self.edited_documents.get(document_name) if document_name else None
        self._form_document = document_name if document is not None else None
        self.form.set_property(document if prop else None, prop if document is not None else None)
        self._form_property = prop if document is not None else None
        self._form_entry = entry
        if entry is None or document is None:
            self.form.set_parameters(None, [])
            suggestion = suggestion_for(finding, "") if finding is not None and document is not None else None
            self.form.show_operation(None, "A shared schema (no operation)", {}, suggestion)
            return
        op = entry.operation
        pointer = op.origin.pointer
        current = {key: value_at(document, f"{pointer}/{key}") for key in self.form.fields()}
        suggestion = suggestion_for(finding, pointer) if finding is not None else None
        selected = self.form.parameter.currentData() if self.form.pointer == pointer else None
        if suggestion is not None and suggestion[0] == "parameterEnum":
            selected = finding.fix.pointer.rsplit("/schema/enum", 1)[0]
        self.form.set_parameters(document, inline_parameters(document, pointer), selected)
        heading = f"{op.method.upper()} {op.path}"
        if document is not self.edited:
            heading += f"  ({self._file_label(document)})"
        self.form.show_operation(pointer, heading, current, suggestion)

    def _refill_form(self) -> None:
        """After an edit: the same operation and property, with their values as they are now."""
        if self._form_entry is not None or self._form_property is not None:
            self.fill_form(self._form_entry, prop=self._form_property, document_name=self._form_document)

    def _reloading(self) -> bool:
        """A file is being opened or reloaded: an edit made now would be replaced when it arrives (said so)."""
        if self._task is None or getattr(self._task, "kind", "relint") == "relint":
            return False
        self.statusBar().showMessage("The files are being read again: edit once they are shown.", 6000)
        return True

    def apply_form(self, pointer: str, values: dict) -> bool:
        """The form's Apply: its changed fields become edits applied to the edited document (one undo step)."""
        document = self.edited_documents.get(self._form_document) if self._form_document else None
        if document is None or self._reloading():
            return False
        edits, refused = form_edits(document, pointer, values)
        if not edits:
            self.last_refused = refused
            self.form.note.setText("\n".join(refused) or "Nothing changed.")
            return False
        applied = self.push_outcome(apply_edits(document, edits), f"Edit {pointer or values.get('property')}")
        self.last_refused = refused + self.last_refused
        note = "\n".join(f"Refused: {line}" for line in self.last_refused)
        self.form.note.setText(note or "Applied.")
        self.statusBar().showMessage("Edit applied." if applied else "The edit was refused.", 5000)
        return applied

    def save(self) -> bool:
        """Write every file with unsaved edits atomically (each previous version kept as `<file>.bak`)."""
        if self.loaded is None or self.edited is None:
            return False
        names = self.modified_names() or [self.edited.name]  # Save with nothing changed writes the root again
        if not self._write_documents(names):
            return False
        self.undo_stack.setClean()
        self._forget_journals()
        self._watch()
        self._update_modified()
        self.statusBar().showMessage(f"Saved {', '.join(self._file_label(self.edited_documents[n]) for n in names)}.",
                                     5000)
        return True

    def _write_documents(self, names: list[str]) -> bool:
        """Write these files as edited; False (after saying why) at the first that cannot be written."""
        for name in names:
            document = self.edited_documents[name]
            try:
                write_atomically(document.path, document.text, bom=document.bom, backup=True)
            except OSError as exc:
                self.show_error(f"Cannot save {document.path.name}", f"{document.path}: {exc.strerror or exc}")
                return False
            self.disk_texts[name] = document.text
        return True

    def save_as(self, path: str | os.PathLike | None = None) -> bool:
        """Write the edited text to another file (atomically) and go on with that file. Relative `$ref`s now
        resolve from its folder, so it is opened afresh (the undo history stays with the old file)."""
        if self.loaded is None or self.edited is None:
            return False
        if path is None:
            path = self.ask_save_path()
            if not path:
                return False
        target = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
        if target == self.loaded.path:
            return self.save()
        # The other files of the spec are shared by both names: their edits are saved in place.
        if not self._write_documents([name for name in self.modified_names() if name != self.edited.name]):
            return False
        try:
            write_atomically(target, self.edited.text, bom=self.edited.bom, backup=True)
        except OSError as exc:
            self.show_error(f"Cannot save {target.name}", f"{target}: {exc.strerror or exc}")
            return False
        self._forget_journals()  # the edits are safe in the new file; the old file keeps its text
        self.undo_stack.setClean()
        self._start_load(target, "open")
        self.statusBar().showMessage(f"Saved as {target.name}.", 5000)
        return True

    def ask_save_path(self) -> str:
        """The file to save to, or "" (tests replace this)."""
        start = os.fspath(self.loaded.path) if self.loaded is not None else str(Path.home())
        chosen, _ = QFileDialog.getSaveFileName(self, "Save As", start, SPEC_FILTER)
        return chosen

    def revert(self) -> None:
        if self.loaded is not None and self.confirm_discard(prompt=False):
            self._start_load(self.loaded.path, "reload")

    def disk_diff(self) -> str:
        """The unified diffs from the files on disk to their edited texts ("" when there are no unsaved edits)."""
        return "".join(text_diff(self.disk_texts[name], self.edited_documents[name].text,
                                 self._file_label(self.edited_documents[name])) for name in self.modified_names())

    def _text_dialog(self, title: str, text: str, *, confirm: bool = False) -> QDialog:
        dialog = QDialog(self)
        dialog.setWindowTitle(title)
        view = QPlainTextEdit(text)
        view.setReadOnly(True)
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        view.setFont(self.source.font())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
                                   if confirm else QDialogButtonBox.StandardButton.Close)
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(view, 1)
        layout.addWidget(buttons)
        dialog.resize(900, 600)
        return dialog

    def show_disk_diff(self) -> None:
        diff = self.disk_diff() or "No unsaved edits: the text is the file on disk.\n"
        if self.diff_dialog is not None:
            self.diff_dialog.close()
        self.diff_dialog = self._text_dialog("Diff against disk", diff)
        self.diff_dialog.show()

    # -- quick fixes -------------------------------------------------------------------------------------------

    def fix_preview(self, entries: list[ProblemEntry], title: str) -> Preview | None:
        """What fixing these findings would change in the edited text (None: none of them has a fix here)."""
        if self.loaded is None or self.edited is None:
            return None
        wanted = {id(entry.finding) for entry in entries}
        rules = {entry.finding.rule for entry in entries}
        edits: dict[str, list] = {}  # by file: the fixes of findings in any file of the spec
        for fix in quick_fixes(self.loaded.spec, self.loaded.result, rules):
            if id(fix.finding) in wanted and fix.document.name in self.edited_documents:
                edits.setdefault(fix.document.name, []).extend(fix.edits)
        if not edits:
            return None
        outcomes, diffs, bases = [], [], []
        for name, file_edits in edits.items():
            document = self.edited_documents[name]
            outcome = apply_edits(document, file_edits)
            outcomes.append(outcome)
            bases.append(document)
            diffs.append(outcome_diff(document.text, outcome, self._file_label(document)))
        return Preview(title, outcomes, "".join(diffs), bases)

    def confirm_preview(self, preview: Preview) -> bool:
        """Show the diff preview; True when the user applies it (tests replace this)."""
        dialog = self._text_dialog(preview.title, preview.text(), confirm=True)
        try:
            return dialog.exec() == QDialog.DialogCode.Accepted
        finally:
            dialog.deleteLater()

    def fix_entries(self, entries: list[ProblemEntry], title: str) -> bool:
        preview = self.fix_preview(entries, title)
        if preview is None:
            self.statusBar().showMessage("No fix to apply here.", 5000)
            return False
        if not preview.applied:
            self.last_refused = preview.refused
            self.show_error("The fix cannot be applied", "\n".join(preview.refused))
            return False
        if not self.confirm_preview(preview) or self._reloading():
            return False
        if any(self.edited_documents.get(base.name) is not base for base in preview.bases):
            # A file changed (reloaded from disk) while the preview was open: the outcome describes the old text.
            self.statusBar().showMessage("A file changed while the preview was open: nothing applied; fix again.",
                                         8000)
            return False
        self.undo_stack.beginMacro(title)  # one undoable step, whatever number of files it changes
        try:
            for outcome in preview.outcomes:
                self.push_outcome(outcome, title)
        finally:
            self.undo_stack.endMacro()
        self.last_refused = preview.refused
        return True

    def fix_problem(self, entry: ProblemEntry) -> bool:
        return self.fix_entries([entry], f"Fix: {entry.finding.fix.title if entry.finding.fix else entry.finding.rule}")

    def fix_rule(self, rule: str) -> bool:
        entries = [entry for entry in self.problems_model.entries() if entry.finding.rule == rule]
        return self.fix_entries(entries, f"Fix all findings of {rule}")

    def _problems_menu(self, point: QPoint) -> None:
        entry = self._entry_at(self.problems_view.indexAt(point))
        if entry is None:
            return
        menu = QMenu(self)
        fix = menu.addAction(f"Fix: {entry.finding.fix.title}" if entry.finding.fix else "No quick fix")
        fix.setEnabled(entry.finding.fix is not None)
        fix.triggered.connect(lambda: self.fix_problem(entry))
        every = menu.addAction(f"Fix All Findings of {entry.finding.rule}")
        every.setEnabled(entry.finding.fix is not None)
        every.triggered.connect(lambda: self.fix_rule(entry.finding.rule))
        menu.exec(self.problems_view.viewport().mapToGlobal(point))
        menu.deleteLater()

    # -- the file on disk --------------------------------------------------------------------------------------

    def _watch(self) -> None:
        """Watch every file of the spec and their folders (an atomic save by another editor replaces the file's
        inode, so the folder is what reports it)."""
        watched = self.watcher.files() + self.watcher.directories()
        if watched:
            self.watcher.removePaths(watched)
        paths = {os.fspath(document.path) for document in self.edited_documents.values()}
        self.watcher.addPaths(sorted(paths | {os.path.dirname(path) for path in paths}))

    def _disk_changed(self, _path: str) -> None:
        self._disk_timer.start()

    def check_disk(self) -> str:
        """Compare the files with what was last read or written. Returns what happened: "same", "missing",
        "reloaded" (no unsaved edits anywhere), "merged" (the changed files had no unsaved edits: they are taken
        from disk, the edits in the other files stay), "kept" or "reloaded-theirs" (after the conflict prompt,
        when a changed file has unsaved edits: keeping them makes Save overwrite that file)."""
        if self.loaded is None or self.disk_text is None or getattr(self._task, "kind", "relint") != "relint":
            return "same"  # nothing open, or a file is being (re)loaded
        changed: dict[str, tuple[str, bool]] = {}
        for name, document in self.edited_documents.items():
            try:
                text, bom = read_text(document.path, document.path.name)
            except SpecError:
                if document is self.edited:
                    return "missing"  # mid-rename, or deleted: the folder watch reports the next change
                continue  # another file gone (its `$ref` may have moved): the rest is still compared
            if os.fspath(document.path) not in self.watcher.files():
                self.watcher.addPath(os.fspath(document.path))
            if text != self.disk_texts.get(name):
                changed[name] = (text, bom)
        if not changed:
            return "same"
        labels = ", ".join(self._file_label(self.edited_documents[name]) for name in changed)
        if not self.is_modified:
            self._start_load(self.loaded.path, "reload")
            self.statusBar().showMessage(f"{labels} changed on disk: reloaded.", 8000)
            return "reloaded"
        modified = set(self.modified_names())
        conflicting = [name for name in changed if name in modified]
        if not conflicting:
            self._take_from_disk(changed)
            self.statusBar().showMessage(f"{labels} changed on disk: taken in; your edits elsewhere are kept.", 10000)
            return "merged"
        if self.ask_conflict() == "theirs":
            self._start_load(self.loaded.path, "reload")  # the journals go once it has loaded
            return "reloaded-theirs"
        self.disk_texts.update({name: changed[name][0] for name in conflicting})
        self._take_from_disk({name: found for name, found in changed.items() if name not in modified})
        self._update_modified()
        self.statusBar().showMessage(f"{labels} changed on disk; your edits are kept (Save overwrites it).", 10000)
        return "kept"

    def _take_from_disk(self, texts: dict[str, tuple[str, bool]]) -> None:
        """Files without unsaved edits that changed on disk: take their new text (and re-check the spec). One
        that no longer parses keeps the window's version, which Save would write."""
        taken = []
        for name, (text, bom) in texts.items():
            old = self.edited_documents[name]
            try:
                document = parse_text(text, old.path, old.name, bom=bom)
            except SpecError as exc:  # half written, perhaps: the next change is checked again
                self.statusBar().showMessage(f"{exc}: the window keeps the last version it could read.", 10000)
                continue
            self.disk_texts[name] = text
            self.edited_documents[name] = document
            taken.append(name)
            if self._shown_document is old:
                self._shown_document = None
                self._show_document(document, keep_position=True)
        if taken and self._history_touches(taken):
            # Undo or redo would put back a version of these files from before the other editor's change.
            self.undo_stack.clear()
            self.statusBar().showMessage("Files changed on disk were taken in; the undo history was cleared.",
                                         10000)
        if self._form_document in taken:
            self._refill_form()  # the form shows values of a file that just changed
        self._update_modified()
        self._relint_timer.start()

    def _history_touches(self, names: list[str]) -> bool:
        """Does any step of the undo history change one of these files?"""
        def commands(command):
            yield command
            for number in range(command.childCount()):
                yield from commands(command.child(number))

        for index in range(self.undo_stack.count()):
            for command in commands(self.undo_stack.command(index)):
                if isinstance(command, DocumentCommand) and command.after.name in names:
                    return True
        return False

    def ask_conflict(self) -> str:
        """The file changed on disk while there are unsaved edits: "mine" or "theirs" (tests replace this)."""
        box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                          f"{self.loaded.path.name if self.loaded else 'The file'} was changed by another program, "
                          "and you have unsaved edits.", parent=self)
        keep = box.addButton("Keep My Edits", QMessageBox.ButtonRole.RejectRole)
        box.addButton("Reload Theirs", QMessageBox.ButtonRole.DestructiveRole)
        box.exec()
        return "mine" if box.clickedButton() is keep else "theirs"

    def confirm_discard(self, *, prompt: bool = True) -> bool:
        """Before the edits would be lost: True to go on (saved or discarded), False to stay."""
        if not self.is_modified:
            return True
        choice = self.ask_save_changes() if prompt else "discard"
        if choice == "save":
            return self.save()
        if choice == "discard" and self.loaded is not None:
            self._forget_journals()
        return choice == "discard"

    def ask_save_changes(self) -> str:
        """"save", "discard" or "cancel" (tests replace this)."""
        answer = QMessageBox.question(
            self, "Unsaved edits", f"Save the edits to {self.loaded.path.name if self.loaded else 'the file'}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel")

    def _offer_recovery(self) -> bool:
        """Journals newer than their files hold edits that were never saved: offer them back (every file of the
        spec at once, as one undoable step)."""
        if self.loaded is None or self.edited is None:
            return False
        found = []
        for name, document in self.edited_documents.items():
            recovered = RecoveryJournal(self.recovery_folder, document.path).read()
            if recovered is not None and recovered.text != self.disk_texts.get(name):
                found.append((document, recovered))
        if not found:
            return False
        if not self.ask_recover():
            self._forget_journals()
            return False
        documents = []
        for document, recovered in found:
            try:
                documents.append(parse_text(recovered.text, document.path, document.name, bom=recovered.bom))
            except SpecError as exc:
                self.show_error("Cannot recover the unsaved edits", str(exc))
                return False
        self.undo_stack.beginMacro("Recover unsaved edits")
        try:
            for before, document in zip((document for document, _ in found), documents, strict=True):
                self.undo_stack.push(DocumentCommand(self, before, document, "Recover unsaved edits"))
        finally:
            self.undo_stack.endMacro()
        self.statusBar().showMessage("Recovered the unsaved edits.", 8000)
        return True

    def ask_recover(self) -> bool:
        """True to restore the unsaved edits found in the recovery journal (tests replace this)."""
        return QMessageBox.question(
            self, "Recover unsaved edits",
            f"{self.loaded.path.name if self.loaded else 'This file'} has edits that were never saved "
            "(the workbench did not close normally). Recover them?") == QMessageBox.StandardButton.Yes

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow() and self.loaded is not None:
            self._disk_timer.start()  # re-check the file when the window gets the focus back

    # -- the rest ----------------------------------------------------------------------------------------------

    def about(self) -> None:
        QMessageBox.about(self, f"About {APP_TITLE}",
                          f"<b>{APP_TITLE}</b> {__version__}<p>Make an OpenAPI document trustworthy as a set of "
                          "tools for language-model agents.</p><p>The lint, the score and the config are the ones "
                          "<code>workbench lint</code> uses in CI.</p>")

    def closeEvent(self, event) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        if self.loaded is not None and self.is_modified:
            self._forget_journals()  # the user chose to discard the edits
        self._relint_timer.stop()
        self._disk_timer.stop()
        if self.diff_dialog is not None:
            self.diff_dialog.close()
        self._save_settings()
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self.error_box is not None:
            self.error_box.close()
        self._pool.waitForDone()
        super().closeEvent(event)
