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


def diff_counts(diff: str) -> tuple[int, int]:
    """(lines added, lines removed) of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


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
    fixes: int = 0  # the quick fixes it applies (0: not a preview of fixes)

    @property
    def applied(self) -> bool:
        return any(outcome.applied for outcome in self.outcomes)

    @property
    def refused(self) -> list[str]:
        return [f"{edit.pointer}: {reason}" for outcome in self.outcomes for edit, reason in outcome.refused]

    @property
    def files(self) -> int:
        """The files it changes."""
        return sum(1 for outcome in self.outcomes if outcome.applied)

    def text(self) -> str:
        refused = "".join(f"# refused {line}\n" for line in self.refused)
        return refused + (self.diff or "(no change)\n")
