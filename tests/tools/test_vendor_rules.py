"""Every emitted tool, checked against the vendors' own SDK models and against the vendors' documented rules
(shared/docs/vendor-tool-formats.md), for the bundled example and a handful of corpus files.

SDK models used: `mcp.types.Tool` / `ListToolsResult` and `mcp.shared.tool_name_validation`,
`google.genai.types.FunctionDeclaration` / `Tool`, `openai.types.chat.ChatCompletionFunctionTool`,
`openai.types.responses.FunctionTool` and the openai SDK's own strict-schema helper (as a reference),
`anthropic.types.ToolParam`. Where a vendor's SDK accepts anything (schemas are `dict[str, Any]`), an
independent checker in this file applies the vendor's rules."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic.types
import google.genai.types as genai_types
import mcp.types
import openai.types.chat
import openai.types.responses
import pydantic
import pytest
from jsonschema import Draft202012Validator
from mcp.shared.tool_name_validation import validate_tool_name
from openai.lib._pydantic import _ensure_strict_json_schema

from tests.catalogue import corpus_dir
from workbench.examples import EXAMPLE_SPEC, example_path
from workbench.spec import Spec, load_spec
from workbench.tools import ConvertOptions, ToolSet, convert

# -- inputs -----------------------------------------------------------------------------------------------

CORPUS_FILES = ("oai-v3.0-petstore-expanded.json", "readme-v3.0-polymorphism.json", "readme-v3.0-schema-circular.json",
                "twilio-verify-v2.yaml", "oai-v2.0-petstore-expanded.yaml", "box-openapi.json")
SPECS = (EXAMPLE_SPEC, *CORPUS_FILES)

# (vendor, strict, gemini_json_schema): every output shape the converter has.
VARIANTS = (("openai", False, False), ("openai", True, False), ("openai-responses", False, False),
            ("openai-responses", True, False), ("anthropic", False, False), ("anthropic", True, False),
            ("gemini", False, False), ("gemini", False, True), ("mcp", False, False), ("jsonschema", False, False))


def _variant_id(variant: tuple[str, bool, bool]) -> str:
    vendor, strict, gemini_json = variant
    return vendor + ("-strict" if strict else "") + ("-json-schema" if gemini_json else "")


def _path(name: str) -> Path:
    if name == EXAMPLE_SPEC:
        return example_path()
    path = corpus_dir() / name
    assert path.is_file(), f"corpus file not found at {path} (set WORKBENCH_CORPUS)"
    return path


@functools.cache
def _spec(name: str) -> Spec:
    return load_spec(_path(name))


@functools.cache
def _toolset(name: str, vendor: str, strict: bool = False, gemini_json: bool = False) -> ToolSet:
    return convert(_spec(name), ConvertOptions(vendor=vendor, strict=strict, json_schema_form=gemini_json))


def _report(problems: list[str], limit: int = 25) -> str:
    shown = problems[:limit]
    more = f"\n… and {len(problems) - limit} more" if len(problems) > limit else ""
    return f"{len(problems)} problem(s):\n" + "\n".join(shown) + more


def _short(value: Any, width: int = 160) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


# -- walking JSON Schemas -----------------------------------------------------------------------------------

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
               "unevaluatedItems", "unevaluatedProperties")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")


def subschemas(schema: Any, path: str = "#") -> Iterator[tuple[str, dict]]:
    """Every subschema (with its JSON pointer), the root included; values of enum/const/default/examples are
    data and are not entered."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from subschemas(sub, f"{path}/{key}/{name}")
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            yield from subschemas(value, f"{path}/{key}")
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from subschemas(sub, f"{path}/{key}/{i}")


