"""The edit session over one open spec, without any GUI: every file of the spec as edited and as on disk (by
the document's name), the undo history across files, the recovery journals, save and save-as, the diff
against disk, and taking in changes another program made on disk.

The GUI shows what this says; every decision about the texts is made here, so it is tested without Qt.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as replace_change
from pathlib import Path

from workbench.edit import write_atomically
from workbench.edit.engine import EditOutcome, Splice, apply_edits
from workbench.edit.fixes import quick_fixes
from workbench.edit.journal import Recovered, RecoveryJournal
from workbench.lint import Finding
from workbench.spec import SourceDocument, SpecError
from workbench.spec.source import parse_text, read_text
from workbench.workspace.history import Change, History, Step
from workbench.workspace.loading import Cancelled, LoadedSpec, OperationEntry, ProblemEntry
from workbench.workspace.preview import Preview, outcome_diff, text_diff
from workbench.workspace.typing import NOT_CHECKED, TypedDocument, TypingBurst


class LoadKind(enum.Enum):
    """Why a spec is (re)loaded."""

    OPEN = "open"  # a file chosen: its edits and history start afresh, its journals are offered back
    RELOAD = "reload"  # the same files again from disk, the edits dropped
    RECHECK = "recheck"  # the edited texts linted again (nothing is read from disk but files new to the spec)


class ConflictChoice(enum.Enum):
    """A file with unsaved edits changed on disk."""

    MINE = "mine"  # keep the edits (Save overwrites the file)
    THEIRS = "theirs"  # read the files again from disk (the edits are dropped)


class SaveChoice(enum.Enum):
    """Before unsaved edits would be lost."""

    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


class DiskOutcome(enum.Enum):
    """What a look at the files on disk found, and what was done about it."""

    SAME = "same"  # every file is as last read or written
    MISSING = "missing"  # the root file cannot be read now (mid-rename, or deleted): the next change is checked
    RELOAD = "reload"  # files changed and nothing has unsaved edits: read the spec again
    MERGED = "merged"  # the changed files had no unsaved edits: taken in; the edits elsewhere stay
    CONFLICT = "conflict"  # a changed file has unsaved edits: `resolve` with a `ConflictChoice`
    KEPT = "kept"  # the conflict resolved as MINE: those files' edits stay (Save overwrites them)
    RELOAD_THEIRS = "reload-theirs"  # the conflict resolved as THEIRS: read the spec again


@dataclass(frozen=True)
class DiskMerge:
    """The outcome of `Workspace.merge_from_disk` (or `resolve`)."""

    outcome: DiskOutcome
    changed: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name → (text, BOM) found on disk
    conflicting: tuple[str, ...] = ()  # changed files with unsaved edits
    taken: tuple[DocumentChange, ...] = ()  # files whose new text was taken in
    unreadable: tuple[str, ...] = ()  # why changed files were not taken in (they do not parse: read later)
    gone: tuple[str, ...] = ()  # files of the spec (not the root) that cannot be read: left out of the look
    history_cleared: bool = False  # a step changed a file taken in: undo would have put back the old text

    @property
    def needs_reload(self) -> bool:
        return self.outcome in (DiskOutcome.RELOAD, DiskOutcome.RELOAD_THEIRS)


@dataclass(frozen=True)
class DocumentChange:
    """A file's edited document replaced: by a step, its undo or redo, a recovery, or a change on disk."""

    previous: SourceDocument | None
    document: SourceDocument
    splices: tuple[Splice, ...] | None = None  # previous.text → document.text, when known
    from_disk: bool = False
    journal_error: str | None = None  # the recovery journal could not be written
    typed: bool = False  # the text typed into a view (which shows it already)


