"""Loading and linting off the UI thread.

`load_and_lint` is plain Python (the same core calls and the same config as the command line) and is tested
without Qt; `LoadTask` runs it on a thread pool and reports back through queued signals. Cancelling is
cooperative: the task checks its flag between steps, and the window drops a cancelled task's result at once.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, Signal

from workbench.config import find_config, load_config
from workbench.lint import RULES, Finding, LintResult, lint
from workbench.lint.score import Score, score
from workbench.spec import Location, Operation, SourceDocument, Spec, SpecError, SpecVersion, load_spec
from workbench.spec.pointer import join


class Cancelled(Exception):
    """The load was cancelled between two steps."""


class _Located:
    """An entry with a `location` computed up front (off the UI thread)."""

    __slots__ = ()
    location: Location

    @property
    def start(self):
        """Where it starts, as the command line reports it: the key of a member, else the value."""
        return self.location.key_start or self.location.start


@dataclass(frozen=True, slots=True)
class ProblemEntry(_Located):
    """A finding and where it is."""

    finding: Finding
    location: Location


@dataclass(frozen=True, slots=True)
class OperationEntry(_Located):
    operation: Operation
    location: Location


@dataclass(frozen=True, slots=True)
class PropertyEntry:
    """A property of a shared (component) schema, where it is written."""

    schema: str  # the component's name
    name: str
    document: SourceDocument
    pointer: str
    detail: str  # its type as written, or what its `$ref` names

    @property
    def location(self) -> Location:
        # Asked for when the property is chosen: locating thousands of properties on every re-check cost more
        # than listing them (0.13 of 0.18 s on the OpenAI description).
        return self.document.locate(self.pointer)


@dataclass(frozen=True, slots=True)
class SchemaEntry:
    """A shared (component) schema and its properties, for the outline."""

    name: str
    document: SourceDocument
    pointer: str
    properties: tuple[PropertyEntry, ...]

    @property
    def location(self) -> Location:
        return self.document.locate(self.pointer)


@dataclass(frozen=True)
class LoadedSpec:
    """Everything the window shows for one file: the spec, the lint result and score, located entries."""

    path: Path
    spec: Spec
    result: LintResult
    score: Score
    problems: tuple[ProblemEntry, ...]
    operations: tuple[OperationEntry, ...]  # path operations, then webhooks
    path_locations: dict[tuple[bool, str], Location]  # (webhook?, path) → where the path item sits
    seconds: float
    schemas: tuple[SchemaEntry, ...] = ()  # the component schemas, in the order written

    @property
    def config_path(self) -> Path | None:
        """The lint config in use (the same one `workbench lint` finds), or None for the defaults."""
        return find_config(self.path)


def load_and_lint(path: str | Path, progress: Callable[[str], None] = lambda _text: None,
                  cancelled: Callable[[], bool] = lambda: False, text: str | None = None,
                  bom: bool = False, documents: Sequence[SourceDocument] = ()) -> LoadedSpec:
    """Load, lint and score `path` exactly as `workbench lint`/`score` do; raises SpecError or Cancelled.
    With `text`, the root document is that text (unsaved edits) instead of the file's; `documents` are edited
    documents of the spec's other files, used instead of reading those files."""
    began = time.perf_counter()
    path = Path(path)

    def step(text: str) -> None:
        if cancelled():
            raise Cancelled
        progress(text)

    step(f"Reading {path.name}…" if text is None else f"Re-checking {path.name}…")
    spec = load_spec(path, text=text, bom=bom, documents=documents)  # unsaved edits, at their files' own paths
    step(f"Linting {len(spec.operations)} operations…")
    config = load_config(find_config(path), RULES)
    result = lint(spec, config.lint)
    step("Scoring…")
    readiness = score(result)
    step("Locating findings…")
    problems = tuple(ProblemEntry(f, f.locate()) for f in result.findings)
    operations = tuple(OperationEntry(op, op.origin.locate())
                       for op in (*spec.operations, *spec.webhook_operations))
    path_locations = {(webhook, item.path): item.origin.locate()
                      for webhook, items in ((False, spec.paths), (True, spec.webhooks)) for item in items}
    step("Showing…")
    schemas = schema_entries(spec)
    return LoadedSpec(path, spec, result, readiness, problems, operations, path_locations,
                      time.perf_counter() - began, schemas)


