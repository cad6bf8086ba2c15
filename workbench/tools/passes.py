"""Small schema passes. Each takes one schema node and returns its replacement; `walk` applies a pass to
every subschema, children first. Vendors pick passes and their order (see vendors/)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from workbench.spec import Schema, Spec

_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties")
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
RECURSION_NOTE = "recursive structure, cut here: give it as a JSON object"


class PassContext:
    __slots__ = ("defs", "shared", "spec", "warnings")

    spec: Spec
    warnings: list[str]
    defs: dict[str, Schema]
    # Shared by every tool of one conversion (one vendor, one mode): a component's rewritten and shaped
    # form is the same whichever tool uses it, so a big spec shapes each component once, not once per tool.
    shared: dict[str, Any]

    def __init__(self, spec: Spec, warnings: list[str] | None = None, defs: dict[str, Schema] | None = None,
                 shared: dict[str, Any] | None = None) -> None:
        self.spec = spec
        self.warnings = [] if warnings is None else warnings
        self.defs = {} if defs is None else defs
        self.shared = {} if shared is None else shared

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)


# A keyword's kind of subschema (one dictionary lookup per keyword instead of three tuple searches)
_MAP, _SINGLE, _LIST = 1, 2, 3
_SUBSCHEMAS = {**dict.fromkeys(_MAPS, _MAP), **dict.fromkeys(_ONE, _SINGLE), **dict.fromkeys(_LISTS, _LIST)}


def map_subschemas(node: Schema, transform: Callable[[Any], Any]) -> Schema:
    """A copy of `node` with `transform` applied to each direct subschema (properties, items, anyOf…)."""
    out = {}
    kinds = _SUBSCHEMAS
    for key, value in node.items():
        kind = kinds.get(key)
        if kind is None:
            out[key] = value
        elif kind == _MAP and isinstance(value, dict):
            out[key] = {name: transform(sub) for name, sub in value.items()}
        elif kind == _SINGLE and isinstance(value, dict):
            out[key] = transform(value)
        elif kind == _LIST and isinstance(value, list):
            out[key] = [transform(sub) for sub in value]
        else:
            out[key] = value
    return out


def walk(schema: Any, node_pass: Callable[[Schema], Any]) -> Any:
    """Apply `node_pass` to every subschema (children first), returning a new tree. (`map_subschemas` written out
    in place: a schema walk is a third of converting a large spec's tools, and a call per node was a third of it.)"""
    if not isinstance(schema, dict):
        return schema
    out = {}
    kinds = _SUBSCHEMAS
    for key, value in schema.items():
        kind = kinds.get(key)
        if kind is None:
            out[key] = value
        elif kind == _MAP and isinstance(value, dict):
            out[key] = {name: walk(sub, node_pass) if isinstance(sub, dict) else sub for name, sub in value.items()}
        elif kind == _SINGLE and isinstance(value, dict):
            out[key] = walk(value, node_pass)
        elif kind == _LIST and isinstance(value, list):
            out[key] = [walk(sub, node_pass) if isinstance(sub, dict) else sub for sub in value]
        else:
            out[key] = value
    return node_pass(out)


def def_name(ref: str) -> str:
    """`#/components/schemas/Pet` → `Pet`; other refs → a readable, JSON-pointer-safe name."""
    if ref.startswith("#/components/schemas/") and ref.count("/") == 3:
        name = ref.rsplit("/", 1)[1]
    else:
        name = ref.replace("#/", "_").strip("#")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name.replace("~1", "/").replace("~0", "~")) or "def"


# -- spec errors that would make a tool schema invalid ------------------------------------------------------

# A `$ref` to one of these names an object that holds a schema, not a schema (a Header Object, a Parameter).
_HOLDS_A_SCHEMA = re.compile(r"#/components/(headers|parameters)/[^/]+\Z")


def schema_target(ctx: PassContext, ref: str, warn: Callable[[str], None]) -> Schema | None:
    """What a schema `$ref` stands for: the spec's schema; for a ref to a Header or Parameter Object used
    as a schema (a spec error), that object's own `schema`, said as a warning."""
    target = ctx.spec.resolve_schema(ref)
    match = _HOLDS_A_SCHEMA.search(ref)
    if match and isinstance(target, dict):
        kind = match.group(1)[:-1]
        warn(f"$ref {ref} names a {kind} object, not a schema: its `schema` is used")
        inner = target.get("schema")
        return inner if isinstance(inner, dict) else {}
    return target


