"""The Selection panel: a tool-selection suite edited in a table, run offline or against a model profile, its
results (accuracy with its interval, pass^k, per-case outcomes, a confusion heatmap, accuracy against tool count,
a baseline's flips), and the fix-and-measure loop: after an edit of a description, the offline scorer scores the
whole suite again in the background and the panel shows the accuracy and the right tool's rank and margin before →
after for the cases the edit reached or moved.

What is not widgets is `workbench.workspace.selectionrun`; the runs are `workbench select`'s (same reader, runner,
judge, metrics and baseline format). Keys live in the OS keyring only (`selection.keys.store_key`)."""

from __future__ import annotations

import collections
import json
import math
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QPointF, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QFontMetrics, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QListWidget,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStyledItemDelegate,
    QTableView,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.document import SpecDocument
from workbench.gui.jobs import Job, JobRunner
from workbench.gui.panels.onscreen import OnScreen
from workbench.gui.widgets import ElidedLabel, item_model, item_table, text_item
from workbench.selection.baseline import Comparison, compare, read_baseline
from workbench.selection.draft import DraftCase
from workbench.selection.keys import move_key, store_key
from workbench.selection.metrics import Results, confusion_columns, confusion_rows, right_pick
from workbench.selection.model import OPENAI_CHAT, OPENAI_RESPONSES
from workbench.selection.report import save_baseline
from workbench.selection.run import RunOptions
from workbench.spec import SpecError
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace import LoadedSpec, LoadKind
from workbench.workspace.selectionrun import (
    OFFLINE_PROFILE,
    Estimate,
    Feed,
    Finished,
    Profile,
    Recheck,
    SuiteData,
    cell_cases,
    check,
    draft_data,
    estimate,
    execute,
    expect_text,
    expect_value,
    new_suite_data,
    open_suite_data,
    prepare,
    recheck,
    sample_label,
    save_suite,
    tags_text,
    tags_value,
    tool_choices,
    with_case,
)

FEED_MS = 100  # streamed answers are taken in batches this often
ROW_CHUNK = 60  # table rows put in per turn of the event loop
CHECK_DELAY_MS = 300  # after the last edit of a case, the suite is read again as it would be saved
PROGRESS_MS = 80  # the worker reports progress at most this often
CASE_COLUMNS = ("Id", "Prompt", "Expected", "Tags", "Draft")
RESULT_COLUMNS = ("Case", "Expected", "Picked (per repeat)", "Passed", "Rank", "Margin")
RESULT_WIDTHS = ((0, 150), (1, 150), (3, 56), (4, 44), (5, 60))
CHANGE_COLUMNS = ("Case", "Rank", "Margin", "Passed")
OK_RGB, BAD_RGB = (63, 164, 91), (229, 72, 77)
ROLE = Qt.ItemDataRole.UserRole + 1
PROFILES_KEY, CURRENT_KEY = "selection/profiles", "selection/profile"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _throttled(progress: Callable[[str], None]) -> Callable[[int, int, str], None]:
    """A run's (done, total, what) progress as the job's text, at most once per PROGRESS_MS (and at the end)."""
    last = [0.0]

    def tell(done: int, total: int, what: str) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_MS / 1000 or done == total:
            last[0] = now
            progress(f"{done}/{total} {what}")

    return tell


def _margin(value: float | None) -> str:
    return "" if value is None else f"{value:+.3f}"


class RowFeeder(QObject):
    """A table's rows put in a fresh model a chunk per turn of the event loop, so a suite of a thousand cases
    never holds the window up; `then` runs once the last row is in (a newer fill drops an older one)."""

    def __init__(self, view: QTableView, columns: tuple[str, ...], parent: QObject) -> None:
        super().__init__(parent)
        self.view, self.columns = view, columns
        self.model: QStandardItemModel = view.model()
        self._makers: collections.deque = collections.deque()
        self._then: Callable[[], None] | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self._tick)

    @property
    def busy(self) -> bool:
        return self.timer.isActive()

    def fill(self, makers: list[Callable[[], list[QStandardItem]]],
             then: Callable[[], None] | None = None) -> QStandardItemModel:
        model = item_model(self.columns, self.parent())
        for make in makers[:ROW_CHUNK]:  # the first screenful at once
            model.appendRow(make())
        old, self.model = self.model, model
        self.view.setModel(model)
        if old is not None:
            old.deleteLater()
        self._makers = collections.deque(makers[ROW_CHUNK:])
        self._then = then
        self.timer.start()
        return model

    def _tick(self) -> None:
        for _ in range(min(ROW_CHUNK, len(self._makers))):
            self.model.appendRow(self._makers.popleft()())
        if not self._makers:
            self.timer.stop()
            then, self._then = self._then, None
            if then is not None:
                then()

    def stop(self) -> None:
        self.timer.stop()
        self._makers.clear()
        self._then = None


def _columns(view: QTableView, stretch: int, widths) -> None:
    header = view.horizontalHeader()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    for column, width in widths:
        header.resizeSection(column, width)


class ExpectedDelegate(QStyledItemDelegate):
    """The Expected column's editor: an editable combo of the current tool set's tools, `none`, and what the
    suite already names, with a completer; `a | b` (any one) and `a + b` (every one) can be typed."""

    def __init__(self, choices, parent=None) -> None:
        super().__init__(parent)
        self.choices = choices  # a callable: the names offered now

    def createEditor(self, parent, _option, _index):
        combo = QComboBox(parent)
        combo.setObjectName("selectionExpectedEditor")
        combo.setEditable(True)
        combo.addItems(self.choices())
        completer = QCompleter(self.choices(), combo)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        combo.setCompleter(completer)
        return combo

    def setEditorData(self, editor: QComboBox, index) -> None:
        editor.setCurrentText(index.data() or "")

    def setModelData(self, editor: QComboBox, model, index) -> None:
        model.setData(index, editor.currentText())


