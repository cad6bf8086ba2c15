"""The suite file: read and checked (`read_suite`), then tied to one tool set (`resolve_suite`).

    format: 1
    spec: ../examples/shop-api.yaml       # relative to the suite file's folder
    tools: {vendor: openai}               # the config's `tools:` keys, overriding the config
    model: {api: offline}                 # or openai-chat / openai-responses with name, base-url, …
    repeats: 3
    cases:
      - id: list-orders
        prompt: Show me my recent orders  # or messages: [{role, content}]
        expect: listOrders                # operationId, tool name or "METHOD /path"; a list (any one of
                                          # them); {all: [a, b]} (every one); or none
        arguments: {status: shipped}      # a subset of the expected values; for {all}: per reference
        tags: [orders]

Reading is two steps because the file names tools by what survives a rename (the operationId, the method
and path) while a run needs the names of the tools actually offered: the tool set is built from the spec,
the config and the suite's own `tools:`, and only then are the references resolved. Every problem is one
`SpecError` at the entry's line and column with its JSON pointer; a reference that resolves only through
its operationId because the tool's name changed is reported as a note, not an error.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema

from workbench.config import Known, WorkbenchConfig, config_for
from workbench.lint import RULES
from workbench.mock.faults import FAULTS
from workbench.selection.model import (
    ALL_OF,
    API_VENDOR,
    APIS,
    NONE,
    ONE_OF,
    Case,
    Expectation,
    ModelSettings,
    Prices,
    Suite,
)
from workbench.spec import RefPolicy, SourceDocument, Spec, SpecError, load_spec
from workbench.spec.pointer import join
from workbench.spec.source import parse_document, parse_text
from workbench.tools.model import ToolSet
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.tools.vendors import VENDORS

SCHEMA_NAME = "selection-suite.schema.json"
NONE_WORD = "none"  # `expect: none`: no tool should be called
_METHOD_PATH = re.compile(r"(?i)(get|put|post|delete|patch|head|options|trace)\s+(/\S*)")

# The `model:` keys → ModelSettings fields (prices is read apart).
_MODEL_KEYS = {"api": "api", "name": "model", "base-url": "base_url", "temperature": "temperature",
               "tool-choice": "tool_choice", "parallel-tool-calls": "parallel_tool_calls",
               "max-tokens": "max_tokens", "system": "system", "seed": "seed", "timeout": "timeout",
               "key-env": "key_env"}
_LIST_TOOLS_KEYS = ("tags", "exclude-tags", "operations")


@dataclass(frozen=True)
class Reference:
    """An expected tool as the suite wrote it, and where."""

    text: str
    pointer: str


@dataclass(frozen=True)
class CaseEntry:
    """A case as read, before its references are resolved against a tool set."""

    id: str
    messages: tuple[Mapping[str, str], ...]
    mode: str  # ONE_OF | ALL_OF | NONE
    references: tuple[Reference, ...]
    arguments: Mapping[str, Any]  # ONE_OF: the values; ALL_OF: {reference: values}
    tags: tuple[str, ...]
    draft: bool
    line: int
    pointer: str  # /cases/<i>


@dataclass(frozen=True)
class SuiteFile:
    """The suite file, read and checked: everything but the tool names."""

    path: Path
    document: SourceDocument
    spec: Path
    tools: ToolOverrides
    model: ModelSettings
    repeats: int
    cases: tuple[CaseEntry, ...]
    sha256: str

    def fail(self, message: str, pointer: str) -> SpecError:
        return _error(self.document, message, pointer)


class Resolved(NamedTuple):
    suite: Suite
    notes: list[str]  # references that still resolve but no longer name the tool (renames), one line each


class OpenedSuite(NamedTuple):
    suite: Suite
    toolset: ToolSet
    spec: Spec
    config: WorkbenchConfig
    notes: list[str]


# -- reading ---------------------------------------------------------------------------------------------------


@cache
def suite_schema() -> dict:
    return json.loads(resource("schemas", SCHEMA_NAME).read_text(encoding="utf-8"))


def resource(*parts: str) -> Path:
    """A bundled file (from a checkout and from a wheel alike)."""
    with as_file(files("workbench.resources").joinpath(*parts)) as path:
        return Path(path)


def read_suite(path: str | os.PathLike[str], *, spec_override: str | os.PathLike[str] | None = None,
               text: str | None = None) -> SuiteFile:
    """Read and check a suite file (YAML or JSON). `spec_override` replaces the file's `spec` (taken as given,
    not relative to the suite); `text` is the file's text as it would be saved at `path` (not read from disk)."""
    path = Path(path)
    if text is None:
        document = parse_document(path, os.fspath(path))
    elif not text.strip():
        raise SpecError("the suite is empty", os.fspath(path), code="file-empty")
    else:
        document = parse_text(text, path, os.fspath(path))
    for problem in document.problems:  # a second `expect:` would silently win: not in a suite
        raise SpecError(problem.message, document.name, line=problem.line, column=problem.column,
                        pointer=problem.pointer)
    data = document.data
    _check_schema(document, data)
    cases = _read_cases(document, data["cases"])
    spec = Path(spec_override) if spec_override is not None else Path(os.path.normpath(path.parent / data["spec"]))
    return SuiteFile(path=path, document=document, spec=spec, tools=_tools(data.get("tools") or {}),
                     model=_model(data.get("model") or {}), repeats=data.get("repeats", 1), cases=cases,
                     sha256=hashlib.sha256(path.read_bytes() if text is None else text.encode("utf-8")).hexdigest())


