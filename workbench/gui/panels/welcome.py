"""What the middle of the window shows while no file is open: how to start (open a file, a recent one, or the
bundled example)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from workbench.gui.dialogs import APP_TITLE
from workbench.gui.widgets import shrinkable


class WelcomePanel(QWidget):
    """`openRequested` (Open…), `exampleRequested`, `recentChosen(path)`; `refresh()` lists the recent files (the
    list is empty until then)."""

    openRequested = Signal()
    exampleRequested = Signal()
    recentChosen = Signal(str)

    def __init__(self, recent_paths: Callable[[], list[str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self._recent_paths = recent_paths
        title = QLabel(f"<h2>{APP_TITLE}</h2>")
        intro = shrinkable(QLabel("Open an OpenAPI or Swagger document (YAML or JSON) to see what an agent would "
                                  "make of it: the findings by severity, the operations, the tools per vendor. "
                                  "You can also drop a file on the window."))
        self.open_button = QPushButton("&Open…")
        self.open_button.setObjectName("welcomeOpen")
        self.open_button.setToolTip("Choose an API description (Ctrl+O)")
        self.open_button.clicked.connect(self.openRequested)
        self.example_button = QPushButton("Open the &Example")
        self.example_button.setObjectName("welcomeExample")
        self.example_button.setToolTip("The bundled example spec: a small shop API with findings of every kind")
        self.example_button.clicked.connect(self.exampleRequested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.example_button)
        buttons.addStretch(1)
        self.recent_heading = QLabel("Recent files")
        self.recent_list = QListWidget()
        self.recent_list.setObjectName("welcomeRecent")
        self.recent_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.recent_list.itemActivated.connect(lambda item: self.recentChosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 16, 24, 16)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addLayout(buttons)
        layout.addSpacing(12)
        layout.addWidget(self.recent_heading)
        layout.addWidget(self.recent_list, 1)

    def recent(self) -> list[str]:
        """The recent files listed."""
        return [self.recent_list.item(row).data(Qt.ItemDataRole.UserRole) for row in range(self.recent_list.count())]

    def refresh(self) -> None:
        self.recent_list.clear()
        paths = self._recent_paths()
        for path in paths:
            item = QListWidgetItem(f"{Path(path).name}  —  {Path(path).parent}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent_list.addItem(item)
        self.recent_heading.setText("Recent files" if paths else "No recent files yet.")
        self.recent_list.setVisible(bool(paths))
