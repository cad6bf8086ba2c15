"""GUI tests run offscreen: the platform is chosen here, before anything imports Qt (without a display the
qapp fixture would otherwise abort Python). A test that leaves a top-level window open fails."""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QSettings
from PySide6.QtWidgets import QApplication

from workbench.gui.app import configure_application
from workbench.gui.main_window import MainWindow
from workbench.gui.theme import apply_theme
from workbench.workspace import LoadedSpec, SaveChoice


@pytest.fixture(scope="session", autouse=True)
def _application(qapp):
    configure_application(qapp)
    return qapp


@pytest.fixture(autouse=True)
def no_top_level_window_left_open(qapp):
    """Fail the test (at teardown) if it leaves a visible top-level window behind; close it either way."""
    yield
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.processEvents()
    left = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
    for widget in left:
        widget.close()
    apply_theme(qapp, "system")
    if left:
        names = ", ".join(f"{type(w).__name__}({w.objectName() or w.windowTitle()!r})" for w in left)
        pytest.fail(f"the test left top-level windows open: {names}")


@pytest.fixture
def settings(tmp_path) -> QSettings:
    """Settings of one test (never the user's)."""
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("recovery/dir", str(tmp_path / "recovery"))  # never the user's recovery journals
    return settings


@pytest.fixture
def window(qtbot, settings) -> MainWindow:
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    # A test that leaves edits unsaved must not block on the close prompt (pytest-qt closes the widgets it
    # tracks before this fixture's teardown runs); tests of the prompt replace this again.
    win.ask_save_changes = lambda: SaveChoice.DISCARD
    yield win
    win.close()


@pytest.fixture
def open_spec(qtbot, window):
    """Open a file in the window through the worker and wait for it to be shown."""

    def _open(path: str | Path, timeout: int = 30_000) -> LoadedSpec:
        with qtbot.waitSignal(window.documentLoaded, timeout=timeout) as blocker:
            window.open_path(path)
        return blocker.args[0]

    return _open
