"""The recursive walk over two versions of one schema, in the request direction: would every value the old
schema accepted still be accepted, and mean the same? Each difference is a `SchemaChange` at an argument path
(property names, `[]` for array items, `|n` for the n-th union variant)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from typing import Any, NamedTuple

from workbench.spec.pointer import MISSING, lookup

Resolve = Callable[[str], Any]  # a `$ref` → the schema it names (None when it cannot be followed)

_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_MAX_DEPTH = 40
_HERE = "\x00"  # the first segment of a path relative to a compared ref pair (never a property name)


class SchemaChange(NamedTuple):
    kind: str
    path: tuple[str, ...]
    breaking: bool
    reason: str
    similarity: float | None = None


def local_resolver(root: Any) -> Resolve:
    """Refs inside one schema document (a tool's parameters with its `$defs`)."""

    def resolve(ref: str) -> Any:
        if not ref.startswith("#"):
            return None
        try:
            found = lookup(root, ref[1:], MISSING)
        except ValueError:
            return None
        return None if found is MISSING else found

    return resolve


def similarity(a: str, b: str) -> float:
    """How alike two descriptions are, 0..1 (difflib's ratio over words: a reworded sentence scores low,
    a typo fixed scores near 1)."""
    return difflib.SequenceMatcher(None, a.split(), b.split(), autojunk=False).ratio()


def deref(schema: Any, resolve: Resolve, seen: frozenset[str] = frozenset()) -> tuple[Any, frozenset[str]]:
    """`schema` with its `$ref` followed (siblings of the ref kept over the target), and the refs followed."""
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"] not in seen:
        ref = schema["$ref"]
        target = resolve(ref)
        if not isinstance(target, dict):
            return schema, seen
        seen = seen | {ref}
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
    return schema, seen


def canonical(schema: Any, resolve: Resolve, depth: int = 0) -> str:
    """A comparable text of a schema with refs inlined (a few levels: enough to tell two arguments apart)."""
    schema, _ = deref(schema, resolve)
    if depth > 4 or not isinstance(schema, dict):
        return json.dumps(schema, sort_keys=True, default=str)
    return json.dumps({k: canonical(v, resolve, depth + 1) if isinstance(v, dict) else v
                       for k, v in schema.items() if k not in ("description", "title", "example", "examples")},
                      sort_keys=True, default=str)


class Walk:
    """One comparison: the two resolvers, and (for the argument object itself) how to tell a renamed
    argument: the same binding (location and wire name) in both versions."""

    __slots__ = ("_active", "_done", "closed_top", "required_new", "resolve_new", "resolve_old", "top_new", "top_old")

    resolve_old: Resolve
    resolve_new: Resolve
    top_old: dict[str, tuple[str, str]] | None  # argument → (location, wire name)
    top_new: dict[str, tuple[str, str]] | None
    closed_top: bool  # the executor rejects unknown arguments in the argument object
    # argument → whether the spec requires it (its binding's word: strict mode lists every argument as required)
    required_new: dict[str, bool] | None

    # a pair of plain refs (`{"$ref": a}` old, `{"$ref": b}` new) → its changes, relative: a component used by
    # many tools or properties is compared once
    _done: dict[tuple[str, str], list[SchemaChange]]
    _active: set[tuple[str, str]]

    def __init__(self, resolve_old: Resolve, resolve_new: Resolve, top_old: dict[str, tuple[str, str]] | None = None,
                 top_new: dict[str, tuple[str, str]] | None = None, closed_top: bool = True,
                 required_new: dict[str, bool] | None = None,
                 _done: dict[tuple[str, str], list[SchemaChange]] | None = None,
                 _active: set[tuple[str, str]] | None = None) -> None:
        self.resolve_old = resolve_old
        self.resolve_new = resolve_new
        self.top_old = top_old
        self.top_new = top_new
        self.closed_top = closed_top
        self.required_new = required_new
        self._done = {} if _done is None else _done
        self._active = set() if _active is None else _active

    def compare(self, old: Any, new: Any) -> list[SchemaChange]:
        changes: list[SchemaChange] = []
        self._node(old, new, (), changes, frozenset(), frozenset())
        return changes

    def _node(self, old: Any, new: Any, path: tuple[str, ...], out: list[SchemaChange],
              seen_old: frozenset[str], seen_new: frozenset[str]) -> None:
        if path and _plain_ref(old) and _plain_ref(new):
            self._ref_pair(old["$ref"], new["$ref"], path, out)
            return
        self._compare_node(old, new, path, out, seen_old, seen_new)

    def _ref_pair(self, old: str, new: str, path: tuple[str, ...], out: list[SchemaChange]) -> None:
        key = (old, new)
        if key in self._active:
            return  # a recursive schema met again: compared where it was first met
        if key not in self._done:
            self._active.add(key)
            found: list[SchemaChange] = []
            self._compare_node({"$ref": old}, {"$ref": new}, (_HERE,), found, frozenset(), frozenset())
            self._active.discard(key)
            self._done[key] = found
        out.extend(c._replace(path=path + c.path[1:]) for c in self._done[key])

    def _compare_node(self, old: Any, new: Any, path: tuple[str, ...], out: list[SchemaChange],
                      seen_old: frozenset[str], seen_new: frozenset[str]) -> None:
        old, seen_o = deref(old, self.resolve_old, seen_old)
        new, seen_n = deref(new, self.resolve_new, seen_new)
        if _unresolved(old) or _unresolved(new) or len(path) > _MAX_DEPTH:
            return  # a recursive schema met again (compared where first met), or a ref that cannot be followed
        if not isinstance(old, dict) or not isinstance(new, dict):
            if old != new and not (_anything(old) and _anything(new)):
                out.append(SchemaChange("type-changed", path, not _anything(new),
                                        f"schema {json.dumps(old, default=str)[:40]} → "
                                        f"{json.dumps(new, default=str)[:40]}"))
            return
        _types(old, new, path, out)
        _format(old, new, path, out)
        _enum(old, new, path, out)
        _bounds(old, new, path, out)
        _default(old, new, path, out)
        _description(old, new, path, out)
        self._properties(old, new, path, out, seen_o, seen_n)
        if "items" in old or "items" in new:
            self._node(old.get("items", True), new.get("items", True), (*path, "[]"), out, seen_o, seen_n)
        for key in ("oneOf", "anyOf", "allOf"):
            self._variants(key, old.get(key) or [], new.get(key) or [], path, out, seen_o, seen_n)

    def _properties(self, old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange],
                    seen_o: frozenset[str], seen_n: frozenset[str]) -> None:
        old_props = old.get("properties") if isinstance(old.get("properties"), dict) else {}
        new_props = new.get("properties") if isinstance(new.get("properties"), dict) else {}
        old_req = set(old.get("required") or ()) if isinstance(old.get("required"), list) else set()
        new_req = set(new.get("required") or ()) if isinstance(new.get("required"), list) else set()
        removed = [name for name in old_props if name not in new_props]
        added = [name for name in new_props if name not in old_props]
        top = not path
        closed = (top and self.closed_top) or new.get("additionalProperties") is False
        for before, after in self._renames(removed, added, old_props, new_props, top):
            removed.remove(before)
            added.remove(after)
            out.append(SchemaChange("argument-renamed", (*path, before), True,
                                    f"renamed to `{after}`: calls that send `{before}` are rejected"
                                    + (" and miss the required one" if after in new_req else "")))
        for name in removed:
            reason = ("no longer taken: calls that send it are rejected (the argument object is closed)" if closed
                      else "no longer declared: a call that sends it is ignored or rejected by the server")
            out.append(SchemaChange("argument-removed", (*path, name), True, reason))
        for name in added:
            required = name in new_req
            if top and self.required_new and name in self.required_new:
                required = self.required_new[name]
            out.append(SchemaChange("argument-added", (*path, name), required,
                                    "new and required: old calls lack it and are rejected" if required
                                    else "new and optional: old calls still valid"))
        for name in old_props:
            if name not in new_props:
                continue
            if name in new_req and name not in old_req:
                out.append(SchemaChange("required-added", (*path, name), True,
                                        "now required: old calls that omit it are rejected"))
            elif name in old_req and name not in new_req:
                out.append(SchemaChange("required-removed", (*path, name), False, "now optional"))
            self._node(old_props[name], new_props[name], (*path, name), out, seen_o, seen_n)
        _closure(old, new, path, out)

    def _renames(self, removed: list[str], added: list[str], old_props: dict, new_props: dict,
                 top: bool) -> list[tuple[str, str]]:
        """Pairs (removed, added) that are one argument renamed: the same wire place, else the same schema."""
        pairs: list[tuple[str, str]] = []
        free = list(added)
        for before in removed:
            match = None
            if top and self.top_old and self.top_new and before in self.top_old:
                match = next((a for a in free if self.top_new.get(a) == self.top_old[before]), None)
            if match is None:
                shape = canonical(old_props[before], self.resolve_old)
                match = next((a for a in free if canonical(new_props[a], self.resolve_new) == shape), None)
            if match is not None:
                free.remove(match)
                pairs.append((before, match))
        return pairs

    def _variants(self, key: str, old: list, new: list, path: tuple[str, ...], out: list[SchemaChange],
                  seen_o: frozenset[str], seen_n: frozenset[str]) -> None:
        if not isinstance(old, list) or not isinstance(new, list):
            return
        for i in range(min(len(old), len(new))):
            self._node(old[i], new[i], (*path, f"{key}[{i}]"), out, seen_o, seen_n)
        conjunction = key == "allOf"
        if len(old) > len(new):
            out.append(SchemaChange("variant-added" if conjunction else "variant-removed", path, not conjunction,
                                    f"{key} has {len(new)} parts instead of {len(old)}"
                                    + ("" if conjunction else ": values of the dropped variants are rejected")))
        elif len(new) > len(old):
            out.append(SchemaChange("variant-removed" if conjunction else "variant-added", path, conjunction,
                                    f"{key} has {len(new)} parts instead of {len(old)}"
                                    + (": every value must match the new part too" if conjunction else "")))


