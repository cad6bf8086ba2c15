"""MCP tools: `inputSchema` (JSON Schema, object root), `outputSchema` from the success response when it
is an object, and annotations from `workbench.policy` (the method table, overridden by what the spec
declares: the destructive and approval markers, `x-mcp-read-only-hint`, `x-mcp-idempotent-hint`;
`x-mcp-open-world-hint` is MCP's own)."""

from __future__ import annotations

from workbench.policy import safety
from workbench.spec import Operation, Schema, Spec
from workbench.tools.arguments import pick_media_type
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


def finish(tool: Tool, spec: Spec, shared: dict) -> None:
    tool.annotations = annotations(tool)
    tool.output_schema = output_schema(spec, tool.operation, tool, shared)


def output_schema(spec: Spec, op: Operation, tool: Tool, shared: dict) -> Schema | None:
    """The first success response's schema, when it is an object (MCP wants `type: object` at the root)."""
    for response in op.responses:
        if not response.status.startswith("2") or not response.content:
            continue
        media = pick_media_type(response.content)
        schema = response.content[media].schema if media else None
        if not isinstance(schema, dict):
            return None
        context = PassContext(spec, shared=shared)
        root = json_schema_with_defs(schema, context, response=True)
        ref = root.get("$ref", "")
        if ref.startswith("#/$defs/"):  # the root itself, not behind a ref
            root = {**context.defs.get(ref[len("#/$defs/"):], {}), **{k: v for k, v in root.items() if k != "$ref"}}
        if root.get("type") == "object" or "properties" in root:
            return attach_defs(root, context)
        tool.warnings.append("the success response is not an object: no MCP outputSchema")
        return None
    return None


# The specification allows 128 characters, but several clients reject names over 64 (Cursor among them;
# clients that pass tools on to OpenAI's API meet its 64): the names keep within 64, collisions resolved.
VENDOR = Vendor("mcp", "A-Za-z0-9._-", 64, build, wrap, finish=finish)
