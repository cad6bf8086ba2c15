"""The open spec as the panels see it: a QObject over the workspace that loads on a background job, re-checks
edits after a pause, watches the files on disk, and says what happened through signals.

Every decision about the texts is the workspace's (`workbench.workspace`); this adds time (timers, the job, the
file watcher) and signals. Panels talk to the document, never to one another.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from workbench.edit.engine import EditOutcome
from workbench.edit.journal import Recovered
from workbench.gui.jobs import Job, JobRunner
from workbench.spec import Location, SourceDocument, SpecError
from workbench.workspace import (
    ConflictChoice,
    DiskMerge,
    DiskOutcome,
    DocumentChange,
    LoadedSpec,
    LoadKind,
    OperationEntry,
    Preview,
    ProblemEntry,
    PropertyEntry,
    Workspace,
    freeze_heap,
    load_and_lint,
    thaw_heap,
)
from workbench.workspace.loading import collector_paused
from workbench.workspace.typing import TypedDocument

RECHECK_DELAY_MS = 500  # after the last edit
TYPING_PAUSE_MS = 700  # keystrokes closer together than this are one undoable step
FIX_IN_BACKGROUND_FROM = 40  # findings fixed at once: their preview is made on a background job
DISK_CHECK_DELAY_MS = 300  # after the last file-system notification


@dataclass(frozen=True)
class LoadRequest:
    """What a load job was started for."""

    path: Path
    kind: LoadKind
    edited: dict[str, SourceDocument] = field(default_factory=dict)  # the edited files it checks (by identity)
    from_disk: str = ""  # a reload because these files changed on disk (their labels); "": asked for


@dataclass(frozen=True)
class Target:
    """Something to show: a finding, an operation, a schema property, or a place (a path item, a schema)."""

    problem: ProblemEntry | None = None
    operation: OperationEntry | None = None
    prop: PropertyEntry | None = None
    location: Location | None = None
    focus: bool = False  # move the keyboard focus to the source view


class FixOutcome(enum.Enum):
    """What became of a request to apply quick fixes."""

    NO_FIX = "no fix"  # none of the findings has a fix here
    REFUSED = "refused"  # the fixes cannot be applied (`Workspace.last_refused` says why)
    DECLINED = "declined"  # the preview was not confirmed, or the files are being read again
    STALE = "stale"  # a file changed while the preview was open: nothing applied
    APPLIED = "applied"  # one undoable step
    PENDING = "pending"  # the preview is being made in the background (`SpecDocument.fixFinished` follows)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells that a file was written or replaced without reading it: (inode, size, mtime); None: gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def describe_error(error: BaseException, path: Path) -> str:
    """A load's failure in one line (never a traceback)."""
    if isinstance(error, SpecError):
        return str(error)
    if isinstance(error, OSError):
        return f"{path}: {error.strerror or error}"
    return f"internal error: {type(error).__name__}: {error}"  # a bug in the core: said so in one line


def _rechecked(path: Path, progress: Callable[[str], None], cancelled: Callable[[], bool], text: str | None,
               bom: bool, documents: Sequence[SourceDocument], typed: Sequence[str]) -> LoadedSpec:
    """A re-check of the edited texts, on a worker. No full collection scans the spec it builds meanwhile (see
    `collector_paused`). The typed files (`typed`: their names), parsed here, take the typed documents' place
    (see `Workspace.take_loaded`): a JSON file's whole span index is built here too, while the window waits for
    the findings anyway. Built by a job after the re-check, it ran beside the panels drawing the new findings
    (the window had a share of the interpreter lock only: stalls past 100 ms on the GitHub description), and an
    edit made before it was done built it once more on the UI thread."""
    with collector_paused():
        loaded = load_and_lint(path, progress, cancelled, text, bom, documents)
        for name in typed:
            document = loaded.spec.documents.get(name) if loaded.parsed else None
            if cancelled():
                break
            if document is not None and document.format == "json":  # a YAML file's came with its parse
                document.index  # noqa: B018 (built and kept by the document)
        return loaded


