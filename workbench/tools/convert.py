"""Operations → tools for one vendor: scope, names, arguments, description, the vendor's schema passes,
its native shape, and token estimates. One operation failing never sinks the set: it is rejected with
its reason."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from workbench.spec import Operation, Spec
from workbench.tools import tokens
from workbench.tools.arguments import build_arguments, pick_media_type
from workbench.tools.describe import describe
from workbench.tools.model import Tool, ToolSet
from workbench.tools.names import assign_names
from workbench.tools.passes import PassContext
from workbench.tools.scope import Scope, select
from workbench.tools.vendors import VENDORS, gemini, mcp
from workbench.tools.vendors.base import Vendor
from workbench.tools.vendors.common import attach_defs, json_schema_with_defs

# Anthropic's per-request limits for strict tools.
ANTHROPIC_STRICT_TOOLS, ANTHROPIC_STRICT_OPTIONAL, ANTHROPIC_STRICT_UNIONS = 20, 24, 16


@dataclass(frozen=True)
class ConvertOptions:
    vendor: str = "openai"
    strict: bool = False
    scope: Scope = field(default_factory=Scope)
    nested: bool = False  # arguments grouped as {path, query, header, cookie, body} instead of flat
    gemini_json_schema: bool = False  # Gemini: `parametersJsonSchema` instead of `parameters`


def vendor_for(options: ConvertOptions) -> Vendor:
    if options.vendor not in VENDORS:
        raise ValueError(f"unknown vendor {options.vendor!r} (known: {', '.join(VENDORS)})")
    if options.vendor == "gemini" and options.gemini_json_schema:
        return gemini.JSON_SCHEMA_VENDOR
    return VENDORS[options.vendor]


def spec_sha256(spec: Spec) -> str:
    digest = hashlib.sha256()
    for name in sorted(spec.documents):
        digest.update(name.encode() + b"\0" + spec.documents[name].text.encode() + b"\0")
    return digest.hexdigest()


def convert(spec: Spec, options: ConvertOptions | None = None) -> ToolSet:
    options = options or ConvertOptions()
    vendor = vendor_for(options)
    strict = options.strict and vendor.supports_strict
    operations, rejected = select(spec, options.scope)
    names, name_notes = assign_names(operations, vendor.name_pattern, vendor.max_name, vendor.name_chars)
    tools: list[Tool] = []
    for index, (op, name) in enumerate(zip(operations, names, strict=True)):
        try:
            tool = _convert_one(spec, op, name, vendor, strict, options)
        except Exception as exc:
            rejected.append({"method": op.method, "path": op.path,
                             "reason": f"conversion failed: {type(exc).__name__}: {exc}"})
            continue
        if index in name_notes:
            tool.warnings.insert(0, name_notes[index])
        tools.append(tool)
    native = [vendor.wrap(tool, strict) for tool in tools]
    warnings = [{"tool": tool.name, "message": message} for tool in tools for message in tool.warnings]
    warnings += _set_warnings(tools, vendor, options, strict)
    return ToolSet(vendor.name, spec_sha256(spec), tools, native, rejected, warnings,
                   tokens.estimate(native, [t.name for t in tools], vendor.overhead_tokens))


def _convert_one(spec: Spec, op: Operation, name: str, vendor: Vendor, strict: bool,
                 options: ConvertOptions) -> Tool:
    parameters, bindings, media_type, warnings = build_arguments(spec, op, nested=options.nested)
    context = PassContext(spec)
    schema = vendor.build(parameters, context, strict)
    description, description_warnings = describe(op)
    tool = Tool(name, description, schema, op, bindings, media_type,
                [*warnings, *description_warnings, *context.warnings])
    if vendor.name == "mcp":
        tool.annotations = mcp.annotations(tool)
        tool.output_schema = _output_schema(spec, op, tool)
    return tool


def _output_schema(spec: Spec, op: Operation, tool: Tool) -> dict | None:
    for response in op.responses:
        if not response.status.startswith("2") or not response.content:
            continue
        media = pick_media_type(response.content)
        schema = response.content[media].schema if media else None
        if not isinstance(schema, dict):
            return None
        context = PassContext(spec)
        shaped = attach_defs(json_schema_with_defs(schema, context), context)
        top = spec.resolve_schema(schema["$ref"]) if "$ref" in schema else schema
        if isinstance(top, dict) and (top.get("type") == "object" or "properties" in top):
            return shaped
        tool.warnings.append("the success response is not an object: no MCP outputSchema")
        return None
    return None


def _set_warnings(tools: list[Tool], vendor: Vendor, options: ConvertOptions, strict: bool) -> list[dict]:
    out = []
    if len(tools) > options.scope.budget:
        out.append({"tool": "", "message": f"{len(tools)} tools exceed the budget of {options.scope.budget}: "
                                           "scope by tag or allowlist (selection accuracy falls with many tools)"})
    if vendor.max_tools and len(tools) > vendor.max_tools:
        out.append({"tool": "", "message": f"{vendor.name} accepts at most {vendor.max_tools} tools per request"})
    if strict and vendor.name == "anthropic":
        optional = sum(len(set(t.parameters.get("properties", {})) - set(t.parameters.get("required", [])))
                       for t in tools)
        unions = sum(1 for t in tools for p in t.parameters.get("properties", {}).values()
                     if isinstance(p, dict) and ("anyOf" in p or isinstance(p.get("type"), list)))
        for count, limit, what in ((len(tools), ANTHROPIC_STRICT_TOOLS, "strict tools"),
                                   (optional, ANTHROPIC_STRICT_OPTIONAL, "optional parameters"),
                                   (unions, ANTHROPIC_STRICT_UNIONS, "parameters with union types")):
            if count > limit:
                out.append({"tool": "", "message": f"Anthropic strict mode allows {limit} {what} per request; "
                                                   f"this set has {count}"})
    return out
