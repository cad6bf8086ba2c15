"""Pass sequences shared by several vendors (each vendor module says which it uses)."""

from __future__ import annotations

from workbench.spec import Schema
from workbench.tools import passes
from workbench.tools.passes import PassContext, walk


def json_schema_with_defs(parameters: Schema, ctx: PassContext, *, response: bool = False) -> Schema:
    """Refs into `$defs`, allOf merged, oneOf → anyOf, and readOnly properties projected out of requests
    (writeOnly ones out of responses): what most vendors follow."""
    schema = passes.resolve_into_defs(parameters, ctx)
    shaped: dict[str, tuple[Schema, list[str]]] = ctx.shared.setdefault("response" if response else "shaped", {})
    for name, sub in ctx.defs.items():
        if name not in shaped:
            local = PassContext(ctx.spec, defs=ctx.defs, shared=ctx.shared)
            shaped[name] = (_shape(sub, local, response), local.warnings)
    for name in ctx.defs:
        for warning in shaped[name][1]:
            ctx.warn(warning)
    result = _shape(schema, ctx, response)
    ctx.defs = {name: shaped[name][0] for name in ctx.defs}
    return result


def _shape(schema: Schema, ctx: PassContext, response: bool = False) -> Schema:
    schema = walk(schema, passes.merge_all_of(ctx))
    schema = walk(schema, passes.one_of_to_any_of(ctx))
    return walk(schema, passes.project_read_only(ctx, "writeOnly" if response else "readOnly"))


def apply_everywhere(schema: Schema, ctx: PassContext, node_passes) -> Schema:
    """Run each pass over the tool's schema and over every component it uses, in order."""
    for node_pass in node_passes:
        schema = walk(schema, node_pass)
        ctx.defs = {name: walk(sub, node_pass) for name, sub in ctx.defs.items()}
    return schema


def attach_defs(schema: Schema, ctx: PassContext) -> Schema:
    used = {name: sub for name, sub in ctx.defs.items() if sub is not None}
    return {**schema, "$defs": used} if used else schema


def inlined(parameters: Schema, ctx: PassContext) -> Schema:
    """Every ref replaced by its target (recursion cut, and said so), then the same shaping."""
    schema = passes.inline_refs(parameters, ctx)
    return _shape(schema, ctx)