def _error(document: SourceDocument, message: str, pointer: str) -> SpecError:
    where = document.locate(pointer)
    at = where.key_start or where.start
    return SpecError(message, document.name, line=at.line, column=at.column, pointer=pointer)


def _check_schema(document: SourceDocument, data: Any) -> None:
    """The first error in the file's order, as one line at its entry."""
    validator = jsonschema.Draft202012Validator(suite_schema())
    errors = list(validator.iter_errors(data))
    if not errors:
        return
    error = min(errors, key=lambda e: document.locate(_pointer(e)).start.offset)
    message, pointer = _describe(error)
    raise _error(document, message, pointer)


def _pointer(error: jsonschema.ValidationError) -> str:
    return join("", *error.absolute_path)


def _describe(error: jsonschema.ValidationError) -> tuple[str, str]:
    """A plain sentence for a schema error, and the pointer it is about (an unknown key: the key itself)."""
    pointer = _pointer(error)
    name = f"`{error.absolute_path[-1]}`" if error.absolute_path and isinstance(error.absolute_path[-1], str) \
        else ("the suite" if not pointer else f"entry {pointer}")
    kind = error.validator
    if kind == "additionalProperties":
        known = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(known))
        return f"unknown key {extra[0]!r} (known: {', '.join(known)})", join(pointer, extra[0])
    if kind in ("oneOf", "anyOf"):
        return _describe_choice(error)
    if kind == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        return f"missing required key {missing[0]!r}", pointer
    if kind == "type":
        return f"{name} must be {_article(error.validator_value)}", pointer
    if kind in ("enum", "const"):
        allowed = error.validator_value if kind == "enum" else [error.validator_value]
        return f"{name} is {error.instance!r}; it must be one of: {', '.join(map(str, allowed))}", pointer
    if (kind == "minItems" and error.validator_value == 1) or kind == "minLength":
        return f"{name} must not be empty", pointer
    if kind in _BOUNDS:
        return f"{name} must be {_BOUNDS[kind]} {error.validator_value}", pointer
    return f"{name}: {error.message}", pointer


def _describe_choice(error: jsonschema.ValidationError) -> tuple[str, str]:
    """A value that fits none of the choices: when exactly one choice has the value's type, what is wrong
    inside it (an unknown key first); else the choice's own words."""
    branches: dict[Any, list[jsonschema.ValidationError]] = {}
    for inner in error.context:
        branches.setdefault(inner.relative_schema_path[0], []).append(inner)
    typed = [errors for errors in branches.values()
             if not any(e.validator == "type" and e.absolute_path == error.absolute_path for e in errors)]
    if len(typed) == 1:
        return _describe(min(typed[0], key=lambda e: e.validator != "additionalProperties"))
    if "errorMessage" in error.schema:
        return error.schema["errorMessage"], _pointer(error)
    return _describe(jsonschema.exceptions.best_match(error.context))