def resolve_pointer(root: dict, ref: str) -> Any:
    """A local `#/…` ref inside `root`, or None when it does not resolve."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def is_object_schema(node: dict) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


_METASCHEMA = Draft202012Validator(Draft202012Validator.META_SCHEMA)


@functools.cache
def _metaschema_errors(text: str) -> tuple[str, ...]:
    return tuple(f"{error.message} at {'/'.join(map(str, error.absolute_path)) or '.'}"
                 for error in _METASCHEMA.iter_errors(json.loads(text)))


def metaschema_problems(schema: Any, where: str = "#") -> list[str]:
    """The 2020-12 metaschema's verdict, one schema node at a time (children stood in for by `true`). The
    metaschema checks every subschema on its own, so this is equivalent; identical nodes, which the large
    corpus files repeat in every tool, are checked once."""
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [f"{where}: not a schema: {_short(schema)}"]
    shallow: dict[str, Any] = {}
    children: list[tuple[str, Any]] = []
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            shallow[key] = dict.fromkeys(value, True)
            children += [(f"{where}/{key}/{name}", sub) for name, sub in value.items()]
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            shallow[key] = True
            children.append((f"{where}/{key}", value))
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            shallow[key] = [True] * len(value)
            children += [(f"{where}/{key}/{i}", sub) for i, sub in enumerate(value)]
        else:
            shallow[key] = value
    problems = [f"{where}: not valid JSON Schema 2020-12: {e}"
                for e in _metaschema_errors(json.dumps(shallow, sort_keys=True))]
    for at, sub in children:
        problems += metaschema_problems(sub, at)
    return problems


def json_schema_problems(schema: Any) -> list[str]:
    """A well-formed JSON Schema 2020-12 (per the metaschema) whose refs are all local and resolve."""
    if not isinstance(schema, dict):
        return [f"not a schema object: {_short(schema)}"]
    problems = metaschema_problems(schema)
    for where, node in subschemas(schema):
        ref = node.get("$ref")
        if isinstance(ref, str) and not isinstance(resolve_pointer(schema, ref), dict):
            problems.append(f"{where}: $ref {ref!r} does not resolve inside the tool's schema")
    return problems


def ref_cycles(schema: dict) -> list[str]:
    """The refs that close a cycle reachable from the root (recursion), as 'from -> ref' strings."""
    found: list[str] = []

    def refs_in(node: dict) -> list[str]:
        out = []
        for key, value in node.items():  # this node and its subschemas, but not into $defs (reached by ref)
            if key == "$ref" and isinstance(value, str):
                out.append(value)
        for where, sub in subschemas(node):
            if sub is node or "/$defs/" in where or "/definitions/" in where:
                continue
            ref = sub.get("$ref")
            if isinstance(ref, str):
                out.append(ref)
        return out

    def visit(ref: str, stack: tuple[str, ...]) -> None:
        target = resolve_pointer(schema, ref)
        if not isinstance(target, dict):
            return
        for child in refs_in(target):
            if child in stack:
                found.append(f"{ref} -> {child}")
            elif child not in done:
                visit(child, (*stack, child))
        done.add(ref)

    done: set[str] = set()
    visit("#", ("#",))
    return sorted(set(found))


# -- names ----------------------------------------------------------------------------------------------------

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ANTHROPIC_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # docs allow 128 now; older platforms cap at 64
GEMINI_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")
MCP_NAME = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
NAME_RULES = {"openai": OPENAI_NAME, "openai-responses": OPENAI_NAME, "anthropic": ANTHROPIC_NAME,
              "gemini": GEMINI_NAME, "mcp": MCP_NAME, "jsonschema": OPENAI_NAME}


def native_name(vendor: str, native: dict) -> str:
    return native["function"]["name"] if vendor == "openai" else native["name"]


def native_schema(vendor: str, native: dict) -> Any:
    if vendor == "openai":
        return native["function"].get("parameters")
    if vendor == "openai-responses":
        return native.get("parameters")
    if vendor == "anthropic":
        return native.get("input_schema")
    if vendor == "gemini":
        return native.get("parameters", native.get("parametersJsonSchema"))
    return native.get("inputSchema")


# -- OpenAI strict mode: an independent checker of the documented rules ---------------------------------------

OPENAI_STRICT_FORBIDDEN = ("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "default")
OPENAI_STRICT_FORMATS = frozenset(("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6",
                                   "uuid"))
OPENAI_MAX_DEPTH, OPENAI_MAX_PROPERTIES, OPENAI_MAX_ENUM_VALUES = 10, 5000, 1000
OPENAI_MAX_NAME_AND_ENUM_CHARS, OPENAI_LONG_ENUM, OPENAI_LONG_ENUM_CHARS = 120_000, 250, 15_000


def object_depth(root: dict) -> int:
    """The most objects nested inside one another on any path, refs followed (a recursive ref is not
    followed again: recursion is allowed and has no fixed depth)."""

    def depth(node: Any, stack: tuple[str, ...]) -> int:
        if not isinstance(node, dict):
            return 0
        ref = node.get("$ref")
        if isinstance(ref, str):
            return 0 if ref in stack else depth(resolve_pointer(root, ref), (*stack, ref))
        here = 1 if is_object_schema(node) else 0
        children: list[Any] = []
        for key, value in node.items():
            if key in ("$defs", "definitions"):
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                children += value.values()
            elif key in _SCHEMA_ONE and isinstance(value, dict):
                children.append(value)
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                children += value
        return here + max((depth(c, stack) for c in children), default=0)

    return depth(root, ("#",))


def openai_strict_problems(schema: Any) -> list[str]:
    """OpenAI strict mode (Structured Outputs) rules, applied to a tool's `parameters`."""
    if not isinstance(schema, dict):
        return [f"parameters is not an object schema: {_short(schema)}"]
    problems = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append(f"#: the root must be a plain object schema (type object, not anyOf): {_short(schema)}")
    totals = {"properties": 0, "enum_values": 0, "chars": 0}
    for where, node in subschemas(schema):
        problems += _openai_node_problems(where, node, schema, totals)
    for name in schema.get("$defs") or {}:
        totals["chars"] += len(name)
    return problems + _openai_total_problems(totals, object_depth(schema))


