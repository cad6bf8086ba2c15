"""The workbench config: one reader of `.workbench.yaml`, one typed section per consumer.

    rules:            {rule-id: off|hint|info|warn|error}                 → lint
    thresholds:       {description-min-chars: 30, tool-budget: 40, ...}   → lint (tool-budget: the tool set too)
    ignore:           [{rule: rule-id, pointer: /paths/~1a/get}]          → lint (the pointer and everything under)
    tools:            {vendor: openai, strict: false, tags: [a], exclude-tags: [b], operations: [id1],
                       read-only: false, include-deprecated: false, nested: false, flatten-depth: 0,
                       split-unions: false}                               → the tool set, shared with the team
    mock:             {seed: 0, faults: [{operation: listPets, status: 503, times: 2},   → `workbench mock`
                                         {operation: "GET /pets/{petId}", fault: reset, probability: 0.1}]}

Found as `.workbench.yaml` (or `workbench.yaml`) beside the spec, or given with `--config`. The command
line and the window read it with the same function; what they override is applied in
`workbench.tools.options`. A new section is a named tuple here, a reader function, one entry in
`_SECTIONS` and a field of `WorkbenchConfig`; its JSON Schema is
`resources/schemas/workbench-config.schema.json` (a test keeps both equal).
"""

from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, NamedTuple

from workbench import Frozen
from workbench.spec import Severity, SourceDocument, SpecError
from workbench.spec.pointer import join
from workbench.spec.source import parse_document

CONFIG_NAMES = (".workbench.yaml", "workbench.yaml")

DEFAULT_THRESHOLDS: dict[str, float] = {
    "description-min-chars": 30,
    "tool-budget": 40,
    "max-parameters": 15,
    "max-required-parameters": 7,
    "similarity": 0.85,
}


class LintConfig(Frozen):
    """The lint's section: severities by rule id, thresholds, ignores."""

    __slots__ = ("ignores", "severities", "thresholds")

    severities: dict[str, Severity]
    thresholds: dict[str, float]
    ignores: tuple[tuple[str, str], ...]  # (rule id or "*", JSON pointer)

    def __init__(self, severities: dict[str, Severity] | None = None, thresholds: dict[str, float] | None = None,
                 ignores: tuple[tuple[str, str], ...] = ()) -> None:
        object.__setattr__(self, "severities", {} if severities is None else severities)
        object.__setattr__(self, "thresholds", dict(DEFAULT_THRESHOLDS) if thresholds is None else thresholds)
        object.__setattr__(self, "ignores", ignores)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.severities, self.thresholds, self.ignores) == (other.severities, other.thresholds, other.ignores)

    __hash__ = None  # type: ignore[assignment]  # its maps are not hashable

    def threshold(self, name: str) -> float:
        return self.thresholds.get(name, DEFAULT_THRESHOLDS[name])

    def ignored(self, rule: str, pointer: str) -> bool:
        return any((r == rule or r == "*") and (pointer == p or pointer.startswith(p + "/"))
                   for r, p in self.ignores)


class ToolsConfig(NamedTuple):
    """The tool set's scope and shape as the team agreed it (`tools:`); `None` vendor = the default one."""

    vendor: str | None = None
    strict: bool = False
    tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()
    read_only: bool = False
    include_deprecated: bool = False
    nested: bool = False
    flatten_depth: int = 0
    split_unions: bool = False


class FaultRule(NamedTuple):
    """A fault the mock injects into an operation's answers: `status` (declared or not), `fault` (a way to
    break the connection), `delay_ms`, `retry_after`; for the first `times` requests (then it answers
    normally: "fail 2 times with 503, then succeed"), or with `probability` (seeded), or always."""

    operation: str  # an operationId, or "METHOD /path" as written in the spec
    status: int | None = None
    fault: str | None = None
    delay_ms: int = 0
    retry_after: str | None = None
    times: int | None = None
    probability: float = 1.0


class MockConfig(NamedTuple):
    """The mock's section (`mock:`): the seed of its generated answers and the faults it injects."""

    seed: int = 0
    faults: tuple[FaultRule, ...] = ()


