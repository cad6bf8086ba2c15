"""Google Gemini function declarations: `parameters` in the OpenAPI 3.0 subset (refs inlined), or with
`--gemini-json-schema` the plain-JSON-Schema `parametersJsonSchema`."""

from __future__ import annotations

from workbench.spec import Schema
from workbench.tools.gemini_subset import to_gemini
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext, walk
from workbench.tools.vendors.base import Vendor
from workbench.tools.vendors.common import inlined


def build(parameters: Schema, ctx: PassContext, is_strict: bool) -> Schema:
    return walk(inlined(parameters, ctx), to_gemini(ctx))


def wrap(tool: Tool, is_strict: bool) -> dict:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def build_json_schema(parameters: Schema, ctx: PassContext, is_strict: bool) -> Schema:
    return inlined(parameters, ctx)  # Gemini ignores oneOf/allOf silently: merged and rewritten first


def wrap_json_schema(tool: Tool, is_strict: bool) -> dict:
    return {"name": tool.name, "description": tool.description, "parametersJsonSchema": tool.parameters}


JSON_SCHEMA_VENDOR = Vendor("gemini", "A-Za-z0-9_.:-", 64, build_json_schema, wrap_json_schema, max_tools=512)
VENDOR = Vendor("gemini", "A-Za-z0-9_.:-", 64, build, wrap, max_tools=512, json_schema_form=JSON_SCHEMA_VENDOR)
