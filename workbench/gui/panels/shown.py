"""Whether a panel is on screen: a dock that is a tab behind another stays "visible" to Qt, so a panel that does
work only when it is seen (converting, re-running) listens to its dock's `visibilityChanged` as well."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QDockWidget


class ShownInDock:
    """Mixed into a panel (before QWidget): `is_shown`, and `shown_again()` called when its dock comes to the
    front."""

    _dock: QDockWidget | None = None
    _dock_shown: bool | None = None  # what its dock last said (None: not in a dock, or not yet told)

    @property
    def is_shown(self) -> bool:
        """On screen: visible, and in a dock that is not a tab behind another."""
        return self.isVisible() and self._dock_shown is not False

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ParentChange:
            dock = self.parent()
            if isinstance(dock, QDockWidget) and dock is not self._dock:
                self._dock = dock
                dock.visibilityChanged.connect(self._dock_visibility)
        return super().event(event)

    def _dock_visibility(self, visible: bool) -> None:
        self._dock_shown = visible
        if visible:
            self.shown_again()

    def shown_again(self) -> None:
        """The dock came to the front: do what was left while it was hidden."""