_BOUNDS = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
           "exclusiveMaximum": "less than"}


def _article(kind: Any) -> str:
    names = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
             "number": "a number", "boolean": "true or false"}
    kinds = kind if isinstance(kind, list) else [kind]
    return " or ".join(names.get(k, k) for k in kinds)


def _tools(section: Mapping[str, Any]) -> ToolOverrides:
    given = {key.replace("-", "_"): tuple(value) if key in _LIST_TOOLS_KEYS else value
             for key, value in section.items()}
    return ToolOverrides(**given)


def _model(section: Mapping[str, Any]) -> ModelSettings:
    given = {_MODEL_KEYS[key]: value for key, value in section.items() if key in _MODEL_KEYS}
    if "timeout" in given:
        given["timeout"] = float(given["timeout"])
    prices = section.get("prices")
    return ModelSettings(**given, prices=Prices(float(prices["input"]), float(prices["output"])) if prices else None)


def _read_cases(document: SourceDocument, raw: Sequence[Mapping[str, Any]]) -> tuple[CaseEntry, ...]:
    cases: list[CaseEntry] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(raw):
        case = _read_case(document, entry, join("", "cases", i))
        if case.id in seen:
            raise _error(document, f"duplicate case id {case.id!r} (first at line {seen[case.id]})",
                         join(case.pointer, "id"))
        seen[case.id] = case.line
        cases.append(case)
    return tuple(cases)


def _read_case(document: SourceDocument, entry: Mapping[str, Any], pointer: str) -> CaseEntry:
    line = document.locate(pointer).start.line
    name = entry["id"]
    messages = _messages(document, entry, pointer, name)
    mode, references = _expectation(entry["expect"], join(pointer, "expect"))
    arguments = entry.get("arguments") or {}
    if arguments and mode == NONE:
        raise _error(document, f"case {name!r} expects no call, so it cannot expect arguments",
                     join(pointer, "arguments"))
    if mode == ALL_OF:
        for key, values in arguments.items():
            if not isinstance(values, dict):
                raise _error(document, f"case {name!r} expects several calls: `arguments` maps each expected tool "
                             "to its values", join(pointer, "arguments", key))
    return CaseEntry(id=name, messages=messages, mode=mode, references=references, arguments=arguments,
                     tags=tuple(entry.get("tags") or ()), draft=bool(entry.get("draft", False)), line=line,
                     pointer=pointer)


def _messages(document: SourceDocument, entry: Mapping[str, Any], pointer: str,
              name: str) -> tuple[Mapping[str, str], ...]:
    if ("prompt" in entry) == ("messages" in entry):
        both = "prompt" in entry
        raise _error(document, f"case {name!r} needs either `prompt` or `messages`" + (", not both" if both else ""),
                     join(pointer, "messages") if both else pointer)
    if "prompt" in entry:
        return ({"role": "user", "content": entry["prompt"]},)
    messages = tuple({"role": m["role"], "content": m["content"]} for m in entry["messages"])
    if not any(m["role"] == "user" for m in messages):
        raise _error(document, f"case {name!r}: `messages` need at least one user message", join(pointer, "messages"))
    return messages


def _expectation(expect: Any, pointer: str) -> tuple[str, tuple[Reference, ...]]:
    if expect == NONE_WORD:
        return NONE, ()
    if isinstance(expect, str):
        return ONE_OF, (Reference(expect, pointer),)
    if isinstance(expect, list):
        return ONE_OF, tuple(Reference(text, join(pointer, i)) for i, text in enumerate(expect))
    return ALL_OF, tuple(Reference(text, join(pointer, "all", i)) for i, text in enumerate(expect["all"]))


# -- resolving -------------------------------------------------------------------------------------------------


