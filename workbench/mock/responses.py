"""What the mock answers for an operation: the status, the media type, the body and the headers.

A response is worked out once: `ResponseMaker.respond` keeps every answer it built, keyed by what was asked,
so a repeated request costs a dict lookup. Bodies are the spec's examples first; otherwise (or with
`dynamic=True`) they are generated from the schema, deterministically for (seed, operation, status, media),
and valid against it wherever the schema can be satisfied (an unsatisfiable one gets a best effort).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import re
import uuid
from dataclasses import dataclass
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any
from xml.sax.saxutils import escape as xml_escape

import yaml

from workbench.spec import MediaType, Operation, Response, Spec
from workbench.wire import encode_body
from workbench.wire.bodies import media_family, parse_media_type
from workbench.wire.validate import SchemaStore

__all__ = ["MockResponse", "NoSuchExample", "NoSuchResponse", "NotAcceptable", "ResponseMaker"]

_MAX_DEPTH = 3  # $refs followed before a generated value takes the shortest way out
_HARD_DEPTH = 24  # nesting at which generation gives up on a schema (required recursion without an exit)
_MAX_ITEMS = 1000  # past this many items (or repeats of a pattern) a value is a best effort
_MAX_LENGTH = 100_000  # and past this many characters


@dataclass(frozen=True)
class MockResponse:
    status: int
    content_type: str | None  # None: no body
    body: bytes  # b"" when no body
    headers: tuple[tuple[str, str], ...] = ()  # declared response headers with example or generated values


class NoSuchResponse(Exception):
    """The operation declares no response for the asked status (or no example of the asked name)."""


class NoSuchExample(NoSuchResponse):
    """The response declares no example of the asked name."""


class NotAcceptable(Exception):
    """None of the response's media types matches the Accept header."""

    def __init__(self, available: list[str], accept: str = "", label: str = "") -> None:
        self.available = list(available)
        self.accept = accept
        where = f"{label} " if label else ""
        super().__init__(f"{where}offers nothing that matches Accept {accept!r} "
                         f"(available: {', '.join(self.available) or 'none'})")


# -- seeds ------------------------------------------------------------------------------------------------

