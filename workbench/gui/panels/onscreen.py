"""Whether a panel is on screen: visible, and in a dock that is not a tab behind another (such a dock stays
"visible"). A panel that does work only for the eye (converting, building rows) mixes this in before `QWidget` and
overrides `shown_changed`, called when it may have come on screen or left it."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QDockWidget


class OnScreen:
    _dock: QDockWidget | None = None
    _dock_shown: bool | None = None  # what its dock last said (None: not in a dock, or not yet told)

    @property
    def is_shown(self) -> bool:
        return self.isVisible() and self._dock_shown is not False

    def shown_changed(self) -> None:
        """The panel may have come on screen (or left it): see `is_shown`."""

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ParentChange:
            dock = self.parent()
            if isinstance(dock, QDockWidget) and dock is not self._dock:
                self._dock = dock
                dock.visibilityChanged.connect(self._dock_visibility)
        return super().event(event)

    def _dock_visibility(self, visible: bool) -> None:
        self._dock_shown = visible
        self.shown_changed()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.shown_changed()