def _openai_node_problems(where: str, node: dict, root: dict, totals: dict[str, int]) -> list[str]:
    """One subschema's strict-mode problems; its properties, enum values and characters are added to `totals`."""
    problems = [f"{where}: {key!r} is not allowed in strict mode" for key in OPENAI_STRICT_FORBIDDEN if key in node]
    ref = node.get("$ref")
    if ref is not None:
        siblings = sorted(k for k in node if k not in ("$ref", "$defs"))
        if siblings:  # the API answers 400 "$ref cannot have keywords {...}"
            problems.append(f"{where}: $ref cannot have keywords {siblings}")
        if not isinstance(ref, str) or not isinstance(resolve_pointer(root, ref), dict):
            problems.append(f"{where}: $ref {ref!r} does not resolve")
    if is_object_schema(node):
        problems += _openai_object_problems(where, node, totals)
    fmt = node.get("format")
    if fmt is not None and fmt not in OPENAI_STRICT_FORMATS:
        problems.append(f"{where}: format {fmt!r} is not a valid strict-mode format")
    enum = node.get("enum")
    if isinstance(enum, list):
        totals["enum_values"] += len(enum)
        strings = [v for v in enum if isinstance(v, str)]
        enum_chars = sum(len(v) for v in strings)
        totals["chars"] += enum_chars
        if len(strings) > OPENAI_LONG_ENUM and enum_chars > OPENAI_LONG_ENUM_CHARS:
            problems.append(f"{where}: a string enum of {len(strings)} values totals {enum_chars} characters "
                            f"(limit {OPENAI_LONG_ENUM_CHARS} past {OPENAI_LONG_ENUM} values)")
    return problems


def _openai_object_problems(where: str, node: dict, totals: dict[str, int]) -> list[str]:
    problems = []
    props = node.get("properties") or {}
    if node.get("additionalProperties") is not False:
        problems.append(f"{where}: additionalProperties must be false, found "
                        f"{_short(node.get('additionalProperties', '<absent>'))}")
    required = node.get("required")
    if not isinstance(required, list) or set(required) != set(props) or len(required) != len(set(required)):
        problems.append(f"{where}: required must list every property exactly: properties "
                        f"{sorted(props)}, required {_short(required)}")
    totals["properties"] += len(props)
    totals["chars"] += sum(len(name) for name in props)
    return problems


