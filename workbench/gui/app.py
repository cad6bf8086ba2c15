"""The application: names, desktop integration, theme, and `run()` (a window, or screenshots of it)."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from importlib.resources import as_file, files
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer, qInstallMessageHandler
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from workbench import __version__
from workbench.examples import example_path, example_suite_path
from workbench.gui import APP_ID
from workbench.gui.main_window import APP_TITLE, MainWindow
from workbench.gui.theme import apply_theme

ORGANIZATION = "agent-spec-workbench"
APPLICATION = "workbench"
SCREENSHOT_SIZE = (1360, 860)
SCREENSHOT_TIMEOUT_MS = 120_000


SWITCH_INTERVAL_S = 0.0002  # how long the UI thread waits at most for the interpreter lock a worker holds


def configure_application(app: QApplication) -> None:
    """Names (QSettings lives at <config>/agent-spec-workbench/workbench.conf) and the desktop file id; the
    interpreter's switch interval (see `SWITCH_INTERVAL_S`)."""
    # Every slot, paint and model call the window makes in Python must first take the interpreter lock, and so
    # does every virtual call Qt makes on a widget of ours (to look for a Python override); while a background job
    # runs Python (a load, a re-check, the span index, a conversion), each waited for up to the default 5 ms before
    # the job was made to hand it over, and one repaint makes hundreds of such calls. At 1 ms the first stall of
    # opening the 4 MB GitHub file was still 130–240 ms with the UI thread busy 30–40 ms of it; at 0.2 ms, 67–107
    # ms (the background conversion takes some 0.2 s longer: it hands the lock over more often).
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName(APP_TITLE)  # so no platform appends a second name to the window title
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    app.setWindowIcon(QIcon(os.fspath(icon_path())))


def icon_path() -> Path:
    """The application icon (SVG), named by the app id as desktop icon themes expect."""
    with as_file(files("workbench.resources") / "icons" / f"{APP_ID}.svg") as path:
        return Path(path)


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(list(argv) if argv else [sys.argv[0]])
    configure_application(app)
    return app


def run(path: str | Path | None = None, screenshots_dir: str | Path | None = None) -> int:
    """Open the workbench window (on `path` if given) and run until it closes; with `screenshots_dir`, render the
    main views of `path` (default: the bundled example) to PNG files there and return 0 (2 if it cannot load)."""
    if screenshots_dir is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no window flashes; works without a display
    app = create_application()
    if screenshots_dir is not None:
        qInstallMessageHandler(_offscreen_messages)
        with tempfile.TemporaryDirectory(prefix="workbench-shots-") as scratch:
            # Screenshots neither read nor change the user's settings (theme, recent files, window layout).
            settings = QSettings(str(Path(scratch) / "settings.ini"), QSettings.Format.IniFormat)
            window = MainWindow(settings)
            try:
                return take_screenshots(window, Path(path) if path else example_path(), Path(screenshots_dir))
            finally:
                window.close()
                window.deleteLater()
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl+C in the terminal ends the application
    window = MainWindow()
    window.show()
    if path:
        window.open_path(path)
    return app.exec()


def _offscreen_messages(_mode, _context, message: str) -> None:
    # The offscreen platform says "This plugin does not support propagateSizeHints()" for every dock widget
    # (and the same of raise()): noise, not news.
    if not message.startswith("This plugin does not support"):
        print(message, file=sys.stderr)


def _wait_for_load(window: MainWindow, path: Path) -> bool:
    loop = QEventLoop()
    window.documentLoaded.connect(loop.quit)
    window.loadFailed.connect(loop.quit)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(SCREENSHOT_TIMEOUT_MS)
    window.open_path(path)
    if window.is_loading:
        loop.exec()
    timer.stop()
    return window.loaded is not None


def _wait_for(signal, busy, timeout_ms: int = SCREENSHOT_TIMEOUT_MS) -> None:
    """Run the event loop until `signal` (while `busy()` says it is still to come), at most `timeout_ms`."""
    if not busy():
        return
    loop = QEventLoop()
    signal.connect(loop.quit)
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(timeout_ms)
    loop.exec()
    timer.stop()
    signal.disconnect(loop.quit)


def _tool_shots(window: MainWindow, out_dir: Path, suffix: str = "") -> list[Path]:
    """The Tools panel raised: its list with the first tool's JSON, and that tool side by side in two vendors."""
    app = QApplication.instance()
    tools = window.tools
    window.focus_tools()
    _wait_for(tools.previewReady, lambda: tools.is_building)
    app.processEvents()
    shots = []
    tools.tabs.setCurrentIndex(0)
    app.processEvents()
    shots.append((f"tools-list{suffix}.png", window.docks["tools"]))
    shots.append((f"tools-json{suffix}.png", tools.details))
    written = _grab(shots, out_dir)
    if tools.current_row() is not None:
        tools.compare("OpenAI Chat", "Gemini")
        _wait_for(tools.comparisonReady, lambda: tools.compare_jobs.current is not None)
        app.processEvents()
        written += _grab([(f"tools-side-by-side{suffix}.png", window.docks["tools"])], out_dir)
    tools.tabs.setCurrentIndex(0)
    return written


