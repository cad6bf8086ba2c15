"""The desktop workbench: thin Qt adapters over the core (only this package imports Qt).

Importing this package does not import Qt: the command line asks `headless_reason()` and
`qt_unavailable_reason()` first, and only then calls `run()`, which loads PySide6.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_ID = "io.github.agent_spec_workbench.Workbench"  # reverse-DNS id: .desktop file, StartupWMClass, icon


def headless_reason(environ: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """Why no window can be shown here, or None when one can."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    qpa = environ.get("QT_QPA_PLATFORM", "").split(":", 1)[0].strip()
    if qpa in ("offscreen", "minimal"):
        return f"QT_QPA_PLATFORM={qpa}"
    if platform.startswith(("win", "darwin")):
        return None
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY"):
        return "no display: neither DISPLAY nor WAYLAND_DISPLAY is set"
    return None


def qt_unavailable_reason() -> str | None:
    """Why the Qt binding cannot be used, or None when it can (imports PySide6, creates no application)."""
    try:
        import PySide6
        from PySide6 import QtGui, QtWidgets  # noqa: F401  (their system libraries must load too)
        from PySide6.QtCore import QObject
    except ImportError as exc:
        return f"PySide6 cannot be imported ({exc}); install PySide6-Essentials"
    # PySide6 6.12.0 built for the stable ABI returns None without a new reference from every void method:
    # harmless where None is immortal (Python 3.12+), a crash after a few thousand calls on Python 3.11.
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    if sys.getrefcount(None) < before - 32:
        return (f"PySide6 {PySide6.__version__} drops a reference to None on every call under Python "
                f"{sys.version_info.major}.{sys.version_info.minor} and would crash; install another version "
                "(pip install 'PySide6-Essentials<6.12')")
    return None


def run(path: str | Path | None = None, screenshots_dir: str | Path | None = None) -> int:
    """Open the workbench (on `path` if given); with `screenshots_dir`, render the main views to PNGs and exit."""
    from workbench.gui.app import run as _run

    return _run(path, screenshots_dir)


__all__ = ["APP_ID", "headless_reason", "qt_unavailable_reason", "run"]
