"""Diffs for the workbench: the text on disk against the edited text, and what an edit outcome would change."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from workbench.edit.diff import unified_diff
from workbench.edit.engine import EditOutcome
from workbench.spec import SourceDocument


def text_diff(old: str, new: str, name: str) -> str:
    """A unified diff of two whole texts (line matching; for "Show diff against disk")."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"{name} (on disk)", f"{name} (edited)"))


def outcome_diff(old: str, outcome: EditOutcome, name: str) -> str:
    """The diff an edit outcome makes: from its splices when they were planned against `old` together (exact and
    instant on big files), else by matching lines."""
    if not outcome.applied:
        return ""
    splices = outcome.splices
    if splices is not None:
        return unified_diff(old, splices, name)
    return text_diff(old, outcome.document.text, name)


@dataclass
class Preview:
    """What applying some edits would do, built without showing anything (a dialog only displays it)."""

    title: str
    outcomes: list[EditOutcome]  # one per file of the spec the edits touch
    diff: str
    bases: list[SourceDocument]  # the documents the outcomes were made from

    @property
    def applied(self) -> bool:
        return any(outcome.applied for outcome in self.outcomes)

    @property
    def refused(self) -> list[str]:
        return [f"{edit.pointer}: {reason}" for outcome in self.outcomes for edit, reason in outcome.refused]

    def text(self) -> str:
        refused = "".join(f"# refused {line}\n" for line in self.refused)
        return refused + (self.diff or "(no change)\n")
