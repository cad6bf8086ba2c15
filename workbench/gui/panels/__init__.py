"""The window's panels: one module per dock (and the source view in the middle, the status bar's widgets).
Each talks to the `SpecDocument` and offers a small public surface; none reaches into another panel's widgets.
`DOCKS` lists the docks the window adds: a new panel is one module and one entry here."""

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from workbench.gui.panels.edit import EditPanel
from workbench.gui.panels.outline import OutlinePanel
from workbench.gui.panels.problems import ProblemsPanel
from workbench.gui.panels.roundtrips import RoundTripsPanel
from workbench.gui.panels.selection import SelectionPanel
from workbench.gui.panels.source import SourcePanel
from workbench.gui.panels.status import StatusPanel
from workbench.gui.panels.tools import ToolsPanel
from workbench.gui.panels.welcome import WelcomePanel

__all__ = [
    "DOCKS", "DockSpec", "EditPanel", "OutlinePanel", "ProblemsPanel", "RoundTripsPanel", "SelectionPanel",
    "SourcePanel", "StatusPanel", "ToolsPanel", "WelcomePanel",
]


@dataclass(frozen=True)
class DockSpec:
    """A dock of the window: its panel (made from the document), the window attribute naming the panel, where it
    goes and how wide (or high) it starts; `room`: the share of the window's height a tabbed dock with a big table
    gets the first time it is shown (after the start or a reset), so a small window still shows its rows."""

    attribute: str
    panel: type[QWidget]
    object_name: str
    area: Qt.DockWidgetArea
    size: int
    orientation: Qt.Orientation
    tabify_with: str | None = None  # the attribute of a dock added before: this one goes in its tab group
    room: float = 0.0


_AREA, _ACROSS, _DOWN = Qt.DockWidgetArea, Qt.Orientation.Horizontal, Qt.Orientation.Vertical
DOCKS = (  # in the order they are added (and listed in the View menu)
    DockSpec("outline", OutlinePanel, "outlineDock", _AREA.LeftDockWidgetArea, 380, _ACROSS),
    DockSpec("problems", ProblemsPanel, "problemsDock", _AREA.BottomDockWidgetArea, 240, _DOWN),
    DockSpec("edit", EditPanel, "formDock", _AREA.RightDockWidgetArea, 340, _ACROSS),
    DockSpec("tools", ToolsPanel, "toolsDock", _AREA.BottomDockWidgetArea, 240, _DOWN, tabify_with="problems",
             room=0.4),
    DockSpec("roundtrips", RoundTripsPanel, "roundtripsDock", _AREA.BottomDockWidgetArea, 240, _DOWN,
             tabify_with="problems", room=0.45),
    DockSpec("selection", SelectionPanel, "selectionDock", _AREA.BottomDockWidgetArea, 240, _DOWN,
             tabify_with="problems", room=0.5),
)
