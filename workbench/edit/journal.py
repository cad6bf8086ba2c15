"""The recovery journal: unsaved edits of one file, on disk, so that a killed process loses none of them.

A journal starts with a JSON line naming the file it belongs to and the length of the text the edits start
from, then that text as it is (no escaping: 4 MB are written in milliseconds), then one JSON line per step
holding its splices, planned against the text the lines before it give. A step costs one short append instead
of rewriting megabytes per keystroke-sized edit. A kill in the middle of an append leaves a torn last line:
reading stops before it, so the steps up to the one before are recovered.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from workbench import remove_leftovers, replace_file
from workbench.edit.engine import Splice, apply_splices


@dataclass(frozen=True)
class Recovered:
    """The edited text a journal gives back, its byte-order mark, and how many steps were replayed."""

    text: str  # the edited text, as it was after the last step written
    bom: bool
    steps: int  # how many steps were replayed on the starting text


class RecoveryJournal:
    """The journal of the file at `path`, kept in `folder` (one journal per file, named by its full path)."""

    def __init__(self, folder: Path, path: Path) -> None:
        self.source = Path(path).resolve()  # one journal per file, however it is reached (symlinks too)
        digest = hashlib.sha256(os.fspath(self.source).encode("utf-8")).hexdigest()[:24]
        self.path = Path(folder) / f"{digest}.journal"

    def start(self, text: str, bom: bool) -> None:
        """Begin again from `text` (atomically: a kill leaves the old journal or the new one, never half)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        head = {"path": os.fspath(self.source), "bom": bom, "written": time.time(), "characters": len(text)}
        remove_leftovers(self.path)
        replace_file(self.path, [(json.dumps(head) + "\n").encode("utf-8"), text.encode("utf-8"), b"\n"])

    def append(self, splices: list[Splice]) -> None:
        """Add one step: `splices`, planned together against the text the journal gives now."""
        line = json.dumps({"splices": [[s.start, s.end, s.text] for s in splices]}) + "\n"
        with self.path.open("a", encoding="utf-8") as journal:
            journal.write(line)

    def read(self) -> Recovered | None:
        """The edited text, when the journal belongs to the file and is newer than it; else None."""
        try:
            if self.path.stat().st_mtime < self.source.stat().st_mtime:
                return None  # the file was saved (or changed) after the last edit was journaled
            with self.path.open(encoding="utf-8", newline="") as journal:
                head = json.loads(journal.readline())
                if not isinstance(head, dict) or head.get("path") != os.fspath(self.source) \
                        or not isinstance(head.get("characters"), int):
                    return None
                text, steps = journal.read(head["characters"]), 0
                if len(text) != head["characters"] or journal.read(1) != "\n":
                    return None  # cut short: the starting text itself is incomplete
                for line in journal:
                    splices = _splices(line, len(text))
                    if splices is None:
                        break  # a torn last line (the process was killed while writing it)
                    text = apply_splices(text, splices)
                    steps += 1
        except (OSError, ValueError):
            return None
        return Recovered(text, bool(head.get("bom")), steps)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _splices(line: str, length: int) -> list[Splice] | None:
    try:
        step = json.loads(line)
        splices = [Splice(int(start), int(end), str(text)) for start, end, text in step["splices"]]
    except (ValueError, KeyError, TypeError):
        return None
    if not all(0 <= s.start <= s.end <= length for s in splices):
        return None
    return splices