def _openai_total_problems(totals: dict[str, int], depth: int) -> list[str]:
    """The limits over the whole schema."""
    problems = []
    if totals["properties"] > OPENAI_MAX_PROPERTIES:
        problems.append(f"{totals['properties']} object properties in total (limit {OPENAI_MAX_PROPERTIES})")
    if totals["enum_values"] > OPENAI_MAX_ENUM_VALUES:
        problems.append(f"{totals['enum_values']} enum values in total (limit {OPENAI_MAX_ENUM_VALUES})")
    if totals["chars"] > OPENAI_MAX_NAME_AND_ENUM_CHARS:
        problems.append(f"{totals['chars']} characters of names and enum values "
                        f"(limit {OPENAI_MAX_NAME_AND_ENUM_CHARS})")
    if depth > OPENAI_MAX_DEPTH:
        problems.append(f"objects nested {depth} deep (limit {OPENAI_MAX_DEPTH})")
    return problems


# -- Anthropic strict tool use ---------------------------------------------------------------------------------

ANTHROPIC_STRICT_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                           "multipleOf")


def anthropic_strict_problems(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return [f"input_schema is not an object schema: {_short(schema)}"]
    problems = []
    if schema.get("type") != "object":
        problems.append(f"#: input_schema root must have type object: {_short(schema)}")
    for where, node in subschemas(schema):
        for key in ANTHROPIC_STRICT_BOUNDS:
            if key in node:
                problems.append(f"{where}: {key}={_short(node[key])} is a bound strict tools do not allow")
        min_items = node.get("minItems")
        if min_items is not None and min_items not in (0, 1):
            problems.append(f"{where}: minItems={min_items} (strict tools allow only 0 or 1)")
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            problems.append(f"{where}: external $ref {ref!r}")
    problems += [f"recursive $ref cycle: {cycle}" for cycle in ref_cycles(schema)]
    return problems


# -- Gemini `parameters` (OpenAPI 3.0 subset) -------------------------------------------------------------------

GEMINI_TYPES = frozenset(t.value for t in genai_types.Type) - {"TYPE_UNSPECIFIED"}
GEMINI_FORBIDDEN = ("oneOf", "allOf", "not", "const", "additionalProperties", "$ref", "$defs", "ref", "defs")


def gemini_subset_problems(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return [f"parameters is not an object schema: {_short(schema)}"]
    problems = []
    if schema.get("type") != "OBJECT":
        problems.append(f"#: the root must have type OBJECT: {_short(schema)}")
    for name in schema.get("properties") or {}:
        if len(name) > 64:
            problems.append(f"parameter name longer than 64 characters: {name!r}")
    for where, node in subschemas(schema):
        kind = node.get("type")
        if kind is not None and kind not in GEMINI_TYPES:
            problems.append(f"{where}: type {_short(kind)} is not one of {sorted(GEMINI_TYPES)}")
        for key in GEMINI_FORBIDDEN:
            if key in node:
                problems.append(f"{where}: {key!r} is not in the Gemini parameters subset (Developer API)")
        enum = node.get("enum")
        if enum is not None and not (isinstance(enum, list) and all(isinstance(v, str) for v in enum)):
            problems.append(f"{where}: enum must hold strings only: {_short(enum)}")
    return problems


# -- the checkers catch what they are meant to catch ----------------------------------------------------------


def test_openai_strict_checker_flags_each_rule():
    good = {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"],
            "additionalProperties": False}
    assert openai_strict_problems(good) == []
    assert openai_strict_problems({"anyOf": [good]})
    assert openai_strict_problems({**good, "additionalProperties": True})
    assert openai_strict_problems({**good, "required": []})
    assert openai_strict_problems({**good, "properties": {"a": {"type": "string", "default": "x"}}})
    assert openai_strict_problems({**good, "properties": {"a": {"allOf": [{"type": "string"}]}}})
    assert openai_strict_problems({**good, "properties": {"a": {"type": "string", "format": "uri"}}})
    with_def = {**good, "properties": {"a": {"$ref": "#/$defs/A", "description": "x"}},
                "$defs": {"A": {"type": "string"}}}
    assert any("$ref cannot have keywords" in p for p in openai_strict_problems(with_def))
    deep: dict = {"type": "string"}
    for _ in range(11):
        deep = {"type": "object", "properties": {"x": deep}, "required": ["x"], "additionalProperties": False}
    assert any("nested 11 deep" in p for p in openai_strict_problems(deep))
    recursive = {**good, "properties": {"a": {"$ref": "#"}}}
    assert openai_strict_problems(recursive) == []  # recursion is allowed
    many = {"type": "object", "properties": {"e": {"enum": [f"v{i}" for i in range(1001)]}}, "required": ["e"],
            "additionalProperties": False}
    assert any("enum values in total" in p for p in openai_strict_problems(many))


def test_anthropic_strict_checker_flags_each_rule():
    good = {"type": "object", "properties": {"a": {"type": "array", "minItems": 1, "items": {"type": "string"}}}}
    assert anthropic_strict_problems(good) == []
    assert anthropic_strict_problems({**good, "properties": {"a": {"type": "integer", "maximum": 3}}})
    assert anthropic_strict_problems({**good, "properties": {"a": {"type": "array", "minItems": 2}}})
    cyclic = {"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
              "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}}
    assert anthropic_strict_problems(cyclic) == ["recursive $ref cycle: #/$defs/Node -> #/$defs/Node"]
    assert anthropic_strict_problems({"type": "object", "properties": {"self": {"$ref": "#"}}})
    shared = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}},
              "$defs": {"A": {"type": "string"}}}
    assert anthropic_strict_problems(shared) == []  # a def used twice is not a cycle