@dataclass
class _Index:
    """A tool set's tools by name, by operationId and by `method /path` (with split unions, one operation
    has several tools: a reference to it means any of them)."""

    names: dict[str, str] = field(default_factory=dict)
    operation_ids: dict[str, list[str]] = field(default_factory=dict)
    labels: dict[str, list[str]] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)  # "get /path" → why the tool set left it out
    variants: set[str] = field(default_factory=set)  # operationIds split into one tool per union variant

    @classmethod
    def of(cls, toolset: ToolSet) -> _Index:
        index = cls()
        for tool in toolset.tools:
            op = tool.operation
            index.names[tool.name] = tool.name
            if op.operation_id:
                index.operation_ids.setdefault(op.operation_id, []).append(tool.name)
                if tool.shape.body_schema is not None:
                    index.variants.add(op.operation_id)
            index.labels.setdefault(f"{op.method.lower()} {op.path}", []).append(tool.name)
        index.left_out = {f"{r.method.lower()} {r.path}": r.reason for r in toolset.rejected if r.method}
        return index

    def candidates(self) -> list[str]:
        return [*self.names, *self.operation_ids, *(_label(key) for key in self.labels)]


def _label(key: str) -> str:
    method, path = key.split(" ", 1)
    return f"{method.upper()} {path}"


def resolve_suite(suite_file: SuiteFile, toolset: ToolSet) -> Resolved:
    """Every case with its expected references turned into tool names of `toolset`. Raises SpecError at the
    reference when one names no tool (with the nearest name as a suggestion)."""
    index = _Index.of(toolset)
    notes: list[str] = []
    cases = tuple(_resolve_case(suite_file, case, index, notes) for case in suite_file.cases)
    suite = Suite(path=suite_file.path, spec=suite_file.spec, tools=suite_file.tools, model=suite_file.model,
                  repeats=suite_file.repeats, cases=cases, sha256=suite_file.sha256)
    return Resolved(suite, notes)


def _resolve_case(suite_file: SuiteFile, case: CaseEntry, index: _Index, notes: list[str]) -> Case:
    groups = [_resolve(suite_file, case, ref, index, notes) for ref in case.references]
    tools = tuple(dict.fromkeys(name for group in groups for name in group))
    expectation = Expectation(case.mode, tools, tuple(ref.text for ref in case.references),
                              tuple(tuple(group) for group in groups) if case.mode == ALL_OF else ())
    return Case(id=case.id, messages=case.messages, expect=expectation,
                arguments=_arguments(suite_file, case, tools, index), tags=case.tags, draft=case.draft,
                line=case.line)


def _resolve(suite_file: SuiteFile, case: CaseEntry, ref: Reference, index: _Index, notes: list[str]) -> list[str]:
    text = ref.text.strip()
    match = _METHOD_PATH.fullmatch(text)
    if match:
        key = f"{match[1].lower()} {match[2]}"
        if key in index.labels:
            return index.labels[key]
        if key in index.left_out:
            raise suite_file.fail(f"case {case.id!r}: expected tool {text!r} is left out of the tool set "
                                  f"({index.left_out[key]})", ref.pointer)
    if text in index.operation_ids:
        names = index.operation_ids[text]
        if text not in names and text not in index.variants:  # a variant's tool is named apart on purpose
            notes.append(f"{suite_file.document.name}:{case.line}: case {case.id!r}: {text!r} matched by operationId; "
                         f"the tool is named {' | '.join(names)!r}")
        return names
    if text in index.names:
        return [text]
    suggestion = difflib.get_close_matches(text, index.candidates(), n=1, cutoff=0.6)
    hint = f"; did you mean {suggestion[0]!r}?" if suggestion else ""
    raise suite_file.fail(f"case {case.id!r}: expected tool {text!r} is not in the tool set{hint}", ref.pointer)