def schema_entries(spec: Spec) -> tuple[SchemaEntry, ...]:
    """The component schemas (`definitions` in Swagger 2.0) with their properties, each where it is written
    (a component that is a `$ref` to another file is listed from that file)."""
    root = spec.root
    if spec.version is SpecVersion.SWAGGER_2_0:
        container, raw = "/definitions", root.data.get("definitions")
    else:
        components = root.data.get("components")
        container, raw = "/components/schemas", components.get("schemas") if isinstance(components, dict) else None
    entries = []
    for name, value in (raw.items() if isinstance(raw, dict) else ()):
        schema, document, pointer = spec.deref(value, root, join(container, name))
        properties = schema.get("properties") if isinstance(schema, dict) else None
        found = []
        for prop, prop_schema in (properties.items() if isinstance(properties, dict) else ()):
            at = join(pointer, "properties", prop)
            found.append(PropertyEntry(name, prop, document, at, _type_label(prop_schema)))
        entries.append(SchemaEntry(name, document, pointer, tuple(found)))
    return tuple(entries)


def _type_label(schema: object) -> str:
    if not isinstance(schema, dict):
        return ""
    if isinstance(schema.get("$ref"), str):
        return "→ " + schema["$ref"].rsplit("/", 1)[-1]
    kind = schema.get("type")
    label = "/".join(str(k) for k in kind) if isinstance(kind, list) else str(kind or "")
    if kind == "array" and isinstance(schema.get("items"), dict):
        label = f"array of {_type_label(schema['items']) or 'items'}"
    return label + (f" ({schema['format']})" if isinstance(schema.get("format"), str) else "")


def _freeze_heap() -> None:
    """Move everything alive (the spec just built: about 90,000 containers for the 4 MB GitHub description) out
    of the collector's sight. Otherwise the first full collection the UI thread triggers, building its rows,
    scans all of it while holding the interpreter lock: a 50 ms freeze of the window. A replaced spec is still
    freed by reference counting (six loads in a row keep the same memory and the same frozen count)."""
    gc.freeze()


class LoadSignals(QObject):
    """Emitted from the worker thread; every signal carries the task's generation number."""

    progress = Signal(int, str)
    loaded = Signal(int, object)  # LoadedSpec
    failed = Signal(int, str)  # the one-line message
    cancelled = Signal(int)
    finished = Signal(int)


class LoadTask(QRunnable):
    """One load + lint on a QThreadPool; `cancel()` sets the flag the steps check."""

    def __init__(self, path: str | Path, generation: int, text: str | None = None, bom: bool = False, *,
                 documents: Sequence[SourceDocument] = (), thaw: bool = True) -> None:
        super().__init__()
        self.documents = tuple(documents)  # edited documents of other files, used instead of reading them
        # Opening a file lets the collector see the frozen objects again, in case the old spec left cycles; a
        # re-check of edits does not: scanning the old spec too made a 90 ms collection while the window waited.
        self.thaw = thaw
        self.text = text  # unsaved edits to lint instead of the file (None: the file)
        self.bom = bom
        self.setAutoDelete(False)  # the window keeps the Python object until `finished`
        self.path = Path(path)
        self.generation = generation
        self.signals = LoadSignals()
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def run(self) -> None:
        gen = self.generation
        if self.thaw:  # the new spec is frozen once built (see `_freeze_heap`)
            gc.unfreeze()
        try:
            loaded = load_and_lint(self.path, lambda text: self.signals.progress.emit(gen, text),
                                   self._cancel.is_set, self.text, self.bom, self.documents)
        except Cancelled:
            self.signals.cancelled.emit(gen)
        except SpecError as exc:
            self.signals.failed.emit(gen, str(exc))
        except OSError as exc:
            self.signals.failed.emit(gen, f"{self.path}: {exc.strerror or exc}")
        except Exception as exc:  # a bug in the core: say so in one line, never a traceback in a dialog
            self.signals.failed.emit(gen, f"internal error: {type(exc).__name__}: {exc}")
        else:
            if self._cancel.is_set():
                self.signals.cancelled.emit(gen)
            else:
                _freeze_heap()
                self.signals.loaded.emit(gen, loaded)
        finally:
            self.signals.finished.emit(gen)