def repair_invalid(node: Schema, warn: Callable[[str], None]) -> Schema:
    """One schema node with spec errors that JSON Schema 2020-12 rejects repaired, each said as a warning:
    a boolean `exclusiveMinimum`/`exclusiveMaximum` (3.0's form, in a 3.1 document) is read as 3.0 reads it."""
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        value = node.get(exclusive)
        if isinstance(value, bool):
            node = {k: v for k, v in node.items() if k != exclusive}
            if value and isinstance(node.get(bound), (int, float)):
                node[exclusive] = node.pop(bound)
            warn(f"a boolean {exclusive} is OpenAPI 3.0's form (JSON Schema wants a number): read as 3.0 reads it")
    return node


# -- resolving refs -------------------------------------------------------------------------------------

def resolve_into_defs(schema: Schema, ctx: PassContext) -> Schema:
    """Rewrite model refs to `#/$defs/<name>` and collect their targets in `ctx.defs` (recursion stays a
    cycle of refs, which vendors that follow refs handle)."""
    cache: dict[str, tuple[Schema, tuple[str, ...], list[str]]] = ctx.shared.setdefault("rewritten", {})
    refs: dict[str, str] = ctx.shared.setdefault("refs", {})
    pending: list[str] = []

    def need(name: str) -> None:
        if name not in ctx.defs:
            ctx.defs[name] = {}  # reserved before processing: cycles end here
            pending.append(name)

    def rewrite(node: Schema, warn: Callable[[str], None] = ctx.warn) -> Schema:
        node = repair_invalid(node, warn)
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#/$defs/"):
            name = def_name(ref)
            refs.setdefault(name, ref)
            need(name)
            node = {**node, "$ref": f"#/$defs/{name}"}
        return node

    result = walk(schema, rewrite)
    while pending:
        name = pending.pop()
        if name not in cache:
            problems: list[str] = []
            target = schema_target(ctx, refs[name], problems.append)
            if target is None:
                problems.append(f"$ref {refs[name]} could not be resolved; the argument accepts any value")
                target = {}
            # walk builds new containers: the model's schema is never changed
            body = walk(target, lambda node, say=problems.append: rewrite(node, say))
            cache[name] = (body, _def_refs(body), problems)
        body, inner, problems = cache[name]
        for problem in problems:
            ctx.warn(problem)
        for other in inner:
            need(other)
        ctx.defs[name] = body
    return result


INLINE_BUDGET = 5000  # schema nodes per tool: past it, deeper refs stay open objects (Kubernetes' PodSpec…)


def inline_refs(schema: Schema, ctx: PassContext, depth: int = 3) -> Schema:
    """Replace every ref by its target. A recursive ref is expanded `depth` times, then cut to an open
    object that says so: the field stays (never dropped silently), only its inner shape is lost. The same
    happens to any ref once the tool has grown past INLINE_BUDGET nodes."""
    budget = [INLINE_BUDGET]

    def expand(node: Any, stack: tuple[str, ...]) -> Any:
        if not isinstance(node, dict):
            return node
        node = repair_invalid(node, ctx.warn)
        budget[0] -= 1
        ref = node.get("$ref")
        if isinstance(ref, str):
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            cut = None
            if stack.count(ref) >= depth:
                cut = f"recursive schema {def_name(ref)} cut after {depth} levels"
            elif budget[0] <= 0:
                cut = f"schema too large to inline: {def_name(ref)} and deeper shapes left open"
            if cut:
                ctx.warn(cut)
                note = siblings.get("description", "")
                return {**siblings, "type": "object",
                        "description": f"{note} ({RECURSION_NOTE if 'recursive' in cut else 'shape omitted'})".strip()}
            target = schema_target(ctx, ref, ctx.warn)
            if target is None:
                ctx.warn(f"$ref {ref} could not be resolved; the argument accepts any value")
                return siblings
            return expand({**copy.deepcopy(target), **siblings}, (*stack, ref))
        return map_subschemas(node, lambda sub: expand(sub, stack))

    return expand(schema, ())


