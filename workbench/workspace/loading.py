"""Loading and linting a spec for the workbench: the same core calls and the same config as the command line.

`load_and_lint` is plain Python with a progress callback and a cancel flag (checked between steps), so the
GUI can run it on any background job and tests can call it directly. The entries it returns are located up
front (off the UI thread) where a view needs them on every show.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from workbench.config import WorkbenchConfig
from workbench.lint import Finding, LintResult
from workbench.lint.engine import parser_result
from workbench.lint.score import Owners, Score, score
from workbench.spec import Location, Operation, SourceDocument, Spec, SpecError, SpecVersion, load_spec
from workbench.spec.model import Components
from workbench.spec.pointer import join
from workbench.spec.source import detect_format, parse_text, read_text
from workbench.workspace.linting import known_names, lint_in_scope, scored, spec_config
from workbench.workspace.typing import TypedDocument


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
    # the config in use, found and read as `workbench lint` and `tools` do (lint and the tool set)
    config: WorkbenchConfig = field(default_factory=WorkbenchConfig)

    @property
    def parsed(self) -> bool:
        """False when a file of the spec does not parse: only its text and the `parser` finding are known."""
        return self.result.spec is not None

    def operations_using(self, document_name: str, pointer: str) -> int:
        """How many of the spec's operations use the node at `pointer` (their own, or reached through `$ref`s)."""
        return len(self.users.of_pointer(document_name, pointer)) if self.parsed else 0

    @cached_property
    def users(self) -> Owners:
        """Which operations use which places: a walk of the whole spec, made when the Edit form first asks."""
        return Owners(self.spec, tuple(self.spec.operations))

    @property
    def config_path(self) -> Path | None:
        """The config file in use, or None for the defaults."""
        return Path(self.config.source) if self.config.source else None


KNOWN_NAMES = known_names()  # what a config may name


def load_and_lint(path: str | Path, progress: Callable[[str], None] = lambda _text: None,
                  cancelled: Callable[[], bool] = lambda: False, text: str | None = None,
                  bom: bool = False, documents: Sequence[SourceDocument] = ()) -> LoadedSpec:
    """Load, lint and score `path` exactly as `workbench lint`/`score` do; raises Cancelled, or SpecError
    when the file cannot be read. With `text`, the root document is that text (unsaved edits) instead of the
    file's; `documents` are edited documents of the spec's other files, used instead of reading those files.
    A file of the spec that does not parse (or is no API description) gives an unparsed spec: its text, and the
    `parser` finding where the command line reports it (`LoadedSpec.parsed` is False)."""
    began = time.perf_counter()
    path = Path(path)

    def step(text: str) -> None:
        if cancelled():
            raise Cancelled
        progress(text)

    step(f"Reading {path.name}…" if text is None else f"Re-checking {path.name}…")
    try:
        # typed texts of the other files are parsed here (off the UI thread); the root's text is parsed by load_spec
        parsed = [parse_text(d.text, d.path, d.name, bom=d.bom) if isinstance(d, TypedDocument) else d
                  for d in documents]
        spec = load_spec(path, text=text, bom=bom, documents=parsed)  # unsaved edits, at their own paths
    except SpecError as error:
        return unparsed_spec(error, path, text, bom, documents, began)
    step(f"Linting {len(spec.operations)} operations…")
    config = spec_config(path)
    result = lint_in_scope(spec, config)
    step("Scoring…")
    readiness = scored(result, config)
    step("Locating findings…")
    problems = tuple(ProblemEntry(f, f.locate()) for f in result.findings)
    operations = tuple(OperationEntry(op, op.origin.locate())
                       for op in (*spec.operations, *spec.webhook_operations))
    path_locations = {(webhook, item.path): item.origin.locate()
                      for webhook, items in ((False, spec.paths), (True, spec.webhooks)) for item in items}
    step("Showing…")
    schemas = schema_entries(spec)
    return LoadedSpec(path, spec, result, readiness, problems, operations, path_locations,
                      time.perf_counter() - began, schemas, config)


def unparsed_spec(error: SpecError, path: Path, text: str | None, bom: bool, documents: Sequence[SourceDocument],
                  began: float) -> LoadedSpec:
    """The spec as text, when a file of it does not parse: the root (as given, or read) and the edited files,
    the failing one holding the `parser` finding's place. Re-raises `error` when that file cannot be read."""
    name = str(path)
    others = {document.name: document for document in documents}
    if text is None:
        text, bom = read_text(path, name)  # a file that cannot be read at all: its own one-line error
    if error.file == name:
        failing, failing_path, failing_bom = text, path, bom
    elif error.file in others:
        failing, failing_path, failing_bom = others[error.file].text, others[error.file].path, others[error.file].bom
    else:
        failing_path = path.parent / error.file
        try:
            failing, failing_bom = read_text(failing_path, error.file)
        except SpecError:
            raise error from None
    result = parser_result(error, failing_path, failing, failing_bom)
    finding = result.findings[0]
    root = finding.document if error.file == name else \
        SourceDocument(path, name, text, detect_format(text), None, bom)
    files = {name: root, **others, finding.document.name: finding.document}
    spec = Spec(root, files, SpecVersion.OPENAPI_3_0, "", {}, (), (), (), (), Components(), (), {}, ())
    return LoadedSpec(path, spec, result, score(result), (ProblemEntry(finding, finding.locate()),), (), {},
                      time.perf_counter() - began, (), spec_config(path))


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


def freeze_heap() -> None:
    """Move everything alive (the spec just built: about 90,000 containers for the 4 MB GitHub description) out
    of the collector's sight. Otherwise the first full collection the UI thread triggers, building its rows,
    scans all of it while holding the interpreter lock: a 50 ms freeze of the window. A replaced spec is still
    freed by reference counting (six loads in a row keep the same memory and the same frozen count)."""
    gc.freeze()


def thaw_heap() -> None:
    """Let the collector see the frozen objects again (before opening a file: the old spec may have left
    cycles). A re-check of edits does not: scanning the old spec too made a 90 ms collection while the window
    waited."""
    gc.unfreeze()


_pause_lock = threading.Lock()
_pauses = [0, False]  # the pauses running now, and whether the collector was on when the first began


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collection while the block runs, on any thread; what is alive when the last pause ends is
    frozen (see `freeze_heap`) before the collector runs again. A worker re-checking the 4 MB GitHub description
    (or building its span index: 200,000 entries) otherwise set off full collections that scanned everything it
    had built so far while holding the interpreter lock: 100 to 200 ms in one piece, with the window unable to
    run a line. Pauses nest and overlap (the index job runs beside a re-check): the collector is on again once
    the last one ends, and only if it was on before the first."""
    with _pause_lock:
        if _pauses[0] == 0:
            _pauses[1] = gc.isenabled()
            gc.disable()
        _pauses[0] += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses[0] -= 1
            if _pauses[0] == 0:
                gc.freeze()  # the new spec or index: never scanned by the collections to come
                if _pauses[1]:
                    gc.enable()
