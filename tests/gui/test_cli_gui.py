"""`workbench gui` and `workbench` (no subcommand) as a user runs them: real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.catalogue import corpus_dir
from workbench.gui import headless_reason, qt_unavailable_reason

SHOTS = ("main-window.png", "outline.png", "problems.png", "source.png", "main-window-dark.png", "tools-list.png",
         "tools-json.png", "tools-side-by-side.png", "main-window-tools.png", "tools-list-dark.png")


def run(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True,
                          timeout=timeout, check=False, env=env)


def environment(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update({k: v for k, v in changes.items() if v is not None})
    return env


def test_screenshots_are_written_offscreen(tmp_path):
    spec = corpus_dir() / "readme-v3.1-train-travel.yaml"
    result = run("gui", str(spec), "--screenshots", str(tmp_path / "shots"),
                 env=environment(QT_QPA_PLATFORM="offscreen"))
    assert result.returncode == 0, result.stderr
    for name in SHOTS:
        data = (tmp_path / "shots" / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5_000, name
    assert "propagateSizeHints" not in result.stderr


def test_screenshots_of_a_file_that_cannot_be_loaded_exit_2_with_one_line(tmp_path):
    result = run("gui", str(tmp_path / "missing.yaml"), "--screenshots", str(tmp_path / "shots"),
                 env=environment(QT_QPA_PLATFORM="offscreen"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "missing.yaml" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("env", "reason"), [
    (environment(), "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"),
    (environment(DISPLAY=":99", QT_QPA_PLATFORM="offscreen"), "QT_QPA_PLATFORM=offscreen"),
])
def test_no_subcommand_without_a_display_prints_the_headless_audit_and_says_why(env, reason):
    result = run(env=env)
    assert result.returncode == 0, result.stderr
    assert f"No window to open ({reason}); here is the headless audit of the bundled example." in result.stderr
    assert "Acme" in result.stdout and "operations:" in result.stdout


def test_gui_without_a_display_refuses_in_one_line():
    result = run("gui", env=environment())
    assert result.returncode == 2
    assert result.stderr.startswith("workbench: cannot open a window (no display") and result.stderr.count("\n") == 1


def test_the_command_line_does_not_import_qt_until_a_window_is_wanted():
    code = "import sys, workbench.cli, workbench.gui; print(sorted(m for m in sys.modules if 'PySide' in m))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_headless_reason():
    assert headless_reason({}, "linux") == "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
    assert headless_reason({"DISPLAY": ":0"}, "linux") is None
    assert headless_reason({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert headless_reason({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux") == "QT_QPA_PLATFORM=offscreen"
    assert headless_reason({}, "darwin") is None and headless_reason({}, "win32") is None


def test_the_installed_qt_binding_is_usable():
    assert qt_unavailable_reason() is None


def test_the_application_carries_the_desktop_id_and_the_icon(qapp):
    from workbench.gui import APP_ID
    from workbench.gui.app import configure_application, icon_path

    configure_application(qapp)
    assert qapp.desktopFileName() == APP_ID
    assert icon_path().name == f"{APP_ID}.svg" and icon_path().is_file()
    assert not qapp.windowIcon().isNull()
    assert qapp.windowIcon().pixmap(64, 64).width() == 64