class SaveError(Exception):
    """A file could not be written; `str()` is the one-line message."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


class Workspace:
    """One open spec at a time (nothing open until `take_loaded`). Journals go to `recovery_dir`: a folder, or a
    function that names it when a journal is written or read (so a changed setting takes effect at once)."""

    def __init__(self, recovery_dir: Path | Callable[[], Path]) -> None:
        self._recovery_dir = recovery_dir
        self.loaded: LoadedSpec | None = None
        self._typing: dict[str, TypingBurst] = {}  # by name: text typed since the last pause (see `settle`)
        # told of the steps `settle` makes when reading the files needs them (the GUI shows them)
        self.on_settled: Callable[[list[DocumentChange]], None] = lambda _changes: None
        self._edited: dict[str, SourceDocument] = {}  # every file of the spec as edited now, by name
        self.disk: dict[str, str] = {}  # and its text as last read or written
        self.history = History()
        self.last_refused: list[str] = []  # why the last edits were not made
        self._journaled: dict[str, SourceDocument] = {}  # by name: the edited document its journal gives back

    @property
    def recovery_dir(self) -> Path:
        folder = self._recovery_dir
        return Path(folder() if callable(folder) else folder)

    @property
    def edited(self) -> dict[str, SourceDocument]:
        """Every file of the spec as edited now, by name (text typed since the last pause made a step first)."""
        if self._typing:
            self.settle()
        return self._edited

    @edited.setter
    def edited(self, documents: dict[str, SourceDocument]) -> None:
        self._typing = {}
        self._edited = documents

    @property
    def file_paths(self) -> dict[str, Path]:
        """Every file of the spec by name, and where it is (typing goes on: nothing is made a step for this)."""
        return {name: document.path for name, document in self._edited.items()}

    # -- typing --------------------------------------------------------------------------------------------------

    def type_text(self, name: str, start: int, end: int, text: str) -> None:
        """Text typed into file `name`: its current text[start:end] becomes `text`. Nothing is copied or parsed
        now; `settle` (at the pause, or before anything reads the files) makes the keystrokes one step."""
        burst = self._typing.get(name)
        if burst is None:
            burst = self._typing[name] = TypingBurst(self._edited[name])
        burst.add(start, end, text)

    def typed_slice(self, name: str, start: int, end: int) -> str | None:
        """The current text of file `name` [start:end], typing included (without settling it); None when no
        such file is open."""
        burst = self._typing.get(name)
        if burst is not None:
            return burst.slice(start, end)
        return self._edited[name].text[start:end] if name in self._edited else None

    @property
    def is_typing(self) -> bool:
        """Is there typed text not made a step yet?"""
        return any(burst.splices for burst in self._typing.values())

    def settle(self) -> list[DocumentChange]:
        """Make the text typed since the last pause one undoable step (per file typed in), journaled like any
        step; `on_settled` hears of the changes. The changes (none when nothing was typed, or it cancelled out)."""
        bursts, self._typing = self._typing, {}
        changes = []
        for name, burst in bursts.items():
            document = burst.document()
            if document is not None and self._edited.get(name) is burst.base:
                changes.append(Change.of(burst.base, document, burst.splices))
        if not changes:
            return []
        done = [replace_change(change, typed=True) for change in self._push("Typing", changes)]
        self.on_settled(done)
        return done

    # -- what is open --------------------------------------------------------------------------------------------

    @property
    def root_name(self) -> str | None:
        return self.loaded.spec.root.name if self.loaded is not None else None

    @property
    def root(self) -> SourceDocument | None:
        """The root file as edited now (None: nothing open)."""
        return self.edited.get(self.root_name) if self.loaded is not None else None

    @property
    def root_disk_text(self) -> str | None:
        """The root file's text as last read or written."""
        return self.disk.get(self.root_name) if self.loaded is not None else None

    def modified_names(self) -> list[str]:
        """The files of the spec with unsaved edits, the root first (typing not made a step yet included)."""
        return [name for name, document in self._edited.items()
                if document.text != self.disk.get(name) or (name in self._typing and self._typing[name].splices)]

    @property
    def is_modified(self) -> bool:
        return bool(self.modified_names())

    def edited_others(self) -> list[SourceDocument]:
        """The other files' documents with unsaved edits (a re-check reads these instead of the files)."""
        return [self.edited[name] for name in self.modified_names() if name != self.root_name]

    def file_label(self, document: SourceDocument) -> str:
        """The root file by its name; another file of the spec as the spec names it (relative to the root)."""
        if self.loaded is not None and document.name == self.root_name:
            return self.loaded.path.name
        return document.name

    def operation_of(self, finding: Finding) -> OperationEntry | None:
        """The operation a finding is inside (the longest operation pointer that prefixes its pointer)."""
        if self.loaded is None:
            return None
        best = None
        for entry in self.loaded.operations:
            origin = entry.operation.origin
            if origin.document is not finding.document:
                continue
            inside = finding.pointer == origin.pointer or finding.pointer.startswith(origin.pointer + "/")
            if inside and (best is None or len(origin.pointer) > len(best.operation.origin.pointer)):
                best = entry
        return best

    # -- loading -------------------------------------------------------------------------------------------------

    def take_loaded(self, loaded: LoadedSpec, kind: LoadKind) -> bool:
        """Make `loaded` the spec shown. Opening or reloading starts the edits afresh; a re-check keeps them:
        files the edits now refer to join as on disk, files no longer referred to leave (unless edited).
        True when the set of files changed (what is watched on disk)."""
        self.loaded = loaded
        spec = loaded.spec
        if kind is not LoadKind.RECHECK:
            if kind is LoadKind.RELOAD:
                self.forget_journals()  # the edits were dropped for the files as they are on disk
            self.edited = dict(spec.documents)
            self.disk = {name: document.text for name, document in spec.documents.items()}
            self._journaled = {}
            self.history.clear()
            return True
        self._take_checked(spec.documents)
        joined = [name for name in spec.documents if name not in self.edited]
        for name in joined:
            self.edited[name] = spec.documents[name]
            self.disk[name] = spec.documents[name].text
        modified = set(self.modified_names())
        left = [name for name in self.edited if name not in spec.documents and name not in modified]
        for name in left:  # its text on disk stays known: an undo may bring the file back into the spec
            del self.edited[name]
        return bool(joined or left)

    def _take_checked(self, checked: dict[str, SourceDocument]) -> None:
        """Typed texts the re-check parsed: the parsed documents (same text, with data and spans) take their
        place, outside the history (undo and redo give back the typed ones, which the next re-check parses)."""
        if self.loaded is None or self.loaded.result.spec is None:
            return  # the texts did not parse: nothing to take
        for name, document in self.edited.items():
            parsed = checked.get(name)
            if isinstance(document, TypedDocument) and parsed is not None and parsed.text == document.text:
                self._edited[name] = parsed
                if self._journaled.get(name) is document:
                    self._journaled[name] = parsed

    def is_checked(self) -> bool:
        """Are the findings shown those of the edited texts already?"""
        if self.loaded is None:
            return True
        checked = self.loaded.spec.documents
        return all(name in checked and checked[name].text == document.text for name, document in self.edited.items())

    # -- edits ---------------------------------------------------------------------------------------------------

    def set_document(self, document: SourceDocument, splices: Sequence[Splice] | None = None) -> DocumentChange:
        """Make `document` the edited version of its file (not a step of the history) and journal it. `splices`
        (against the file's text until now) say what changed."""
        previous = self.edited.get(document.name)
        self.edited[document.name] = document
        splices = tuple(splices) if splices else None
        error = self._journal_step(previous, document, splices) if self.loaded is not None else None
        return DocumentChange(previous, document, splices, journal_error=error)

    def apply(self, outcome: EditOutcome, label: str) -> list[DocumentChange]:
        """Make the applied part of an edit outcome one undoable step; remember what was refused. The changes
        made (none when nothing applied)."""
        self.last_refused = [f"{edit.pointer}: {reason}" for edit, reason in outcome.refused]
        return self.apply_all([outcome], label)

    def apply_all(self, outcomes: Sequence[EditOutcome], label: str) -> list[DocumentChange]:
        """Outcomes in several files as one undoable step (those that applied nothing are left out)."""
        self.settle()
        typed = [outcome.document.name for outcome in outcomes
                 if isinstance(self.edited.get(outcome.document.name), TypedDocument)]
        if typed:  # planned from the data before the typing (the typed text is not parsed yet)
            self.last_refused = [f"{name}: {NOT_CHECKED}" for name in typed]
            return []
        changes = []
        for outcome in outcomes:
            before = self.edited.get(outcome.document.name)
            if outcome.applied and before is not None:
                changes.append(Change.of(before, outcome.document, outcome.splices))
        return self._push(label, changes)

    def _push(self, label: str, changes: list[Change]) -> list[DocumentChange]:
        if not changes:
            return []
        self.history.push(Step(label, tuple(changes)))
        return [self.set_document(change.after, change.splices) for change in changes]

    def undo(self) -> list[DocumentChange]:
        self.settle()  # what was typed is the step to undo first
        step = self.history.undo()
        if step is None:
            return []
        return [self.set_document(change.before, change.inverse) for change in reversed(step.changes)]

    def redo(self) -> list[DocumentChange]:
        self.settle()
        step = self.history.redo()
        if step is None:
            return []
        return [self.set_document(change.after, change.splices) for change in step.changes]

    def fix_preview(self, entries: Sequence[ProblemEntry], title: str,
                    progress: Callable[[str], None] | None = None,
                    cancelled: Callable[[], bool] | None = None) -> Preview | None:
        """What fixing these findings would change in the edited texts (None: none of them has a fix here).
        It reads the texts as they are when it starts, so it may run on a worker thread (`is_current` tells
        whether they are still those); `progress` hears each step, `cancelled` stops it (raises Cancelled)."""
        loaded, edited = self.loaded, dict(self._edited)  # never `edited`: it would settle the typing here
        if loaded is None or self.root_name not in edited:
            return None

        def step(text: str) -> None:
            if cancelled is not None and cancelled():
                raise Cancelled()
            if progress is not None:
                progress(text)

        step(f"Finding the fixes of {len(entries)} findings…")
        wanted = {id(entry.finding) for entry in entries}
        rules = {entry.finding.rule for entry in entries}
        edits: dict[str, list] = {}  # by file: the fixes of findings in any file of the spec
        fixes = 0
        for fix in quick_fixes(loaded.spec, loaded.result, rules):
            if id(fix.finding) in wanted and fix.document.name in edited \
                    and not isinstance(edited[fix.document.name], TypedDocument):  # typed: not parsed yet
                edits.setdefault(fix.document.name, []).extend(fix.edits)
                fixes += 1
        if not edits:
            return None
        outcomes, diffs, bases = [], [], []
        for name, file_edits in edits.items():
            document = edited[name]
            step(f"Applying {len(file_edits)} edits to {self.file_label(document)}…")
            outcome = apply_edits(document, file_edits)
            outcomes.append(outcome)
            bases.append(document)
            diffs.append(outcome_diff(document.text, outcome, self.file_label(document)))
        return Preview(title, outcomes, "".join(diffs), bases, fixes)

    def is_current(self, preview: Preview) -> bool:
        """Were the preview's outcomes made from the files as edited now (none replaced meanwhile)?"""
        return all(self.edited.get(base.name) is base for base in preview.bases)

    def apply_preview(self, preview: Preview) -> list[DocumentChange]:
        changes = self.apply_all(preview.outcomes, preview.title)
        self.last_refused = preview.refused
        return changes

    # -- the recovery journals -----------------------------------------------------------------------------------

    def _journal_step(self, previous: SourceDocument | None, document: SourceDocument,
                      splices: Sequence[Splice] | None) -> str | None:
        """Keep the file's recovery journal equal to its unsaved edits: one appended step when it can be. The
        reason when it cannot be written."""
        name = document.name
        journal = RecoveryJournal(self.recovery_dir, document.path)
        try:
            if document.text == self.disk.get(name):
                journal.remove()
                self._journaled.pop(name, None)
                return None
            if splices and previous is not None and self._journaled.get(name) is previous:
                journal.append(list(splices))  # one short line per step
            else:
                journal.start(document.text, document.bom)
            self._journaled[name] = document
        except OSError as exc:
            self._journaled.pop(name, None)  # the next step starts the journal again
            return f"Cannot write the recovery journal: {exc.strerror or exc}"
        return None

    def forget_journals(self) -> None:
        """The unsaved edits are saved or discarded: no file of the spec has anything to recover."""
        self._journaled = {}
        for document in self.edited.values():
            RecoveryJournal(self.recovery_dir, document.path).remove()

    def recoverable(self) -> list[tuple[SourceDocument, Recovered]]:
        """The files whose journals (newer than the files) hold edits that were never saved."""
        found = []
        for name, document in self.edited.items():
            recovered = RecoveryJournal(self.recovery_dir, document.path).read()
            if recovered is not None and recovered.text != self.disk.get(name):
                found.append((document, recovered))
        return found

    def recover(self, found: Sequence[tuple[SourceDocument, Recovered]]) -> list[DocumentChange]:
        """Take the recovered texts back as one undoable step. A text that does not parse (typed half way) comes
        back as typed text: the re-check then lists its `parser` finding."""
        self.settle()
        documents = [_recovered(document, recovered) for document, recovered in found]
        return self._push("Recover unsaved edits", [Change.of(before, after) for (before, _), after
                                                    in zip(found, documents, strict=True)])

    # -- saving --------------------------------------------------------------------------------------------------

    def save(self) -> list[str]:
        """Write every file with unsaved edits atomically (each previous version kept as `<file>.bak`); with
        nothing changed, the root again. The names written; raises SaveError at the first that cannot be."""
        if self.root is None:
            return []
        names = self.modified_names() or [self.root.name]
        self._write(names)
        self.forget_journals()
        return names

    def _write(self, names: Sequence[str]) -> None:
        for name in names:
            document = self.edited[name]
            try:
                write_atomically(document.path, document.text, bom=document.bom, backup=True)
            except OSError as exc:
                raise SaveError(document.path, exc.strerror or str(exc)) from exc
            self.disk[name] = document.text

    def save_as(self, target: Path) -> None:
        """Write the edited root to `target` (atomically) and the other files' edits in place (they are shared
        by both names). The spec must then be opened again from `target`: relative `$ref`s resolve from its
        folder. Raises SaveError."""
        root = self.root
        if root is None:
            return
        self._write([name for name in self.modified_names() if name != root.name])
        try:
            write_atomically(target, root.text, bom=root.bom, backup=True)
        except OSError as exc:
            raise SaveError(target, exc.strerror or str(exc)) from exc
        self.forget_journals()  # the edits are safe in the new file; the old file keeps its text

    def disk_diff(self) -> str:
        """The unified diffs from the files on disk to their edited texts ("" when there are no unsaved edits)."""
        return "".join(text_diff(self.disk[name], self.edited[name].text, self.file_label(self.edited[name]))
                       for name in self.modified_names())

    # -- changes on disk -----------------------------------------------------------------------------------------

    def merge_from_disk(self) -> DiskMerge:
        """Compare the files with what was last read or written, and take in what needs no choice: changed
        files without unsaved edits (MERGED). Nothing is changed for SAME, MISSING, RELOAD (nothing has
        unsaved edits: read the spec again) and CONFLICT (see `resolve`)."""
        if self.loaded is None or self.root_disk_text is None:
            return DiskMerge(DiskOutcome.SAME)
        changed: dict[str, tuple[str, bool]] = {}
        gone = []
        for name, document in self.edited.items():
            try:
                text, bom = read_text(document.path, document.path.name)
            except SpecError:
                if name == self.root_name:
                    return DiskMerge(DiskOutcome.MISSING)  # the folder watch reports the next change
                gone.append(name)  # another file gone (its `$ref` may have moved): the rest is still compared
                continue
            if text != self.disk.get(name):
                changed[name] = (text, bom)
        if not changed:
            return DiskMerge(DiskOutcome.SAME, gone=tuple(gone))
        if not self.is_modified:
            return DiskMerge(DiskOutcome.RELOAD, changed, gone=tuple(gone))
        modified = set(self.modified_names())
        conflicting = tuple(name for name in changed if name in modified)
        if conflicting:
            return DiskMerge(DiskOutcome.CONFLICT, changed, conflicting, gone=tuple(gone))
        return self._take_in(DiskOutcome.MERGED, changed, (), tuple(gone))

    def resolve(self, merge: DiskMerge, choice: ConflictChoice) -> DiskMerge:
        """A CONFLICT decided: MINE keeps the edits of the conflicting files (their text on disk becomes the
        one Save overwrites) and takes in the other changed files (KEPT); THEIRS: read the spec again."""
        if choice is ConflictChoice.THEIRS:
            return DiskMerge(DiskOutcome.RELOAD_THEIRS, merge.changed, merge.conflicting, gone=merge.gone)
        self.disk.update({name: merge.changed[name][0] for name in merge.conflicting})
        others = {name: found for name, found in merge.changed.items() if name not in merge.conflicting}
        return self._take_in(DiskOutcome.KEPT, merge.changed, merge.conflicting, merge.gone, others)

    def _take_in(self, outcome: DiskOutcome, changed: dict[str, tuple[str, bool]], conflicting: tuple[str, ...],
                 gone: tuple[str, ...], texts: dict[str, tuple[str, bool]] | None = None) -> DiskMerge:
        """Files without unsaved edits that changed on disk: take their new text. One that no longer parses
        keeps the workbench's version (which Save would write) and is read again at the next change."""
        taken, unreadable = [], []
        for name, (text, bom) in (changed if texts is None else texts).items():
            old = self.edited[name]
            try:
                document = parse_text(text, old.path, old.name, bom=bom)
            except SpecError as exc:  # half written, perhaps
                unreadable.append(str(exc))
                continue
            self.disk[name] = text
            self.edited[name] = document
            taken.append(DocumentChange(old, document, from_disk=True))
        cleared = bool(taken) and self.history.touches([change.document.name for change in taken])
        if cleared:  # undo or redo would put back a version of these files from before the other program's change
            self.history.clear()
        return DiskMerge(outcome, changed, conflicting, tuple(taken), tuple(unreadable), gone, cleared)


def _recovered(document: SourceDocument, recovered: Recovered) -> SourceDocument:
    try:
        return parse_text(recovered.text, document.path, document.name, bom=recovered.bom)
    except SpecError:
        return TypedDocument(document.path, document.name, recovered.text, document.format, None, recovered.bom,
                             [], {})


def absolute(path: str | os.PathLike) -> Path:
    """A path as the workbench names files: absolute, `~` expanded, not resolved (symlinks kept)."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