class WorkbenchConfig(NamedTuple):
    """The whole config, one typed section per consumer; `source` names the file it was read from."""

    # Each default section is one object shared by every config without that section: never written to (the lint
    # section's maps included; `with_hints` and the readers make new ones).
    lint: LintConfig = LintConfig()
    tools: ToolsConfig = ToolsConfig()
    source: str | None = None  # the file it was read from; None = the defaults
    mock: MockConfig = MockConfig()


def find_config(spec_path: Path) -> Path | None:
    for name in CONFIG_NAMES:
        candidate = spec_path.parent / name
        if candidate.is_file():
            return candidate
    return None


def config_for(spec_path: str | Path, known: "Known", explicit: str | Path | None = None) -> WorkbenchConfig:
    """The config a spec is checked with: the one given, else the one beside the spec, else the defaults."""
    path = Path(explicit) if explicit else find_config(Path(spec_path))
    return load_config(path, known)


class Known(NamedTuple):
    """The names a config may use that the layers above define: lint rule ids, vendor names, mock faults."""

    rules: Collection[str]
    vendors: Collection[str]
    faults: Collection[str] = ()


def load_config(path: Path | None, known: Known) -> WorkbenchConfig:
    """Read and check the whole file; every problem is one SpecError naming the file, the line and column and
    the pointer of the offending entry."""
    if path is None:
        return WorkbenchConfig()
    name = str(path)
    # The spec reader, so the config gets the same YAML 1.2 reading (`off` is the word, not False), the
    # same encodings and the same one-line errors with line and column.
    document = parse_document(path, name)
    raw = document.data or {}
    if not isinstance(raw, dict):
        raise SpecError("config must be a mapping with rules/thresholds/ignore/tools", name)
    unknown = set(raw) - set(_SECTIONS)
    if unknown:
        raise SpecError(f"unknown config key(s): {', '.join(sorted(unknown))}", name)
    read = {key: reader(raw.get(key), _Reader(document, key, known)) for key, reader in _SECTIONS.items()}
    return WorkbenchConfig(LintConfig(read["rules"], read["thresholds"], read["ignore"]), read["tools"], name,
                           read["mock"])


class _Reader(NamedTuple):
    """Reads one top-level section of a config document: where it is (for errors) and the names it may use."""

    document: SourceDocument
    key: str
    known: Known

    def fail(self, message: str, *tokens: str | int) -> SpecError:
        """The error at the offending entry: file, line and column, and its pointer."""
        pointer = join("", self.key, *tokens)
        start = self.document.locate(pointer).start
        return SpecError(message, self.document.name, line=start.line, column=start.column, pointer=pointer)

    def mapping(self, value: Any) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(f"`{self.key}` must be a mapping")
        return value


def _rules(value: Any, reader: _Reader) -> dict[str, Severity]:
    severities: dict[str, Severity] = {}
    for rule, level in reader.mapping(value).items():
        if rule not in reader.known.rules:
            raise reader.fail(f"unknown rule {rule!r} in config", rule)
        try:
            severities[rule] = Severity.parse(str(level))
        except ValueError as exc:
            raise reader.fail(str(exc), rule) from None
    return severities


def _thresholds(value: Any, reader: _Reader) -> dict[str, float]:
    thresholds = dict(DEFAULT_THRESHOLDS)
    for key, number in reader.mapping(value).items():
        if key not in DEFAULT_THRESHOLDS:
            raise reader.fail(f"unknown threshold {key!r} (known: {', '.join(DEFAULT_THRESHOLDS)})", key)
        if not isinstance(number, (int, float)) or isinstance(number, bool):
            raise reader.fail(f"threshold {key!r} must be a number", key)
        thresholds[key] = number
    return thresholds


def _ignores(value: Any, reader: _Reader) -> tuple[tuple[str, str], ...]:
    if value is not None and not isinstance(value, list):
        raise reader.fail("`ignore` must be a list of {rule, pointer}")
    ignores = []
    for i, entry in enumerate(value or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str) or not isinstance(
                entry.get("pointer", ""), str):
            raise reader.fail("each ignore needs a `rule` and a `pointer`", i)
        ignores.append((entry["rule"], entry.get("pointer", "")))
    return tuple(ignores)


