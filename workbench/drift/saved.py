"""A tool set saved earlier (our `workbench tools --format json` output, or a vendor tool list kept by hand in
any vendor's shape) checked against what the spec produces now: every drift reported as a `Change`, old = the
saved file, new = the spec."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from workbench.drift import places
from workbench.drift.diff import AT_THE_PROPERTY, argument_path
from workbench.drift.model import Change, DriftReport, Where
from workbench.drift.schemas import Walk, canonical, local_resolver, similarity
from workbench.spec import Spec, SpecError
from workbench.spec.pointer import escape, lookup
from workbench.spec.source import SourceDocument, parse_document
from workbench.tools.model import Tool, ToolSet
from workbench.tools.vendors import VENDORS


class SavedTool(NamedTuple):
    name: str
    description: str
    parameters: dict
    pointer: str  # the tool object in the file
    schema_pointer: str  # its parameters schema
    vendor: str | None  # the vendor its shape says (None: several fit)


class SavedSet:
    __slots__ = ("document", "json_schema_form", "mapping", "strict", "tools", "vendor")

    document: SourceDocument
    tools: list[SavedTool]
    vendor: str | None  # the file's own word (our output), else the shape most of its tools have
    mapping: dict[str, dict]  # our output's name → {method, path, operationId}
    strict: bool | None  # the tools say `strict: true` (or all say false); None: they do not say
    json_schema_form: bool  # Gemini's `parametersJsonSchema`

    def __init__(self, document: SourceDocument, tools: list[SavedTool], vendor: str | None,
                 mapping: dict[str, dict], strict: bool | None = None, json_schema_form: bool = False) -> None:
        self.document = document
        self.tools = tools
        self.vendor = vendor
        self.mapping = mapping
        self.strict = strict
        self.json_schema_form = json_schema_form


def read_saved(path: str | Path) -> SavedSet:
    document = parse_document(Path(path))
    data = document.data
    declared = data.get("vendor") if isinstance(data, dict) and data.get("vendor") in VENDORS else None
    mapping = data.get("mapping") if isinstance(data, dict) and isinstance(data.get("mapping"), dict) else {}
    tools = [_tool(item, pointer, document.name) for item, pointer in _items(data, "")]
    if not tools:
        raise SpecError("no tools found: expected `workbench tools` JSON output or a list of vendor tool objects",
                        document.name)
    shapes = Counter(t.vendor for t in tools if t.vendor)
    items = [item.get("function", item) if isinstance(item.get("function"), dict) else item
             for item, _ in _items(data, "")]
    said = {item.get("strict") for item in items if isinstance(item.get("strict"), bool)}
    return SavedSet(document, tools, declared or (shapes.most_common(1)[0][0] if shapes else None), mapping,
                    strict=True if True in said else (False if said else None),
                    json_schema_form=any("parametersJsonSchema" in item for item in items))


def _items(data: Any, pointer: str) -> list[tuple[dict, str]]:
    """Every tool object: a list of them, `{"tools": [...]}`, Gemini's `functionDeclarations` at any level."""
    if isinstance(data, list):
        return [found for i, item in enumerate(data) for found in _items(item, f"{pointer}/{i}")]
    if not isinstance(data, dict):
        return []
    for key in ("tools", "functionDeclarations", "function_declarations"):
        if isinstance(data.get(key), list):
            return _items(data[key], f"{pointer}/{key}")
    return [(data, pointer)] if "name" in data or isinstance(data.get("function"), dict) else []


def _tool(item: dict, pointer: str, file: str) -> SavedTool:
    body, base, vendor = item, pointer, None
    if isinstance(item.get("function"), dict):
        body, base, vendor = item["function"], f"{pointer}/function", "openai"
    elif item.get("type") == "function":
        vendor = "openai-responses"
    elif "input_schema" in item:
        vendor = "anthropic"
    elif "inputSchema" in item:
        vendor = "mcp"
    elif "parametersJsonSchema" in item or "functionDeclarations" in pointer or _gemini_types(item.get("parameters")):
        vendor = "gemini"  # bare {name, description, parameters} fits several vendors: --vendor tells then
    key = next((k for k in ("parameters", "input_schema", "inputSchema", "parametersJsonSchema") if k in body),
               "parameters")
    name = body.get("name")
    if not isinstance(name, str):
        raise SpecError("a tool without a name", file, pointer=base)
    parameters = body.get(key) if isinstance(body.get(key), dict) else {"type": "object", "properties": {}}
    return SavedTool(name, body.get("description") or "", parameters, pointer, f"{base}/{key}", vendor)


