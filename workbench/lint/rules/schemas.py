"""Schemas an agent fills in: typed, described, consistent, and shaped so every vendor can carry them."""

from __future__ import annotations

from workbench.lint.registry import Report, rule
from workbench.lint.schemas import report_pointer, schema_sites, schema_types

_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_TYPED_BY = ("type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not", "properties", "items",
             "additionalProperties", "patternProperties")
MAX_TOOL_DEPTH = 8


@rule("property-description-missing", "warn", "descriptions", "request-body properties are described")
def property_description_missing(spec, context):
    properties = [s for s in schema_sites(spec) if s.role == "request" and s.name and not s.composition and s.depth]
    if not properties:
        return
    described = sum(1 for s in properties if s.description and s.description.strip())
    coverage = round(100 * described / len(properties))
    for site in properties:
        if not (site.description and site.description.strip()):
            yield Report(f"request property {site.name!r} has no description ({coverage}% of request-body "
                         "properties are described): it becomes a tool argument the model must guess",
                         site.document, site.pointer)


@rule("schema-type-missing", "warn", "parameters", "parameters and request properties have a type")
def schema_type_missing(spec, context):
    for site in schema_sites(spec):
        if (site.role in ("parameter", "request") and site.name and not site.composition
                and not any(key in site.schema for key in _TYPED_BY)):
            yield Report(f"{site.name!r} has no type, enum or composition: the model may send anything",
                         site.document, report_pointer(site))


@rule("required-undefined", "error", "parameters", "`required` names only defined properties")
def required_undefined(spec, context):
    for site in schema_sites(spec):
        schema = site.schema
        required = schema.get("required")
        properties = schema.get("properties")
        if not isinstance(required, list) or not isinstance(properties, dict):
            continue
        if any(k in schema for k in ("allOf", "anyOf", "oneOf", "patternProperties")) or isinstance(
                schema.get("additionalProperties"), dict):
            continue  # the property may be defined by a member or a pattern
        for i, name in enumerate(required):
            if isinstance(name, str) and name not in properties:
                yield Report(f"{name!r} is required but not defined in `properties`: the model must send a field "
                             "it cannot see", site.document, f"{site.pointer}/required/{i}")


@rule("required-missing", "info", "parameters", "request objects say which properties are required")
def required_missing(spec, context):
    for site in schema_sites(spec):
        schema = site.schema
        if site.role != "request" or site.composition or not isinstance(schema.get("properties"), dict):
            continue
        if schema["properties"] and "required" not in schema:
            yield Report("this request object has properties but no `required` list: mandatory and optional "
                         "arguments look the same to the model", site.document, site.pointer)


@rule("typed-enum", "warn", "parameters", "enum values match the declared type")
def typed_enum(spec, context):
    for site in schema_sites(spec):
        enum, types = site.schema.get("enum"), schema_types(site.schema)
        if not isinstance(enum, list) or not types or not types <= set(_TYPE_CHECKS):
            continue
        for i, value in enumerate(enum):
            if value is None and (site.schema.get("nullable") is True or "null" in types):
                continue
            if not any(_TYPE_CHECKS[t](value) for t in types):
                yield Report(f"enum value {value!r} is not of type {'/'.join(sorted(types))}", site.document,
                             f"{site.pointer}/enum/{i}")


@rule("duplicated-enum", "warn", "parameters", "enum values are not repeated")
def duplicated_enum(spec, context):
    for site in schema_sites(spec):
        enum = site.schema.get("enum")
        if not isinstance(enum, list):
            continue
        seen: list = []
        for i, value in enumerate(enum):
            if any(value == s and type(value) is type(s) for s in seen):
                yield Report(f"enum value {value!r} is listed twice", site.document, f"{site.pointer}/enum/{i}")
            seen.append(value)


@rule("schema-unfriendly-for-tools", "warn", "parameters",
      "request schemas a vendor drops or mangles: deep, recursive, nested unions, free-form objects")
def schema_unfriendly_for_tools(spec, context):
    for site in schema_sites(spec):
        if site.role not in ("parameter", "request"):
            continue
        schema = site.schema
        if site.recursive:
            yield Report(f"{site.name or 'this schema'!r} refers back to itself: vendors without $ref support cut it "
                         "at a fixed depth", site.document, site.pointer)
        elif site.depth == MAX_TOOL_DEPTH + 1:
            yield Report(f"nested {site.depth} levels deep (over {MAX_TOOL_DEPTH}): flatten it or split the tool",
                         site.document, site.pointer)
        elif site.in_composition and any(k in schema for k in ("oneOf", "anyOf")):
            yield Report("a oneOf/anyOf inside another: most vendors cannot express nested unions", site.document,
                         site.pointer)
        elif (schema_types(schema) == {"object"} and not any(k in schema for k in (
                "properties", "patternProperties", "allOf", "anyOf", "oneOf", "$ref"))
              and schema.get("additionalProperties") in (None, True, {})):
            yield Report(f"{site.name or 'this object'!r} is a free-form object: the model gets no shape to fill "
                         "(strict modes reject it)", site.document, site.pointer)
