"""Open Recent: the files opened last, kept in the settings, checked for existence when the menu is shown."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

MAX_RECENT = 10


class RecentFiles:
    """`paths()`, `add(path)`, `clear()`; `menu` is Open Recent, rebuilt each time it is shown."""

    def __init__(self, settings: QSettings, parent: QWidget, open_path: Callable[[str], None]) -> None:
        self.settings = settings
        self.open_path = open_path
        self.menu = QMenu("Open &Recent", parent)
        self.menu.setObjectName("recentMenu")
        self.menu.aboutToShow.connect(self.refresh_menu)
        self.clear_action = QAction("&Clear Recent Files", parent)
        self.clear_action.triggered.connect(lambda _checked=False: self.clear())
        parent.addAction(self.clear_action)

    def paths(self) -> list[str]:
        value = self.settings.value("recentFiles", [], type=list)
        return [str(item) for item in value or [] if item]

    def _store(self, paths: list[str]) -> None:
        self.settings.setValue("recentFiles", paths[:MAX_RECENT])

    def add(self, path: Path) -> None:
        text = str(path)
        self._store([text, *(p for p in self.paths() if p != text)])

    def clear(self) -> None:
        self._store([])
        self.refresh_menu()

    def existing(self) -> list[str]:
        """The recent files that still exist (the missing ones are dropped from the settings)."""
        recent = self.paths()
        existing = [p for p in recent if Path(p).is_file()]
        if existing != recent:
            self._store(existing)
        return existing

    def refresh_menu(self) -> None:
        """Rebuild Open Recent from the files that still exist."""
        existing = self.existing()
        self.menu.clear()
        names = [Path(p).name for p in existing]
        for number, path in enumerate(existing, 1):
            name = Path(path).name
            folder = str(Path(path).parent).replace(str(Path.home()), "~", 1)
            label = name + (f"  —  {folder}" if names.count(name) > 1 else "")
            action = self.menu.addAction(f"&{number % 10} " + label.replace("&", "&&"))
            action.setToolTip(path)
            action.setStatusTip(path)
            action.triggered.connect(lambda _checked=False, p=path: self.open_path(p))
        if not existing:
            placeholder = self.menu.addAction("No recent files")
            placeholder.setEnabled(False)
        self.menu.addSeparator()
        self.menu.addAction(self.clear_action)
        self.clear_action.setEnabled(bool(existing))