SELECTION_SIZE = (1024, 700)  # the smallest window the panels must fit


def _selection_shots(window: MainWindow, out_dir: Path, suffix: str = "") -> list[Path]:
    """The Selection panel at 1024×700 after an offline run: the bundled suite on the bundled example (a draft
    from the spec for any other file), its results and its heatmap."""
    app = QApplication.instance()
    panel = window.selection
    size = window.size()
    window.resize(*SELECTION_SIZE)
    dock = window.docks["selection"]
    dock.show()
    dock.raise_()
    # The side docks' forms are taller than the window leaves them at 700 pixels: closed for these pictures, the
    # Selection dock gets the room a user gives it by closing or floating them.
    sides = [d for d in (window.docks["outline"], window.docks["edit"]) if d.isVisible()]
    for side in sides:
        side.hide()
    app.processEvents()
    window.resizeDocks([dock], [int(SELECTION_SIZE[1] * 0.55)], Qt.Orientation.Vertical)
    app.processEvents()
    if panel.finished is None:
        if window.loaded.path.resolve() == example_path().resolve():
            panel.open_suite(example_suite_path())
            _wait_for(panel.suiteChanged, lambda: panel.file_jobs.current is not None)
        else:
            panel.draft()
            _wait_for(panel.draftReady, lambda: panel.is_running)
        panel.scale_edit.setText("3, 6, 10")
        if panel.run():
            _wait_for(panel.runFinished, lambda: True)
    app.processEvents()
    written = []
    for tab, name in ((1, "selection-results"), (2, "selection-heatmap")):
        panel.tabs.setCurrentIndex(tab)
        app.processEvents()
        written += _grab([(f"{name}{suffix}.png", dock)], out_dir)
    panel.tabs.setCurrentIndex(1)
    for side in sides:
        side.show()
    window.resize(size)
    app.processEvents()
    return written


def _roundtrip_shots(window: MainWindow, out_dir: Path, suffix: str = "") -> list[Path]:
    """The Round trips panel raised in a 1024×700 window after a round trip (run once), its first failure open."""
    app = QApplication.instance()
    panel = window.roundtrips
    size = window.size()
    window.resize(1024, 700)
    window.focus_roundtrips()
    panel.tabs.setCurrentIndex(1)
    app.processEvents()
    if panel.report is None:
        panel.sets_spin.setValue(1)
        panel.run_roundtrip()
        _wait_for(panel.runFinished, lambda: panel.is_running)
    panel.select_failure(0)
    app.processEvents()
    try:
        return _grab([(f"roundtrips{suffix}.png", window)], out_dir)
    finally:
        window.resize(size)
        app.processEvents()


def _grab(shots: list, out_dir: Path) -> list[Path]:
    written = []
    for name, widget in shots:
        target = out_dir / name
        if not widget.grab().save(str(target)):
            raise OSError(f"could not write {target}")
        written.append(target)
    return written


def take_screenshots(window: MainWindow, path: Path, out_dir: Path,
                     size: tuple[int, int] = SCREENSHOT_SIZE) -> int:
    """main-window.png (light theme), outline.png, problems.png, source.png (on the first finding), the Tools
    panel (tools-list.png, tools-json.png, tools-side-by-side.png), the Selection panel at 1024×700 after an offline
    run (selection-results.png, selection-heatmap.png), the Round trips panel after a run with a failure open
    (roundtrips.png, in a 1024×700 window), and main-window-dark.png, tools-list-dark.png,
    selection-results-dark.png, selection-heatmap-dark.png, roundtrips-dark.png."""
    app = QApplication.instance()
    window.set_theme("light", save=False)
    window.resize(*size)
    window.show()
    app.processEvents()
    if not _wait_for_load(window, path):
        print(f"workbench: {window.last_error or f'{path}: loading timed out'}", file=sys.stderr)
        return 2
    window.next_problem()  # the first finding shown (errors first): the source view on its span
    app.processEvents()
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        written = _grab([("main-window.png", window), ("outline.png", window.docks["outline"]),
                         ("problems.png", window.docks["problems"]), ("source.png", window.source)], out_dir)
        written += _tool_shots(window, out_dir)
        written += _grab([("main-window-tools.png", window)], out_dir)
        written += _selection_shots(window, out_dir)
        written += _roundtrip_shots(window, out_dir)
        window.set_theme("dark", save=False)
        app.processEvents()
        written += _tool_shots(window, out_dir, "-dark")
        written += _selection_shots(window, out_dir, "-dark")
        written += _roundtrip_shots(window, out_dir, "-dark")
        window.docks["problems"].raise_()
        app.processEvents()
        written += _grab([("main-window-dark.png", window)], out_dir)
    except OSError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return 2
    apply_theme(app, "system")
    for target in written:
        print(target)
    return 0
