"""OpenAI Chat Completions: `{"type": "function", "function": {...}}`; strict mode closes every object."""

from __future__ import annotations

from workbench.spec import Schema
from workbench.tools import passes, strict
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext
from workbench.tools.vendors.base import Vendor
from workbench.tools.vendors.common import apply_everywhere, attach_defs, json_schema_with_defs


def build(parameters: Schema, ctx: PassContext, is_strict: bool) -> Schema:
    schema = json_schema_with_defs(parameters, ctx)
    if is_strict:
        schema = apply_everywhere(schema, ctx, (
            strict.inline_ref_with_keywords(ctx),
            strict.required_alternatives(ctx),
            passes.describe_unsupported(ctx, strict.OPENAI_STRICT_FORBIDDEN | {"default"}, "OpenAI strict mode"),
            strict.openai_strict(ctx)))
    return attach_defs(schema, ctx)


def wrap(tool: Tool, is_strict: bool) -> dict:
    function = {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    if is_strict:
        function["strict"] = True
    return {"type": "function", "function": function}


VENDOR = Vendor("openai", "A-Za-z0-9_-", 64, build, wrap, max_tools=128, supports_strict=True)
