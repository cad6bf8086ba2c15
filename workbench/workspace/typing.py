"""Text typed into a file, gathered between pauses: one undoable step per pause, without copying the whole text
per keystroke.

A `TypingBurst` holds the file's document before the burst and the keystrokes so far as disjoint splices
against its text (a keystroke next to or inside an earlier one is merged with it). Each keystroke costs work in
proportion to the splices it touches, not to the text: a 4 MB text is copied once, when the burst becomes a
step. The document a burst gives is a `TypedDocument`: its text is the typed one, but it has not been parsed
(keystrokes are never parsed on the UI thread); the re-check parses it, and until then an edit planned from its
data is refused.
"""

from __future__ import annotations

from bisect import bisect_left

from workbench.edit.engine import Splice, apply_splices
from workbench.spec import SourceDocument

NOT_CHECKED = "the text was typed in and is being checked: edit again once the findings are shown"


class TypedDocument(SourceDocument):
    """A file's text as typed, not parsed yet: `data` is the last parsed data (stale) and no span is known; the
    workspace refuses edits planned from it (`NOT_CHECKED`) until the re-check has parsed the text."""

    __slots__ = ()

    @classmethod
    def typed(cls, base: SourceDocument, text: str) -> TypedDocument:
        return cls(base.path, base.name, text, base.format, base.data, base.bom, [], {})


class TypingBurst:
    """The keystrokes typed into one file since the last pause, as splices planned together against
    `base.text` (sorted, disjoint, none touching another)."""

    def __init__(self, base: SourceDocument) -> None:
        self.base = base
        self.splices: list[Splice] = []

    def _current_starts(self) -> list[int]:
        """Where each splice's text starts in the current text."""
        starts, shift = [], 0
        for splice in self.splices:
            starts.append(splice.start + shift)
            shift += len(splice.text) - (splice.end - splice.start)
        return starts

    def slice(self, start: int, end: int) -> str:
        """current_text[start:end], without making the current text."""
        pieces, base, at, shift = [], self.base.text, start, 0
        for splice in self.splices:
            here = splice.start + shift  # where the splice's text starts in the current text
            if at < here:  # base text before this splice
                stop = min(end, here)
                pieces.append(base[at - shift:stop - shift])
                at = stop
            if at >= end:
                break
            there = here + len(splice.text)
            if at < there:
                stop = min(end, there)
                pieces.append(splice.text[at - here:stop - here])
                at = stop
            shift += len(splice.text) - (splice.end - splice.start)
        if at < end:
            pieces.append(base[at - shift:end - shift])
        return "".join(pieces)

    @property
    def length(self) -> int:
        return len(self.base.text) + sum(len(s.text) - (s.end - s.start) for s in self.splices)

    def add(self, start: int, end: int, text: str) -> None:
        """One keystroke (or paste, cut, replace): current_text[start:end] becomes `text`."""
        if not 0 <= start <= end <= self.length:
            raise ValueError(f"typed splice {start}:{end} outside the text ({self.length} characters)")
        if start == end and not text:
            return
        starts = self._current_starts()
        # the splices whose current text overlaps or touches [start, end]
        first = bisect_left([s + len(sp.text) for s, sp in zip(starts, self.splices, strict=True)], start)
        last = first
        while last < len(self.splices) and starts[last] <= end:
            last += 1
        shift = starts[first] - self.splices[first].start if first < len(self.splices) else self.length - len(
            self.base.text)
        if first == last:  # touches none: a new splice, in base coordinates
            self.splices.insert(first, Splice(start - shift, end - shift, text))
            return
        group = self.splices[first:last]
        low = min(start, starts[first])
        high = max(end, starts[last - 1] + len(group[-1].text))
        region = self.slice(low, high)
        merged = region[:start - low] + text + region[end - low:]
        shift_after = shift + sum(len(s.text) - (s.end - s.start) for s in group)
        base_start, base_end = low - shift, high - shift_after
        replacement = [] if self.base.text[base_start:base_end] == merged else \
            [Splice(base_start, base_end, merged)]
        self.splices[first:last] = replacement

    def document(self) -> SourceDocument | None:
        """The document the burst gives (None: what was typed cancels out)."""
        if not self.splices:
            return None
        return TypedDocument.typed(self.base, apply_splices(self.base.text, list(self.splices)))