def stable_seed(*parts: Any) -> int:
    """A seed from `parts` that is the same in every process (unlike `hash()`)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


# -- which status ---------------------------------------------------------------------------------------

def _declared(op: Operation) -> str:
    return ", ".join(r.status for r in op.responses) or "none"


def _lowest_2xx(op: Operation) -> Response | None:
    exact = [r for r in op.responses if r.status.isdigit() and 200 <= int(r.status) < 300]
    if exact:
        return min(exact, key=lambda r: int(r.status))
    return next((r for r in op.responses if r.status.upper() == "2XX"), None)


def choose_status(op: Operation, code: int | None) -> tuple[int, Response | None]:
    """(status code, the declared response it answers with, None for a bare 200 with no body)."""
    by_status = {r.status.upper(): r for r in op.responses}
    if code is None:
        found = _lowest_2xx(op)
        if found is not None:
            return (int(found.status) if found.status.isdigit() else 200), found
        return 200, by_status.get("DEFAULT")
    for key in (str(code), f"{code // 100}XX", "DEFAULT"):
        if key in by_status:
            return code, by_status[key]
    raise NoSuchResponse(f"{op.label()} declares no {code} response (declared: {_declared(op)})")


# -- which media type -------------------------------------------------------------------------------------

def _accept_ranges(accept: str) -> list[str]:
    """The media ranges of an Accept header, most preferred first (q=0 left out)."""
    ranked = []
    for index, part in enumerate(accept.split(",")):
        media, params = parse_media_type(part)
        if not media:
            continue
        try:
            q = float(params.get("q", "1"))
        except ValueError:
            q = 1.0
        if q > 0:
            ranked.append((-q, index, media))
    return [media for _, _, media in sorted(ranked)]


def _matches(media_range: str, media: str) -> bool:
    if media_range == "*/*" or media == "*/*":
        return True
    kind, _, sub = media_range.partition("/")
    other_kind, _, other_sub = media.partition("/")
    return kind == other_kind and (sub == "*" or other_sub == "*" or sub == other_sub)


def _prefer_json(keys: list[str]) -> str:
    for key in keys:
        if media_family(parse_media_type(key)[0]) == "json":
            return key
    return keys[0]


_WILDCARD_DEFAULTS = {"*/*": "application/json", "application/*": "application/json", "text/*": "text/plain"}


def _concrete(key: str, media_range: str | None) -> str:
    """The Content-Type for a content key that may itself be a wildcard (`*/*`, `image/*`)."""
    media = parse_media_type(key)[0]
    if "*" not in media:
        return key
    if media_range and "*" not in media_range:
        return media_range
    return _WILDCARD_DEFAULTS.get(media, media.replace("*", "octet-stream"))


def choose_media(response: Response, accept: str | None, label: str = "") -> tuple[str, str] | None:
    """(content key, Content-Type) for the response, or None when it has no content."""
    keys = list(response.content)
    if not keys:
        return None
    if not accept:
        key = _prefer_json(keys)
        return key, _concrete(key, None)
    for media_range in _accept_ranges(accept):
        found = [key for key in keys if _matches(media_range, parse_media_type(key)[0])]
        if found:
            key = _prefer_json(found)
            return key, _concrete(key, media_range)
    raise NotAcceptable(keys, accept, label)


# -- the spec's examples ----------------------------------------------------------------------------------

_MISSING = object()


def _example_value(spec: Spec, response: Response, raw: Any) -> Any:
    """The value of an Example Object (following a `$ref` to components), or the raw value."""
    if isinstance(raw, dict) and "$ref" in raw:
        raw, _, _ = spec.deref(raw, response.origin.document, response.origin.pointer)
    if isinstance(raw, dict) and ("value" in raw or "externalValue" in raw or "summary" in raw):
        return raw.get("value", _MISSING)
    return raw


def _schema_example(schema: Any, spec: Spec | None = None) -> Any:
    if spec is not None and isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        schema = spec.resolve_schema(schema["$ref"])
    if not isinstance(schema, dict):
        return _MISSING
    if "example" in schema and schema["example"] is not None:
        return schema["example"]
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return examples[0]
    return _MISSING


def spec_example(spec: Spec, response: Response, media: MediaType, name: str | None, label: str) -> Any:
    """The example the spec gives for this media type (`name` picks one of `examples`), or _MISSING."""
    if name is not None:
        if name not in media.examples:
            names = ", ".join(map(str, media.examples)) or "none"
            raise NoSuchExample(f"{label} has no example {name!r} (examples: {names})")
        return _example_value(spec, response, media.examples[name])
    if media.example is not None:
        return media.example
    for raw in media.examples.values():
        value = _example_value(spec, response, raw)
        if value is not _MISSING:
            return value
    return _schema_example(media.schema, spec)


# -- validation against model refs ---------------------------------------------------------------------

class _Checker:
    """Validation of generated values against model schemas (for oneOf branches and a final check), through
    the wire's schema store in the response direction (a writeOnly property is never required)."""

    def __init__(self, spec: Spec) -> None:
        self._store = SchemaStore(spec, "response")
        self._validators: dict[int, tuple[Any, Any]] = {}

    def valid(self, value: Any, schema: Any) -> bool:
        entry = self._validators.get(id(schema))
        if entry is None or entry[0] is not schema:
            entry = (schema, self._store.validator(schema))
            self._validators[id(schema)] = entry
        try:
            return entry[1].is_valid(value)
        except Exception:  # a broken ref or an uncompilable pattern: no verdict, take the value
            return True


# -- schemas: refs and allOf merged into one -----------------------------------------------------------

_MERGED_LISTS = ("required",)
_SUBSCHEMAS = ("items", "additionalProperties", "contains", "propertyNames", "unevaluatedProperties",
               "unevaluatedItems")
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")