def _anything(schema: Any) -> bool:
    """`true` and `{}` accept every value."""
    return schema is True or schema == {}


def _plain_ref(schema: Any) -> bool:
    return isinstance(schema, dict) and len(schema) == 1 and isinstance(schema.get("$ref"), str)


def _unresolved(schema: Any) -> bool:
    return isinstance(schema, dict) and "$ref" in schema


def _type_set(schema: dict) -> set[str] | None:
    kind = schema.get("type")  # Gemini's own form spells them in capitals
    if isinstance(kind, str):
        return {kind.lower()}
    if isinstance(kind, list):
        return {k.lower() for k in kind if isinstance(k, str)}
    return None


def _types(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    before, after = _type_set(old), _type_set(new)
    if before == after or after is None:
        if before is not None and after is None:
            out.append(SchemaChange("type-changed", path, False, f"any type accepted (was {_names(before)})"))
        return
    if before is None:
        out.append(SchemaChange("type-changed", path, True, f"now must be {_names(after)}: other values rejected"))
        return
    lost = {t for t in before - after if not (t == "integer" and "number" in after)}
    text = f"type {_names(before)} → {_names(after)}"
    out.append(SchemaChange("type-changed", path, bool(lost),
                            f"{text}: {_names(lost)} values are rejected" if lost else f"{text} (accepts more)"))


def _names(types: set[str]) -> str:
    return "|".join(sorted(types))


def _format(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    before, after = old.get("format"), new.get("format")
    if before == after:
        return
    if after is None:
        out.append(SchemaChange("format-changed", path, False, f"format {before} dropped (accepts more)"))
    else:
        out.append(SchemaChange("format-changed", path, True,
                                f"format {before or '(none)'} → {after}: values in the old form may be rejected"))


def _allowed(schema: dict) -> list | None:
    if "const" in schema:
        return [schema["const"]]
    enum = schema.get("enum")
    return enum if isinstance(enum, list) else None


def _enum(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    before, after = _allowed(old), _allowed(new)
    if before == after:
        return
    if after is None:
        out.append(SchemaChange("enum-widened", path, False, "no longer limited to a list of values"))
        return
    if before is None:
        out.append(SchemaChange("enum-narrowed", path, True,
                                f"now limited to {_values(after)}: other values are rejected"))
        return
    lost = [v for v in before if v not in after]
    gained = [v for v in after if v not in before]
    if lost:
        out.append(SchemaChange("enum-narrowed", path, True, f"{_values(lost)} no longer allowed: calls sending "
                                f"{'it' if len(lost) == 1 else 'them'} are rejected"))
    if gained:
        out.append(SchemaChange("enum-widened", path, False, f"{_values(gained)} now allowed too"))


def _values(values: list) -> str:
    shown = ", ".join(json.dumps(v, ensure_ascii=False, default=str) for v in values[:6])
    return shown + (f" and {len(values) - 6} more" if len(values) > 6 else "")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bounds(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    for key in (*_LOWER_BOUNDS, *_UPPER_BOUNDS):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if after is None:
            tighter = False
        elif before is None or not (_number(before) and _number(after)):
            tighter = True
        else:
            tighter = after > before if key in _LOWER_BOUNDS else after < before
        _bound_change(key, before, after, tighter, path, out)
    for key in ("pattern", "multipleOf"):
        before, after = old.get(key), new.get(key)
        if before != after:
            _bound_change(key, before, after, after is not None, path, out)
    if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
        _bound_change("uniqueItems", bool(old.get("uniqueItems")), bool(new.get("uniqueItems")),
                      bool(new.get("uniqueItems")), path, out)


def _bound_change(key: str, before: Any, after: Any, tighter: bool, path: tuple[str, ...],
                  out: list[SchemaChange]) -> None:
    text = f"{key} {_shown(before)} → {_shown(after)}"
    out.append(SchemaChange("constraint-tightened" if tighter else "constraint-loosened", path, tighter,
                            f"{text}: values the old version accepted may be rejected" if tighter
                            else f"{text} (accepts more)"))


def _shown(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, ensure_ascii=False, default=str)[:60]


def _closure(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
    if (before is False) == (after is False):
        return
    if after is False:
        out.append(SchemaChange("constraint-tightened", path, True,
                                "closed (additionalProperties: false): undeclared members are rejected"))
    else:
        out.append(SchemaChange("constraint-loosened", path, False, "no longer closed: undeclared members allowed"))


def _default(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    if "default" not in old and "default" not in new:
        return
    before, after = old.get("default", MISSING), new.get("default", MISSING)
    if before == after:
        return
    both = before is not MISSING and after is not MISSING
    out.append(SchemaChange("default-changed", path, both,
                            f"default {_maybe(before)} → {_maybe(after)}"
                            + (": calls that omit it now mean something else" if both else "")))


def _maybe(value: Any) -> str:
    return "(none)" if value is MISSING else _shown(value)


def _description(old: dict, new: dict, path: tuple[str, ...], out: list[SchemaChange]) -> None:
    before, after = old.get("description"), new.get("description")
    if before == after or not (isinstance(before, str) or isinstance(after, str)):
        return
    score = similarity(before or "", after or "")
    out.append(SchemaChange("description-changed", path, False,
                            f"description reworded ({score:.0%} alike): check the model still picks it right",
                            similarity=score))