def break_cycles(schema: Schema, ctx: PassContext) -> Schema:
    """With refs in `$defs`: cut every ref that closes a cycle (for vendors that follow refs but not
    recursion), keeping the field as an open object that says so."""
    edges = {name: _def_refs(sub) for name, sub in ctx.defs.items()}
    closing: set[tuple[str, str]] = set()
    state: dict[str, int] = {}

    def visit(name: str) -> None:  # iterative depth-first search marking back edges
        stack = [(name, iter(sorted(edges.get(name, ()))))]
        state[name] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                closing.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(edges.get(child, ())))))

    for name in sorted(edges):
        if name not in state:
            visit(name)
    if not closing:
        return schema

    def cutter(owner: str) -> Callable[[Schema], Schema]:
        def node_pass(node: Schema) -> Schema:
            ref = node.get("$ref")
            if isinstance(ref, str) and (owner, ref[len("#/$defs/"):]) in closing:
                ctx.warn(f"recursive schema {ref[len('#/$defs/'):]} cut: the vendor cannot recurse")
                note = node.get("description", "")
                return {k: v for k, v in node.items() if k != "$ref"} | {
                    "type": "object", "description": f"{note} ({RECURSION_NOTE})".strip()}
            return node

        return node_pass

    ctx.defs = {name: walk(sub, cutter(name)) for name, sub in ctx.defs.items()}
    return schema


def _def_refs(schema: Any) -> tuple[str, ...]:
    """The `$defs` a schema refers to, in the order they first appear (so `$defs` come out in the same
    order on every run, whatever the hash seed)."""
    found: dict[str, None] = {}

    def collect(node: Schema) -> Schema:
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.setdefault(ref[len("#/$defs/"):])
        return node

    walk(schema, collect)
    return tuple(found)


# -- allOf ------------------------------------------------------------------------------------------------

_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def merge_all_of(ctx: PassContext) -> Callable[[Schema], Schema]:
    """allOf → one schema: properties merged (recursively), required united, bounds intersected (the
    tighter wins), types and enums intersected. Members that are refs are read through for merging.
    Unmergeable members (conflicting types) keep the allOf and say so."""

    def node_pass(node: Schema) -> Schema:
        members = node.get("allOf")
        if not isinstance(members, list):
            return node
        merged: Schema = {k: v for k, v in node.items() if k != "allOf"}
        for member in members:
            member = _read_through(member, ctx)
            result = _merge(merged, member)
            if result is None:
                ctx.warn("allOf members with conflicting types were kept as allOf")
                return node
            merged = result
        return merged

    return node_pass


def _read_through(member: Any, ctx: PassContext) -> Schema:
    if isinstance(member, dict) and isinstance(member.get("$ref"), str):
        ref = member["$ref"]
        target = (ctx.defs.get(ref[len("#/$defs/"):]) if ref.startswith("#/$defs/")
                  else schema_target(ctx, ref, ctx.warn))
        rest = {k: v for k, v in member.items() if k != "$ref"}
        if isinstance(target, dict):
            inner = merge_all_of(ctx)(copy.deepcopy(target))
            return {**inner, **rest}
    return member if isinstance(member, dict) else {}


def _merge(a: Schema, b: Schema) -> Schema | None:
    """`b` merged into `a` (a new schema), keyword by keyword; None when their types have nothing in common."""
    out = dict(a)
    for key, value in b.items():
        if key not in out:
            out[key] = copy.deepcopy(value)
            continue
        combine = _KEYWORD_MERGES.get(key)
        if combine is not None:  # any other keyword both have (description, …): the outer (first) one speaks
            merged = combine(out[key], value)
            if merged is _CONFLICT:
                return None
            out[key] = merged
    return out


_CONFLICT: Any = object()


def _type_set(kind: Any) -> set[str]:
    if kind is None:
        return set()
    return {kind} if isinstance(kind, str) else set(kind)


def _merge_type(mine: Any, value: Any) -> Any:
    common = _type_set(mine) & _type_set(value)
    if not common:
        return _CONFLICT
    return next(iter(common)) if len(common) == 1 else sorted(common)


def _merge_properties(mine: Any, value: Any) -> Any:
    if not (isinstance(mine, dict) and isinstance(value, dict)):
        return mine
    props = dict(mine)
    for name, sub in value.items():
        if name in props and isinstance(props[name], dict) and isinstance(sub, dict):
            both = _merge(props[name], sub)
            if both is not None:
                _flags_of_every_member(both, props[name], sub)
            props[name] = both if both is not None else {"allOf": [props[name], sub]}
        else:
            props[name] = sub
    return props


