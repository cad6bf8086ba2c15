"""Drift: what a new spec version breaks for agents (`diff_sides`), and a saved tool set checked against the
spec (`check_saved`). Both compare tool sets built by `tools.options.build_toolset`, never raw specs."""

from workbench.drift.diff import Side, compare_tools, diff_sides, match_tools
from workbench.drift.model import KINDS, Change, DriftReport, Where
from workbench.drift.report import FORMATS
from workbench.drift.saved import SavedSet, SavedTool, check_saved, read_saved

__all__ = ["FORMATS", "KINDS", "Change", "DriftReport", "SavedSet", "SavedTool", "Side", "Where", "check_saved",
           "compare_tools", "diff_sides", "match_tools", "read_saved"]
