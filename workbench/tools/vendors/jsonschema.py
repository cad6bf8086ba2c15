"""Plain JSON Schema 2020-12: the lossless reference. Refs go into $defs and nothing is rewritten, except
that readOnly properties are not asked of the caller (a request schema, not a loss)."""

from __future__ import annotations

from workbench.spec import Schema
from workbench.tools import passes
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext
from workbench.tools.vendors.base import Vendor
from workbench.tools.vendors.common import apply_everywhere, attach_defs


def build(parameters: Schema, ctx: PassContext, is_strict: bool) -> Schema:
    schema = apply_everywhere(passes.resolve_into_defs(parameters, ctx), ctx, (passes.project_read_only(ctx),))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **attach_defs(schema, ctx)}


def wrap(tool: Tool, is_strict: bool) -> dict:
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.parameters}


VENDOR = Vendor("jsonschema", "A-Za-z0-9_-", 64, build, wrap)
