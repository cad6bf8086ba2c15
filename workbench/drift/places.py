"""Where a tool, an argument or a response sits in the spec it came from: the operation's `Origin`, the
parameter's, or the request body's schema walked down the argument path (following `$ref`s in the raw
document, so a field of a referenced component is shown where it is written)."""

from __future__ import annotations

from typing import Any

from workbench.drift.model import Where
from workbench.spec import Operation, Spec
from workbench.spec.pointer import MISSING, escape, join, lookup
from workbench.spec.source import SourceDocument
from workbench.tools.model import Tool


def tool_place(tool: Tool) -> Where:
    origin = tool.operation.origin
    return Where.of(origin.document, origin.pointer)


def argument_place(spec: Spec, tool: Tool, path: tuple[str, ...], follow: bool = False) -> Where:
    """The argument at `path` (its first segment is the tool argument's name); with `follow`, where the schema
    it names is defined (an enum or a bound is changed there, not at the property's `$ref`)."""
    if not path:
        return tool_place(tool)
    binding = next((b for b in tool.bindings if b.argument == path[0]), None)
    if binding is None and len(path) > 1:  # --nested: {query: {limit}} is the argument `query.limit`
        nested = f"{path[0]}.{path[1]}"
        binding = next((b for b in tool.bindings if b.argument == nested), None)
        path = (nested, *path[2:])
    op = tool.operation
    if binding is None:
        return tool_place(tool)
    if binding.location in ("path", "query", "header", "cookie"):
        parameter = next((p for p in op.parameters if p.name == binding.name and p.location == binding.location),
                         None)
        if parameter is None:
            return tool_place(tool)
        return Where.of(parameter.origin.document, parameter.origin.pointer)
    segments = (*binding.body_path, *path[1:]) if binding.location == "body-field" else path[1:]
    return body_place(spec, op, tool.media_type, segments, follow)


def body_place(spec: Spec, op: Operation, media_type: str | None, segments: tuple[str, ...],
               follow: bool = False) -> Where:
    body = op.request_body
    if body is None:
        return Where.of(op.origin.document, op.origin.pointer)
    document, base = body.origin.document, body.origin.pointer
    media = media_type or next(iter(body.content), "")
    for candidate in (join(base, "content", media, "schema"), join(base, "schema")):  # 3.x, then a 2.0 body
        if document.has(candidate):
            return schema_place(spec, document, candidate, segments, follow)
    return Where.of(document, base)


def response_place(op: Operation) -> Where:
    response = next((r for r in op.responses if r.status.startswith("2")), None)
    origin = response.origin if response is not None else op.origin
    return Where.of(origin.document, origin.pointer)


def schema_place(spec: Spec, document: SourceDocument, pointer: str, segments: tuple[str, ...],
                 follow: bool = False) -> Where:
    """Down a raw schema by property names, `[]` (items) and `oneOf[i]`…, through `$ref`s."""
    value: Any = lookup(document.data, pointer, MISSING)
    for segment in segments:
        found = _find(spec, value, document, pointer, segment, 0)
        if found is None:
            break
        document, pointer = found
        value = lookup(document.data, pointer, MISSING)
    if follow:
        _, document, pointer = spec.deref(value, document, pointer)
    return Where.of(document, pointer)


def _find(spec: Spec, value: Any, document: SourceDocument, pointer: str, segment: str,
          depth: int) -> tuple[SourceDocument, str] | None:
    """One segment down from a raw schema, through its `$ref` and into its `allOf` parts (where a composed
    body's properties are written)."""
    value, document, pointer = spec.deref(value, document, pointer)
    if not isinstance(value, dict) or depth > 8:
        return None
    step = _step(value, segment)
    if step is not None:
        return document, pointer + step
    parts = value.get("allOf")
    for i, part in enumerate(parts if isinstance(parts, list) else ()):
        found = _find(spec, part, document, f"{pointer}/allOf/{i}", segment, depth + 1)
        if found is not None:
            return found
    return None


def _step(schema: dict, segment: str) -> str | None:
    if segment == "[]":
        return "/items" if "items" in schema else None
    for key in ("oneOf", "anyOf", "allOf"):
        if segment.startswith(f"{key}[") and segment.endswith("]"):
            return f"/{key}/{segment[len(key) + 1:-1]}"
    properties = schema.get("properties")
    if isinstance(properties, dict) and segment in properties:
        return f"/properties/{escape(segment)}"
    return None


def security_place(spec: Spec, op: Operation) -> Where:
    pointer = join(op.origin.pointer, "security")
    if op.origin.document.has(pointer):
        return Where.of(op.origin.document, pointer)
    return Where.of(spec.root, "/security")