class SpecDocument(QObject):
    """One spec at a time. `open` loads off the UI thread; `loaded` or `loadFailed` follows."""

    loaded = Signal(object, object)  # LoadedSpec, LoadKind: the workspace took it; panels show it
    loadFailed = Signal(str, object)  # the one-line message, the LoadRequest
    loadCancelled = Signal()
    busy = Signal(str)  # what the current load is doing; "" when none runs
    changed = Signal(object)  # DocumentChange: a file's edited document was replaced
    edited = Signal(object)  # list[DocumentChange], after a step, an undo or redo, a recovery, a take-in
    modifiedChanged = Signal()  # the unsaved edits or the undo history may differ
    revealed = Signal(object)  # Target: show it
    diskChanged = Signal(object)  # DiskMerge: the files on disk differed from what was read (after acting on it)
    reloadingFromDisk = Signal()  # files changed on disk are read again: what shows them may note its place
    message = Signal(str, int)  # a status message, and for how many milliseconds
    fixFinished = Signal(object, str)  # FixOutcome (never PENDING), the fix's title

    def __init__(self, recovery_dir: Path | Callable[[], Path], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = Workspace(recovery_dir)
        self.jobs = JobRunner(self)
        self.jobs.progress.connect(lambda _job, text: self.busy.emit(text))
        self.jobs.succeeded.connect(self._succeeded)
        self.jobs.failed.connect(self._failed)
        self.jobs.cancelled.connect(self._cancelled)
        # The whole span index of a file that lacks one (a JSON file's is built on demand), built in the background
        # after a re-check or an edit, and once an opened file's text is all shown: the next edit asks for spans,
        # and building it then held the window 1.6 s on the GitHub description. (Built while the source view
        # still takes in a big text, it competes with that for the interpreter lock.) A typed file's comes with its
        # re-check (see `_rechecked`): this builds those of files a re-check brings in.
        self.index_jobs = JobRunner(self, max_threads=1)
        self.fix_jobs = JobRunner(self, max_threads=1)  # a Fix All's preview
        self.fix_jobs.progress.connect(lambda _job, text: self.busy.emit(text))
        self.fix_jobs.succeeded.connect(self._fix_ready)
        self.fix_jobs.failed.connect(self._fix_failed)
        self.fix_jobs.cancelled.connect(self._fix_cancelled)
        # A file with unsaved edits changed on disk: keep mine or reload theirs (the window asks the user).
        self.choose_conflict: Callable[[DiskMerge], ConflictChoice] = lambda _merge: ConflictChoice.MINE
        self.recheck_timer = QTimer(self)
        self.recheck_timer.setSingleShot(True)
        self.recheck_timer.setInterval(RECHECK_DELAY_MS)
        self.recheck_timer.timeout.connect(self.recheck)
        self.typing_timer = QTimer(self)  # a pause in typing makes the keystrokes one step
        self.typing_timer.setSingleShot(True)
        self.typing_timer.setInterval(TYPING_PAUSE_MS)
        self.typing_timer.timeout.connect(self._pause)
        self.workspace.on_settled = self._changed  # the pause, or anything that reads the files
        self.disk_timer = QTimer(self)
        self.disk_timer.setSingleShot(True)
        self.disk_timer.setInterval(DISK_CHECK_DELAY_MS)
        self.disk_timer.timeout.connect(self.check_disk)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self.schedule_disk_check)
        self.watcher.directoryChanged.connect(self._folder_changed)
        self._stamps: dict[str, tuple[int, int, int] | None] = {}  # the spec's files as last compared (see _stamp)
        self._asking = False  # the conflict question is open: checks wait for its answer
        self._check_again = False  # a change arrived while it was open
        self.last_request: LoadRequest | None = None  # what the spec shown was loaded for

    @property
    def spec(self) -> LoadedSpec | None:
        """What is shown (None: nothing open)."""
        return self.workspace.loaded

    # -- loading -------------------------------------------------------------------------------------------------

    @property
    def is_loading(self) -> bool:
        return self.jobs.current is not None

    @property
    def reloaded_from_disk(self) -> bool:
        """The spec shown was read again because its files changed on disk (not opened, nor reloaded on request)."""
        return self.last_request is not None and bool(self.last_request.from_disk)

    @property
    def is_reading(self) -> bool:
        """A file is being opened or reloaded (not a re-check of the edits)."""
        job = self.jobs.current
        return job is not None and job.tag.kind is not LoadKind.RECHECK

    def open(self, path: Path, kind: LoadKind = LoadKind.OPEN, *, from_disk: str = "") -> None:
        """Load and lint `path` on the job runner; the UI stays responsive and `busy` tells the steps.
        `from_disk`: a reload because these files changed on disk (the window keeps its place)."""
        self._start(path, kind, from_disk=from_disk)

    def recheck(self) -> None:
        """Lint the edited files in the background (at their own paths, so relative refs resolve)."""
        ws = self.workspace
        if ws.is_typing:
            return  # the pause makes the typing a step, and that step is re-checked
        if ws.loaded is None or ws.root is None or ws.is_checked():
            return  # nothing open, or the findings shown are those of these texts already
        self._start(ws.loaded.path, LoadKind.RECHECK, ws.root.text, ws.edited_others())

    def _start(self, path: Path, kind: LoadKind, text: str | None = None,
               documents: Sequence[SourceDocument] = (), *, from_disk: str = "") -> None:
        if kind is not LoadKind.RECHECK:
            self.recheck_timer.stop()
        root = self.workspace.root
        bom = root.bom if text is not None and root is not None else False
        documents = tuple(documents)
        # Opening a file lets the collector see the frozen objects again, in case the old spec left cycles; a
        # re-check of edits does not (see `thaw_heap`). The new spec is frozen once built (see `freeze_heap`).
        thaw = kind is not LoadKind.RECHECK
        typed = [name for name, document in self.workspace.edited.items() if isinstance(document, TypedDocument)]

        def work(progress: Callable[[str], None], cancelled: Callable[[], bool]) -> LoadedSpec:
            if not thaw:
                return _rechecked(path, progress, cancelled, text, bom, documents, typed)
            thaw_heap()
            loaded = load_and_lint(path, progress, cancelled, text, bom, documents)
            if not cancelled():
                freeze_heap()
            return loaded

        self.jobs.start(work, LoadRequest(path, kind, dict(self.workspace.edited), from_disk))
        self.busy.emit(f"Opening {path.name}…")

    def cancel(self) -> bool:
        """Stop waiting for the current load or fix preview (the job stops at its next step; its result is
        dropped)."""
        fix = self.fix_jobs.cancel()
        if fix is not None:
            self.busy.emit("")
            self.fixFinished.emit(FixOutcome.DECLINED, fix.tag[0])
        if self.jobs.cancel() is None:
            return fix is not None
        self.busy.emit("")
        self.loadCancelled.emit()
        return True

    def _succeeded(self, job: Job, loaded: LoadedSpec) -> None:
        request: LoadRequest = job.tag
        self.busy.emit("")
        if request.kind is LoadKind.RECHECK and self.workspace.is_typing:
            return  # typed meanwhile: the pause's step is re-checked
        if request.kind is LoadKind.RECHECK and request.edited != self.workspace.edited:
            self.recheck_timer.start()  # edited (or saved) meanwhile: check what is there now
            return
        self.take_loaded(loaded, request.kind, request)

    def take_loaded(self, loaded: LoadedSpec, kind: LoadKind, request: LoadRequest | None = None) -> None:
        """Make `loaded` the spec shown (the panels show it as `loaded` reaches them); `last_request` says why."""
        self.last_request = request
        if self.workspace.take_loaded(loaded, kind):
            self._watch()
        self.loaded.emit(loaded, kind)
        if kind is LoadKind.RECHECK:
            self.index_later()  # an opened file's waits until its text is all shown (see MainWindow)

    def index_later(self) -> None:
        """Build the span index of every edited JSON file without one, on a worker thread (see `index_jobs`)."""
        missing = [document for document in self.workspace.edited.values()
                   if document.format == "json" and not document.is_indexed]  # a YAML file's comes with its parse
        if not missing:
            return

        def work(_progress, cancelled) -> None:
            with collector_paused():  # 200,000 new entries: no full collection over them meanwhile
                for document in missing:
                    if cancelled():
                        return
                    document.index  # noqa: B018 (built and kept by the document)

        self.index_jobs.start(work, "index")

    def _failed(self, job: Job, error: BaseException) -> None:
        self.busy.emit("")
        self.loadFailed.emit(describe_error(error, job.tag.path), job.tag)

    def _cancelled(self, _job: Job) -> None:
        self.busy.emit("")
        self.loadCancelled.emit()

    def shutdown(self) -> None:
        """Before the window closes: no timer fires, no job is awaited (and the running one has ended)."""
        self.recheck_timer.stop()
        self.typing_timer.stop()
        self.disk_timer.stop()
        for jobs in (self.jobs, self.fix_jobs, self.index_jobs):
            jobs.cancel()
            jobs.wait()

    # -- editing -------------------------------------------------------------------------------------------------

    def refuse_while_reading(self) -> bool:
        """A file is being opened or reloaded: an edit made now would be replaced when it arrives (said so)."""
        if not self.is_reading:
            return False
        self.message.emit("The files are being read again: edit once they are shown.", 6000)
        return True

    def type_text(self, name: str, start: int, end: int, text: str) -> None:
        """Text typed into file `name` (its text[start:end] became `text`): gathered until a pause, then one
        undoable step (see `Workspace.type_text`); nothing is parsed until the re-check after it."""
        ws = self.workspace
        began = not ws.is_typing
        ws.type_text(name, start, end, text)
        self.recheck_timer.stop()  # a re-check now would make the typing a step before the pause
        self.typing_timer.start()
        if began:
            self.modifiedChanged.emit()

    def _pause(self) -> None:
        """A pause in typing: the keystrokes become one step (`_changed` hears of it); the unsaved state is said
        again either way (typing that cancelled out leaves the files as they were)."""
        self.workspace.settle()
        self.modifiedChanged.emit()

    def set_document(self, document: SourceDocument, splices: Sequence | None = None) -> None:
        """Make `document` the edited version of its file, outside the undo history."""
        self._changed([self.workspace.set_document(document, splices)])

    def apply(self, outcome: EditOutcome, label: str) -> bool:
        """The applied part of `outcome` as one undoable step; False when nothing applied."""
        return self._changed(self.workspace.apply(outcome, label))

    def apply_preview(self, preview: Preview) -> bool:
        return self._changed(self.workspace.apply_preview(preview))

    def undo(self) -> None:
        self._changed(self.workspace.undo())

    def redo(self) -> None:
        self._changed(self.workspace.redo())

    def recover(self, found: Sequence[tuple[SourceDocument, Recovered]]) -> None:
        """The recovered texts as one undoable step (one that does not parse comes back as text to fix)."""
        self._changed(self.workspace.recover(found))

    def fix(self, entries: Sequence[ProblemEntry], title: str, confirm: Callable[[Preview], bool]) -> FixOutcome:
        """The quick fixes of these findings: previewed, confirmed (`confirm` shows the diff), applied as one step.
        From FIX_IN_BACKGROUND_FROM findings on (a Fix All), the preview is made on a background job (`busy`
        tells its steps, `cancel` stops it): PENDING now, and `fixFinished` says the outcome once confirmed or not.
        `fixFinished` follows every request."""
        self.workspace.settle()  # what was typed becomes its step here, on the UI thread (never on the worker)
        if len(entries) >= FIX_IN_BACKGROUND_FROM:
            ws = self.workspace

            def work(progress: Callable[[str], None], cancelled: Callable[[], bool]) -> Preview | None:
                return ws.fix_preview(entries, title, progress, cancelled)

            self.fix_jobs.start(work, (title, confirm))
            self.busy.emit(f"Preparing the preview of {len(entries)} fixes…")
            return FixOutcome.PENDING
        return self._fix_previewed(self.workspace.fix_preview(entries, title), title, confirm)

    def _fix_ready(self, job: Job, preview: Preview | None) -> None:
        self.busy.emit("")
        title, confirm = job.tag
        self._fix_previewed(preview, title, confirm)

    def _fix_failed(self, job: Job, error: BaseException) -> None:
        self.busy.emit("")
        path = self.spec.path if self.spec is not None else Path(job.tag[0])
        self.workspace.last_refused = [f"Cannot prepare the fixes: {describe_error(error, path)}"]
        self.fixFinished.emit(FixOutcome.REFUSED, job.tag[0])

    def _fix_cancelled(self, job: Job) -> None:
        self.busy.emit("")
        self.fixFinished.emit(FixOutcome.DECLINED, job.tag[0])

    def _fix_previewed(self, preview: Preview | None, title: str, confirm: Callable[[Preview], bool]) -> FixOutcome:
        outcome = self._fix_outcome(preview, confirm)
        self.fixFinished.emit(outcome, title)
        return outcome

    def _fix_outcome(self, preview: Preview | None, confirm: Callable[[Preview], bool]) -> FixOutcome:
        ws = self.workspace
        if preview is None:
            self.message.emit("No fix to apply here.", 5000)
            return FixOutcome.NO_FIX
        if not preview.applied:
            ws.last_refused = preview.refused
            return FixOutcome.REFUSED
        if not confirm(preview) or self.refuse_while_reading():
            return FixOutcome.DECLINED
        if not ws.is_current(preview):
            # A file changed (reloaded from disk) while the preview was open: the outcome describes the old text.
            self.message.emit("A file changed while the preview was open: nothing applied; fix again.", 8000)
            return FixOutcome.STALE
        self.apply_preview(preview)  # one undoable step, whatever number of files it changes
        return FixOutcome.APPLIED

    def offer_recovery(self, ask: Callable[[], bool]) -> bool:
        """Journals newer than their files hold edits that were never saved: when `ask()` agrees, take them back
        (every file of the spec at once, as one undoable step), else forget them."""
        ws = self.workspace
        found = ws.recoverable() if ws.root is not None else []
        if not found:
            return False
        if not ask():
            ws.forget_journals()
            return False
        self.recover(found)
        self.message.emit("Recovered the unsaved edits.", 8000)
        return True

    def _changed(self, changes: list[DocumentChange]) -> bool:
        for change in changes:
            self.changed.emit(change)
            if change.journal_error:
                self.message.emit(change.journal_error, 8000)
        if changes:
            self.edited.emit(changes)
            self.recheck_timer.start()
            self.index_later()
        self.modifiedChanged.emit()
        return bool(changes)

    def save(self) -> list[str]:
        """Write the files with unsaved edits (see `Workspace.save`); raises SaveError."""
        try:
            return self.workspace.save()
        finally:
            self._watch()
            self.modifiedChanged.emit()

    def save_as(self, target: Path) -> None:
        """Write the edits with the root at `target` and open it (see `Workspace.save_as`); raises SaveError."""
        self.workspace.save_as(target)
        self.modifiedChanged.emit()
        self.open(target, LoadKind.OPEN)

    # -- showing -------------------------------------------------------------------------------------------------

    def reveal(self, target: Target) -> None:
        self.revealed.emit(target)

    def reveal_problem(self, entry: ProblemEntry, *, focus: bool = False) -> None:
        """The finding's file at its line and column, its span selected and highlighted; its fix in the form."""
        self.reveal(Target(problem=entry, focus=focus))

    def reveal_operation(self, entry: OperationEntry, *, focus: bool = False) -> None:
        self.reveal(Target(operation=entry, focus=focus))

    def reveal_property(self, entry: PropertyEntry, *, focus: bool = False) -> None:
        """A property of a shared schema: its file at the property, and the property in the form."""
        self.reveal(Target(prop=entry, focus=focus))

    def reveal_location(self, location: Location, *, focus: bool = False) -> None:
        self.reveal(Target(location=location, focus=focus))

    # -- the files on disk ---------------------------------------------------------------------------------------

    def _watch(self) -> None:
        """Watch every file of the spec and their folders (an atomic save by another editor replaces the file's
        inode, so the folder is what reports it)."""
        watched = self.watcher.files() + self.watcher.directories()
        if watched:
            self.watcher.removePaths(watched)
        paths = {os.fspath(path) for path in self.workspace.file_paths.values()}
        self.watcher.addPaths(sorted(paths | {os.path.dirname(path) for path in paths}))
        self._stamps = self._current_stamps()

    def _current_stamps(self) -> dict[str, tuple[int, int, int] | None]:
        return {name: _stamp(path) for name, path in self.workspace.file_paths.items()}

    def _folder_changed(self, _folder: str) -> None:
        """A folder of the spec changed: a check only when one of the spec's own files did (was replaced,
        written, removed); other files written there (a build's output, an editor's backup) are no news."""
        if self._current_stamps() != self._stamps:
            self.schedule_disk_check()

    def schedule_disk_check(self, _path: str = "") -> None:
        self.disk_timer.start()

    def check_disk(self) -> DiskOutcome:
        """Compare the files with what was last read or written and act on it (see `DiskOutcome`); a conflict
        asks `choose_conflict`."""
        ws = self.workspace
        if self._asking:  # one question at a time: what changed meanwhile is compared once it is answered
            self._check_again = True
            return DiskOutcome.SAME
        if ws.loaded is None or self.is_reading:
            return DiskOutcome.SAME  # nothing open, or a file is being (re)loaded
        self._stamps = self._current_stamps()
        merge = ws.merge_from_disk()
        if merge.outcome is not DiskOutcome.MISSING:
            watched = set(self.watcher.files())
            for document in ws.edited.values():  # a file replaced by an atomic save is watched again
                if os.fspath(document.path) not in watched and document.path.is_file():
                    self.watcher.addPath(os.fspath(document.path))
        if merge.outcome is DiskOutcome.CONFLICT:
            self._asking, self._check_again = True, False
            try:
                choice = self.choose_conflict(merge)
            finally:
                self._asking = False
            merge = ws.resolve(merge, choice)
            if self._check_again:
                self.schedule_disk_check()  # changed again while the question was open
        labels = ", ".join(ws.file_label(ws.edited[name]) for name in merge.changed if name in ws.edited)
        if merge.outcome in (DiskOutcome.RELOAD, DiskOutcome.RELOAD_THEIRS):  # (their journals go once loaded)
            self.reloadingFromDisk.emit()
            self.open(ws.loaded.path, LoadKind.RELOAD, from_disk=labels or ws.file_label(ws.root))
        elif merge.outcome in (DiskOutcome.MERGED, DiskOutcome.KEPT):
            self._taken_in(merge)
            self.message.emit(f"{labels} changed on disk: taken in; your edits elsewhere are kept."
                              if merge.outcome is DiskOutcome.MERGED
                              else f"{labels} changed on disk; your edits are kept (Save overwrites it).", 10000)
        if merge.outcome is not DiskOutcome.SAME:
            self.diskChanged.emit(merge)
        return merge.outcome

    def _taken_in(self, merge: DiskMerge) -> None:
        for change in merge.taken:
            self.changed.emit(change)
        for reason in merge.unreadable:
            self.message.emit(f"{reason}: the window keeps the last version it could read.", 10000)
        if merge.history_cleared:
            self.message.emit("Files changed on disk were taken in; the undo history was cleared.", 10000)
        self.edited.emit(list(merge.taken))
        self.modifiedChanged.emit()
        self.recheck_timer.start()