def _types(schema: dict[str, Any]) -> list[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    return None


def _merge_types(left: Any, right: Any) -> Any:
    a, b = _types({"type": left}), _types({"type": right})
    if a is None or b is None:
        return left if b is None else right
    both = [k for k in a if k in b or (k == "integer" and "number" in b)]
    both += [k for k in b if k == "integer" and "number" in a and k not in both]
    return both or a  # contradictory types: a best effort


def _compatible(left: dict[str, Any], right: dict[str, Any]) -> bool:
    """Whether the types of two schemas leave some type a value can have."""
    a, b = _types(left), _types(right)
    if a is None or b is None:
        return True
    return bool(set(a) & set(b)) or ("integer" in a and "number" in b) or ("number" in a and "integer" in b)


def _merge_properties(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    out = dict(left)
    for name, sub in right.items():
        out[name] = {"allOf": [out[name], sub]} if name in out and out[name] != sub else sub
    return out


def _merge_key(out: dict[str, Any], key: str, value: Any) -> None:
    if key not in out:
        out[key] = value
    elif key == "type":
        out["type"] = _merge_types(out["type"], value)
    elif key == "properties" and isinstance(value, dict) and isinstance(out[key], dict):
        out[key] = _merge_properties(out[key], value)
    elif key in _MERGED_LISTS and isinstance(value, list) and isinstance(out[key], list):
        out[key] = [*out[key], *(v for v in value if v not in out[key])]
    elif key in _LOWER_BOUNDS and _number(value) and _number(out[key]):
        out[key] = max(out[key], value)
    elif key in _UPPER_BOUNDS and _number(value) and _number(out[key]):
        out[key] = min(out[key], value)
    elif key == "enum" and isinstance(value, list) and isinstance(out[key], list):
        out[key] = [v for v in out[key] if v in value] or out[key]
    elif key in _SUBSCHEMAS:
        out[key] = _merge_subschema(out[key], value)
    elif key in ("oneOf", "anyOf"):
        out.setdefault("allOf", []).append({key: value})


def _merge_subschema(left: Any, right: Any) -> Any:
    if left is False or right is False:
        return False
    if not isinstance(left, dict) or left == {}:
        return right
    if not isinstance(right, dict) or right == {} or left == right:
        return left
    return {"allOf": [left, right]}


def _has_ref(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "$ref" in schema or any(_has_ref(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_ref(v) for v in schema)
    return False


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def merge_schemas(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema that asks for what all of `schemas` ask (as far as a plain merge can)."""
    out: dict[str, Any] = {}
    for schema in schemas:
        for key, value in schema.items():
            _merge_key(out, key, value)
    return out


# -- values from schemas ----------------------------------------------------------------------------------

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


class _Generator:
    """Values valid against model schemas, drawn from one `random.Random`."""

    def __init__(self, spec: Spec, rng: random.Random, checker: _Checker) -> None:
        self.spec, self.rng, self.checker = spec, rng, checker
        # how full values are: "rich" (every optional property, at least one item) and "sparse" (no optional
        # property, the fewest items) tell oneOf branches apart when a free draw matches more than one
        self.mode = "free"

    # schemas in, one flat schema out

    def flatten(self, schema: Any, depth: int) -> tuple[dict[str, Any], int]:
        """`schema` with its `$ref` and `allOf` folded in, and the ref depth reached."""
        if not isinstance(schema, dict):
            return ({} if schema is not False else {"not": {}}), depth
        for _ in range(_HARD_DEPTH):
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                break
            target = self.spec.resolve_schema(ref)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = merge_schemas([target if isinstance(target, dict) else {}, rest]) if rest else (target or {})
            depth += 1
        parts = schema.get("allOf")
        if isinstance(parts, list) and parts and depth < _HARD_DEPTH:
            flat = [self.flatten(part, depth) for part in parts]
            depth = max(d for _, d in flat)
            # a second oneOf/anyOf is kept in a new allOf: `_choice` folds it in once the first is chosen
            schema = merge_schemas([{k: v for k, v in schema.items() if k != "allOf"}, *(f for f, _ in flat)])
        return schema, depth

    def value(self, schema: Any, depth: int = 0) -> Any:
        schema, depth = self.flatten(schema, depth)
        if depth >= _HARD_DEPTH:
            return None
        candidate = self._value(schema, depth)
        banned = schema.get("not")
        if not isinstance(banned, dict | bool):
            return candidate
        for mode in ("sparse", "rich", "free", "free"):
            if not self.checker.valid(candidate, banned):
                return candidate
            candidate = self._in_mode(mode, schema, depth)
        return candidate  # a best effort

    def _in_mode(self, mode: str, schema: dict[str, Any], depth: int) -> Any:
        outer, self.mode = self.mode, mode
        try:
            return self._value(schema, depth)
        finally:
            self.mode = outer

    def _value(self, schema: dict[str, Any], depth: int) -> Any:
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._enum(schema)
        for key in ("oneOf", "anyOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                return self._choice(schema, key, depth)
        return self._typed(schema, self._kind(schema), depth)

    def _enum(self, schema: dict[str, Any]) -> Any:
        values = [v for v in schema["enum"] if v is not None] or schema["enum"]
        return self.rng.choice(values)

    def _kind(self, schema: dict[str, Any]) -> str:
        kinds = _types(schema)
        if kinds:
            concrete = [k for k in kinds if k != "null"]
            return self.rng.choice(concrete) if concrete else "null"
        if any(k in schema for k in ("properties", "required", "additionalProperties", "minProperties")):
            return "object"
        if any(k in schema for k in ("items", "prefixItems", "minItems", "maxItems")):
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            return "number"
        return "string"

    def _branches(self, schema: dict[str, Any], key: str, depth: int) -> list[Any]:
        """The branches in the order to try: shuffled, and past the depth the ones without refs first."""
        branches = list(schema[key])
        self.rng.shuffle(branches)
        if depth >= _MAX_DEPTH:
            branches.sort(key=_has_ref)
        non_null = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
        return non_null + [b for b in branches if b not in non_null]

    def _choice(self, schema: dict[str, Any], key: str, depth: int) -> Any:
        rest = {k: v for k, v in schema.items() if k not in (key, "discriminator")}
        candidate: Any = None
        branches = self._branches(schema, key, depth)[:12]
        flats = [self.flatten(branch, depth) for branch in branches]
        # a string branch under `type: object` can't be met: the others first, if any
        flats = [f for f in flats if _compatible(rest, f[0])] or flats
        modes = ("free", "rich", "sparse") if key == "oneOf" else ("free",)
        for mode, (flat, branch_depth) in ((m, f) for m in modes for f in flats):
            merged, _ = self.flatten(merge_schemas([rest, flat]) if rest else flat, branch_depth)
            candidate = self._in_mode(mode, merged, branch_depth) if mode != "free" else self.value(merged,
                                                                                                  branch_depth)
            if key == "anyOf" or self._exactly_one(candidate, schema[key]):
                return candidate
        return candidate

    def _exactly_one(self, value: Any, branches: list[Any]) -> bool:
        return sum(1 for b in branches if self.checker.valid(value, b)) == 1

    def _typed(self, schema: dict[str, Any], kind: str, depth: int) -> Any:
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, depth)
        if kind == "integer":
            return self._integer(schema)
        if kind == "number":
            return self._number(schema)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self._string(schema)

    # objects and arrays

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        out: dict[str, Any] = {}
        for name in self._keys(schema, properties, required, depth):
            sub = properties.get(name, self._extra_schema(schema))
            if isinstance(sub, dict) and sub.get("writeOnly") is True:
                continue
            out[name] = self.value(sub, depth)
        self._fill_min_properties(schema, out, depth)
        return out

    def _keys(self, schema: dict[str, Any], properties: dict[str, Any], required: list[str], depth: int) -> list[str]:
        keys = list(dict.fromkeys(required))
        optional = [n for n in properties if n not in keys]
        read_only = [n for n in optional if isinstance(properties[n], dict) and properties[n].get("readOnly") is True]
        keys += read_only if depth < _MAX_DEPTH else []
        rest = [n for n in optional if n not in read_only]
        if depth < _MAX_DEPTH and self.mode == "free":
            keys += [n for n in rest if self.rng.random() < 0.5][:4]
        elif self.mode == "rich":  # past the depth only the properties that can't recurse
            keys += [n for n in rest if depth < _MAX_DEPTH or not _has_ref(properties[n])]
        limit = schema.get("maxProperties")
        return keys[:max(limit, len(required))] if _number(limit) else keys

    @staticmethod
    def _extra_schema(schema: dict[str, Any]) -> Any:
        extra = schema.get("additionalProperties", True)
        return extra if isinstance(extra, dict) else {}

    def _fill_min_properties(self, schema: dict[str, Any], out: dict[str, Any], depth: int) -> None:
        wanted = schema.get("minProperties")
        if not _number(wanted) or schema.get("additionalProperties") is False:
            return
        index = 0
        while len(out) < wanted and index < 100:
            index += 1
            if f"key{index}" not in out:
                out[f"key{index}"] = self.value(self._extra_schema(schema), depth)

    def _count(self, schema: dict[str, Any], depth: int) -> int:
        low = min(int(schema["minItems"]), _MAX_ITEMS) if _number(schema.get("minItems")) else 0
        high = min(int(schema["maxItems"]), _MAX_ITEMS) if _number(schema.get("maxItems")) else low + 2
        if depth >= _MAX_DEPTH or self.mode == "sparse":
            return low
        if self.mode == "rich" and high >= 1:
            low = max(low, 1)
        return self.rng.randint(low, max(low, min(high, low + 2)))

    def _array(self, schema: dict[str, Any], depth: int) -> list[Any]:
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        items = schema.get("items", {})
        count = self._count(schema, depth)
        count = min(count, len(prefix)) if items is False else count
        out = [self.value(prefix[i] if i < len(prefix) else items, depth) for i in range(count)]
        if "contains" in schema and not any(self.checker.valid(v, schema["contains"]) for v in out):
            out = [*out[:-1], self.value(schema["contains"], depth)] if out else [self.value(schema["contains"], depth)]
        if schema.get("uniqueItems") is True:
            out = self._unique(out, prefix, items, depth)
        return out

    def _unique(self, out: list[Any], prefix: list[Any], items: Any, depth: int) -> list[Any]:
        seen: list[str] = []
        unique: list[Any] = []
        for index, value in enumerate(out):
            for _ in range(8):
                key = json.dumps(value, sort_keys=True, default=str)
                if key not in seen:
                    break
                value = self.value(prefix[index] if index < len(prefix) else items, depth)
            if key not in seen:
                seen.append(key)
                unique.append(value)
        return unique

    # numbers

    def _bounds(self, schema: dict[str, Any], integer: bool) -> tuple[float, float]:
        low = schema.get("minimum") if _number(schema.get("minimum")) else None
        high = schema.get("maximum") if _number(schema.get("maximum")) else None
        step = 1 if integer else 1e-6
        if _number(schema.get("exclusiveMinimum")):
            floor = schema["exclusiveMinimum"] + step
            low = floor if low is None else max(low, floor)
        if _number(schema.get("exclusiveMaximum")):
            ceiling = schema["exclusiveMaximum"] - step
            high = ceiling if high is None else min(high, ceiling)
        fmt = _FORMAT_BOUNDS.get(schema.get("format"), (None, None))
        low = fmt[0] if low is None else low
        high = fmt[1] if high is None else high
        if low is None:
            low = 0 if high is None or high >= 0 else high - 1000
        if high is None:
            high = low + 1000
        return low, max(low, high)

    def _integer(self, schema: dict[str, Any]) -> int:
        low, high = self._bounds(schema, True)
        low, high = math.ceil(low), math.floor(high)
        multiple = schema.get("multipleOf")
        if _number(multiple) and multiple > 0:
            return self._multiple(low, high, multiple, integer=True)
        return self.rng.randint(low, max(low, min(high, low + 1000)))

    def _number(self, schema: dict[str, Any]) -> float | int:
        low, high = self._bounds(schema, False)
        multiple = schema.get("multipleOf")
        if _number(multiple) and multiple > 0:
            return self._multiple(low, high, multiple, integer=False)
        value = round(self.rng.uniform(low, min(high, low + 1000)), 2)
        return value if low <= value <= high else low

    def _multiple(self, low: float, high: float, multiple: float, integer: bool) -> float | int:
        first, last = math.ceil(low / multiple), math.floor(high / multiple)
        k = self.rng.randint(first, max(first, min(last, first + 100)))
        value = k * multiple
        if integer:
            return int(value) if float(value).is_integer() else math.ceil(low)
        if isinstance(multiple, int):
            return int(value)
        return value if (value / multiple).is_integer() else float(k)

    # strings

    def _string(self, schema: dict[str, Any]) -> str:
        fmt, pattern = schema.get("format"), schema.get("pattern")
        if isinstance(fmt, str) and fmt in _FORMATS:
            text = _FORMATS[fmt](self.rng)
            if not isinstance(pattern, str) or _searches(pattern, text):
                return text
        if isinstance(pattern, str):
            found = self._patterned(pattern, schema)
            if found is not None:
                return found
        return self._word(schema)

    def _word(self, schema: dict[str, Any]) -> str:
        low = min(int(schema["minLength"]), _MAX_LENGTH) if _number(schema.get("minLength")) else 0
        high = int(schema["maxLength"]) if _number(schema.get("maxLength")) else max(low, 24)
        text = f"{self.rng.choice(_WORDS)}-{self.rng.randint(0, 999)}"
        while len(text) < low:
            text += self.rng.choice(_WORDS)
        return text[:max(low, min(high, len(text)))]

    def _patterned(self, pattern: str, schema: dict[str, Any]) -> str | None:
        try:
            compiled, parsed = re.compile(pattern), sre_parse.parse(pattern)
        except (re.error, RecursionError, ValueError, OverflowError):
            return None
        low = int(schema["minLength"]) if _number(schema.get("minLength")) else 0
        high = int(schema["maxLength"]) if _number(schema.get("maxLength")) else None
        shortest = min(parsed.getwidth()[0], 10**6)
        best = None
        for attempt in range(8):
            # first free draws, then the shortest string stretched to minLength through its open repeats
            extra, bonus = (_REPEAT_EXTRA, 0) if attempt < 4 else (0, max(0, low - shortest))
            try:
                text = _PatternWriter(self.rng, extra, bonus).write(parsed)
            except (RecursionError, ValueError, IndexError, TypeError, StopIteration):
                return best
            if compiled.search(text):
                best = text
                if len(text) >= low and (high is None or len(text) <= high):
                    return text
        return best


def _searches(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True  # a pattern Python can't read: no verdict


# -- strings from regular expressions ---------------------------------------------------------------------

_CATEGORY_CHARS = {
    sre_constants.CATEGORY_DIGIT: "0123456789",
    sre_constants.CATEGORY_NOT_DIGIT: "abcxyzABC_-",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: "abcxyz0123",
    sre_constants.CATEGORY_WORD: "abcdefxyzABC0123_",
    sre_constants.CATEGORY_NOT_WORD: " -.!",
}
_ANY_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_. !"
_REPEAT_EXTRA = 3  # how far past its minimum an open-ended repeat goes


class _PatternWriter:
    """A string that a parsed regular expression (`re._parser`) is meant to match."""

    def __init__(self, rng: random.Random, extra: int = _REPEAT_EXTRA, bonus: int = 0) -> None:
        self.rng, self.extra, self.bonus = rng, extra, bonus  # bonus: characters the repeats are to add
        self.groups: dict[int, str] = {}

    def write(self, parsed: Any) -> str:
        return "".join(self._node(op, arg) for op, arg in parsed)

    def _node(self, op: Any, arg: Any) -> str:
        handler = _PATTERN_NODES.get(op)
        return handler(self, arg) if handler is not None else ""

    def _literal(self, arg: int) -> str:
        return chr(arg)

    def _not_literal(self, arg: int) -> str:
        return next(c for c in _ANY_CHARS if ord(c) != arg)

    def _any(self, _arg: Any) -> str:
        return self.rng.choice(_ANY_CHARS[:62])

    def _category(self, arg: Any) -> str:
        return self.rng.choice(_CATEGORY_CHARS.get(arg, "a"))

    def _in(self, items: list[Any]) -> str:
        if items and items[0][0] == sre_constants.NEGATE:
            banned = set(self._set_chars(items[1:], everything=True))
            allowed = [c for c in _ANY_CHARS if c not in banned]
            return self.rng.choice(allowed) if allowed else "~"
        chars = self._set_chars(items, everything=False)
        return self.rng.choice(chars) if chars else "a"

    def _set_chars(self, items: list[Any], everything: bool) -> list[str]:
        chars: list[str] = []
        for op, arg in items:
            if op == sre_constants.LITERAL:
                chars.append(chr(arg))
            elif op == sre_constants.RANGE:
                span = range(arg[0], arg[1] + 1)
                chars += [chr(c) for c in span] if everything else [chr(c) for c in list(span)[:64]]
            elif op == sre_constants.CATEGORY:
                chars += list(_CATEGORY_CHARS.get(arg, ""))
        return chars

    def _repeat(self, arg: Any) -> str:
        low, high, sub = arg
        count = self.rng.randint(low, max(low, min(high, low + self.extra)))
        width = sub.getwidth()[0] if hasattr(sub, "getwidth") else 1
        if self.bonus > 0 and width > 0 and count < high:
            more = min(math.ceil(self.bonus / width), high - count)
            count, self.bonus = count + more, self.bonus - more * width
        return "".join(self.write(sub) for _ in range(min(count, _MAX_LENGTH)))

    def _subpattern(self, arg: Any) -> str:
        group, _add, _del, sub = arg
        text = self.write(sub)
        if group is not None:
            self.groups[group] = text
        return text

    def _branch(self, arg: Any) -> str:
        return self.write(self.rng.choice(arg[1]))

    def _groupref(self, arg: int) -> str:
        return self.groups.get(arg, "")

    def _nothing(self, _arg: Any) -> str:
        return ""

    def _atomic(self, arg: Any) -> str:
        return self.write(arg)


_PATTERN_NODES = {
    sre_constants.LITERAL: _PatternWriter._literal,
    sre_constants.NOT_LITERAL: _PatternWriter._not_literal,
    sre_constants.ANY: _PatternWriter._any,
    sre_constants.CATEGORY: _PatternWriter._category,
    sre_constants.IN: _PatternWriter._in,
    sre_constants.MAX_REPEAT: _PatternWriter._repeat,
    sre_constants.MIN_REPEAT: _PatternWriter._repeat,
    sre_constants.POSSESSIVE_REPEAT: _PatternWriter._repeat,
    sre_constants.SUBPATTERN: _PatternWriter._subpattern,
    sre_constants.BRANCH: _PatternWriter._branch,
    sre_constants.GROUPREF: _PatternWriter._groupref,
    sre_constants.AT: _PatternWriter._nothing,
    sre_constants.ASSERT: _PatternWriter._nothing,
    sre_constants.ASSERT_NOT: _PatternWriter._nothing,
    sre_constants.ATOMIC_GROUP: _PatternWriter._atomic,
}


# -- formats ----------------------------------------------------------------------------------------------

_FORMAT_BOUNDS: dict[Any, tuple[int | None, int | None]] = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-(2**15), 2**15 - 1),
}


def _date(rng: random.Random) -> str:
    return f"{rng.randint(2000, 2030):04d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _time(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"


def _ipv6(rng: random.Random) -> str:
    return ":".join(f"{rng.randint(0, 0xFFFF):x}" for _ in range(8))


_FORMATS = {
    "date-time": lambda rng: f"{_date(rng)}T{_time(rng)}",
    "date": _date,
    "time": _time,
    "duration": lambda rng: f"P{rng.randint(1, 30)}DT{rng.randint(0, 23)}H",
    "email": lambda rng: f"{rng.choice(_WORDS)}{rng.randint(1, 99)}@example.com",
    "idn-email": lambda rng: f"{rng.choice(_WORDS)}{rng.randint(1, 99)}@example.com",
    "uuid": lambda rng: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    "uri": lambda rng: f"https://example.com/{rng.choice(_WORDS)}/{rng.randint(1, 999)}",
    "iri": lambda rng: f"https://example.com/{rng.choice(_WORDS)}/{rng.randint(1, 999)}",
    "url": lambda rng: f"https://example.com/{rng.choice(_WORDS)}/{rng.randint(1, 999)}",
    "uri-reference": lambda rng: f"/{rng.choice(_WORDS)}/{rng.randint(1, 999)}",
    "iri-reference": lambda rng: f"/{rng.choice(_WORDS)}/{rng.randint(1, 999)}",
    "uri-template": lambda rng: f"https://example.com/{rng.choice(_WORDS)}/{{id}}",
    "ipv4": lambda rng: ".".join(str(rng.randint(1, 254)) for _ in range(4)),
    "ipv6": _ipv6,
    "hostname": lambda rng: f"{rng.choice(_WORDS)}{rng.randint(1, 99)}.example.com",
    "idn-hostname": lambda rng: f"{rng.choice(_WORDS)}{rng.randint(1, 99)}.example.com",
    "json-pointer": lambda rng: f"/{rng.choice(_WORDS)}/{rng.randint(0, 9)}",
    "relative-json-pointer": lambda rng: f"{rng.randint(0, 3)}/{rng.choice(_WORDS)}",
    "regex": lambda rng: f"^{rng.choice(_WORDS)}[0-9]+$",
    "byte": lambda rng: base64.b64encode(rng.randbytes(rng.randint(3, 12))).decode("ascii"),
    "binary": lambda rng: rng.randbytes(8).hex(),
    "password": lambda rng: f"{rng.choice(_WORDS)}-{rng.randint(1000, 9999)}",
}


# -- bodies -----------------------------------------------------------------------------------------------

def _binary_schema(schema: Any) -> bool:
    return (isinstance(schema, dict) and schema.get("format") in ("binary", "byte")) or schema in (None, {}, True)


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _xml(name: str, value: Any) -> str:
    if isinstance(value, dict):
        inner = "".join(_xml(str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        inner = "".join(_xml("item", v) for v in value)
    else:
        inner = xml_escape(_scalar_text(value))
    tag = name if re.fullmatch(r"[A-Za-z_][\w.-]*", name) else "item"
    return f"<{tag}>{inner}</{tag}>"


def _xml_name(schema: Any, spec: Spec) -> str:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        target = spec.resolve_schema(schema["$ref"])
        schema = target if isinstance(target, dict) else schema
    xml = schema.get("xml") if isinstance(schema, dict) else None
    return str(xml["name"]) if isinstance(xml, dict) and isinstance(xml.get("name"), str) else "root"


def encode(value: Any, content_type: str, media: MediaType, rng: random.Random, spec: Spec) -> bytes:
    """The body bytes of `value` as `content_type`."""
    media_type = parse_media_type(content_type)[0]
    family = media_family(media_type)
    if family == "json":
        return json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
    if media_type.endswith(("/yaml", "+yaml", "/x-yaml")):
        return yaml.safe_dump(value, allow_unicode=True, sort_keys=False).encode("utf-8")
    if media_type.endswith(("/xml", "+xml")) and not isinstance(value, str):
        return _xml(_xml_name(media.schema, spec), value).encode("utf-8")
    if family == "text":
        return value.encode("utf-8") if isinstance(value, str) else _scalar_text(value).encode("utf-8")
    if family in ("form", "multipart") and isinstance(value, dict):
        try:
            return encode_body(value, content_type, openapi_version=spec.spec_version, encoding=media.encoding)[0]
        except Exception:  # a value the wire's encoders don't take: send it as JSON text
            return json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
    if isinstance(value, bytes):
        return value
    if isinstance(value, str) and not _binary_schema(media.schema):
        return value.encode("utf-8")
    return rng.randbytes(16)


def _header_text(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_scalar_text(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k},{_scalar_text(v)}" for k, v in value.items())
    return _scalar_text(value)


# -- the maker --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Choice:
    """What a request asked for, worked out to the response it gets."""

    status: int
    response: Response | None
    key: str | None  # the content key, None: no body
    content_type: str | None


class ResponseMaker:
    """Builds (and keeps) the mock's answers for the operations of one spec."""

    def __init__(self, spec: Spec, seed: int = 0) -> None:
        self.spec = spec
        self.seed = seed
        self._rng = random.Random(stable_seed("maker", seed))
        self._checker = _Checker(spec)
        self._cache: dict[tuple[Any, ...], MockResponse] = {}

    def respond(self, op: Operation, *, code: int | None = None, example: str | None = None,
                dynamic: bool = False, seed: int | None = None, accept: str | None = None) -> MockResponse:
        """The answer to a request of `op`; raises NoSuchResponse or NotAcceptable (one-line messages)."""
        fresh = dynamic and seed is None
        key = (op.method, op.path, op.webhook, code, example, dynamic, seed, accept)
        if not fresh and key in self._cache:
            return self._cache[key]
        choice = self._choose(op, code, accept)
        rng = self._rng if fresh else random.Random(stable_seed(
            self.seed if seed is None else seed, op.method, op.path, choice.status, choice.key))
        answer = self._build(op, choice, example, dynamic, rng)
        if not fresh:
            self._cache[key] = answer
        return answer

    def _choose(self, op: Operation, code: int | None, accept: str | None) -> _Choice:
        status, response = choose_status(op, code)
        if response is None:
            return _Choice(status, None, None, None)
        label = f"{op.label()} {response.status}"
        media = choose_media(response, accept, label)
        if media is None:
            return _Choice(status, response, None, None)
        return _Choice(status, response, media[0], media[1])

    def _build(self, op: Operation, choice: _Choice, example: str | None, dynamic: bool,
               rng: random.Random) -> MockResponse:
        if choice.response is None:
            return MockResponse(choice.status, None, b"")
        headers = self._headers(choice.response, rng)
        if choice.key is None or choice.content_type is None:
            if example is not None:
                raise NoSuchExample(f"{op.label()} {choice.response.status} has no body, so no example "
                                    f"{example!r} (examples: none)")
            return MockResponse(choice.status, None, b"", headers)
        media = choice.response.content[choice.key]
        value = _MISSING
        if not dynamic or example is not None:
            label = f"{op.label()} {choice.response.status} {choice.key}"
            value = spec_example(self.spec, choice.response, media, example, label)
        if value is _MISSING:
            value = self.generate(media.schema, rng)
        body = encode(value, choice.content_type, media, rng, self.spec)
        return MockResponse(choice.status, choice.content_type, body, headers)

    def generate(self, schema: Any, rng: random.Random) -> Any:
        """A value valid against `schema` (a best effort when nothing is)."""
        try:
            return _Generator(self.spec, rng, self._checker).value(schema)
        except Exception:  # a schema beyond what the generator handles (say, an infinite bound): no value
            return None

    def _headers(self, response: Response, rng: random.Random) -> tuple[tuple[str, str], ...]:
        out = []
        for header in response.headers:
            if header.name.lower() == "content-type":
                continue
            value = _schema_example(header.schema, self.spec)
            if value is _MISSING:
                value = self.generate(header.schema or {"type": "string"}, rng)
            out.append((header.name, _header_text(value)))
        return tuple(out)