def test_gemini_subset_checker_flags_each_rule():
    good = {"type": "OBJECT", "properties": {"a": {"type": "STRING", "enum": ["x"], "nullable": True}}}
    assert gemini_subset_problems(good) == []
    assert gemini_subset_problems({"type": "object"})
    assert gemini_subset_problems({**good, "additionalProperties": False})
    assert gemini_subset_problems({**good, "properties": {"a": {"type": "INTEGER", "enum": [1, 2]}}})
    assert gemini_subset_problems({**good, "properties": {"a": {"oneOf": [{"type": "STRING"}]}}})


# -- every vendor: names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS, ids=_variant_id)
@pytest.mark.parametrize("spec_name", SPECS)
def test_names_valid_and_unique(spec_name, variant):
    """Tool names: unique within the set, the vendor's pattern, the same in `native` as in `tools`, and no
    operation lost to a conversion error."""
    vendor, strict, gemini_json = variant
    toolset = _toolset(spec_name, vendor, strict, gemini_json)
    problems = [f"{r.method.upper()} {r.path}: {r.reason}" for r in toolset.rejected
                if r.reason.startswith("conversion failed")]
    names = [native_name(vendor, native) for native in toolset.native]
    if names != [tool.name for tool in toolset.tools]:
        problems.append("native tool names differ from toolset.tools names")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        problems.append(f"duplicate tool names: {duplicates}")
    pattern = NAME_RULES[vendor]
    problems += [f"name {name!r} does not match {pattern.pattern}" for name in names if not pattern.fullmatch(name)]
    assert toolset.native, "no tools were produced"
    assert not problems, _report(problems)


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v[0] != "gemini" or v[2]], ids=_variant_id)
@pytest.mark.parametrize("spec_name", SPECS)
def test_parameters_are_well_formed_json_schema(spec_name, variant):
    """Every JSON-Schema-speaking output: an object root, valid per the 2020-12 metaschema, local refs that
    resolve inside the tool's own schema."""
    vendor, strict, gemini_json = variant
    toolset = _toolset(spec_name, vendor, strict, gemini_json)
    problems = []
    for native in toolset.native:
        name = native_name(vendor, native)
        schema = native_schema(vendor, native)
        if not isinstance(schema, dict) or schema.get("type") != "object":
            problems.append(f"{name}: the root is not type object: {_short(schema)}")
        problems += [f"{name}: {p}" for p in json_schema_problems(schema)]
    assert not problems, _report(problems)


# -- MCP ------------------------------------------------------------------------------------------------------

# method → (readOnlyHint, destructiveHint, idempotentHint) from the doc's table; None: left unset.
MCP_METHOD_HINTS = {"get": (True, False, True), "head": (True, False, True), "options": (True, False, True),
                    "post": (False, False, False), "put": (False, True, True), "patch": (False, True, None),
                    "delete": (False, True, True)}
MCP_OVERRIDES = ("x-mcp-read-only-hint", "x-mcp-destructive-hint", "x-mcp-idempotent-hint", "x-mcp-open-world-hint",
                 "x-agent-requires-approval", "x-destructive")