# `tools:` keys → (field, type), the type told by the field's default: a name (None), a flag, a number or a list
# (made a tuple).
_TOOLS_KEYS: dict[str, tuple[str, type]] = {
    name.replace("_", "-"): (name, {type(None): str, bool: bool, int: int}.get(type(default), list))
    for name, default in ToolsConfig._field_defaults.items()
}


def _tools(value: Any, reader: _Reader) -> ToolsConfig:
    given = {}
    for key, item in reader.mapping(value).items():
        if key not in _TOOLS_KEYS:
            raise reader.fail(f"unknown tools option {key!r} (known: {', '.join(_TOOLS_KEYS)})", key)
        name, expected = _TOOLS_KEYS[key]
        if not isinstance(item, expected) or (expected is int and isinstance(item, bool)):
            raise reader.fail(f"tools option {key!r} must be a {expected.__name__}", key)
        if expected is list and not all(isinstance(entry, str) for entry in item):
            raise reader.fail(f"tools option {key!r} must be a list of strings", key)
        if expected is int and item < 0:
            raise reader.fail(f"tools option {key!r} must be 0 or more", key)
        if name == "vendor" and item not in reader.known.vendors:
            raise reader.fail(f"unknown vendor {item!r} (known: {', '.join(reader.known.vendors)})", key)
        given[name] = tuple(item) if expected is list else item
    return ToolsConfig(**given)


_FAULT_KEYS = {"operation": str, "status": int, "fault": str, "delay-ms": int, "retry-after": (str, int),
               "times": int, "probability": (int, float)}


def _mock(value: Any, reader: _Reader) -> MockConfig:
    section = reader.mapping(value)
    unknown = set(section) - {"seed", "faults"}
    if unknown:
        raise reader.fail(f"unknown mock option(s): {', '.join(sorted(unknown))} (known: seed, faults)",
                          sorted(unknown)[0])
    seed = section.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise reader.fail("mock option 'seed' must be an integer", "seed")
    faults = section.get("faults") or []
    if not isinstance(faults, list):
        raise reader.fail("`faults` must be a list of {operation, status|fault|delay-ms, …}", "faults")
    return MockConfig(seed, tuple(_fault_rule(entry, reader, i) for i, entry in enumerate(faults)))


def _fault_rule(entry: Any, reader: _Reader, i: int) -> FaultRule:
    if not isinstance(entry, dict) or not isinstance(entry.get("operation"), str):
        raise reader.fail("each fault needs an `operation` (an operationId or \"METHOD /path\")", "faults", i)
    for key, item in entry.items():
        expected = _FAULT_KEYS.get(key)
        if expected is None:
            raise reader.fail(f"unknown fault option {key!r} (known: {', '.join(_FAULT_KEYS)})", "faults", i, key)
        if not isinstance(item, expected) or isinstance(item, bool):
            raise reader.fail(f"fault option {key!r} has the wrong type", "faults", i, key)
    if entry.get("fault") is not None and entry["fault"] not in reader.known.faults:
        raise reader.fail(f"unknown fault {entry['fault']!r} (known: {', '.join(reader.known.faults)})",
                          "faults", i, "fault")
    if not 0 <= entry.get("probability", 1) <= 1:
        raise reader.fail("`probability` must be between 0 and 1", "faults", i, "probability")
    if not any(k in entry for k in ("status", "fault", "delay-ms")):
        raise reader.fail("a fault needs a `status`, a `fault` or a `delay-ms`", "faults", i)
    retry = entry.get("retry-after")
    return FaultRule(entry["operation"], entry.get("status"), entry.get("fault"), entry.get("delay-ms", 0),
                     str(retry) if retry is not None else None, entry.get("times"), float(entry.get("probability", 1)))


_SECTIONS: dict[str, Callable[[Any, _Reader], Any]] = {
    "rules": _rules, "thresholds": _thresholds, "ignore": _ignores, "tools": _tools, "mock": _mock,
}
