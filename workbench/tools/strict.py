"""Strict-mode passes: OpenAI's (every property required, optional ones nullable, closed objects) and
Anthropic's (optional properties allowed, no bounds, no recursion)."""

from __future__ import annotations

from collections.abc import Callable

from workbench.spec import Schema
from workbench.tools.passes import PassContext

OPENAI_STRICT_FORBIDDEN = frozenset(("allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
                                     "patternProperties", "unevaluatedProperties", "unevaluatedItems",
                                     "propertyNames", "contains", "minContains", "maxContains"))
OPENAI_STRICT_FORMATS = frozenset(("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6",
                                   "uuid"))
ANTHROPIC_STRICT_FORBIDDEN = frozenset(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                                        "minLength", "maxLength", "maxItems", "multipleOf"))


def _is_object(node: Schema) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind) or "properties" in node


def nullable(schema: Schema) -> Schema:
    """The schema, also admitting null (as strict mode spells an optional property). A schema that already
    admits null (`type: null`, a type list or an `anyOf` member with null) is returned as it is: never a
    second null."""
    kind = schema.get("type")
    if kind == "null" or _has_null_member(schema):
        return schema
    if isinstance(kind, str):
        out = {**schema, "type": [kind, "null"]}
        if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
            out["enum"] = [*schema["enum"], None]
        return out
    if isinstance(kind, list):
        return schema if "null" in kind else {**schema, "type": [*kind, "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def _has_null_member(schema: Schema) -> bool:
    members = schema.get("anyOf")
    return "type" not in schema and isinstance(members, list) and any(
        isinstance(m, dict) and m.get("type") == "null" for m in members)


def inline_ref_with_keywords(ctx: PassContext) -> Callable[[Schema], Schema]:
    """OpenAI strict mode rejects keywords beside a `$ref` ("$ref cannot have keywords"): such a node
    becomes a copy of its target with those keywords on top."""

    def node_pass(node: Schema) -> Schema:
        ref = node.get("$ref")
        if isinstance(ref, str) and len(node) > 1 and ref.startswith("#/$defs/"):
            target = ctx.defs.get(ref[len("#/$defs/"):])
            if isinstance(target, dict):
                return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    return node_pass


_NOTE_KEYS = frozenset(("required", "title", "description"))


def _required_alternatives(node: Schema) -> list[Schema] | None:
    """The members of an object's anyOf that only say which of its properties are required ("one of `category`
    or `categorySlug`"), when every member is such and names only properties the object has."""
    members = node.get("anyOf")
    props = node.get("properties")
    if not isinstance(members, list) or len(members) < 2 or not isinstance(props, dict) or not props:
        return None
    for member in members:
        if not isinstance(member, dict) or not set(member) <= _NOTE_KEYS or not isinstance(
                member.get("required"), list) or not set(member["required"]) <= set(props):
            return None
    return members


def required_alternatives(ctx: PassContext) -> Callable[[Schema], Schema]:
    """An object whose anyOf (a oneOf, once shaped) only lists which properties are required becomes an anyOf
    of whole objects, one per alternative: its own properties required, the other alternatives' ones null, so no
    call gives two, which a oneOf refuses. (An inclusive anyOf reads the same once shaped: a call giving two is
    then out of the tool's reach, never a call the spec refuses.) Strict mode requires every property and reads
    a null as "not given", so the alternatives left as they were held for any call, nulls included, and the
    spec refused it. Such a body is never flattened into the tool's top level, which strict mode allows to be
    one object only."""

    def node_pass(node: Schema) -> Schema:
        members = _required_alternatives(node)
        if members is None:
            return node
        alternatives = [set(member["required"]) for member in members]
        named = set().union(*alternatives)
        outer = {k: v for k, v in node.items() if k in ("description", "title")}
        body = {k: v for k, v in node.items() if k not in ("anyOf", "description", "title")}
        own = set(body.get("required") or [])
        outer["anyOf"] = [
            {**body, **{k: v for k, v in member.items() if k != "required"},
             "properties": {name: ({"type": "null"} if name in named - mine - own else sub)
                            for name, sub in body["properties"].items()},
             "required": [*dict.fromkeys([*(body.get("required") or []), *member["required"]])]}
            for member, mine in zip(members, alternatives, strict=True)]
        return outer

    return node_pass


def openai_strict(ctx: PassContext) -> Callable[[Schema], Schema]:
    def node_pass(node: Schema) -> Schema:
        if _is_object(node):
            props = node.get("properties") or {}
            was_required = set(node.get("required") or [])
            node = {**node, "properties": {name: (sub if name in was_required else nullable(sub))
                                           for name, sub in props.items()},
                    "required": list(props), "additionalProperties": False}
            if not props:
                ctx.warn("a free-form object cannot be expressed in strict mode: it accepts only {}")
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in OPENAI_STRICT_FORMATS:
            node = {k: v for k, v in node.items() if k != "format"}
            if fmt in _INTEGER_RANGES:  # the range is what int32/int64 means: bounds strict mode keeps
                low, high = _INTEGER_RANGES[fmt]
                node["minimum"] = max(low, node["minimum"]) if isinstance(node.get("minimum"), int | float) else low
                node["maximum"] = min(high, node["maximum"]) if isinstance(node.get("maximum"), int | float) else high
            else:
                node["description"] = f"{node.get('description', '')} (format {fmt})".strip()
        return node

    return node_pass


_INTEGER_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def anthropic_strict(ctx: PassContext) -> Callable[[Schema], Schema]:
    def node_pass(node: Schema) -> Schema:
        min_items = node.get("minItems")
        if isinstance(min_items, int) and min_items > 1:
            node = {k: v for k, v in node.items() if k != "minItems"}
            node["description"] = f"{node.get('description', '')} (at least {min_items} items)".strip()
            ctx.warn("Anthropic strict mode allows minItems 0 or 1 only: kept in the description")
        return node

    return node_pass