@pytest.mark.parametrize("spec_name", SPECS)
def test_mcp_tools_validate_against_mcp_types(spec_name):
    """`mcp.types.Tool.model_validate` per tool and `ListToolsResult` for the set; nothing the model does not
    know is silently dropped (the dump round-trips); SEP-986 names; object roots for inputSchema and
    outputSchema (required through protocol 2025-11-25), both valid JSON Schema 2020-12."""
    toolset = _toolset(spec_name, "mcp")
    problems = []
    for native in toolset.native:
        name = native.get("name")
        try:
            tool = mcp.types.Tool.model_validate(native)
        except pydantic.ValidationError as exc:
            problems.append(f"{name}: mcp.types.Tool rejects it: {exc}")
            continue
        dumped = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
        if dumped != native:
            lost = sorted(set(native) - set(dumped)) or sorted(set(native.get("annotations", {}))
                                                                 - set(dumped.get("annotations", {})))
            problems.append(f"{name}: mcp.types.Tool does not round-trip (keys unknown to MCP: {lost})")
        result = validate_tool_name(tool.name)
        if not result.is_valid or result.warnings:
            problems.append(f"{name}: SEP-986 name check: {result.warnings}")
        if tool.input_schema.get("type") != "object":
            problems.append(f"{name}: inputSchema root must have type object: {_short(tool.input_schema)}")
        problems += [f"{name}: inputSchema: {p}" for p in json_schema_problems(tool.input_schema)]
        if tool.output_schema is not None:
            if tool.output_schema.get("type") != "object":
                problems.append(f"{name}: outputSchema root must have type object (protocol ≤ 2025-11-25): "
                                f"{_short(tool.output_schema)}")
            problems += [f"{name}: outputSchema: {p}" for p in json_schema_problems(tool.output_schema)]
    try:
        mcp.types.ListToolsResult.model_validate({"tools": toolset.native})
    except pydantic.ValidationError as exc:
        problems.append(f"ListToolsResult rejects the set: {exc}")
    assert not problems, _report(problems)


@pytest.mark.parametrize("spec_name", SPECS)
def test_mcp_annotations(spec_name):
    """`mcp.types.ToolAnnotations` validates; destructiveHint (default true when absent), readOnlyHint and
    openWorldHint are always explicit booleans; without x- overrides the hints follow the method table."""
    toolset = _toolset(spec_name, "mcp")
    problems = []
    for tool, native in zip(toolset.tools, toolset.native, strict=True):
        hints = native.get("annotations")
        if not isinstance(hints, dict):
            problems.append(f"{tool.name}: no annotations")
            continue
        try:
            mcp.types.ToolAnnotations.model_validate(hints)
        except pydantic.ValidationError as exc:
            problems.append(f"{tool.name}: ToolAnnotations rejects it: {exc}")
        for hint in ("destructiveHint", "readOnlyHint", "openWorldHint"):
            if not isinstance(hints.get(hint), bool):
                problems.append(f"{tool.name}: {hint} is not an explicit boolean: {_short(hints)}")
        if hints.get("readOnlyHint") is True and hints.get("destructiveHint") is not False:
            problems.append(f"{tool.name}: read-only but destructiveHint is {hints.get('destructiveHint')!r}")
        op = tool.operation
        if op.method in MCP_METHOD_HINTS and not any(k in op.extensions for k in MCP_OVERRIDES):
            expected = dict(zip(("readOnlyHint", "destructiveHint", "idempotentHint"), MCP_METHOD_HINTS[op.method],
                                strict=True))
            actual = {k: hints.get(k) for k in expected}
            if actual != expected:
                problems.append(f"{tool.name} ({op.method.upper()}): hints {actual}, expected {expected}")
    assert not problems, _report(problems)