def _arguments(suite_file: SuiteFile, case: CaseEntry, tools: tuple[str, ...],
               index: _Index) -> dict[str, Mapping[str, Any]]:
    if not case.arguments:
        return {}
    if case.mode != ALL_OF:
        return {name: dict(case.arguments) for name in tools}
    by_tool: dict[str, Mapping[str, Any]] = {}
    for key, values in case.arguments.items():
        ref = Reference(key, join(case.pointer, "arguments", key))
        names = [name for name in _resolve(suite_file, case, ref, index, []) if name in tools]
        if not names:
            raise suite_file.fail(f"case {case.id!r}: arguments given for {key!r}, which is not one of the expected "
                                  "tools", ref.pointer)
        by_tool.update({name: dict(values) for name in names})
    return by_tool


# -- opening: the spec, the config, the tool set -----------------------------------------------------------------

KNOWN = Known(rules=RULES, vendors=tuple(VENDORS), faults=FAULTS)


def merge_overrides(suite: ToolOverrides, given: ToolOverrides | None) -> ToolOverrides:
    """What the command line gave wins over the suite's `tools:`, which wins over the config."""
    if given is None:
        return suite
    return ToolOverrides(**{name: getattr(given, name) if getattr(given, name) is not None else value
                            for name, value in suite._asdict().items()})


def open_suite(path: str | os.PathLike[str], *, spec_override: str | os.PathLike[str] | None = None,
               overrides: ToolOverrides | None = None, config_path: str | os.PathLike[str] | None = None,
               policy: RefPolicy | None = None, model: Mapping[str, Any] | None = None) -> OpenedSuite:
    """Read the suite, load its spec and config, build the tool set and resolve the cases against it.
    `model`: ModelSettings fields the command line overrides (None values are not given). The tool set is
    built in the shape the model's API takes (Chat or Responses tools); the offline scorer reads any."""
    suite_file = read_suite(path, spec_override=spec_override)
    suite_file = _for_api(suite_file, _settings(suite_file, model))
    if not suite_file.spec.is_file():
        raise suite_file.fail(f"the suite's spec {os.fspath(suite_file.spec)!r} is not a file", "/spec")
    spec = load_spec(suite_file.spec, policy)
    config = config_for(suite_file.spec, KNOWN, config_path)
    return opened_with(suite_file, spec, config, overrides=overrides)


def _settings(suite_file: SuiteFile, model: Mapping[str, Any] | ModelSettings | None) -> ModelSettings:
    if isinstance(model, ModelSettings):
        return model
    return replace(suite_file.model, **{k: v for k, v in (model or {}).items() if v is not None})


def opened_with(suite_file: SuiteFile, spec: Spec, config: WorkbenchConfig, *,
                overrides: ToolOverrides | None = None,
                model: Mapping[str, Any] | ModelSettings | None = None) -> OpenedSuite:
    """The suite tied to a spec already loaded (the desktop workbench's open spec, edits and all): the tool set
    built in the shape the model's API takes, the cases resolved against it. `model`: the settings to run with
    (whole), or fields overriding the suite's."""
    suite_file = _for_api(suite_file, _settings(suite_file, model))
    toolset = build_toolset(spec, config, merge_overrides(suite_file.tools, overrides))
    suite, notes = resolve_suite(suite_file, toolset)
    return OpenedSuite(suite, toolset, spec, config, notes)


def _for_api(suite_file: SuiteFile, settings: ModelSettings) -> SuiteFile:
    """The suite with these model settings, its tools in the shape their API takes."""
    if settings.api not in APIS:
        raise suite_file.fail(f"unknown model api {settings.api!r} (one of {', '.join(APIS)})", "/model/api")
    wanted = API_VENDOR.get(settings.api)
    # Chat and Responses tools are the same conversion in two envelopes: either follows the API
    if wanted and suite_file.tools.vendor not in (None, *API_VENDOR.values()):
        raise suite_file.fail(f"the suite's tools are for {suite_file.tools.vendor!r}, but {settings.api} takes "
                              f"{wanted!r} tools: leave tools.vendor out, or set it to {wanted}", "/tools/vendor")
    tools = suite_file.tools._replace(vendor=wanted or suite_file.tools.vendor)
    return replace(suite_file, model=settings, tools=tools)
