"""The Round trips panel: the open spec's embedded mock (start and stop, its URL, stateful, seed, the request log
live, faults per operation from a context menu, saved in the config's `mock:` section so `workbench mock` injects
the same ones) and the round trip (`workbench roundtrip SPEC`: progress, cancel, results streaming into a table,
a failure's exact wire request, answer and violations, jumps to its operation and its lint finding).

The round trip runs in a process of its own (`workspace.roundtrips.RoundTripProcess`: in a thread it held the
interpreter lock for seconds); its attempts and the mock's log entries are taken in batches on a 100 ms timer,
never one signal per item, and a hidden panel builds no rows (they are built once it is shown)."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.document import SpecDocument
from workbench.gui.jobs import Job, JobRunner
from workbench.gui.panels.onscreen import OnScreen
from workbench.gui.widgets import ElidedLabel, code_view, item_model, item_table, text_item
from workbench.mock.app import LOG_SIZE
from workbench.roundtrip.report import Report
from workbench.roundtrip.run import Attempt
from workbench.spec import Operation, SpecError
from workbench.workspace import LoadedSpec, LoadKind
from workbench.workspace.loading import spec_config
from workbench.workspace.roundtrips import (
    LOG_COLUMNS,
    RESULT_COLUMNS,
    EmbeddedMock,
    RoundTripProcess,
    RunSettings,
    WriteQuestion,
    attempt_text,
    change_faults,
    fault_rule,
    fault_text,
    faults_of,
    is_failure,
    log_row,
    operation_entry,
    operation_finding,
    operation_name,
    result_row,
)

ROWS_PER_FLUSH = 400  # rows built per tick: a batch of thousands held the window up for half a second
FLUSH_MS = 100  # attempts and log entries are appended in batches this often
AttemptRole = Qt.ItemDataRole.UserRole + 1
OperationRole = Qt.ItemDataRole.UserRole + 2
OPS_WIDTHS = {0: 16}  # column → ems
FAILED_COLOR = "#e5484d"
PASSED_COLOR = "#3fa45b"
# the context menu's faults: (label, kind, value)
FAULT_MENU = (("Answer 500", "status", 500), ("Answer 502", "status", 502), ("Answer 503", "status", 503),
              ("Answer 504", "status", 504), ("Answer 429 (Retry-After: 1)", "status", 429),
              ("Delay 1 s", "delay", 1000), ("Delay 5 s", "delay", 5000), ("Reset the connection", "reset", None),
              ("Hang", "hang", None), ("Fail once, then succeed", "fail", 1),
              ("Fail 2 times, then succeed", "fail", 2), ("Fail 3 times, then succeed", "fail", 3))


class StatusBar(QProgressBar):
    """A progress bar whose text says what the run found, cut to the bar's width with an ellipsis (a long
    summary wrapped onto a second, clipped line); the whole of it is the tooltip."""

    def __init__(self) -> None:
        super().__init__()
        self._said = ""

    def say(self, text: str) -> None:
        self._said = text
        self.setToolTip(text)
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        if not self._said:
            self.setFormat("%v/%m tools")
            return
        metrics = self.fontMetrics()
        counts = f"{self.maximum()}/{self.maximum()} tools · "
        room = self.contentsRect().width() - metrics.horizontalAdvance(counts) - 3 * metrics.averageCharWidth()
        shown = metrics.elidedText(self._said, Qt.TextElideMode.ElideRight, max(0, room))
        self.setFormat(f"%v/%m tools · {shown}")

    def setRange(self, minimum: int, maximum: int) -> None:  # the counts take another width
        super().setRange(minimum, maximum)
        self._fit()


def _items(texts: tuple[str, ...]) -> list[QStandardItem]:
    return [text_item(text) for text in texts]


def _view(name: str, model: QStandardItemModel, widths: dict[int, int]) -> QTableView:
    """A table of Qt items: fixed widths where given (fitting to contents asks every row), the last column
    stretching, text elided."""
    view = item_table(name, model)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setMinimumSectionSize(24)
    _widths(view, widths)
    view.setMinimumWidth(80)
    return view


def _widths(view: QTableView, widths: dict[int, int]) -> None:
    """Columns `widths` ems wide (again after a new model)."""
    header = view.horizontalHeader()
    em = view.fontMetrics().horizontalAdvance("M")
    for column, ems in widths.items():
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(column, ems * em)


class RoundTripsPanel(OnScreen, QWidget):
    """`start_mock()`, `stop_mock()`, `mock_url()`, `copy_url()`, `log_rows()`, `set_fault(operation, kind, value)`
    (the context menu's way), `fault_rows()`, `run_roundtrip()`, `cancel_run()`, `result_rows()`, `select_result(n)`,
    `select_failure(n)`, `detail_text()`, `go_to_operation()`, `go_to_finding()`; `ask_write(tool)` is the
    question for a write to a server of yours (tests replace it)."""

    TITLE = "Round Trips"
    mockStarted = Signal(str)  # the URL
    mockStopped = Signal()
    mockFailed = Signal(str)
    logged = Signal(int)  # log rows shown
    faultsWritten = Signal(object)  # the config file written
    rowsAdded = Signal(int)  # result rows shown
    runFinished = Signal(object)  # Report
    runCancelled = Signal()
    runFailed = Signal(str)

    def __init__(self, document: SpecDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.mock: EmbeddedMock | None = None
        self.run: RoundTripProcess | None = None
        self.attempts: list[Attempt] = []
        self.report: Report | None = None
        self.mock_jobs = JobRunner(self, max_threads=1)
        self.mock_jobs.succeeded.connect(self._mock_started)
        self.mock_jobs.failed.connect(self._mock_failed)
        self._rows_built = 0  # of `attempts`, the rows in the table (a hidden panel builds none)
        self._flushing = False
        self.flush_timer = QTimer(self)
        self.flush_timer.setInterval(FLUSH_MS)
        self.flush_timer.timeout.connect(self.flush)
        self._stale = False  # the operations list is due once the panel is shown

        self.tabs = QTabWidget()
        self.tabs.setObjectName("roundtripsTabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self._build_mock(), "Mock")
        self.tabs.addTab(self._build_run(), "Round Trip")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs, 1)
        document.loaded.connect(self._loaded)

    # -- building the widgets ------------------------------------------------------------------------------------

    def _build_mock(self) -> QWidget:
        self.start_button = QPushButton("Start Mock")
        self.start_button.setObjectName("roundtripsStart")
        self.start_button.setToolTip("Serve the spec as `workbench mock SPEC` does, on 127.0.0.1 (a free port)")
        self.start_button.clicked.connect(lambda: self.stop_mock() if self.mock else self.start_mock())
        self.stateful_box = QCheckBox("Stateful")
        self.stateful_box.setToolTip("Keep what POST creates: GET, PUT, PATCH and DELETE on the item act on it "
                                     "(--stateful; from the next start)")
        self.seed_spin = QSpinBox()
        self.seed_spin.setObjectName("roundtripsSeed")
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setMaximumWidth(self.fontMetrics().horizontalAdvance("M") * 7)  # not as wide as 2**31
        self.seed_spin.setToolTip("The seed of generated responses and fault rules (the config's mock seed; used "
                                  "by the next start and run)")
        self.url_label = ElidedLabel("Not running.")
        self.url_label.setObjectName("roundtripsUrl")
        self.url_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_url_button = QPushButton("Copy URL")
        self.copy_url_button.setEnabled(False)
        self.copy_url_button.clicked.connect(self.copy_url)
        top = QHBoxLayout()
        top.addWidget(self.start_button)
        top.addWidget(self.stateful_box)
        top.addWidget(QLabel("Seed"))
        top.addWidget(self.seed_spin)
        top.addWidget(self.url_label, 1)
        top.addWidget(self.copy_url_button)

        self.ops_model = item_model(("Operation", "Fault"), self)
        self.ops_view = _view("roundtripsOperations", self.ops_model, OPS_WIDTHS)
        self.ops_view.setToolTip("Right-click an operation to inject a fault (saved in the config's mock: section)")
        self.log_model = item_model(LOG_COLUMNS, self)
        self.log_view = _view("roundtripsLog", self.log_model, {0: 5, 1: 14, 2: 4, 3: 4, 4: 9})
        for view in (self.ops_view, self.log_view):
            view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            view.customContextMenuRequested.connect(lambda at, v=view: self._fault_menu(v, at))
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("roundtripsMockSplitter")
        split.setChildrenCollapsible(False)
        split.addWidget(self.ops_view)
        split.addWidget(self.log_view)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        self.mock_status = ElidedLabel("")
        self.mock_status.setObjectName("roundtripsMockStatus")
        column = QVBoxLayout()
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(3)
        column.addLayout(top)
        column.addWidget(split, 1)
        column.addWidget(self.mock_status)
        box = QWidget()
        box.setLayout(column)
        return box

    def _build_run(self) -> QWidget:
        self.run_button = QPushButton("Run")
        self.run_button.setObjectName("roundtripsRun")
        self.run_button.setToolTip("Every tool's generated arguments through the executor, each request judged "
                                   "(`workbench roundtrip SPEC`)")
        self.run_button.clicked.connect(self.run_roundtrip)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.sets_spin = QSpinBox()
        self.sets_spin.setRange(0, 50)
        self.sets_spin.setValue(3)
        self.sets_spin.setToolTip("Generated argument sets per tool, besides the required-only and example sets "
                                  "(--examples)")
        self.base_url_edit = QLineEdit()
        self.base_url_edit.setObjectName("roundtripsBaseUrl")
        self.base_url_edit.setPlaceholderText("Base URL of your server (empty: a fresh mock)")
        self.base_url_edit.setToolTip("A server of yours instead of the mock: read-only operations only, unless "
                                      "writes are allowed (--base-url)")
        self.base_url_edit.setMinimumWidth(60)
        self.writes_box = QCheckBox("Allow writes")
        self.writes_box.setToolTip("With a base URL: send writes too, each operation asked for (--allow-writes)")

        self.results_model = item_model(RESULT_COLUMNS, self)
        self.results_view = _view("roundtripsResults", self.results_model, {0: 10, 1: 12, 2: 5})
        self.results_view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.results_view.activated.connect(lambda _index: self.go_to_operation())
        self.attempt_label = ElidedLabel("")
        self.attempt_label.setObjectName("roundtripsAttempt")
        self.go_button = QPushButton("Operation")
        self.go_button.setToolTip("Show the attempt's operation in the source view (Enter in the list)")
        self.go_button.clicked.connect(self.go_to_operation)
        self.finding_button = QPushButton("Finding")
        self.finding_button.setToolTip("Show the lint finding on this operation")
        self.finding_button.clicked.connect(self.go_to_finding)
        for button in (self.go_button, self.finding_button):
            button.setEnabled(False)
        head = QHBoxLayout()
        head.addWidget(self.attempt_label, 1)
        head.addWidget(self.go_button)
        head.addWidget(self.finding_button)
        self.detail_view = code_view("roundtripsDetail")
        self.detail_view.setLineWrapMode(self.detail_view.LineWrapMode.WidgetWidth)  # a body is one long line
        details = QWidget()
        column = QVBoxLayout(details)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(head)
        column.addWidget(self.detail_view, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("roundtripsRunSplitter")
        split.setChildrenCollapsible(False)
        split.addWidget(self.results_view)
        split.addWidget(details)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 5)

        # One row of controls, the progress bar saying what the run found (the panel shares the window's height).
        self.bar = StatusBar()
        self.bar.setObjectName("roundtripsProgress")
        self.bar.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.bar.setMaximumHeight(self.fontMetrics().height() + 8)
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self._status = ""
        self._say("Not run yet.")
        top = QHBoxLayout()
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        top.addWidget(QLabel("Sets"))
        top.addWidget(self.sets_spin)
        top.addWidget(self.bar, 3)
        top.addWidget(self.base_url_edit, 2)
        top.addWidget(self.writes_box)
        column = QVBoxLayout()
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(3)
        column.addLayout(top)
        column.addWidget(split, 1)
        box = QWidget()
        box.setLayout(column)
        return box

    def _say(self, text: str) -> None:
        """What the run is doing or found, in the progress bar (its whole text in the tooltip)."""
        self._status = text
        self.bar.say(text)

    def status_text(self) -> str:
        return self._status

    # -- the open spec -------------------------------------------------------------------------------------------

    def _loaded(self, loaded: LoadedSpec, kind: LoadKind) -> None:
        if kind is not LoadKind.RECHECK:  # another file, or the file read again: what ran was for the old one
            self.stop_mock()
            self.cancel_run()
            self._clear_results()
            self.seed_spin.setValue(loaded.config.mock.seed)
            self._say("")
        elif self.mock is not None:
            self.mock_status.setText("The mock serves the spec as it was when started: stop and start it to serve "
                                     "the edits.")
        self._stale = True
        if self.is_shown:
            self._show_operations()

    def _mock_config(self):
        loaded = self.document.spec
        return spec_config(loaded.path).mock  # the file as it is now (the panel may have written it)

    def _show_operations(self) -> None:
        """The operations with their fault rules (as the config says now)."""
        self._stale = False
        loaded = self.document.spec
        if loaded is None:
            return
        try:
            mock = self._mock_config()
        except SpecError as exc:
            self.mock_status.setText(f"Cannot read the config: {exc}")
            return
        model = item_model(("Operation", "Fault"), self)  # filled before a view sees it: no signal per row
        for entry in loaded.operations:
            op = entry.operation
            if op.webhook:
                continue
            items = _items((op.label(), "; ".join(fault_text(r) for r in faults_of(mock, op))))
            items[0].setData(op, OperationRole)
            items[0].setToolTip(f"{op.label()}\n{operation_name(op)}")
            model.appendRow(items)
        old, self.ops_model = self.ops_model, model
        self.ops_view.setModel(model)
        _widths(self.ops_view, OPS_WIDTHS)
        old.deleteLater()

    # -- the mock -----------------------------------------------------------------------------------------------

    def start_mock(self) -> None:
        """Start the mock for the open spec in the background (`mockStarted` or `mockFailed` follows)."""
        loaded = self.document.spec
        if loaded is None or self.mock is not None or self.mock_jobs.current is not None:
            return
        spec, path, seed, stateful = loaded.spec, loaded.path, self.seed_spin.value(), self.stateful_box.isChecked()

        def work(_progress, cancelled) -> EmbeddedMock | None:
            mock = EmbeddedMock(spec, spec_config(path).mock, seed=seed, stateful=stateful).start()
            if cancelled():  # stopped (or another file opened) while it started: nobody will stop it later
                mock.stop()
                return None
            return mock

        self.mock_jobs.start(work)
        self.start_button.setEnabled(False)
        self.url_label.setText("Starting…")

    def _mock_started(self, _job: Job, mock: EmbeddedMock | None) -> None:
        if mock is None:
            return
        self.mock = mock
        self.start_button.setEnabled(True)
        self.start_button.setText("Stop Mock")
        self.copy_url_button.setEnabled(True)
        self.url_label.setText(mock.url)
        self.mock_status.setText(f"Serving on {mock.url} (seed {mock.seed}{', stateful' if mock.stateful else ''}); "
                                 "right-click an operation for a fault.")
        self._run_timer()
        self.mockStarted.emit(mock.url)

    def _mock_failed(self, _job: Job, error: BaseException) -> None:
        message = str(error) if isinstance(error, SpecError) else f"{type(error).__name__}: {error}"
        self.start_button.setEnabled(True)
        self.url_label.setText("Not running.")
        self.mock_status.setText(f"Cannot start the mock: {message}")
        self.mockFailed.emit(message)

    def stop_mock(self) -> None:
        """Stop serving (the socket closes in the background: a hanging connection never holds the window)."""
        self.mock_jobs.cancel()
        mock, self.mock = self.mock, None
        self.start_button.setEnabled(True)
        self.start_button.setText("Start Mock")
        self.copy_url_button.setEnabled(False)
        self.url_label.setText("Not running.")
        if mock is None:
            return
        self._append_log(mock.take_log())
        threading.Thread(target=mock.stop, name="mock-stop", daemon=True).start()
        self.mock_status.setText("Stopped.")
        self._run_timer()
        self.mockStopped.emit()

    def mock_url(self) -> str | None:
        return self.mock.url if self.mock else None

    def copy_url(self) -> None:
        if self.mock is not None:
            QGuiApplication.clipboard().setText(self.mock.url)

    def log_rows(self) -> list[tuple[str, ...]]:
        model = self.log_model
        return [tuple(model.item(r, c).text() for c in range(model.columnCount())) for r in range(model.rowCount())]

    def _append_log(self, entries) -> None:
        if not entries:
            return
        model = self.log_model
        for entry in entries[-LOG_SIZE:]:
            row = _items(log_row(entry))
            if entry.status >= 400 or entry.fault:
                row[2].setForeground(QBrush(QColor(FAILED_COLOR)))
            row[0].setData(entry.operation, OperationRole)
            model.appendRow(row)
        extra = model.rowCount() - LOG_SIZE
        if extra > 0:
            model.removeRows(0, extra)
        self.log_view.scrollToBottom()
        self.logged.emit(model.rowCount())

    # -- faults -------------------------------------------------------------------------------------------------

    def _operation(self, which: Operation | str) -> Operation | None:
        """An operation by itself, its operationId or "METHOD /path"."""
        if isinstance(which, Operation):
            return which
        loaded = self.document.spec
        ops = [e.operation for e in loaded.operations if not e.operation.webhook] if loaded else []
        return next((op for op in ops if which in (op.operation_id, f"{op.method.upper()} {op.path}")), None)

    def set_fault(self, which: Operation | str, kind: str | None, value: int | None = None) -> Path | None:
        """Give an operation a fault (`kind`: status, delay, reset, hang, fail; None: answer normally again): written
        to the config's `mock:` section and applied by the running mock at once. The file written, or None."""
        loaded, op = self.document.spec, self._operation(which)
        if loaded is None or op is None:
            return None
        try:
            path, mock = change_faults(loaded.path, op, fault_rule(op, kind, value) if kind else None)
        except (SpecError, OSError) as exc:
            self.mock_status.setText(f"The fault was not saved: {exc}")
            self.document.message.emit(f"The config was not written: {exc}", 10000)
            return None
        if self.mock is not None:
            self.mock.set_faults(mock.faults)
        said = "; ".join(fault_text(r) for r in faults_of(mock, op)) or "no fault"
        self.mock_status.setText(f"{path.name}: {op.label()}: {said}.")
        self.document.message.emit(f"{path.name}: mock: faults written.", 4000)
        self._show_operations()
        self.faultsWritten.emit(path)
        return path

    def fault_rows(self) -> list[tuple[str, str]]:
        model = self.ops_model
        return [(model.item(r, 0).text(), model.item(r, 1).text()) for r in range(model.rowCount())]

    def _fault_menu(self, view: QTableView, at: QPoint) -> None:
        index = view.indexAt(at)
        op = self._operation(view.model().data(index.siblingAtColumn(0), OperationRole) or "") \
            if index.isValid() else None
        if op is None:
            return
        menu = self.fault_menu(op)
        menu.exec(view.viewport().mapToGlobal(at))
        menu.deleteLater()

    def fault_menu(self, op: Operation) -> QMenu:
        """The context menu of an operation: each fault, and none."""
        menu = QMenu(self)
        menu.setTitle(op.label())
        for label, kind, value in FAULT_MENU:
            menu.addAction(label).triggered.connect(lambda _c=False, k=kind, v=value: self.set_fault(op, k, v))
        menu.addSeparator()
        menu.addAction("No Fault").triggered.connect(lambda _c=False: self.set_fault(op, None))
        return menu

    # -- the round trip -----------------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self.run is not None

    def run_roundtrip(self) -> None:
        """Run the round trip in a process of its own; rows stream into the table, `runFinished` follows."""
        loaded = self.document.spec
        if loaded is None:
            return
        self._end_run()
        self._clear_results()
        base_url = self.base_url_edit.text().strip() or None
        settings = RunSettings(self.sets_spin.value(), self.seed_spin.value(), base_url,
                               self.writes_box.isChecked() and base_url is not None)
        workspace = self.document.workspace
        text = workspace.root.text if workspace.root is not None and workspace.is_modified else None
        try:
            self.run = RoundTripProcess(loaded.path, settings, text, workspace.edited_others()).start()
        except OSError as exc:
            self._say(f"Cannot run: {exc}")
            self.runFailed.emit(str(exc))
            return
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.bar.setRange(0, 0)  # busy until the first tool is counted
        self._say(f"running against {base_url or 'a fresh mock'}…")
        self._run_timer()

    def _end_run(self) -> RoundTripProcess | None:
        run, self.run = self.run, None
        if run is not None:
            run.cancel()
        return run

    def cancel_run(self) -> None:
        """Stop the run at once; the rows so far stay."""
        if self.run is None:
            return
        self.flush()
        run = self._end_run()
        self._run_finished_ui()
        self.bar.setRange(0, max(1, run.total if run else 1))
        self._say(f"Cancelled after {len(self.attempts)} argument sets.")
        self.runCancelled.emit()

    def _run_ended(self, run: RoundTripProcess) -> None:
        self.run = None
        self._run_finished_ui()
        report = run.report
        if report is None:
            self._say(f"Cannot run: {run.error}")
            self.runFailed.emit(run.error or "")
            return
        self.report = report
        self.bar.setRange(0, max(1, len(report.operations)))
        self.bar.setValue(len(report.operations))
        summary = report.summary()
        said = ", ".join(f"{n} {c}" for c, n in summary["classifications"].items())
        self._say(f"{summary['sets']} sets, {summary['sent']} sent: {said or 'nothing'}"
                  + (f" — {report.note}" if report.note else ""))
        self.runFinished.emit(report)

    def _run_finished_ui(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self._run_timer()

    def _clear_results(self) -> None:
        self.attempts = []
        self._rows_built = 0
        self.report = None
        self.results_model.removeRows(0, self.results_model.rowCount())
        self._show_attempt(None)

    def ask_write(self, question: WriteQuestion) -> bool:
        """Send generated calls of this write operation to the server of yours? (Tests replace this.)"""
        answer = QMessageBox.question(
            self, "Send writes?", f"{question.method.upper()} {question.path} ({question.name}) writes to "
            f"{self.base_url_edit.text().strip()}.\nSend generated calls to it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    # -- streaming ----------------------------------------------------------------------------------------------

    def _run_timer(self) -> None:
        """The flush timer runs while a run or the mock is on; hidden, the panel takes the run's news but builds
        no rows (and leaves the mock's log waiting)."""
        if self.mock is not None or self.run is not None or (self.is_shown and self._rows_built < len(self.attempts)):
            if not self.flush_timer.isActive():
                self.flush_timer.start()
        else:
            self.flush_timer.stop()

    def flush(self) -> None:
        """Take what the run and the mock sent since the last time; on screen, show it as one batch of rows each."""
        if self._flushing:  # a question is open (its dialog runs the event loop): one at a time
            return
        self._flushing = True
        try:
            self._take_run()
            if self.is_shown:
                if self.mock is not None:
                    self._append_log(self.mock.take_log())
                self._build_rows()
        finally:
            self._flushing = False

    def _take_run(self) -> None:
        run = self.run
        if run is None:
            return
        self.attempts.extend(run.poll())
        if run.total:
            self.bar.setRange(0, run.total)
            self.bar.setValue(run.done)
        while run.questions and self.run is run:
            run.answer(self.ask_write(run.questions[0]))
        if run.finished and self.run is run:
            if self.is_shown:
                self._build_rows()
            self._run_ended(run)

    def _build_rows(self) -> None:
        taken = self.attempts[self._rows_built:self._rows_built + ROWS_PER_FLUSH]
        if not taken:
            self._run_timer()
            return
        first = self._rows_built
        self._rows_built += len(taken)
        model = self.results_model
        failed, passed = QBrush(QColor(FAILED_COLOR)), QBrush(QColor(PASSED_COLOR))
        for n, attempt in enumerate(taken, first):
            row = _items(result_row(attempt))
            row[0].setData(n, AttemptRole)
            if is_failure(attempt):
                row[2].setForeground(failed)
            elif row[2].text() == "yes":
                row[2].setForeground(passed)
            model.appendRow(row)
        if self.run is not None:
            failures = sum(1 for a in self.attempts if is_failure(a))
            self._say(f"{len(self.attempts)} sets, {failures} not passed…")
        self.rowsAdded.emit(model.rowCount())
        self._run_timer()  # the rest of the rows at the next ticks, a batch each

    # -- results ------------------------------------------------------------------------------------------------

    def result_rows(self) -> list[tuple[str, ...]]:
        model = self.results_model
        return [tuple(model.item(r, c).text() for c in range(model.columnCount())) for r in range(model.rowCount())]

    def select_result(self, row: int) -> bool:
        if not 0 <= row < self.results_model.rowCount():
            return False
        index = self.results_model.index(row, 0)
        self.results_view.setCurrentIndex(index)
        self.results_view.scrollTo(index)
        return True

    def select_failure(self, nth: int = 0) -> bool:
        """The `nth` attempt that did not pass (a failure of any classification)."""
        rows = [n for n, a in enumerate(self.attempts) if is_failure(a)]
        return nth < len(rows) and self.select_result(rows[nth])

    def current_attempt(self) -> Attempt | None:
        index = self.results_view.currentIndex()
        if not index.isValid():
            return None
        n = self.results_model.data(index.siblingAtColumn(0), AttemptRole)
        return self.attempts[n] if n is not None and n < len(self.attempts) else None

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_attempt(self.current_attempt() if current.isValid() else None)

    def _show_attempt(self, attempt: Attempt | None) -> None:
        if attempt is None:
            self.attempt_label.setText("Choose a row to see its wire request, the answer and the violations.")
            self.detail_view.setPlainText("")
            self.go_button.setEnabled(False)
            self.finding_button.setEnabled(False)
            return
        self.attempt_label.setText(f"{attempt.tool} · {attempt.kind or 'no'} set #{attempt.index} · "
                                   f"{attempt.classification}")
        self.detail_view.setPlainText(attempt_text(attempt))
        entry = self._entry(attempt)
        loaded = self.document.spec
        self.go_button.setEnabled(entry is not None)
        self.finding_button.setEnabled(entry is not None and operation_finding(loaded, entry) is not None)

    def detail_text(self) -> str:
        return self.detail_view.toPlainText()

    def _entry(self, attempt: Attempt):
        loaded = self.document.spec
        return operation_entry(loaded, attempt.method, attempt.path) if loaded else None

    def go_to_operation(self) -> bool:
        """The current attempt's operation in the source view (and the outline); False when there is none."""
        attempt = self.current_attempt()
        entry = self._entry(attempt) if attempt else None
        if entry is None:
            return False
        self.document.reveal_operation(entry, focus=True)
        return True

    def go_to_finding(self) -> bool:
        """The lint finding on the current attempt's operation (in the source view and the Problems panel)."""
        attempt = self.current_attempt()
        entry = self._entry(attempt) if attempt else None
        finding = operation_finding(self.document.spec, entry) if entry else None
        if finding is None:
            return False
        self.document.reveal_problem(finding, focus=True)
        return True

    # -- shown or not, closing -----------------------------------------------------------------------------------

    def shown_changed(self) -> None:
        if self.is_shown:
            if self._stale:
                self._show_operations()
            self.flush()

    def shutdown(self) -> None:
        self.flush_timer.stop()
        self._end_run()
        self.stop_mock()
        self.mock_jobs.cancel()
        self.mock_jobs.wait(15_000)

