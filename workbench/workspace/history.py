"""The undo history of an edit session: steps across the files of a spec, each undone by inverse splices.

A step holds, per file it changes, the document before and after (undo gives back the very same object, so
the text is restored character for character) and the splices both ways, so a view can change only the lines
a step touches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from workbench.edit import Splice
from workbench.edit.engine import inverse_splices
from workbench.spec import SourceDocument


@dataclass(frozen=True)
class Change:
    """One file's part of a step."""

    before: SourceDocument
    after: SourceDocument
    splices: tuple[Splice, ...] | None = None  # before.text → after.text (None: the whole text changes)
    inverse: tuple[Splice, ...] | None = None  # after.text → before.text

    @classmethod
    def of(cls, before: SourceDocument, after: SourceDocument, splices: Sequence[Splice] | None = None) -> Change:
        if not splices:
            return cls(before, after)
        return cls(before, after, tuple(splices), tuple(inverse_splices(before.text, splices)))

    @property
    def name(self) -> str:
        return self.after.name


@dataclass(frozen=True)
class Step:
    """One undoable step: its label (for the Undo menu item) and the files it changes, in order."""

    label: str
    changes: tuple[Change, ...]


class History:
    """Steps done (undo goes back through them) and steps undone (redo goes forward); a new step drops the
    undone ones."""

    def __init__(self) -> None:
        self._steps: list[Step] = []
        self._done = 0  # steps[:done] are done

    def __len__(self) -> int:
        """Every step kept, done or undone."""
        return len(self._steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    @property
    def can_undo(self) -> bool:
        return self._done > 0

    @property
    def can_redo(self) -> bool:
        return self._done < len(self._steps)

    @property
    def undo_label(self) -> str:
        return self._steps[self._done - 1].label if self.can_undo else ""

    @property
    def redo_label(self) -> str:
        return self._steps[self._done].label if self.can_redo else ""

    def push(self, step: Step) -> None:
        del self._steps[self._done:]
        self._steps.append(step)
        self._done += 1

    def undo(self) -> Step | None:
        """The step to undo (its changes are undone last first), or None."""
        if not self.can_undo:
            return None
        self._done -= 1
        return self._steps[self._done]

    def redo(self) -> Step | None:
        if not self.can_redo:
            return None
        self._done += 1
        return self._steps[self._done - 1]

    def clear(self) -> None:
        self._steps.clear()
        self._done = 0

    def touches(self, names: Sequence[str]) -> bool:
        """Does any step kept (done or undone) change one of these files?"""
        return any(change.name in names for step in self._steps for change in step.changes)