# -- Gemini ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec_name", SPECS)
def test_gemini_parameters_validate_against_genai_types(spec_name):
    """`google.genai.types.FunctionDeclaration.model_validate` (extra keys forbidden at every level of the
    `parameters` Schema) per declaration and `types.Tool` for the set; plus the subset rules the SDK model
    does not enforce: OBJECT root, upper-case types, no additionalProperties (Developer API), string enums,
    no oneOf/allOf/not/const/refs, parameter names ≤ 64, and the declaration name pattern."""
    toolset = _toolset(spec_name, "gemini")
    problems = []
    for native in toolset.native:
        name = native.get("name")
        try:
            declaration = genai_types.FunctionDeclaration.model_validate(native)
        except pydantic.ValidationError as exc:
            problems.append(f"{name}: FunctionDeclaration rejects it: {exc}")
            continue
        if declaration.parameters is None or declaration.parameters_json_schema is not None:
            problems.append(f"{name}: expected `parameters` only")
        problems += [f"{name}: {p}" for p in gemini_subset_problems(native.get("parameters"))]
    try:
        genai_types.Tool.model_validate({"functionDeclarations": toolset.native})
    except pydantic.ValidationError as exc:
        problems.append(f"types.Tool rejects the set: {str(exc)[:2000]}")
    assert not problems, _report(problems)


GEMINI_IGNORED = ("oneOf", "allOf")  # accepted by parametersJsonSchema but silently ignored


@pytest.mark.parametrize("spec_name", SPECS)
def test_gemini_json_schema_validate_against_genai_types(spec_name):
    """`FunctionDeclaration.model_validate` with `parametersJsonSchema` (and no `parameters`); an object
    root; no oneOf/allOf, which Gemini would silently ignore (the converter must have rewritten them)."""
    toolset = _toolset(spec_name, "gemini", gemini_json=True)
    problems = []
    for native in toolset.native:
        name = native.get("name")
        try:
            declaration = genai_types.FunctionDeclaration.model_validate(native)
        except pydantic.ValidationError as exc:
            problems.append(f"{name}: FunctionDeclaration rejects it: {exc}")
            continue
        if declaration.parameters is not None or not isinstance(declaration.parameters_json_schema, dict):
            problems.append(f"{name}: expected `parametersJsonSchema` only")
            continue
        schema = declaration.parameters_json_schema
        if schema.get("type") != "object":
            problems.append(f"{name}: parametersJsonSchema root must have type object: {_short(schema)}")
        for where, node in subschemas(schema):
            problems += [f"{name}: {where}: {key!r} would be silently ignored" for key in GEMINI_IGNORED if key in node]
    try:
        genai_types.Tool.model_validate({"functionDeclarations": toolset.native})
    except pydantic.ValidationError as exc:
        problems.append(f"types.Tool rejects the set: {str(exc)[:2000]}")
    assert not problems, _report(problems)


# -- OpenAI ---------------------------------------------------------------------------------------------------

OPENAI_MODELS = {"openai": openai.types.chat.ChatCompletionFunctionTool,
                 "openai-responses": openai.types.responses.FunctionTool}
OPENAI_PARAMS = {"openai": openai.types.chat.ChatCompletionFunctionToolParam,
                 "openai-responses": openai.types.responses.FunctionToolParam}


def _known_keys(model: type[pydantic.BaseModel]) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()}


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("vendor", ["openai", "openai-responses"])
@pytest.mark.parametrize("spec_name", SPECS)
def test_openai_tools_validate_against_openai_types(spec_name, vendor, strict):
    """The openai SDK's pydantic model (ChatCompletionFunctionTool / responses.FunctionTool) and its request
    TypedDict (via a pydantic TypeAdapter) accept every tool, with no keys those models do not declare;
    `strict` is set exactly when asked for (and always sent to the Responses API, where it is a required
    field and an absent one means strict normalisation); parameters has an object root."""
    toolset = _toolset(spec_name, vendor, strict)
    model, adapter = OPENAI_MODELS[vendor], pydantic.TypeAdapter(OPENAI_PARAMS[vendor])
    problems = []
    for native in toolset.native:
        name = native_name(vendor, native)
        try:
            model.model_validate(native)
            adapter.validate_python(native)
        except pydantic.ValidationError as exc:
            problems.append(f"{name}: the openai SDK rejects it: {exc}")
            continue
        function = native["function"] if vendor == "openai" else native
        unknown = set(native) - _known_keys(model)
        if vendor == "openai":
            unknown |= set(function) - _known_keys(openai.types.shared.FunctionDefinition)
        if unknown:
            problems.append(f"{name}: keys the SDK does not declare: {sorted(unknown)}")
        if vendor == "openai-responses" and function.get("strict") is not strict:
            # required by the Responses API: an absent `strict` means "normalise into strict mode if possible"
            problems.append(f"{name}: strict must be sent explicitly as {strict}, found "
                            f"{function.get('strict', '<absent>')!r}")
        elif function.get("strict", False) is not strict:
            problems.append(f"{name}: strict is {function.get('strict')!r}, expected {strict}")
        parameters = function.get("parameters")
        if not isinstance(parameters, dict) or parameters.get("type") != "object":
            problems.append(f"{name}: parameters root must have type object: {_short(parameters)}")
    assert not problems, _report(problems)