class HeatImage(pg.ImageItem):
    """The confusion matrix's cells; a click says which (row, column)."""

    cellClicked = Signal(int, int)

    def mouseClickEvent(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.image is None:
            return
        pos = event.pos()
        row, column = int(pos.y()), int(pos.x())
        if 0 <= row < self.image.shape[0] and 0 <= column < self.image.shape[1]:
            event.accept()
            self.cellClicked.emit(row, column)


class ProfileDialog(QDialog):
    """A model profile: name, API, base URL, model, prices; the key goes to the OS keyring (never shown again)."""

    def __init__(self, parent: QWidget | None = None, profile: Profile | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Model Profile")
        self.name_edit = QLineEdit(profile.name if profile else "")
        self.api_combo = QComboBox()
        for label, api in (("Chat Completions", OPENAI_CHAT), ("Responses", OPENAI_RESPONSES)):
            self.api_combo.addItem(label, api)
        if profile is not None and profile.api == OPENAI_RESPONSES:
            self.api_combo.setCurrentIndex(1)
        self.url_edit = QLineEdit(profile.base_url if profile else "")
        self.url_edit.setPlaceholderText("https://api.openai.com/v1 (or any compatible endpoint)")
        self.model_edit = QLineEdit(profile.model if profile else "")
        self.prices = []
        for value in ((profile.input_price, profile.output_price) if profile else (None, None)):
            spin = QDoubleSpinBox()
            spin.setRange(0, 1000)
            spin.setDecimals(3)
            spin.setSpecialValueText("unknown")
            spin.setValue(value or 0)
            self.prices.append(spin)
        self.key_edit = QLineEdit()
        self.key_edit.setObjectName("selectionKey")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("kept in the OS keyring; empty: keep the stored one")
        form = QFormLayout(self)
        form.addRow("Name", self.name_edit)
        form.addRow("API", self.api_combo)
        form.addRow("Base URL", self.url_edit)
        form.addRow("Model", self.model_edit)
        form.addRow("$ / M input", self.prices[0])
        form.addRow("$ / M output", self.prices[1])
        form.addRow("API key", self.key_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def profile(self) -> Profile | None:
        name = self.name_edit.text().strip()
        if not name or name == OFFLINE_PROFILE.name:
            return None
        prices = [spin.value() or None for spin in self.prices]
        return Profile(name, self.api_combo.currentData(), self.url_edit.text().strip(),
                       self.model_edit.text().strip(), prices[0], prices[1])

    def take_key(self) -> str:
        """The key typed (once): the field is cleared, so no later screenshot or grab can show it."""
        key = self.key_edit.text().strip()
        self.key_edit.clear()
        return key


class SelectionPanel(OnScreen, QWidget):
    """`data` (the suite edited), `open_suite(path)`, `save_to(path)`, `draft()`, `add_case()`, `set_cell(row,
    column, text)`, `profiles()`, `add_profile(profile, key)`, `select_profile(name)`, `run()`, `cancel()`,
    `finished` (the last run), `compare_with(path)`, `save_baseline_to(path)`, `cell_cases_shown()`,
    `show_cell(row, column)`, `last_recheck`. `confirm_run(estimate)` is asked before a paid run."""

    TITLE = "Selection"
    runFinished = Signal(object)  # Finished
    runFailed = Signal(str)
    recheckReady = Signal(object)  # Recheck
    suiteChanged = Signal()  # a suite opened, drafted, or edited
    suiteSaved = Signal(object)  # Path
    fileFailed = Signal(str)  # a suite that cannot be opened or saved: the one-line message
    checked = Signal(str)  # what the reader says of the suite as it would be saved
    draftReady = Signal()

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.data: SuiteData | None = None
        self.finished: Finished | None = None  # the last run (or the loop's state after an edit)
        self.offline: Finished | None = None  # the state the next edit is compared with
        self.comparison: Comparison | None = None
        self.last_recheck: Recheck | None = None
        self.last_estimate: Estimate | None = None
        self.confirm_run = self._ask_confirm  # tests replace it
        self._toolset = None  # of the open spec: the Expected column's choices
        self._feed = Feed()
        self._rows: dict[str, int] = {}  # case id → results row while a run streams
        self._picks: dict[str, list[str]] = {}  # case id → what its answers picked so far
        self._recheck_due = False
        self.jobs = JobRunner(self, max_threads=1)
        self.jobs.progress.connect(lambda _job, text: self._progress(text))
        self.jobs.succeeded.connect(self._job_done)
        self.jobs.failed.connect(self._job_failed)
        self.jobs.cancelled.connect(lambda _job: self._stopped("Cancelled."))
        # Reading, checking and writing a suite run `workbench select`'s reader (0.3 s for 300 cases): off the UI
        # thread too, each kind on its own runner so a check never cancels a run or a save.
        self.file_jobs = JobRunner(self, max_threads=1)
        self.file_jobs.succeeded.connect(self._file_done)
        self.file_jobs.failed.connect(self._file_failed)
        self.check_jobs = JobRunner(self, max_threads=1)
        self.check_jobs.succeeded.connect(lambda _job, text: self._checked(text))
        self.check_jobs.failed.connect(lambda _job, error: self._checked(f"Not runnable yet: {error}"))
        self.check_timer = QTimer(self)
        self.check_timer.setSingleShot(True)
        self.check_timer.setInterval(CHECK_DELAY_MS)
        self.check_timer.timeout.connect(self._start_check)
        self.feed_timer = QTimer(self)
        self.feed_timer.setInterval(FEED_MS)
        self.feed_timer.timeout.connect(self._take_feed)

        self._build_bar()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("selectionTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)
        self.tabs.addTab(self._build_cases(), "Cases")
        self.tabs.addTab(self._build_results(), "Results")
        self.tabs.addTab(self._build_charts(), "Charts")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(3)
        layout.addLayout(self.bar_layout)
        layout.addWidget(self.tabs, 1)
        self._load_profiles()
        self._apply_theme()
        self._update_actions()
        document.loaded.connect(self._loaded)

    # -- building ------------------------------------------------------------------------------------------------

    def _build_bar(self) -> None:
        self.suite_button = QToolButton()
        self.suite_button.setObjectName("selectionSuiteMenu")
        self.suite_button.setText("Suite")
        self.suite_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.suite_button)
        self.draft_action = QAction("Draft from the Spec", self, triggered=lambda: self.draft())
        self.new_action = QAction("New (Empty)", self, triggered=lambda: self.new_suite())
        self.open_action = QAction("Open…", self, triggered=lambda: self._ask_open())
        self.save_action = QAction("Save", self, triggered=lambda: self._ask_save(False))
        self.save_as_action = QAction("Save As…", self, triggered=lambda: self._ask_save(True))
        for action in (self.draft_action, self.new_action, self.open_action, self.save_action, self.save_as_action):
            menu.addAction(action)
        self.suite_button.setMenu(menu)
        self.suite_label = ElidedLabel("No suite: draft one from the spec, or open one.")
        self.suite_label.setObjectName("selectionSuite")
        self.profile_combo = QComboBox()
        self.profile_combo.setObjectName("selectionProfile")
        self.profile_combo.setToolTip("Where the suite runs: the offline scorer (no key, no network) or a model")
        self.profile_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.profile_combo.setMinimumContentsLength(12)
        self.profile_combo.currentIndexChanged.connect(self._profile_changed)
        self.profile_button = QPushButton("Profiles…")
        self.profile_button.setToolTip("Add or change a model profile (its key goes to the OS keyring)")
        self.profile_button.clicked.connect(self._ask_profile)
        self.repeats_spin = QSpinBox()
        self.repeats_spin.setObjectName("selectionRepeats")
        self.repeats_spin.setRange(0, 50)
        self.repeats_spin.setSpecialValueText("suite's")
        self.repeats_spin.setToolTip("Samples per case (pass^k needs k of them); default: the suite's repeats")
        self.scale_edit = QLineEdit()
        self.scale_edit.setObjectName("selectionScale")
        self.scale_edit.setPlaceholderText("tool counts")
        self.scale_edit.setToolTip("Accuracy against tool count, e.g. 5, 10, all (the expected tools plus the most "
                                   "similar others)")
        self.scale_edit.setMaximumWidth(110)
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("selectionRun")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("selectionCancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_bar = QProgressBar()
        self.progress_bar.setObjectName("selectionProgress")
        self.progress_bar.setMaximumWidth(140)
        self.progress_bar.setMaximumHeight(self.fontMetrics().height() + 8)
        self.progress_bar.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.progress_bar.hide()
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.suite_button)
        bar.addWidget(self.suite_label, 1)
        bar.addWidget(self.profile_combo)
        bar.addWidget(self.profile_button)
        bar.addWidget(self.repeats_spin)
        bar.addWidget(self.scale_edit)
        bar.addWidget(self.run_button)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.progress_bar)
        self.bar_layout = bar

    def _build_cases(self) -> QWidget:
        self.case_model = item_model(CASE_COLUMNS, self)
        self.case_model.itemChanged.connect(self._case_edited)
        self.case_view = item_table("selectionCases", self.case_model)
        self.case_rows = RowFeeder(self.case_view, CASE_COLUMNS, self)
        self.case_view.setItemDelegateForColumn(2, ExpectedDelegate(self._choices, self.case_view))
        self.case_view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                       | QAbstractItemView.EditTrigger.EditKeyPressed
                                       | QAbstractItemView.EditTrigger.AnyKeyPressed)
        _columns(self.case_view, 1, ((0, 150), (2, 170), (3, 110), (4, 50)))
        self.add_button = QPushButton("Add Case")
        self.add_button.clicked.connect(lambda: self.add_case())
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_cases)
        self.case_status = ElidedLabel()
        self.case_status.setObjectName("selectionCaseStatus")
        row = QHBoxLayout()
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addWidget(self.case_status, 1)
        column = QVBoxLayout()
        column.setContentsMargins(0, 2, 0, 0)
        column.addWidget(self.case_view, 1)
        column.addLayout(row)
        box = QWidget()
        box.setLayout(column)
        return box

    def _build_results(self) -> QWidget:
        self.summary_label = ElidedLabel("Run the suite to see its accuracy.")
        self.summary_label.setObjectName("selectionSummary")
        self.loop_label = ElidedLabel("")
        self.loop_label.setObjectName("selectionLoop")
        self.loop_label.hide()  # until there is something to say below the summary
        self.result_model = item_model(RESULT_COLUMNS, self)
        self.result_view = item_table("selectionResults", self.result_model)
        self.result_rows_feeder = RowFeeder(self.result_view, RESULT_COLUMNS, self)
        self.result_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        _columns(self.result_view, 2, RESULT_WIDTHS)
        self.change_model = item_model(CHANGE_COLUMNS, self)
        self.change_view = item_table("selectionChanges", self.change_model)
        self.change_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.change_view.setToolTip("The cases the last edit reached or moved (the whole suite is scored again "
                                    "offline): the right tool's rank and margin, "
                                    "before → after")
        self.compare_button = QPushButton("Compare…")
        self.compare_button.setToolTip("Compare this run with a baseline file (`workbench select --baseline`)")
        self.compare_button.clicked.connect(self._ask_compare)
        self.baseline_button = QPushButton("Save Baseline…")
        self.baseline_button.setToolTip("Save this run as a baseline (`--save-baseline`'s format)")
        self.baseline_button.clicked.connect(self._ask_save_baseline)
        self.flips_list = QListWidget()
        self.flips_list.setObjectName("selectionFlips")
        self.flips_list.setMinimumSize(80, 30)
        self.flips_list.addItem("Compare with a baseline to list the cases that flipped.")
        self.loop_hint = ElidedLabel("Edit a description: the suite is scored again offline, before → after.")
        self.loop_hint.setObjectName("selectionLoopHint")
        buttons = QHBoxLayout()
        buttons.addWidget(self.compare_button)
        buttons.addWidget(self.baseline_button)
        side = QVBoxLayout()
        side.setContentsMargins(0, 0, 0, 0)
        side.addWidget(self.loop_hint)
        self.change_view.hide()  # until an edit has moved some cases
        side.addWidget(self.change_view, 1)
        side.addLayout(buttons)
        side.addWidget(self.flips_list, 1)
        side_box = QWidget()
        side_box.setLayout(side)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("selectionResultsSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(self.result_view)
        split.addWidget(side_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        column = QVBoxLayout()
        column.setContentsMargins(0, 2, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.summary_label)
        column.addWidget(self.loop_label)
        column.addWidget(split, 1)
        box = QWidget()
        box.setLayout(column)
        return box

    def _build_charts(self) -> QWidget:
        self.heat_view = pg.GraphicsLayoutWidget()
        self.heat_view.setObjectName("selectionHeatmap")
        self.heat_view.setMinimumSize(120, 60)
        self.heat_plot = self.heat_view.addPlot()
        self.heat_plot.setMouseEnabled(False, False)
        self.heat_plot.hideButtons()
        self.heat_plot.setMenuEnabled(False)
        self.heat_plot.invertY(True)
        self.heat_plot.setTitle("expected (rows) × picked (columns)", size="9pt")
        small = self.font()
        small.setPointSizeF(max(6.5, small.pointSizeF() * 0.8))
        for name in ("left", "bottom"):
            self.heat_plot.getAxis(name).setStyle(tickFont=small, tickLength=0)
        self.heat_image = HeatImage(axisOrder="row-major")
        self.heat_image.setToolTip("Rows: the expected tool; columns: the pick, numbered as the row of that tool. "
                                   "Click a cell to list its cases.")
        self.heat_image.cellClicked.connect(self.show_cell)
        self.heat_plot.addItem(self.heat_image)
        self.heat_plot.getViewBox().sigResized.connect(lambda _box: self._heat_ticks())
        self._heat_texts: list[pg.TextItem] = []
        self._heat_labels: tuple[list[str], list[str]] = ([], [])
        self.cell_label = ElidedLabel("Click a cell to list its cases.")
        self.cell_label.setObjectName("selectionCell")
        self.cell_list = QListWidget()
        self.cell_list.setObjectName("selectionCellCases")
        self.cell_list.setMinimumSize(80, 30)
        cell_column = QVBoxLayout()
        cell_column.setContentsMargins(0, 0, 0, 0)
        cell_column.addWidget(self.cell_label)
        cell_column.addWidget(self.cell_list, 1)
        cell_box = QWidget()
        cell_box.setLayout(cell_column)
        self.scale_view = pg.PlotWidget()
        self.scale_view.setObjectName("selectionScalePlot")
        self.scale_view.setMinimumSize(120, 60)
        self.scale_plot = self.scale_view.getPlotItem()
        self.scale_plot.setTitle("accuracy against tool count", size="9pt")
        self.scale_plot.setLabel("bottom", "tools offered")
        self.scale_plot.setLabel("left", "accuracy %")
        self.scale_plot.setYRange(0, 100)
        self.scale_plot.showGrid(x=True, y=True, alpha=0.25)
        self.scale_plot.hideButtons()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("selectionChartsSplit")
        split.setChildrenCollapsible(False)
        split.addWidget(self.heat_view)
        split.addWidget(cell_box)
        split.addWidget(self.scale_view)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 3)
        split.setStretchFactor(2, 3)
        split.setSizes([480, 220, 300])
        return split

    # -- settings and profiles -------------------------------------------------------------------------------------

    @property
    def settings(self) -> QSettings:
        """The window's settings (the panel's document belongs to the window)."""
        owner = self.document.parent()
        found = getattr(owner, "settings", None)
        return found if isinstance(found, QSettings) else QSettings()

    def profiles(self) -> list[Profile]:
        try:
            stored = json.loads(self.settings.value(PROFILES_KEY, "[]", type=str) or "[]")
        except ValueError:
            stored = []
        found = [Profile.from_dict(p) for p in stored if isinstance(p, dict)] if isinstance(stored, list) else []
        return [OFFLINE_PROFILE, *(p for p in found if p is not None)]

    def add_profile(self, profile: Profile, key: str = "", renaming: str | None = None) -> None:
        """Keep the profile (without its key) in the settings and the key in the OS keyring; select it.
        `renaming`: the name the profile had; that profile goes, and its stored key moves to the new name's entry
        (a key typed now replaces it). Raises SpecError when the new name is another profile's."""
        stored = self.profiles()[1:]
        renamed = renaming is not None and renaming != profile.name
        if renamed and any(p.name == profile.name for p in stored):
            raise SpecError(f"a profile named {profile.name!r} exists already: choose another name", "<profile>")
        if renamed:
            old = Profile(renaming)
            if key:
                store_key(old.key_entry, "")
            else:
                move_key(old.key_entry, profile.key_entry)
        if key:
            store_key(profile.key_entry, key)
        others = [p for p in stored if p.name not in (profile.name, renaming)]
        self.settings.setValue(PROFILES_KEY, json.dumps([p.to_dict() for p in [*others, profile]]))
        self._load_profiles()
        self.select_profile(profile.name)

    def select_profile(self, name: str) -> bool:
        index = self.profile_combo.findText(name)
        if index >= 0:
            self.profile_combo.setCurrentIndex(index)
        return index >= 0

    @property
    def profile(self) -> Profile:
        return self.profile_combo.currentData() or OFFLINE_PROFILE

    def _load_profiles(self) -> None:
        current = self.settings.value(CURRENT_KEY, OFFLINE_PROFILE.name, type=str)
        self.profile_combo.blockSignals(True)
        self.profile_combo.clear()
        for profile in self.profiles():
            self.profile_combo.addItem(profile.name, profile)
            tip = "No key, no network" if profile.is_offline else (
                f"{profile.api} · {profile.model or '(the suite’s model)'} · {profile.base_url or 'OpenAI'}")
            self.profile_combo.setItemData(self.profile_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.profile_combo.setCurrentIndex(max(0, self.profile_combo.findText(current)))
        self.profile_combo.blockSignals(False)

    def _profile_changed(self, _index: int) -> None:
        self.settings.setValue(CURRENT_KEY, self.profile.name)

    def _ask_profile(self) -> None:
        editing = None if self.profile.is_offline else self.profile
        dialog = ProfileDialog(self, editing)
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted:
                dialog.take_key()
                return
            profile, key = dialog.profile(), dialog.take_key()
        finally:
            dialog.deleteLater()
        if profile is None:
            self._say("A profile needs a name (not the offline scorer's).")
            return
        try:
            self.add_profile(profile, key, renaming=editing.name if editing is not None else None)
        except SpecError as exc:
            self._say(str(exc))

    # -- the suite -----------------------------------------------------------------------------------------------

    def _choices(self) -> list[str]:
        """The tools of the last run's set; before any run, the open spec's operationIds (the suite resolves
        both), then what the suite already names."""
        written = [expect_text(c.expect) for c in self.data.cases] if self.data else []
        loaded = self.document.spec
        if self._toolset is None and loaded is not None:
            written = [e.operation.operation_id or f"{e.operation.method.upper()} {e.operation.path}"
                       for e in loaded.operations] + written
        return tool_choices(self._toolset, written)

    def _spec_path(self) -> Path | None:
        loaded = self.document.spec
        return loaded.path if loaded is not None else None

    def set_data(self, data: SuiteData | None, then: Callable[[], None] | None = None) -> None:
        """Show a suite (`suiteChanged` once its rows are all in the table)."""
        self.data = data

        def shown() -> None:
            if then is not None:
                then()
            self.suiteChanged.emit()

        self._show_cases(then=shown)
        self._update_actions()

    def new_suite(self) -> None:
        path = self._spec_path()
        if path is not None:
            self.set_data(new_suite_data(path))

    def open_suite(self, path: Path) -> None:
        """Read a suite file in the background (`suiteChanged` follows, or `fileFailed`)."""
        path = Path(path)
        self.file_jobs.start(lambda _progress, _cancelled: open_suite_data(path), ("open", path))

    def save_to(self, path: Path) -> bool:
        """Write the suite in the background, checked first by `workbench select`'s reader (`suiteSaved`
        follows, or `fileFailed`); False when there is nothing to save."""
        spec, data, path = self._spec_path(), self.data, Path(path)
        if data is None or spec is None:
            return False
        self.file_jobs.start(lambda _progress, _cancelled: save_suite(data, path, spec), ("save", data))
        return True

    def _file_done(self, job: Job, data: SuiteData) -> None:
        kind, what = job.tag
        if kind == "save":
            if self.data is what:  # not edited meanwhile: the suite is now that file
                self.data = data
                self._show_suite_label()
            self._say(f"Saved {data.path.name}: `workbench select {data.path.name}` runs it.")
            self.suiteSaved.emit(data.path)
            return
        self.set_data(data)
        spec = self._spec_path()
        named = (what.parent / data.spec).resolve()
        if spec is None and named.is_file():
            self.document.open(named)
        elif spec is not None and named != spec.resolve():
            self._say(f"The suite was written for {data.spec}; it runs against the open spec, {spec.name}.")

    def _file_failed(self, _job: Job, error: BaseException) -> None:
        message = str(error) if isinstance(error, SpecError) else f"{type(error).__name__}: {error}"
        self._say(message)
        self.fileFailed.emit(message)

    def draft(self) -> None:
        """A starter suite from the open spec (in the background: the near-duplicate pairs take a while)."""
        loaded = self.document.spec
        if loaded is None:
            self._say("Open a spec to draft a suite from.")
            return
        spec, config, path = loaded.spec, loaded.config, loaded.path

        def work(_progress, _cancelled) -> SuiteData:
            toolset = build_toolset(spec, config, ToolOverrides())
            return draft_data(spec, toolset, path, config.lint.threshold("similarity"))

        self.jobs.start(work, "draft")
        self._busy("Drafting…")

    def add_case(self, prompt: str = "", expect: str = "none") -> None:
        if self.data is None:
            self.new_suite()
        if self.data is None:
            return
        case = DraftCase(self.data.new_case_id(), prompt, expect_value(expect), draft=False)
        last = len(self.data.cases)
        self.set_data(replace(self.data, cases=[*self.data.cases, case]),
                      then=lambda: self.case_view.setCurrentIndex(self.case_model.index(last, 1)))

    def remove_cases(self) -> None:
        if self.data is None:
            return
        rows = {index.row() for index in self.case_view.selectionModel().selectedRows()} or (
            {self.case_view.currentIndex().row()} if self.case_view.currentIndex().isValid() else set())
        if rows:
            self.set_data(replace(self.data, cases=[c for i, c in enumerate(self.data.cases) if i not in rows]))

    def set_cell(self, row: int, column: int, text: str) -> None:
        """Edit one cell as the table's editor does (Draft: "yes" / "")."""
        item = self.case_model.item(row, column)
        if column == 4:
            item.setCheckState(Qt.CheckState.Checked if text else Qt.CheckState.Unchecked)
        else:
            item.setText(text)

    def _show_cases(self, then: Callable[[], None] | None = None) -> None:
        def row(case: DraftCase) -> list[QStandardItem]:
            draft = text_item("", "Not yet reviewed (draft: true)", editable=True)
            draft.setCheckable(True)
            draft.setCheckState(Qt.CheckState.Checked if case.draft else Qt.CheckState.Unchecked)
            prompt_tip = "\n".join(f"{m['role']}: {m['content']}" for m in case.messages) if case.messages else None
            return [text_item(case.id, editable=True), text_item(case.prompt, prompt_tip or case.prompt, True),
                    text_item(expect_text(case.expect), editable=True),
                    text_item(tags_text(case.tags), editable=True), draft]

        cases = self.data.cases if self.data else []
        self.case_model = self.case_rows.fill([lambda c=c: row(c) for c in cases], then)
        self.case_model.itemChanged.connect(self._case_edited)
        _columns(self.case_view, 1, ((0, 150), (2, 170), (3, 110), (4, 50)))
        self._show_suite_label()
        self._check_text()

    def _show_suite_label(self) -> None:
        data = self.data
        if data is None:
            self.suite_label.setText("No suite: draft one from the spec, or open one.")
            self.case_status.setText("")
            return
        name = data.path.name if data.path else "unsaved suite"
        drafts = sum(1 for c in data.cases if c.draft)
        self.suite_label.setText(f"{name} · {len(data.cases)} cases" + (f" ({drafts} drafts)" if drafts else ""))
        self.suite_label.setToolTip(str(data.path) if data.path else "Not saved yet (Suite ▸ Save As…)")

    def _check_text(self) -> None:
        """Read the suite as it would be saved, a moment after the last change (in the background)."""
        self.check_timer.start()

    def _start_check(self) -> None:
        spec, data = self._spec_path(), self.data
        if data is None or spec is None:
            return

        def work(_progress, _cancelled) -> str:
            check(data, spec)
            return "The suite reads as `workbench select` reads it."

        self.check_jobs.start(work, data)

    def _checked(self, text: str) -> None:
        self.case_status.setText(text)
        self.checked.emit(text)

    def _case_edited(self, item: QStandardItem) -> None:
        if self.data is None:
            return
        row, column = item.row(), item.column()
        text = item.text().strip()
        change = {0: lambda: {"id": text}, 1: lambda: {"prompt": text, "messages": self._messages(row, text)},
                  2: lambda: {"expect": expect_value(text or "none")}, 3: lambda: {"tags": tags_value(text)},
                  4: lambda: {"draft": item.checkState() == Qt.CheckState.Checked}}[column]()
        try:
            self.data = with_case(self.data, row, **change)
        except SpecError as exc:
            self._say(str(exc))
            self._show_cases()
            return
        self._check_text()
        self.suiteChanged.emit()

    def _messages(self, row: int, prompt: str) -> tuple:
        """A case written with `messages`: the prompt edits its last user message."""
        messages = [dict(m) for m in self.data.cases[row].messages]
        for message in reversed(messages):
            if message.get("role") == "user":
                message["content"] = prompt
                break
        return tuple(messages)

    def _ask_open(self) -> None:
        start = str(self.data.path.parent if self.data and self.data.path else self._spec_path() or Path.home())
        name, _ = QFileDialog.getOpenFileName(self, "Open a Selection Suite", start, "Suites (*.yaml *.yml *.json)")
        if name:
            self.open_suite(Path(name))

    def _ask_save(self, ask: bool) -> None:
        spec = self._spec_path()
        if self.data is None or spec is None:
            return
        path = self.data.path
        if ask or path is None:
            suggested = path or spec.with_name(f"{spec.stem}.suite.yaml")
            name, _ = QFileDialog.getSaveFileName(self, "Save the Suite", str(suggested), "YAML (*.yaml)")
            if not name:
                return
            path = Path(name)
        self.save_to(path)

    # -- running -------------------------------------------------------------------------------------------------

    def _options(self) -> RunOptions:
        sizes: list[int | None] = []
        for part in self.scale_edit.text().replace(";", ",").split(","):
            part = part.strip().lower()
            if part == "all":
                sizes.append(None)
            elif part.isdigit() and int(part) > 0:
                sizes.append(int(part))
        return RunOptions(repeats=self.repeats_spin.value() or None, scale=tuple(sizes))

    def run(self) -> bool:
        """Prepare the run in the background; a paid one is confirmed (requests and cost) before anything is sent."""
        loaded = self.document.spec
        if loaded is None or self.data is None or not self.data.cases:
            self._say("Open a spec and a suite (or draft one) first.")
            return False
        data, profile, options = self.data, self.profile, self._options()
        spec, config, path = loaded.spec, loaded.config, loaded.path

        def work(_progress, _cancelled):
            opened = prepare(data, path, spec, config, profile)
            return opened, estimate(opened, options.repeats or opened.suite.repeats, options.scale)

        self.jobs.start(work, ("prepare", profile, options))
        self._busy("Preparing…")
        return True

    def _start_run(self, opened, options: RunOptions) -> None:
        feed = self._feed = Feed()

        def work(progress, cancelled) -> Finished:
            return execute(opened, options, feed, _throttled(progress), cancelled)

        self._rows = {}
        self._begin_rows(opened.suite)
        self.jobs.start(work, "run")
        self.feed_timer.start()
        self._busy(f"Running {len(opened.suite.cases)} cases ({opened.suite.model.api})…")

    def cancel(self) -> None:
        if self.jobs.cancel() is not None:
            self._stopped("Cancelled: nothing more is sent.")

    def _ask_confirm(self, estimate_: Estimate) -> bool:
        answer = QMessageBox.question(self, "Run against a paid model?",
                                      f"This run sends {estimate_.text()}.\n\nGo ahead?")
        return answer == QMessageBox.StandardButton.Yes

    def _job_done(self, job: Job, result) -> None:
        tag = job.tag
        if tag == "draft":
            self._stopped("")
            self.set_data(result)
            self.tabs.setCurrentIndex(0)
            self.draftReady.emit()
            return
        if isinstance(tag, tuple) and tag[0] == "prepare":
            opened, estimate_ = result
            self.last_estimate = estimate_
            self._toolset = opened.toolset
            if estimate_.paid and not self.confirm_run(estimate_):
                self._stopped("Not run: nothing was sent.")
                return
            self._start_run(opened, tag[2])
            return
        if tag == "run":
            self._take_feed()
            self.feed_timer.stop()
            self._stopped("")
            if result.offline and not result.run.cancelled:
                self.offline = result
            self._show_finished(result, then=lambda: self.runFinished.emit(result))
            return
        if tag == "recheck":
            self._stopped("")
            self.last_recheck = result
            self.offline = result.finished
            self._show_recheck(result)
            self._show_finished(result.finished, keep_comparison=True, then=lambda: self.recheckReady.emit(result))

    def _job_failed(self, _job: Job, error: BaseException) -> None:
        message = str(error) if isinstance(error, SpecError) else f"{type(error).__name__}: {error}"
        self.feed_timer.stop()
        self._stopped(f"Cannot run: {message}")
        self.runFailed.emit(message)

    def _busy(self, text: str) -> None:
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setFormat(text)
        self.progress_bar.show()
        self.progress_bar.setToolTip(text)
        self._update_actions()

    def _progress(self, text: str) -> None:
        done, _, rest = text.partition("/")
        total = rest.split(" ", 1)[0]
        if done.isdigit() and total.isdigit():
            self.progress_bar.setRange(0, int(total))
            self.progress_bar.setValue(int(done))
            self.progress_bar.setFormat(f"{done}/{total}")
        self.progress_bar.setToolTip(text)

    def _stopped(self, text: str) -> None:
        self.feed_timer.stop()
        self.progress_bar.hide()
        if text:
            self._say(text)
        self._update_actions()
        if self._recheck_due and self.is_shown and self.jobs.current is None:
            QTimer.singleShot(0, self._start_recheck)

    def _update_actions(self) -> None:
        running = self.jobs.current is not None
        has_spec = self.document.spec is not None
        self.run_button.setEnabled(not running and has_spec and self.data is not None)
        self.cancel_button.setEnabled(running)
        for action in (self.save_action, self.save_as_action):
            action.setEnabled(self.data is not None and has_spec)
        self.draft_action.setEnabled(has_spec and not running)
        self.new_action.setEnabled(has_spec)
        self.add_button.setEnabled(has_spec)
        has_run = self.finished is not None
        self.compare_button.setEnabled(has_run)
        self.baseline_button.setEnabled(has_run)

    @property
    def is_running(self) -> bool:
        return self.jobs.current is not None

    def _say(self, text: str) -> None:
        self.document.message.emit(text, 8000)
        (self.summary_label if self.finished is None else self.loop_label).setText(text)
        self.loop_label.setVisible(bool(self.loop_label.full_text()))

    # -- streaming and results ------------------------------------------------------------------------------------

    def _begin_rows(self, suite) -> None:
        self._rows = {case.id: n for n, case in enumerate(suite.cases)}
        self._picks = {}

        def row(case) -> list[QStandardItem]:
            picks = " · ".join(self._picks.get(case.id, ()))
            return [text_item(case.id, case.prompt), text_item(case.expect.label()), text_item(picks), text_item("…"),
                    text_item(""), text_item("")]

        self.result_model = self.result_rows_feeder.fill([lambda c=c: row(c) for c in suite.cases])
        _columns(self.result_view, 2, RESULT_WIDTHS)
        self.tabs.setCurrentIndex(1)

    def _take_feed(self) -> None:
        """The answers that arrived since the last tick, appended in one batch."""
        samples = self._feed.take()
        for sample in samples:
            row = self._rows.get(sample.case_id)
            if row is None:
                continue
            picks = self._picks.setdefault(sample.case_id, [])
            picks.append(sample_label(sample))
            item = self.result_model.item(row, 2)
            if item is not None:  # else its row is still to come, with the picks so far
                item.setText(" · ".join(picks))
                item.setToolTip(item.text())

    def _show_finished(self, finished: Finished, keep_comparison: bool = False,
                       then: Callable[[], None] | None = None) -> None:
        """The run's numbers at once, its table a chunk at a time, then the charts and `then`."""
        self.finished = finished
        if not keep_comparison:
            self.comparison = None
            self.flips_list.clear()
            self.flips_list.addItem("Compare with a baseline to list the cases that flipped.")
        results = finished.results
        s = results.summary
        low, high = s.accuracy_ci
        passk = " · ".join(f"pass^{k} {_pct(v)}" for k, v in s.pass_k.items() if v is not None)
        who = "offline scorer" if finished.offline else f"{finished.run.context.model} ({finished.run.context.api})"
        text = (f"accuracy {_pct(s.accuracy)} [{_pct(low)}, {_pct(high)}] · {passk} · {s.passed}/{s.runs} runs, "
                f"{s.cases} cases · {who}")
        if s.errors:
            text += f" · {s.errors} errors"
        if not finished.offline:
            text += f" · {s.requests_sent} requests, {s.cache_hits} cached"
        if finished.run.cancelled:
            text += " · cancelled"
        self.summary_label.setText(text)
        self.summary_label.setToolTip(text + ("\n" + "\n".join(finished.notes) if finished.notes else ""))
        def row(case) -> list[QStandardItem]:
            picks = " · ".join(label if label is not None else "error" for label in case.selected)
            tip = "\n".join([case.prompt, *[f"{label}: {outcome}" for label, outcome in
                                            zip(case.selected, case.outcomes, strict=False)], *case.problems])
            passed = text_item(f"{case.passed}/{case.runs}", tip)
            passed.setForeground(QColor(*(OK_RGB if not case.failed else BAD_RGB)))
            return [text_item(case.id, tip), text_item(case.expected), text_item(picks or "—", tip), passed,
                    text_item("" if case.rank is None else str(case.rank)), text_item(_margin(case.margin))]

        def charts() -> None:
            self._show_heatmap(results)
            self._show_scale(results)
            if then is not None:
                then()

        self.result_model = self.result_rows_feeder.fill([lambda c=c: row(c) for c in results.cases], charts)
        _columns(self.result_view, 2, RESULT_WIDTHS)
        self._update_actions()

    def result_rows(self) -> list[tuple[str, ...]]:
        model = self.result_model
        return [tuple(model.item(r, c).text() for c in range(model.columnCount())) for r in range(model.rowCount())]

    # -- the loop --------------------------------------------------------------------------------------------------

    def _loaded(self, loaded: LoadedSpec, kind: LoadKind) -> None:
        if kind is not LoadKind.RECHECK:
            if self.jobs.cancel() is not None:  # a run (maybe paid) for the spec shown before: nothing more is sent
                self._stopped("Stopped: another file was opened (or this one read again); nothing more is sent.")
            self._toolset = None
            self.offline = None  # another file (or the file again from disk): nothing to compare with
            self._update_actions()
            self._check_text()
            return
        if self.data is None or not self.data.cases:
            return
        if not self.is_shown:
            self._recheck_due = True
            return
        self._start_recheck()

    def _start_recheck(self) -> None:
        self._recheck_due = False
        loaded, previous, data = self.document.spec, self.offline, self.data
        if loaded is None or data is None:
            return
        if self.jobs.current is not None:  # after the job running now
            self._recheck_due = True
            return
        spec, config, path = loaded.spec, loaded.config, loaded.path
        if previous is None:  # nothing to compare with yet: the offline run the next edit is compared with
            self.jobs.start(lambda progress, cancelled: execute(prepare(data, path, spec, config), RunOptions(),
                                                                cancelled=cancelled), "run")
            self._busy("Offline run…")
            return

        def work(progress, cancelled) -> Recheck:
            return recheck(previous, prepare(data, path, spec, config), cancelled, _throttled(progress))

        self.jobs.start(work, "recheck")
        self._busy("Scoring the suite again offline…")

    def _show_recheck(self, result: Recheck) -> None:
        self.loop_label.setText(result.text())
        self.loop_label.show()
        self.loop_label.setToolTip(result.text() + "\n" + "\n".join(
            f"{c.id}: rank {c.rank_before} → {c.rank_after}, margin {_margin(c.margin_before)} → "
            f"{_margin(c.margin_after)}" for c in result.cases))
        model = self.change_model
        model.removeRows(0, model.rowCount())
        self.change_view.setVisible(bool(result.cases))
        self.loop_hint.setText("After the last edit, all cases scored again offline; those it reached or moved: "
                               "the right tool's rank and margin, before → after"
                               if result.cases else result.text())
        for c in result.cases:
            passed = text_item(f"{c.passed_before[0]}/{c.passed_before[1]} → {c.passed_after[0]}/{c.passed_after[1]}")
            better = (c.passed_after[0] / max(1, c.passed_after[1])) - (c.passed_before[0] / max(1, c.passed_before[1]))
            if better:
                passed.setForeground(QColor(*(OK_RGB if better > 0 else BAD_RGB)))
            model.appendRow([text_item(c.id, c.expected),
                             text_item(f"{c.rank_before or '—'} → {c.rank_after or '—'}"),
                             text_item(f"{_margin(c.margin_before) or '—'} → {_margin(c.margin_after) or '—'}"),
                             passed])
        self.tabs.setCurrentIndex(1)

    def change_rows(self) -> list[tuple[str, ...]]:
        model = self.change_model
        return [tuple(model.item(r, c).text() for c in range(model.columnCount())) for r in range(model.rowCount())]

    # -- baselines -------------------------------------------------------------------------------------------------

    def compare_with(self, path: Path) -> Comparison | None:
        if self.finished is None:
            return None
        try:
            comparison = compare(self.finished.results, read_baseline(Path(path)), str(path))
        except SpecError as exc:
            self._say(str(exc))
            return None
        self.comparison = comparison
        self.flips_list.clear()
        verdict = "a regression" if comparison.regression else "no regression"
        self.flips_list.addItem(f"{Path(path).name}: {_pct(comparison.accuracy_before)} → "
                                f"{_pct(comparison.accuracy_now)} ({verdict})")
        for reason in comparison.reasons():
            self.flips_list.addItem(f"  {reason}")
        self.flips_list.addItems([f"worse  {f.text()}" for f in comparison.worse])
        self.flips_list.addItems([f"better {f.text()}" for f in comparison.better])
        self.flips_list.addItems([f"new    {c}" for c in comparison.new_cases])
        self.flips_list.addItems([f"gone   {c}" for c in comparison.removed_cases])
        self.flips_list.addItems([f"note   {n}" for n in comparison.notes])
        if not (comparison.worse or comparison.better):
            self.flips_list.addItem("No case flipped.")
        return comparison

    def flips(self) -> list[str]:
        return [self.flips_list.item(i).text() for i in range(self.flips_list.count())]

    def save_baseline_to(self, path: Path) -> bool:
        if self.finished is None:
            return False
        try:
            save_baseline(self.finished.results, Path(path), self.comparison)
        except SpecError as exc:
            self._say(str(exc))
            return False
        self._say(f"Saved the baseline {Path(path).name}.")
        return True

    def _ask_compare(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Compare with a Baseline", self._folder(), "JSON (*.json)")
        if name:
            self.compare_with(Path(name))

    def _ask_save_baseline(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Save as Baseline", self._folder(), "JSON (*.json)")
        if name:
            self.save_baseline_to(Path(name))

    def _folder(self) -> str:
        return str(self.data.path.parent if self.data and self.data.path else self._spec_path() or Path.home())

    # -- charts ----------------------------------------------------------------------------------------------------

    def _show_heatmap(self, results: Results) -> None:
        matrix = results.confusion
        rows = confusion_rows(matrix)
        columns = confusion_columns(matrix, rows)
        self._heat_labels = (rows, columns)
        for text in self._heat_texts:
            self.heat_plot.removeItem(text)
        self._heat_texts = []
        if not rows or not columns:
            self.heat_image.clear()
            return
        image = np.zeros((len(rows), len(columns), 4), dtype=np.uint8)
        color = self.palette().color(self.palette().ColorRole.Text)
        for r, expected in enumerate(rows):
            total = sum(matrix[expected].values()) or 1
            for c, picked in enumerate(columns):
                n = matrix[expected].get(picked, 0)
                if not n:
                    continue
                share = n / total
                image[r, c] = (*(OK_RGB if right_pick(expected, picked) else BAD_RGB), int(60 + 195 * share))
                if len(rows) * len(columns) <= 900:
                    text = pg.TextItem(str(n), color=color, anchor=(0.5, 0.5))
                    text.setPos(c + 0.5, r + 0.5)
                    self.heat_plot.addItem(text)
                    self._heat_texts.append(text)
        self.heat_image.setImage(image, autoLevels=False)
        self.heat_image.setRect(0, 0, len(columns), len(rows))
        self._heat_ticks()
        self.heat_plot.setXRange(0, len(columns), padding=0)
        self.heat_plot.setYRange(0, len(rows), padding=0)

    def _heat_ticks(self) -> None:
        """Rows are numbered; a column that is a row's tool carries that row's number (the right answers run down
        the diagonal), any other pick a few letters of its name. Only as many ticks as fit are labelled (every
        second, third… when the cells are smaller than the text), and counts show only in cells they fit in."""
        rows, columns = self._heat_labels
        if not rows or not columns:
            return
        left, bottom = self.heat_plot.getAxis("left"), self.heat_plot.getAxis("bottom")
        metrics = QFontMetrics(left.style["tickFont"] or self.font())
        row_texts = [f"{_short(label, 22)}  {n}" for n, label in enumerate(rows, 1)]
        column_texts = [str(rows.index(label) + 1) if label in rows else _short(label, 6) for label in columns]
        box = self.heat_plot.getViewBox().boundingRect()
        cell_h, cell_w = box.height() / len(rows), box.width() / len(columns)
        # cells can be thinner than a pixel (hundreds of tools): the step grows with them, never capped
        row_step = max(1, math.ceil(metrics.height() / max(cell_h, 0.01)))
        column_step = max(1, math.ceil((max(map(metrics.horizontalAdvance, column_texts)) + 4) / max(cell_w, 0.01)))
        left.setWidth(min(220, 12 + max(map(metrics.horizontalAdvance, row_texts))))
        left.setTicks([[(r + 0.5, text) for r, text in enumerate(row_texts) if r % row_step == 0]])
        bottom.setTicks([[(c + 0.5, text) for c, text in enumerate(column_texts) if c % column_step == 0]])
        fits = cell_h >= metrics.height() * 0.8 and cell_w >= metrics.horizontalAdvance("000")
        for item in self._heat_texts:
            item.setVisible(fits)

    def heat_labels(self) -> tuple[list[str], list[str]]:
        """The heatmap's rows (expected) and columns (picked), in order."""
        return self._heat_labels

    def show_cell(self, row: int, column: int) -> None:
        """The cases behind a heatmap cell, listed beside it."""
        rows, columns = self._heat_labels
        if self.finished is None or not (0 <= row < len(rows) and 0 <= column < len(columns)):
            return
        expected, picked = rows[row], columns[column]
        found = cell_cases(self.finished, expected, picked)
        self.cell_label.setText(f"expected {expected} → picked {picked}: {len(found)} cases")
        self.cell_list.clear()
        for case in found:
            self.cell_list.addItem(f"{case.id} ×{case.count}: {case.prompt}")
            self.cell_list.item(self.cell_list.count() - 1).setToolTip(case.prompt)

    def cell_cases_shown(self) -> list[str]:
        return [self.cell_list.item(i).text().split(" ×", 1)[0] for i in range(self.cell_list.count())]

    def cell_center(self, row: int, column: int):
        """Where a cell's centre is on the heatmap's viewport (for a click)."""
        scene = self.heat_image.mapToScene(QPointF(column + 0.5, row + 0.5))
        return self.heat_view.mapFromScene(scene)

    def _show_scale(self, results: Results) -> None:
        plot = self.scale_plot
        plot.clear()
        points = [p for p in results.scale if p.accuracy is not None]
        if not points:
            plot.setTitle("accuracy against tool count<br>(give tool counts, then Run)", size="9pt")
            return
        plot.setTitle("accuracy against tool count", size="9pt")
        x = np.array([p.size for p in points], dtype=float)
        y = np.array([p.accuracy * 100 for p in points])
        low = np.array([(p.accuracy - p.ci[0]) * 100 for p in points])
        high = np.array([(p.ci[1] - p.accuracy) * 100 for p in points])
        accent = self.palette().color(self.palette().ColorRole.Highlight)
        plot.addItem(pg.ErrorBarItem(x=x, y=y, top=high, bottom=low, beam=0.3, pen=pg.mkPen(accent, width=1)))
        plot.plot(x, y, pen=pg.mkPen(accent, width=2), symbol="o", symbolSize=7, symbolBrush=accent)
        plot.setYRange(0, 100)

    def scale_points(self) -> list[tuple[int, float]]:
        items = [i for i in self.scale_plot.listDataItems()]
        if not items:
            return []
        xs, ys = items[0].getData()
        return [(int(a), float(b)) for a, b in zip(xs, ys, strict=True)]

    # -- theme, visibility, closing --------------------------------------------------------------------------------

    def _apply_theme(self) -> None:
        palette = self.palette()
        base, text = palette.color(palette.ColorRole.Base), palette.color(palette.ColorRole.Text)
        for view in (self.heat_view, self.scale_view):
            view.setBackground(base)
        for plot in (self.heat_plot, self.scale_plot):
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(text))
                axis.setTextPen(pg.mkPen(text))
            plot.titleLabel.setText(plot.titleLabel.text, color=text.name())
        for item in self._heat_texts:
            item.setColor(text)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._apply_theme()
            if self.finished is not None:
                self._show_scale(self.finished.results)

    def shown_changed(self) -> None:
        if self._recheck_due and self.is_shown:
            self._start_recheck()

    def shutdown(self) -> None:
        self.feed_timer.stop()
        self.case_rows.stop()
        self.result_rows_feeder.stop()
        self.check_timer.stop()
        for jobs in (self.jobs, self.file_jobs, self.check_jobs):
            jobs.cancel()
            jobs.wait()


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