def _flags_of_every_member(merged: Schema, mine: Schema, value: Schema) -> None:
    """A property is readOnly (writeOnly) only if every member that defines it says so: one member's
    flag must not take a property another member asks for out of the request (or the response)."""
    for flag in ("readOnly", "writeOnly"):
        if merged.get(flag) is True and not (mine.get(flag) is True and value.get(flag) is True):
            del merged[flag]


def _merge_required(mine: Any, value: Any) -> Any:
    if isinstance(mine, list) and isinstance(value, list):
        return [*mine, *(r for r in value if r not in mine)]
    return mine


def _merge_enum(mine: Any, value: Any) -> Any:
    return [v for v in mine if v in value] if isinstance(mine, list) and isinstance(value, list) else mine


def _tighter(pick: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def bound(mine: Any, value: Any) -> Any:
        return pick(mine, value) if isinstance(mine, (int, float)) and isinstance(value, (int, float)) else mine

    return bound


def _merge_additional(mine: Any, value: Any) -> Any:
    return False if mine is False or value is False else mine


_KEYWORD_MERGES: dict[str, Callable[[Any, Any], Any]] = {
    "type": _merge_type,
    "properties": _merge_properties,
    "required": _merge_required,
    "enum": _merge_enum,
    **dict.fromkeys(_LOWER_BOUNDS, _tighter(max)),
    **dict.fromkeys(_UPPER_BOUNDS, _tighter(min)),
    "additionalProperties": _merge_additional,
}


# -- unions, nullables, read/write-only ------------------------------------------------------------------

def one_of_to_any_of(ctx: PassContext) -> Callable[[Schema], Schema]:
    def node_pass(node: Schema) -> Schema:
        if "oneOf" in node:
            node = {("anyOf" if k == "oneOf" else k): v for k, v in node.items()}
        discriminator = node.pop("discriminator", None) if "discriminator" in node else None
        if isinstance(discriminator, dict) and discriminator.get("propertyName"):
            _append(node, f"the variant is chosen by `{discriminator['propertyName']}`")
        return node

    return node_pass


def project_read_only(ctx: PassContext, keyword: str = "readOnly") -> Callable[[Schema], Schema]:
    """Request schemas must not ask the model for server-generated values (readOnly properties); with
    keyword="writeOnly", responses do not promise values only clients send (passwords)."""

    def node_pass(node: Schema) -> Schema:
        props = node.get("properties")
        if isinstance(props, dict) and any(isinstance(p, dict) and p.get(keyword) is True for p in props.values()):
            dropped = [n for n, p in props.items() if isinstance(p, dict) and p.get(keyword) is True]
            node = {**node, "properties": {n: p for n, p in props.items() if n not in dropped}}
            if isinstance(node.get("required"), list):
                node["required"] = [r for r in node["required"] if r not in dropped]
        return node

    return node_pass


def _append(node: Schema, note: str) -> None:
    text = node.get("description")
    node["description"] = f"{text} ({note})" if text else note[:1].upper() + note[1:] + "."


_DESCRIBE = {
    "pattern": "pattern {}", "minLength": "at least {} characters", "maxLength": "at most {} characters",
    "minimum": "at least {}", "maximum": "at most {}", "exclusiveMinimum": "more than {}",
    "exclusiveMaximum": "less than {}", "minItems": "at least {} items", "maxItems": "at most {} items",
    "format": "format {}", "multipleOf": "a multiple of {}", "uniqueItems": "unique items",
    "default": "default {}", "const": "always {}", "minProperties": "at least {} properties",
    "maxProperties": "at most {} properties",
}


def describe_unsupported(ctx: PassContext, keywords: frozenset[str], vendor: str) -> Callable[[Schema], Schema]:
    """Keywords the vendor cannot express leave the schema but stay readable in the description."""

    def node_pass(node: Schema) -> Schema:
        dropped = [k for k in node if k in keywords]
        if not dropped:
            return node
        node = dict(node)
        notes = []
        for key in dropped:
            value = node.pop(key)
            template = _DESCRIBE.get(key)
            if template:
                notes.append(template.format(value if not isinstance(value, bool) else "").strip())
        if notes:
            _append(node, "; ".join(notes))
            ctx.warn(f"{vendor} cannot express {', '.join(sorted(set(dropped)))}: kept in the description")
        return node

    return node_pass