def _gemini_types(schema: Any) -> bool:
    """Gemini's own schema form spells types in capitals (`OBJECT`, `STRING`)."""
    return isinstance(schema, dict) and isinstance(schema.get("type"), str) and schema["type"].isupper()


def check_saved(saved: SavedSet, spec: Spec, toolset: ToolSet, saved_label: str, spec_label: str) -> DriftReport:
    report = DriftReport(saved_label, spec_label, toolset.vendor, len(saved.tools), len(toolset.tools))
    pairs, removed, added = _match(saved, toolset.tools)
    for tool in removed:
        report.changes.append(Change("tool-removed", tool.name, "", True, "the spec no longer produces this tool: "
                                     "calls to it are rejected as unknown", old=_where(saved, tool.pointer)))
    for before, after in pairs:
        report.changes += _compare(saved, before, spec, after)
    for tool in added:
        report.changes.append(Change("tool-added", tool.name, "", False, f"the saved set lacks the tool for "
                                     f"{tool.operation.label()}", new=places.tool_place(tool)))
    return report


def _match(saved: SavedSet, tools: list[Tool]) -> tuple[list[tuple[SavedTool, Tool]], list[SavedTool], list[Tool]]:
    """By name; a saved tool our output mapped to an operation also by method + path, then operationId."""
    left = list(tools)
    pairs, removed = [], []
    for tool in saved.tools:
        partner = next((t for t in left if t.name == tool.name), None)
        where = saved.mapping.get(tool.name)
        if partner is None and isinstance(where, dict):
            partner = next((t for t in left if (t.operation.method, t.operation.path) ==
                            (where.get("method"), where.get("path"))), None) or next(
                (t for t in left if where.get("operationId") and t.operation.operation_id == where["operationId"]),
                None)
        if partner is None:
            removed.append(tool)
        else:
            left.remove(partner)
            pairs.append((tool, partner))
    for tool in list(removed):  # renamed: the one tool left whose arguments are exactly the saved one's
        shape = canonical(tool.parameters, local_resolver(tool.parameters))
        same = [t for t in left if canonical(t.parameters, local_resolver(t.parameters)) == shape]
        if len(same) == 1:
            removed.remove(tool)
            left.remove(same[0])
            pairs.append((tool, same[0]))
    return pairs, removed, left


def _compare(saved: SavedSet, before: SavedTool, spec: Spec, after: Tool) -> list[Change]:
    old_place = _where(saved, before.pointer)
    new_place = places.tool_place(after)
    changes = []
    if before.name != after.name:
        changes.append(Change("tool-renamed", before.name, "", True, f"the spec now names it `{after.name}`: calls "
                              f"to `{before.name}` are rejected as unknown", old_place, new_place))
    if before.description != after.description:
        score = similarity(before.description, after.description)
        changes.append(Change("description-changed", before.name, "", False, f"tool description differs "
                              f"({score:.0%} alike): regenerate so the model reads what the spec says",
                              old_place, new_place, score))
    walk = Walk(local_resolver(before.parameters), local_resolver(after.parameters),
                required_new={b.argument: b.required for b in after.bindings})
    for found in walk.compare(before.parameters, after.parameters):
        changes.append(Change(found.kind, before.name, argument_path(found.path), found.breaking, found.reason,
                              _where(saved, _schema_pointer(before, found.path)),
                              places.argument_place(spec, after, found.path, found.kind not in AT_THE_PROPERTY),
                              found.similarity))
    return changes


def _schema_pointer(tool: SavedTool, path: tuple[str, ...]) -> str:
    """Down the saved parameters by property names and `[]`, through their local `$ref`s (`#/$defs/…`)."""
    pointer, node = tool.schema_pointer, tool.parameters
    for segment in path:
        for _ in range(8):
            ref = node.get("$ref") if isinstance(node, dict) else None
            if not (isinstance(ref, str) and ref.startswith("#/")):
                break
            pointer, node = tool.schema_pointer + ref[1:], lookup(tool.parameters, ref[1:], None)
        if not isinstance(node, dict):
            break
        key = "items" if segment == "[]" else f"properties/{escape(segment)}"
        found = lookup(node, f"/{key}", None)
        if found is None:
            break
        pointer, node = f"{pointer}/{key}", found
    return pointer


def _where(saved: SavedSet, pointer: str) -> Where:
    return Where.of(saved.document, pointer)
