"""The main window: assembles the panels around one `SpecDocument`, with menus, the status bar and settings.

The window only presents and asks: the edit session is the workspace's (`workbench.workspace`), loading runs
as a background job, and each panel talks to the document. A new dock is one entry of `panels.DOCKS`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QRect, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

from workbench.examples import example_path
from workbench.gui import dialogs
from workbench.gui.dialogs import APP_TITLE
from workbench.gui.document import FixOutcome, LoadRequest, SpecDocument
from workbench.gui.editing import recovery_dir
from workbench.gui.panels import (
    DOCKS,
    DockSpec,
    EditPanel,
    OutlinePanel,
    ProblemsPanel,
    RoundTripsPanel,
    SourcePanel,
    StatusPanel,
    ToolsPanel,
    WelcomePanel,
)
from workbench.gui.recent import RecentFiles
from workbench.gui.theme import THEME_LABELS, THEMES, apply_theme
from workbench.gui.widgets import ElidingStatusBar
from workbench.lint import Severity
from workbench.spec import SpecError
from workbench.spec.limits import collect_rarely
from workbench.tools import tokens
from workbench.tools.relevance import embed_in_own_process
from workbench.workspace import (
    ConflictChoice,
    LoadedSpec,
    LoadKind,
    Preview,
    ProblemEntry,
    SaveChoice,
    SaveError,
    absolute,
    text_diff,
)

__all__ = ["APP_TITLE", "MainWindow", "fitting_size"]


@dataclass(frozen=True)
class SourcePlace:
    """Where the source view was: the file shown, the selection's anchor and cursor (0-based block, UTF-16 unit
    in the block), the vertical scroll."""

    document: str
    anchor: tuple[int, int]
    position: tuple[int, int]
    scroll: int

DEFAULT_SIZE = QSize(1280, 820)
# What the window's frame and title bar take beyond its own size on most desktops (the frame is unknown before
# the window is first shown): the size chosen leaves this much of the available screen free.
FRAME_ALLOWANCE = QSize(16, 48)


def fitting_size(available: QRect, wanted: QSize = DEFAULT_SIZE) -> QSize:
    """`wanted`, shrunk to fit the available screen area (`QScreen.availableGeometry()`) with its frame."""
    return QSize(max(1, min(wanted.width(), available.width() - FRAME_ALLOWANCE.width())),
                 max(1, min(wanted.height(), available.height() - FRAME_ALLOWANCE.height())))


def fits(geometry: QRect, available: QRect) -> bool:
    """The window (its frame allowance included) lies on the available screen area."""
    return (geometry.width() + FRAME_ALLOWANCE.width() <= available.width()
            and geometry.height() + FRAME_ALLOWANCE.height() <= available.height()
            and available.intersects(geometry))


class MainWindow(QMainWindow):
    """One spec at a time. `open_path` loads off the UI thread; `documentLoaded` or `loadFailed` follows."""

    documentLoaded = Signal(object)  # LoadedSpec, once the window shows it
    loadFailed = Signal(str)  # the one-line message shown to the user
    loadCancelled = Signal()

    outline: OutlinePanel
    problems: ProblemsPanel
    edit: EditPanel
    tools: ToolsPanel
    roundtrips: RoundTripsPanel

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings if settings is not None else QSettings()
        self.last_error: str | None = None
        self.error_box: QMessageBox | None = None
        self.diff_dialog: QDialog | None = None
        self.help_dialog: QDialog | None = None
        self._theme = "system"
        collect_rarely()  # however the window was started: a full pass on a worker would stall it (see spec.limits)
        embed_in_own_process()  # the offline ranking's model loads in a process of its own, not holding this one
        tokens.prepare()  # before the window shows: loading the tokenizer's table takes some 0.06 s in C calls
        self.document = SpecDocument(lambda: recovery_dir(self.settings), self)
        self.document.choose_conflict = lambda _merge: ConflictChoice(self.ask_conflict())
        self.setObjectName("mainWindow")
        self.setAcceptDrops(True)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self.source = SourcePanel(self.document)
        self.source.use_settings(self.settings)  # its zoom
        # The middle: how to start while no file is open, then the source text.
        self.welcome = WelcomePanel(lambda: self.recent.existing())
        self.welcome.openRequested.connect(self.choose_file)
        self.welcome.exampleRequested.connect(lambda: self.open_path(example_path()))
        self.welcome.recentChosen.connect(self.open_path)
        self.middle = QStackedWidget()
        self.middle.setObjectName("middle")
        self.middle.addWidget(self.welcome)
        self.middle.addWidget(self.source)
        self.setCentralWidget(self.middle)
        self.docks: dict[str, QDockWidget] = {}
        for spec in DOCKS:
            self.add_panel(spec)
        self._roomy: set[str] = set()  # the docks given their room since the start (or the last reset)
        for spec in DOCKS:
            if spec.room:
                self.docks[spec.attribute].visibilityChanged.connect(
                    lambda visible, name=spec.attribute: visible and self._make_room(name))
        self.problems.fixRequested.connect(self.fix_problem)
        self.problems.fixRuleRequested.connect(self.fix_rule)
        self.setStatusBar(ElidingStatusBar())  # a long message is elided before the counts, not cut under them
        self.status = StatusPanel(self.document, self.statusBar())
        self.status.cancel_button.clicked.connect(self.cancel_load)
        self.status.severityClicked.connect(self.show_severity)
        self._build_menus()
        self.welcome.refresh()
        document = self.document  # connected after the panels: they have shown a load when the window hears of it
        document.loaded.connect(self.show_loaded)
        document.loadFailed.connect(self._load_failed)
        document.loadCancelled.connect(self.loadCancelled)
        document.modifiedChanged.connect(self._update_modified)
        document.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
        document.reloadingFromDisk.connect(self._note_place)
        document.fixFinished.connect(self._fix_finished)
        self.source.view.sourceComplete.connect(document.index_later)  # an opened file's spans, once it is shown
        self.tools.showing_source = lambda: not self.source.view.is_complete
        self.source.view.sourceComplete.connect(self.tools.source_shown)
        self._place: SourcePlace | None = None
        self._restore_settings()
        self._update_title()
        self._update_history()
        hints = QGuiApplication.styleHints()
        if hints is not None:
            hints.colorSchemeChanged.connect(self._system_scheme_changed)

    def add_panel(self, spec: DockSpec) -> QDockWidget:
        panel = spec.panel(self.document)
        setattr(self, spec.attribute, panel)
        dock = QDockWidget(getattr(panel, "TITLE", spec.attribute.title()), self)
        dock.setObjectName(spec.object_name)
        dock.setWidget(panel)
        if spec.tabify_with in self.docks:  # a tab beside that dock (which stays the one shown)
            self.tabifyDockWidget(self.docks[spec.tabify_with], dock)
            self.docks[spec.tabify_with].raise_()
        else:
            self.addDockWidget(spec.area, dock)
            self.resizeDocks([dock], [spec.size], spec.orientation)
        self.docks[spec.attribute] = dock
        return dock

    # -- building ----------------------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        menu = self.menuBar().addMenu("&File")
        menu.addAction(self._action("&Open…", self.choose_file, QKeySequence.StandardKey.Open))
        self.recent = RecentFiles(self.settings, self, self.open_path)
        menu.addMenu(self.recent.menu)
        menu.addAction(self._action("Open Bundled &Example", lambda: self.open_path(example_path())))
        self.reload_action = self._action("Re&load", self.reload, QKeySequence.StandardKey.Refresh)
        self.save_action = self._action("&Save", self.save, QKeySequence.StandardKey.Save)
        self.save_as_action = self._action("Save &As…", self.save_as, QKeySequence.StandardKey.SaveAs)
        self.revert_action = self._action("Re&vert to Saved", self.revert)
        for action in (self.reload_action, self.save_action, self.save_as_action, self.revert_action):
            action.setEnabled(False)  # nothing open yet
        self.diff_action = self._action("Show &Diff Against Disk", self.show_disk_diff,
                                        QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_D))
        self.diff_action.setEnabled(False)  # nothing open, nothing edited
        for action in (self.reload_action, self.save_action, self.save_as_action, self.revert_action,
                       self.diff_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self._action("&Quit", self.close, QKeySequence.StandardKey.Quit))

        menu = self.menuBar().addMenu("&Edit")
        self.undo_action = self._action("&Undo", self.document.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action("&Redo", self.document.redo, QKeySequence.StandardKey.Redo)
        menu.addAction(self.undo_action)
        menu.addAction(self.redo_action)
        self.source.add_actions(menu, self.source.find_actions)  # find, replace, go to line

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
        menu.addAction(self._action("Show &Tools", self.focus_tools,
                                    QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_T)))
        menu.addAction(self._action("Show Ro&und Trips", self.focus_roundtrips,
                                    QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_R)))

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
        for dock in self.docks.values():
            menu.addAction(dock.toggleViewAction())
        self.source.add_actions(menu, self.source.zoom_actions)
        menu.addSeparator()
        menu.addAction(self._action("&Reset Layout", self.reset_layout))

        menu = self.menuBar().addMenu("&Help")
        menu.addAction(self._action("&Rules", self.show_rules))
        menu.addAction(self._action("&Keyboard Shortcuts", self.show_shortcuts))
        menu.addSeparator()
        menu.addAction(self._action("&About Agent Spec Workbench", lambda: dialogs.about(self)))

    def _action(self, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)  # shortcuts work wherever the focus is in the window, menus shown or not
        return action

    # -- settings and theme ------------------------------------------------------------------------------------

    def available_geometry(self) -> QRect:
        """The screen area the window may take (without panels and docks of the desktop)."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else QRect(0, 0, 1024, 700)

    def fit_to_screen(self) -> None:
        """The first size: the default one, as much of it as fits the available screen, centred there."""
        available = self.available_geometry()
        size = fitting_size(available)
        self.resize(size)
        self.size_docks()
        self.move(available.x() + (available.width() - size.width()) // 2,
                  available.y() + max(0, (available.height() - size.height() - FRAME_ALLOWANCE.height()) // 2))

    def reset_layout(self) -> None:
        """Every dock back where it starts (docked, shown, the Tools tab beside the Problems), and the window at
        its first size for this screen."""
        for spec in DOCKS:
            dock = self.docks[spec.attribute]
            dock.setFloating(False)
            if spec.tabify_with is None:
                self.addDockWidget(spec.area, dock)  # (moves a dock that was put elsewhere)
            dock.show()
        for spec in DOCKS:
            if spec.tabify_with is not None:
                self.tabifyDockWidget(self.docks[spec.tabify_with], self.docks[spec.attribute])
                self.docks[spec.tabify_with].raise_()
        if self.isMaximized() or self.isFullScreen():
            self.showNormal()
        self.size_docks()  # at the old size first: docks put back keep the widths they had, which may not fit
        QApplication.sendPostedEvents()
        self.fit_to_screen()
        self._roomy.clear()  # each tabbed dock gets its room again the next time it is shown
        self.statusBar().showMessage("The layout is reset.", 4000)

    def size_docks(self) -> None:
        """The docks at their starting sizes, each at most a quarter of the window across (a third down), so the
        source view in the middle keeps room on a small screen."""
        for spec in DOCKS:
            if spec.tabify_with is None:
                across = spec.orientation is Qt.Orientation.Horizontal
                room = self.width() // 4 if across else self.height() // 3
                self.resizeDocks([self.docks[spec.attribute]], [min(spec.size, room)], spec.orientation)

    def _restore_settings(self) -> None:
        geometry = self.settings.value("window/geometry", QByteArray(), type=QByteArray)
        # A geometry saved on a bigger screen (or at a smaller scale factor) is not restored: it would not fit.
        if geometry.isEmpty() or not self.restoreGeometry(geometry) \
                or not fits(self.geometry(), self.available_geometry()):
            self.fit_to_screen()
        state = self.settings.value("window/state", QByteArray(), type=QByteArray)
        if not state.isEmpty():
            self.restoreState(state)
        self.set_theme(self.settings.value("theme", "system", type=str), save=False)

    def _save_settings(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

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

    @property
    def loaded(self) -> LoadedSpec | None:
        """The spec shown (None: nothing open)."""
        return self.document.spec

    @property
    def is_loading(self) -> bool:
        return self.document.is_loading

    def choose_file(self) -> None:
        path = dialogs.ask_open_path(self, str(self.loaded.path.parent) if self.loaded else str(Path.home()))
        if path:
            self.open_path(path)

    def open_path(self, path: str | os.PathLike) -> None:
        """Load and lint `path` in the background; the window stays responsive and shows progress."""
        if self.confirm_discard():
            self.document.open(absolute(path), LoadKind.OPEN)

    def reload(self) -> None:
        if self.loaded is not None and self.confirm_discard():
            self.document.open(self.loaded.path, LoadKind.RELOAD)

    def revert(self) -> None:
        if self.loaded is not None and self.confirm_discard(prompt=False):
            self.document.open(self.loaded.path, LoadKind.RELOAD)

    def cancel_load(self) -> None:
        """Stop waiting for the current load (the job stops at its next step; its result is dropped)."""
        if self.document.cancel():
            self.statusBar().showMessage("Cancelled.", 5000)

    def show_loaded(self, loaded: LoadedSpec, kind: LoadKind) -> None:
        """After the panels: the title, the actions; after opening, the journals offered back."""
        self.middle.setCurrentWidget(self.source)
        self._update_title()
        self.reload_action.setEnabled(True)
        self._update_modified()
        if kind is LoadKind.RECHECK:
            self.statusBar().showMessage(f"Re-checked: {len(loaded.problems)} findings.", 4000)
            self.documentLoaded.emit(loaded)
            return
        self.last_error = None  # the load worked: an earlier error is over (one recovery raises stays shown)
        if self.error_box is not None:
            self.error_box.hide()
        if self.document.reloaded_from_disk:
            self._back_to_place()
            self.statusBar().showMessage(f"{self.document.last_request.from_disk} reloaded: changed on disk "
                                         f"({len(loaded.problems)} findings).", 8000)
            self.documentLoaded.emit(loaded)
            return
        if kind is LoadKind.OPEN:
            self._offer_recovery()
        self.recent.add(loaded.path)
        spec = loaded.spec
        loading = f"; {len(spec.problems)} problems while loading" if spec.problems else ""
        self.statusBar().showMessage(
            f"Opened {loaded.path.name}: {len(spec.operations)} operations, {len(loaded.problems)} findings "
            f"in {loaded.seconds:.2f} s{loading}.", 8000)
        self.documentLoaded.emit(loaded)

    def _load_failed(self, message: str, request: LoadRequest) -> None:
        if request.kind is LoadKind.RECHECK:
            self.statusBar().showMessage(f"Cannot re-check the edited text: {message}", 15000)
        else:
            self.show_error(f"Cannot open {request.path.name}", message)
        self.loadFailed.emit(message)

    def show_error(self, title: str, message: str) -> None:
        """A non-modal message box with the core's one-line message (never a traceback)."""
        self.last_error = message
        self.error_box = dialogs.show_error(self, self.error_box, title, message)
        self.statusBar().showMessage(message, 15000)

    # -- what the status bar and the title say -----------------------------------------------------------------

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.loaded.path.name}[*] — {APP_TITLE}" if self.loaded else APP_TITLE)

    def _update_modified(self) -> None:
        workspace = self.document.workspace
        modified = workspace.is_modified
        self.setWindowModified(modified)
        self.save_action.setEnabled(self.loaded is not None)
        self.save_as_action.setEnabled(self.loaded is not None)
        self.revert_action.setEnabled(modified)
        self.diff_action.setEnabled(modified)
        self._update_history()

    def _update_history(self) -> None:
        history = self.document.workspace.history
        for action, prefix, enabled, label in ((self.undo_action, "&Undo", history.can_undo, history.undo_label),
                                               (self.redo_action, "&Redo", history.can_redo, history.redo_label)):
            action.setEnabled(enabled)
            action.setText(f"{prefix} {label}" if label else prefix)

    # -- going to things ---------------------------------------------------------------------------------------

    def _note_place(self) -> None:
        """Before the files changed on disk are read again: the file shown, its selection and scroll."""
        shown = self.source.shown
        view = self.source.view
        if shown is None:
            self._place = None
            return
        cursor = view.textCursor()
        document = view.document()
        anchor = document.findBlock(cursor.anchor())
        position = document.findBlock(cursor.position())
        self._place = SourcePlace(shown.name, (anchor.blockNumber(), cursor.anchor() - anchor.position()),
                                  (position.blockNumber(), cursor.position() - position.position()),
                                  view.verticalScrollBar().value())

    def _back_to_place(self) -> None:
        """After that reload: the same file at the same line and column, the same selection, the same scroll."""
        place, self._place = self._place, None
        loaded = self.loaded
        if place is None or loaded is None:
            return
        documents = loaded.spec.documents
        if place.document in documents:
            self.source.show_file(documents[place.document])
        view = self.source.view
        cursor = view.textCursor()
        for (line, units), mode in ((place.anchor, cursor.MoveMode.MoveAnchor),
                                    (place.position, cursor.MoveMode.KeepAnchor)):
            view.qt_position(line + 1, 1)  # (a big text goes in by parts: up to that line at least)
            block = view.document().findBlockByNumber(line)
            if not block.isValid():
                block = view.document().lastBlock()
            cursor.setPosition(block.position() + min(units, block.length() - 1), mode)
        view.setTextCursor(cursor)
        view.verticalScrollBar().setValue(place.scroll)

    def next_problem(self) -> None:
        self._problem_stepped(self.problems.select_next())

    def previous_problem(self) -> None:
        self._problem_stepped(self.problems.select_previous())

    def _problem_stepped(self, where: tuple[int, int] | None) -> None:
        if where is None:
            self.statusBar().showMessage("No problems to go to.", 4000)
        else:
            self.statusBar().showMessage(f"Problem {where[0]} of {where[1]}", 3000)

    def show_severity(self, severity: Severity) -> None:
        """The status bar's count buttons: show the Problems panel at that severity's group."""
        self.focus_problems()
        self.problems.show_severity(severity)

    def focus_problems(self) -> None:
        self.docks["problems"].show()
        self.docks["problems"].raise_()
        self.problems.focus_list()

    def focus_tools(self) -> None:
        self.docks["tools"].show()
        self.docks["tools"].raise_()
        self._make_room("tools")
        self.tools.view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_roundtrips(self) -> None:
        self.docks["roundtrips"].show()
        self.docks["roundtrips"].raise_()
        self._make_room("roundtrips", again=True)
        self.roundtrips.tabs.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _make_room(self, name: str, again: bool = False) -> None:
        """A tabbed dock with a big table (Tools, Round trips, Selection) shares the bottom with the Problems: the
        first time it is shown (or each time it is asked for, `again`) it gets at least its `room` of the window's
        height, so at 1024×700 its table shows several rows; later, the height the user gives it stays."""
        spec = next(s for s in DOCKS if s.attribute == name)
        dock = self.docks[name]
        if (name in self._roomy and not again) or not dock.isVisible() or dock.isFloating() or self.height() < 400:
            return
        self._roomy.add(name)
        wanted = int(self.height() * spec.room)
        if dock.height() < wanted:
            self.resizeDocks([dock], [wanted], Qt.Orientation.Vertical)

    def focus_outline_filter(self) -> None:
        self.docks["outline"].show()
        self.docks["outline"].raise_()
        self.outline.focus_filter()

    # -- drag and drop -----------------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dialogs.dropped_path(event):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if dialogs.dropped_path(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = dialogs.dropped_path(event)
        if path:
            event.acceptProposedAction()
            self.open_path(path)

    # -- saving ------------------------------------------------------------------------------------------------

    def save(self) -> bool:
        """Write every file with unsaved edits atomically (each previous version kept as `<file>.bak`)."""
        workspace = self.document.workspace
        if workspace.root is None:
            return False
        try:
            names = self.document.save()
        except SaveError as exc:
            self.show_error(f"Cannot save {exc.path.name}", str(exc))
            return False
        labels = ", ".join(workspace.file_label(workspace.edited[name]) for name in names)
        self.statusBar().showMessage(f"Saved {labels}.", 5000)
        return True

    def save_as(self, path: str | os.PathLike | None = None) -> bool:
        """Write the edited text to another file (atomically) and go on with that file. Relative `$ref`s now
        resolve from its folder, so it is opened afresh (the undo history stays with the old file)."""
        if self.loaded is None or self.document.workspace.root is None:
            return False
        path = path if path is not None else self.ask_save_path()
        if not path:
            return False
        target = absolute(path)
        if target == self.loaded.path:
            return self.save()
        try:
            self.document.save_as(target)
        except SaveError as exc:
            self.show_error(f"Cannot save {exc.path.name}", str(exc))
            return False
        self.statusBar().showMessage(f"Saved as {target.name}.", 5000)
        return True

    def show_rules(self) -> None:
        """Help > Rules: what each lint rule checks and how to fix it, its severity and category, as `workbench lint
        --explain` has them."""
        self._show_help(dialogs.help_dialog(self, "Rules", dialogs.rules_html()))

    def show_shortcuts(self) -> None:
        self._show_help(dialogs.help_dialog(self, "Keyboard Shortcuts", dialogs.shortcuts_html(self.actions())))

    def _show_help(self, dialog: QDialog) -> None:
        if self.help_dialog is not None:
            self.help_dialog.close()
        self.help_dialog = dialog
        dialog.show()

    def show_disk_diff(self) -> None:
        diff = self.document.workspace.disk_diff() or "No unsaved edits: the text is the file on disk.\n"
        if self.diff_dialog is not None:
            self.diff_dialog.close()
        self.diff_dialog = dialogs.text_dialog(self, "Diff against disk", diff, self.source.view.font())
        self.diff_dialog.show()

    # -- quick fixes -------------------------------------------------------------------------------------------

    def fix_entries(self, entries: list[ProblemEntry], title: str) -> bool:
        """The quick fixes of these findings, previewed as a diff and applied as one undoable step."""
        return self.document.fix(entries, title, self.confirm_preview) is FixOutcome.APPLIED

    def _fix_finished(self, outcome: FixOutcome, title: str) -> None:
        if outcome is FixOutcome.REFUSED and self.document.workspace.last_refused:
            self.show_error("The fix cannot be applied", "\n".join(self.document.workspace.last_refused))
        elif outcome is FixOutcome.APPLIED:  # the line no longer names a finding that is gone
            self.source.location_label.setText(f"Applied: {title} (Undo takes it back)")
            self.source.location_label.setToolTip("")

    def fix_problem(self, entry: ProblemEntry) -> bool:
        return self.fix_entries([entry], f"Fix: {entry.finding.fix.title if entry.finding.fix else entry.finding.rule}")

    def fix_rule(self, rule: str) -> bool:
        return self.fix_entries([e for e in self.problems.entries() if e.finding.rule == rule],
                                f"Fix all findings of {rule}")

    # -- questions (tests replace these) -----------------------------------------------------------------------

    def _spec_name(self, default: str) -> str:
        return self.loaded.path.name if self.loaded else default

    def confirm_preview(self, preview: Preview) -> bool:
        """Show the diff preview; True when the user applies it."""
        dialog = dialogs.preview_dialog(self, preview, self.source.view.font())
        try:
            return dialog.exec() == QDialog.DialogCode.Accepted
        finally:
            dialog.deleteLater()

    def ask_save_path(self) -> str:
        """The file to save to, or ""."""
        return dialogs.ask_save_path(self, os.fspath(self.loaded.path) if self.loaded else str(Path.home()))

    def ask_conflict(self) -> ConflictChoice:
        """The file changed on disk while there are unsaved edits: keep mine or reload theirs."""
        return dialogs.ask_conflict(self, self._spec_name("The file"))

    def ask_save_changes(self) -> SaveChoice:
        return dialogs.ask_save_changes(self, self._spec_name("the file"))

    def ask_recover(self) -> bool:
        """True to restore the unsaved edits found in the recovery journals."""
        return dialogs.ask_recover(self, self._spec_name("This file"), self.recovery_diff())

    def recovery_diff(self) -> str:
        """What recovering the journals would restore: a diff against the files on disk."""
        ws = self.document.workspace
        return "".join(text_diff(ws.disk.get(document.name, document.text), recovered.text, ws.file_label(document))
                       for document, recovered in ws.recoverable())

    def confirm_discard(self, *, prompt: bool = True) -> bool:
        """Before the edits would be lost: True to go on (saved or discarded), False to stay."""
        workspace = self.document.workspace
        if not workspace.is_modified:
            return True
        choice = SaveChoice(self.ask_save_changes()) if prompt else SaveChoice.DISCARD
        if choice is SaveChoice.SAVE:
            return self.save()
        if choice is SaveChoice.DISCARD and self.loaded is not None:
            workspace.forget_journals()
        return choice is SaveChoice.DISCARD

    def _offer_recovery(self) -> None:
        try:
            self.document.offer_recovery(self.ask_recover)
        except SpecError as exc:
            self.show_error("Cannot recover the unsaved edits", str(exc))

    # -- the file on disk and closing --------------------------------------------------------------------------

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow() and self.loaded is not None:
            self.document.schedule_disk_check()  # re-check the files when the window gets the focus back

    def closeEvent(self, event) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        if self.loaded is not None and self.document.workspace.is_modified:
            self.document.workspace.forget_journals()  # the user chose to discard the edits
        for dialog in (self.diff_dialog, self.help_dialog):
            if dialog is not None:
                dialog.close()
        self._save_settings()
        for spec in DOCKS:  # no panel's job or timer outlives the window
            getattr(getattr(self, spec.attribute), "shutdown", lambda: None)()
        self.document.shutdown()
        if self.error_box is not None:
            self.error_box.close()
        super().closeEvent(event)