@pytest.mark.parametrize("vendor", ["openai", "openai-responses"])
@pytest.mark.parametrize("spec_name", SPECS)
def test_openai_strict_rules(spec_name, vendor):
    """The documented strict-mode rules, checked independently: object root; every object closed
    (additionalProperties false) and listing every property in `required`; no allOf/not/if/then/else/
    dependentRequired/dependentSchemas/default; no keywords beside a $ref; only the supported formats;
    nesting ≤ 10; ≤ 5000 properties; ≤ 1000 enum values; the character limits."""
    toolset = _toolset(spec_name, vendor, True)
    problems = []
    for native in toolset.native:
        name = native_name(vendor, native)
        problems += [f"{name}: {p}" for p in openai_strict_problems(native_schema(vendor, native))]
    assert not problems, _report(problems)


@pytest.mark.parametrize("spec_name", SPECS)
def test_openai_strict_is_a_fixed_point_of_the_sdk_helper(spec_name):
    """Reference: the openai SDK's own strict transformation (`openai.lib._pydantic`, what
    `to_strict_json_schema` applies) finds nothing left to change in our strict parameters."""
    toolset = _toolset(spec_name, "openai", True)
    problems = []
    for native in toolset.native:
        name = native_name("openai", native)
        ours = native["function"]["parameters"]
        theirs = copy.deepcopy(ours)
        try:
            theirs = _ensure_strict_json_schema(theirs, path=(), root=theirs)
        except (TypeError, ValueError, KeyError, AssertionError) as exc:
            problems.append(f"{name}: the SDK helper fails on it: {type(exc).__name__}: {exc}")
            continue
        if theirs != ours:
            problems.append(f"{name}: the SDK helper would change it:\n  ours:   {_short(ours, 400)}\n"
                            f"  theirs: {_short(theirs, 400)}")
    assert not problems, _report(problems)


# -- Anthropic ------------------------------------------------------------------------------------------------

ANTHROPIC_TOOL = pydantic.TypeAdapter(anthropic.types.ToolParam)


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
@pytest.mark.parametrize("spec_name", SPECS)
def test_anthropic_tools_validate_against_anthropic_types(spec_name, strict):
    """`anthropic.types.ToolParam` (through a pydantic TypeAdapter) accepts every tool, with no keys it does
    not declare; input_schema has type object at the root; `strict` set exactly when asked for."""
    toolset = _toolset(spec_name, "anthropic", strict)
    known = set(anthropic.types.ToolParam.__annotations__)
    problems = []
    for native in toolset.native:
        name = native.get("name")
        try:
            ANTHROPIC_TOOL.validate_python(native)
        except pydantic.ValidationError as exc:
            problems.append(f"{name}: anthropic.types.ToolParam rejects it: {exc}")
            continue
        if set(native) - known:
            problems.append(f"{name}: keys ToolParam does not declare: {sorted(set(native) - known)}")
        if native["input_schema"].get("type") != "object":
            problems.append(f"{name}: input_schema root must have type object: {_short(native['input_schema'])}")
        if native.get("strict", False) is not strict:
            problems.append(f"{name}: strict is {native.get('strict')!r}, expected {strict}")
    assert not problems, _report(problems)


@pytest.mark.parametrize("spec_name", SPECS)
def test_anthropic_strict_rules(spec_name):
    """Strict tool use: object root; no numeric/length bounds (minimum, maximum, exclusive*, minLength,
    maxLength, multipleOf); minItems only 0 or 1; no external refs; no recursive $ref cycle."""
    toolset = _toolset(spec_name, "anthropic", True)
    problems = []
    for native in toolset.native:
        problems += [f"{native['name']}: {p}" for p in anthropic_strict_problems(native["input_schema"])]
    assert not problems, _report(problems)
