"""MCP tools: `inputSchema` (JSON Schema, object root), `outputSchema` from the success response when it
is an object, and annotations from `workbench.policy` (the method table, overridden by what the spec
declares: the destructive and approval markers, `x-mcp-read-only-hint`, `x-mcp-idempotent-hint`;
`x-mcp-open-world-hint` is MCP's own)."""

from __future__ import annotations

from workbench.policy import safety
from workbench.spec import Schema
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext
from workbench.tools.vendors.base import Vendor
from workbench.tools.vendors.common import attach_defs, json_schema_with_defs

OPEN_WORLD_HINT = "x-mcp-open-world-hint"


def annotations(tool: Tool) -> dict:
    op = tool.operation
    care = safety(op)
    open_world = op.extensions.get(OPEN_WORLD_HINT)
    hints = {"readOnlyHint": care.read_only, "destructiveHint": care.overwrites,
             "openWorldHint": open_world if isinstance(open_world, bool) else True}
    if care.idempotent is not None:
        hints["idempotentHint"] = care.idempotent
    if op.summary:
        hints["title"] = " ".join(op.summary.split())
    return hints


def build(parameters: Schema, ctx: PassContext, is_strict: bool) -> Schema:
    return attach_defs(json_schema_with_defs(parameters, ctx), ctx)


def wrap(tool: Tool, is_strict: bool) -> dict:
    native = {"name": tool.name, "description": tool.description, "inputSchema": tool.parameters,
              "annotations": tool.annotations}
    if tool.output_schema is not None:
        native["outputSchema"] = tool.output_schema
    return native


VENDOR = Vendor("mcp", "A-Za-z0-9._-", 128, build, wrap)
