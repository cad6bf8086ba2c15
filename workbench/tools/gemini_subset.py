"""Gemini's `parameters` field takes an OpenAPI 3.0 subset: upper-case types, `nullable`, string enums,
no oneOf/allOf/not/const/additionalProperties."""

from __future__ import annotations

from collections.abc import Callable

from workbench.spec import Schema
from workbench.tools.passes import PassContext

KEEP = frozenset(("type", "format", "description", "nullable", "enum", "items", "properties", "required", "anyOf",
                  "minItems", "maxItems", "minimum", "maximum", "title"))
_TYPES = {"string": "STRING", "integer": "INTEGER", "number": "NUMBER", "boolean": "BOOLEAN", "array": "ARRAY",
          "object": "OBJECT"}


_NULL_TYPES = ("null", "NULL")
_DESCRIBED = ("pattern", "minLength", "maxLength", "default", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


def to_gemini(ctx: PassContext) -> Callable[[Schema], Schema]:
    def node_pass(node: Schema) -> Schema:
        node = _null_branch_to_nullable(dict(node))
        _types(node)
        _const_to_enum(node)
        _string_enum(node, ctx)
        _drop_unsupported(node, ctx)
        return node

    return node_pass


def _is_null(schema: object) -> bool:
    return isinstance(schema, dict) and schema.get("type") in _NULL_TYPES


def _null_branch_to_nullable(node: Schema) -> Schema:
    """`anyOf: [X, {type: null}]` → X with `nullable: true` (the other branches stay an anyOf)."""
    any_of = node.get("anyOf")
    if isinstance(any_of, list) and any(_is_null(s) for s in any_of):
        rest = [s for s in any_of if not _is_null(s)]
        node.pop("anyOf")
        if len(rest) == 1 and isinstance(rest[0], dict):
            node = {**rest[0], **{k: v for k, v in node.items() if k != "anyOf"}}
        else:
            node["anyOf"] = rest
        node["nullable"] = True
    return node


def _types(node: Schema) -> None:
    """Upper-case type names; a type list becomes `nullable` and one type, or an anyOf of the types."""
    kind = node.get("type")
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        if "null" in kind:
            node["nullable"] = True
        if len(real) == 1:
            node["type"] = real[0]
        else:
            node.pop("type")
            node["anyOf"] = [{"type": _TYPES.get(k, k)} for k in real]
    if isinstance(node.get("type"), str):
        node["type"] = _TYPES.get(node["type"], node["type"])


def _const_to_enum(node: Schema) -> None:
    """A string `const` is a one-value enum; any other is said in the description."""
    if "const" in node:
        const = node.pop("const")
        node["enum"] = [const] if isinstance(const, str) else node.get("enum")
        if not isinstance(const, str):
            node.pop("enum", None)
            _note(node, f"always {const}")


def _string_enum(node: Schema, ctx: PassContext) -> None:
    """Enums hold strings only (nulls are dropped); any other enum is said in the description."""
    enum = node.get("enum")
    if isinstance(enum, list):
        values = [v for v in enum if v is not None]
        if all(isinstance(v, str) for v in values):
            node["enum"] = values
        else:
            node.pop("enum")
            _note(node, "one of " + ", ".join(str(v) for v in values))
            ctx.warn("Gemini enums hold strings only: a non-string enum is kept in the description")
            if "type" not in node:
                node["type"] = "STRING"


def _drop_unsupported(node: Schema, ctx: PassContext) -> None:
    """Keywords outside the subset go; the constraints a model should still know are said in the description."""
    dropped = sorted(k for k in node if k not in KEEP)
    notes = []
    for key in dropped:
        value = node.pop(key)
        if key in _DESCRIBED:
            notes.append(f"{key} {value}")
    if notes:
        _note(node, "; ".join(notes))
        ctx.warn("Gemini parameters cannot express " + ", ".join(n.split()[0] for n in notes) +
                 ": kept in the description")


def _note(node: Schema, text: str) -> None:
    node["description"] = f"{node.get('description', '')} ({text})".strip()
