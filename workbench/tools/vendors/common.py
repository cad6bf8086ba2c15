"""Pass sequences shared by several vendors (each vendor module says which it uses)."""

from __future__ import annotations

from workbench.spec import Schema
from workbench.tools import passes
from workbench.tools.passes import PassContext, walk


def json_schema_with_defs(parameters: Schema, ctx: PassContext) -> Schema:
    """Refs into `$defs`, allOf merged, oneOf → anyOf, readOnly projected out: what most vendors follow."""
    schema = passes.resolve_into_defs(parameters, ctx)
    ctx.defs = {name: _shape(sub, ctx) for name, sub in ctx.defs.items()}
    return _shape(schema, ctx)


def _shape(schema: Schema, ctx: PassContext) -> Schema:
    schema = walk(schema, passes.merge_all_of(ctx))
    schema = walk(schema, passes.one_of_to_any_of(ctx))
    return walk(schema, passes.project_read_only(ctx))


def attach_defs(schema: Schema, ctx: PassContext) -> Schema:
    used = {name: sub for name, sub in ctx.defs.items() if sub is not None}
    return {**schema, "$defs": used} if used else schema


def inlined(parameters: Schema, ctx: PassContext) -> Schema:
    """Every ref replaced by its target (recursion cut, and said so), then the same shaping."""
    schema = passes.inline_refs(parameters, ctx)
    return _shape(schema, ctx)
