"""Anthropic Messages API: `{"name", "description", "input_schema"}`; strict mode keeps optional
properties (unlike OpenAI's), drops bounds into the description and cannot recurse."""

from __future__ import annotations

from workbench.spec import Schema
from workbench.tools import passes, strict
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext
from workbench.tools.vendors.base import Vendor
from workbench.tools.vendors.common import apply_everywhere, attach_defs, json_schema_with_defs

# Anthropic wraps tool definitions in a system prompt of its own (Claude 4.x, tool_choice auto/none).
TOOL_SYSTEM_PROMPT_TOKENS = 346
# Anthropic's per-request limits for strict tools.
STRICT_TOOLS, STRICT_OPTIONAL, STRICT_UNIONS = 20, 24, 16


def build(parameters: Schema, ctx: PassContext, is_strict: bool) -> Schema:
    schema = json_schema_with_defs(parameters, ctx)
    if not is_strict:
        return attach_defs(schema, ctx)
    schema = passes.break_cycles(schema, ctx)  # strict tools cannot recurse
    schema = apply_everywhere(schema, ctx, (
        passes.describe_unsupported(ctx, strict.ANTHROPIC_STRICT_FORBIDDEN, "Anthropic strict mode"),
        strict.anthropic_strict(ctx)))
    return attach_defs(schema, ctx)


def wrap(tool: Tool, is_strict: bool) -> dict:
    native = {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
    if is_strict:
        native["strict"] = True
    return native


def set_checks(tools: list[Tool], is_strict: bool) -> list[str]:
    """Strict mode's limits per request: tools, optional parameters, parameters with union types."""
    if not is_strict:
        return []
    optional = sum(len(set(t.parameters.get("properties", {})) - set(t.parameters.get("required", [])))
                   for t in tools)
    unions = sum(1 for t in tools for p in t.parameters.get("properties", {}).values()
                 if isinstance(p, dict) and ("anyOf" in p or isinstance(p.get("type"), list)))
    return [f"Anthropic strict mode allows {limit} {what} per request; this set has {count}"
            for count, limit, what in ((len(tools), STRICT_TOOLS, "strict tools"),
                                       (optional, STRICT_OPTIONAL, "optional parameters"),
                                       (unions, STRICT_UNIONS, "parameters with union types"))
            if count > limit]


VENDOR = Vendor("anthropic", "A-Za-z0-9_-", 64, build, wrap, overhead_tokens=TOOL_SYSTEM_PROMPT_TOKENS,
                supports_strict=True, set_checks=set_checks)
