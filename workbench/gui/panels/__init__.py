"""The window's panels: one module per dock (and the source view in the middle). Each talks to the
`SpecDocument` and offers a small public surface; none reaches into another panel's widgets."""

from workbench.gui.panels.edit import EditPanel
from workbench.gui.panels.outline import OutlinePanel
from workbench.gui.panels.problems import ProblemsPanel
from workbench.gui.panels.source import SourcePanel
from workbench.gui.panels.status import StatusPanel

__all__ = ["EditPanel", "OutlinePanel", "ProblemsPanel", "SourcePanel", "StatusPanel"]
