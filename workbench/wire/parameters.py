"""Parameter serialisation, both directions, from one table: the executor serialises with it and the mock
server parses with it, so each OpenAPI style is defined exactly once (`STYLES`). Bodies: `bodies.py`.

Every style is described by the same four facts: a prefix ("" / "." / ";"), whether each element reads
`name=value` (matrix, form and the query styles) or is a bare value (label, simple), the separator of
array items (and of object keys and values) when not exploded, and the separator of elements when
exploded. `_elements` turns a value into elements from those facts, and `_collect` turns elements back
into a value from the same facts; the per-location functions only say how elements meet the wire.

What a caller must know:
- Path: `parse_path` takes the RAW (still percent-encoded) text that stood where `{name}` was, so an
  encoded "," or "." inside an item is told apart from the separator; data is percent-encoded (and "."
  too in label style, where it is the separator), so a value can never inject "/", "?" or "#"; a result
  that would be the dot-segment "." or ".." is sent as "%2E" / "%2E%2E".
- Query: `serialize_query` returns encoded pairs (`join_query` joins them); `parse_query` takes DECODED
  pairs, exactly what `split_query` (= `urllib.parse.parse_qsl(keep_blank_values=True)`) gives. Because
  they are decoded, an array item (or non-exploded object key/value) that contains the style's own
  separator ("," / " " / "|" / tab) cannot be told apart from two items: that is inherent in the styles.
  `allow_reserved` lets `:/?@!$'()*,;=` through but still encodes `[ ] # & +` and "%" (pre-encoded
  triples are NOT passed through), so every value still round-trips.
- Header: simple style, never percent-encoded; items are stripped of surrounding whitespace on parse;
  anything but visible ASCII, space and tab (CR, LF, NUL, non-ASCII) is refused (`header_text`: the one
  rule, for any header value a client sends).
- Cookie: form style, percent-encoded (`color=blue`, exploded `color=blue&color=black`); `parse_cookie`
  takes the whole Cookie header value (other cookies may be present, "; " or "&" both separate).
- Exploded form objects (query, cookie, 3.0 form bodies) carry no parameter name: pass `properties`
  (names, or the schema's `properties` mapping, which also types each value). Without it every pair is
  taken as a property.
- Empty values: an empty array and an empty object (or one whose values are all None) are undefined
  (RFC 6570 2.3 and 3.2.1: an empty list or map), like None: a query (any style, deepObject too) yields no
  pairs, a header or cookie serialises to None (send nothing), and a path, which cannot leave its value out,
  refuses it. The array `[""]` is sent as the style's "empty" form (`color=`, `;color`, `.`, "") and parses
  back as `[""]`. parse_* returns None when absent.
- Scalars: booleans "true"/"false", ints as ints, floats by `repr` (round-trips). On parse, `kind` /
  `item_kind` ("string", "integer", "number", "boolean", "array", "object", or a 3.1 type list) convert
  text; text that does not fit the kind is returned unchanged (the caller's schema validation reports it).
  Malformed structure (a label value without its ".", an odd key/value list) raises SerializationError.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, unquote

__all__ = [
    "STYLES",
    "SerializationError",
    "Style",
    "collection_format",
    "header_text",
    "join_query",
    "parse_cookie",
    "parse_header",
    "parse_path",
    "parse_query",
    "schema_kind",
    "serialize_cookie",
    "serialize_header",
    "serialize_path",
    "serialize_query",
    "split_query",
]


class SerializationError(ValueError):
    """A value that a style cannot carry, or wire text that does not have the style's shape."""


class Style(NamedTuple):
    """How one style lays a value out; separators are given as characters (the wire form is derived)."""

    prefix: str  # before the first element: ";" matrix, "." label
    named: bool  # elements read name=value rather than being bare values
    list_sep: str  # joins array items, and object keys with values, when not exploded
    explode_sep: str  # joins elements when exploded (query and cookie elements are "&"-joined pairs)
    locations: frozenset[str]


_PATH, _QUERY, _HEADER, _COOKIE = "path", "query", "header", "cookie"

STYLES: dict[str, Style] = {
    "matrix": Style(";", True, ",", ";", frozenset({_PATH})),
    "label": Style(".", False, ",", ".", frozenset({_PATH})),
    "simple": Style("", False, ",", ",", frozenset({_PATH, _HEADER})),
    "form": Style("", True, ",", "&", frozenset({_QUERY, _COOKIE})),
    "spaceDelimited": Style("", True, " ", "&", frozenset({_QUERY})),
    "pipeDelimited": Style("", True, "|", "&", frozenset({_QUERY})),
    "tabDelimited": Style("", True, "\t", "&", frozenset({_QUERY})),  # Swagger 2 `tsv`
    "deepObject": Style("", True, ",", "&", frozenset({_QUERY})),  # nested keys: see _deep_pairs
}
_DELIMITED = ("spaceDelimited", "pipeDelimited", "tabDelimited")


def _rule(style: str, location: str) -> Style:
    rule = STYLES.get(style)
    if rule is None:
        raise SerializationError(f"unknown style {style!r}")
    if location in rule.locations:
        return rule
    if style in _DELIMITED and location in (_PATH, _HEADER):
        # Swagger 2 ssv/pipes/tsv on a path or header parameter: bare values joined by the delimiter
        return Style("", False, rule.list_sep, rule.list_sep, frozenset({location}))
    raise SerializationError(f"style {style!r} is not allowed in {location}")


def collection_format(fmt: str | None, location: str = "query") -> tuple[str, bool]:
    """Swagger 2.0 `collectionFormat` → (style, explode) for `location` ("query", "formData", "path",
    "header"): csv → form/simple not exploded, ssv/pipes/tsv → space/pipe/tabDelimited, multi → form
    exploded (query and formData only)."""
    in_query = location in ("query", "formData", "cookie")
    table = {"csv": ("form" if in_query else "simple", False), "ssv": ("spaceDelimited", False),
             "pipes": ("pipeDelimited", False), "tsv": ("tabDelimited", False), "multi": ("form", True)}
    fmt = fmt or "csv"
    if fmt not in table or (fmt == "multi" and not in_query):
        raise SerializationError(f"collectionFormat {fmt!r} is not allowed in {location}")
    return table[fmt]


# ---------------------------------------------------------------------------------------------------
# percent-encoding

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_FORM_BODY = _UNRESERVED - {"~"}
# reserved characters allowReserved lets through in a query value; [ ] # & + always stay encoded,
# because they end or restructure a query string (and "+" reads as a space to form parsers)
_RESERVED_OK = frozenset(":/?@!$'()*,;=")


@cache
def _encoder(safe: frozenset[str]) -> Callable[[str], str]:
    table = tuple(chr(b) if chr(b) in safe else f"%{b:02X}" for b in range(256))

    def encode(text: str) -> str:
        return "".join([table[b] for b in text.encode("utf-8")])

    return encode


_pct = _encoder(_UNRESERVED)


def _wire(sep: str) -> str:
    """A separator as it appears in a URL: the URI delimiters literally, anything else encoded."""
    return sep if sep in ",;.=&" else _pct(sep)


def _split(text: str, sep: str) -> list[str]:
    if sep.startswith("%"):  # an encoded separator: match %7C and %7c alike
        return re.split(re.escape(sep), text, flags=re.IGNORECASE)
    return text.split(sep)


def _ident(text: str) -> str:
    return text


def _strip(text: str) -> str:
    return text.strip()


def join_query(pairs: Iterable[tuple[str, str]]) -> str:
    """Encoded pairs (from serialize_query) → query string (without "?")."""
    return "&".join(f"{k}={v}" for k, v in pairs)


def split_query(query: str) -> list[tuple[str, str]]:
    """Query string (a leading "?" is ignored) → the DECODED pairs parse_query expects."""
    return parse_qsl(query.removeprefix("?"), keep_blank_values=True)


# ---------------------------------------------------------------------------------------------------
# scalars and kinds


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return value
    raise SerializationError(f"a {type(value).__name__} has no defined form here (nested values need a JSON body "
                             "or deepObject)")


def _kind(kind: Any) -> str:
    if isinstance(kind, list | tuple):
        kind = next((k for k in kind if k != "null"), "string")
    return kind or "string"


def _shape(kind: Any) -> str:
    kind = _kind(kind)
    return kind if kind in ("array", "object") else "scalar"


_INT = re.compile(r"[-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?:inf|nan)", re.IGNORECASE)


def _convert(text: str, kind: Any) -> Any:
    """Text → the kind's Python value; text that does not fit is returned unchanged."""
    kind = _kind(kind)
    if kind == "integer" and _INT.fullmatch(text):
        return int(text)
    if kind == "number":
        if _INT.fullmatch(text):
            return int(text)
        if _FLOAT.fullmatch(text):
            return float(text)
    if kind == "boolean" and text in ("true", "false"):
        return text == "true"
    return text


def schema_kind(schema: Any) -> str:
    """The kind (parse_* `kind`) of a resolved JSON schema: its type, or inferred from its keywords."""
    if not isinstance(schema, Mapping):
        return "string"
    kind = schema.get("type")
    if kind is None:
        if "properties" in schema or "additionalProperties" in schema:
            return "object"
        return "array" if "items" in schema else "string"
    return _kind(kind)


def _typed(value: Any, schema: Any) -> Any:
    """Text parsed from the wire, typed by a (resolved) schema."""
    kind = schema_kind(schema)
    if kind == "array":
        items = value if isinstance(value, list) else [value]
        return [_typed(v, schema.get("items") or {}) for v in items]
    if kind == "object" and isinstance(value, dict):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        return {k: _typed(v, props.get(k, extra if isinstance(extra, Mapping) else {})) for k, v in value.items()}
    if isinstance(value, str):
        if kind in ("object", "array"):
            return _json_or_text(value)
        return _convert(value, kind)
    return value


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _value_kind(properties: Any, key: str, item_kind: Any) -> Callable[[str], Any]:
    if isinstance(properties, Mapping) and isinstance(properties.get(key), Mapping):
        schema = properties[key]
        return lambda text: _typed(text, schema)
    return lambda text: _convert(text, item_kind)


# ---------------------------------------------------------------------------------------------------
# the two directions of the table

Element = tuple[str | None, str]  # (key or None for bare values, text) as it stands on the wire


def _elements(name: str, value: Any, rule: Style, explode: bool, kenc: Callable[[str], str],
              venc: Callable[[str], str], list_sep: str) -> list[Element]:
    """Value → elements. `kenc` encodes pair keys, `venc` data; `list_sep` is the wire list separator."""
    key = kenc(name) if rule.named else None
    if isinstance(value, Mapping):
        kv = [(str(k), _scalar(v)) for k, v in value.items() if v is not None]
        if not kv:
            return []  # undefined, as an empty list: the parameter is left out
        if explode:
            if rule.named:
                return [(kenc(k), venc(v)) for k, v in kv]
            return [(None, f"{venc(k)}={venc(v)}") for k, v in kv]
        return [(key, list_sep.join(venc(x) for pair in kv for x in pair))]
    if isinstance(value, list | tuple):
        items = [venc(_scalar(v)) for v in value if v is not None]
        if not items:
            return []  # undefined: the parameter is left out
        return [(key, i) for i in items] if explode else [(key, list_sep.join(items))]
    return [(key, venc(_scalar(value)))]


def _split_kv(token: str) -> tuple[str, str]:
    key, _, value = token.partition("=")
    return key, value


def _collect(elements: list[Element], name: str, rule: Style, explode: bool, kind: Any, item_kind: Any,
             properties: Any, dec: Callable[[str], str], list_sep: str) -> Any:
    """Elements → value (None when absent). `dec` decodes one token; `list_sep` is as in the elements."""
    shape = _shape(kind)
    mine = [v for k, v in elements if k is not None and dec(k) == name] if rule.named else [v for _, v in elements]
    if shape == "scalar":
        return _convert(dec(mine[0]), kind) if mine else None
    if shape == "array":
        if not mine:
            return None
        tokens = mine if explode else [part for token in mine for part in _split(token, list_sep)]
        return [_convert(dec(t), item_kind) for t in tokens]
    if explode:
        if rule.named:
            pairs = [(dec(k), dec(v)) for k, v in elements if k is not None]
            if properties is not None:
                pairs = [(k, v) for k, v in pairs if k in properties]
            else:
                pairs = [(k, v) for k, v in pairs if (k, v) != (name, "")]
        else:
            pairs = [(dec(k), dec(v)) for k, v in (_split_kv(t) for t in mine if t)]
        if not pairs:
            return {} if mine else None
    else:
        if not mine:
            return None
        parts = [dec(p) for p in _split(mine[0], list_sep)]
        if parts == [""]:
            return {}
        if len(parts) % 2:
            raise SerializationError(f"{name}: an object needs key,value pairs, got {len(parts)} items")
        pairs = list(zip(parts[0::2], parts[1::2], strict=True))
    return {k: _value_kind(properties, k, item_kind)(v) for k, v in pairs}


# ---------------------------------------------------------------------------------------------------
# path


def serialize_path(name: str, value: Any, style: str = "simple", explode: bool = False) -> str:
    """The percent-encoded text that replaces `{name}` in the path (matrix, label, simple)."""
    if value is None:
        raise SerializationError(f"path parameter {name!r} needs a value")
    rule = _rule(style, _PATH)
    enc = _encoder(_UNRESERVED - set(rule.prefix + rule.list_sep + rule.explode_sep))
    elements = _elements(name, value, rule, explode, enc, enc, _wire(rule.list_sep))
    if not elements:
        raise SerializationError(f"path parameter {name!r} needs at least one item: an empty array or object has "
                                 "no form")
    text = rule.prefix + _wire(rule.explode_sep).join(
        v if k is None else (f"{k}={v}" if v else k) for k, v in elements)  # matrix: ";color" when empty
    return "%2E" * len(text) if text in (".", "..") else text


def parse_path(text: str, name: str, style: str = "simple", explode: bool = False, kind: Any = "string",
               item_kind: Any = "string", properties: Any = None) -> Any:
    """Inverse of serialize_path; `text` is the RAW (percent-encoded) text that matched `{name}`."""
    rule = _rule(style, _PATH)
    if text.upper() in ("%2E", "%2E%2E"):
        text = "." * (len(text) // 3)
    if not text.startswith(rule.prefix):
        raise SerializationError(f"{style} path parameter {name!r} must start with {rule.prefix!r}: {text!r}")
    body = text[len(rule.prefix):]
    sep = _wire(rule.explode_sep)
    if rule.named:
        elements: list[Element] = [_split_kv(t) for t in _split(body, sep)]
    elif explode and _shape(kind) != "scalar":
        elements = [(None, t) for t in _split(body, sep)]
    else:
        elements = [(None, body)]
    return _collect(elements, name, rule, explode, kind, item_kind, properties, unquote, _wire(rule.list_sep))


# ---------------------------------------------------------------------------------------------------
# query (and form bodies, which are query strings with "~" encoded too)


def serialize_query(name: str, value: Any, style: str = "form", explode: bool = True,
                    allow_reserved: bool = False) -> list[tuple[str, str]]:
    """Percent-encoded (key, value) pairs, to be joined with "&" and "=" (see join_query)."""
    return _query_pairs(name, value, style, explode, allow_reserved, _UNRESERVED)


def _query_pairs(name: str, value: Any, style: str, explode: bool, allow_reserved: bool,
                 safe: frozenset[str]) -> list[tuple[str, str]]:
    if value is None:
        return []
    rule = _rule(style, _QUERY)
    kenc = _encoder(safe)
    venc = _encoder(safe | _RESERVED_OK) if allow_reserved else kenc
    if style == "deepObject":
        return _deep_pairs(name, value, kenc, venc)
    if explode:  # exploded space/pipe/tabDelimited are form/explode
        rule = STYLES["form"]
    return [(k or "", v) for k, v in _elements(name, value, rule, explode, kenc, venc, _wire(rule.list_sep))]


def _deep_pairs(name: str, value: Any, kenc: Callable[[str], str],
                venc: Callable[[str], str]) -> list[tuple[str, str]]:
    """deepObject: `name[key]=value`; nested objects nest the brackets and arrays repeat the key (both
    beyond the specification, which defines one level of scalars only)."""
    if isinstance(value, list | tuple):
        raise SerializationError(f"deepObject parameter {name!r} carries objects, not arrays")
    if not isinstance(value, Mapping):
        return [(kenc(name), venc(_scalar(value)))]
    out: list[tuple[str, str]] = []

    def walk(prefix: str, obj: Mapping[str, Any]) -> None:
        for k, v in obj.items():
            key = f"{prefix}[{k}]"
            if isinstance(v, Mapping):
                walk(key, v)
            elif isinstance(v, list | tuple):
                out.extend((kenc(key), venc(_scalar(i))) for i in v if i is not None)
            elif v is not None:
                out.append((kenc(key), venc(_scalar(v))))

    walk(name, value)
    return out  # an empty object is undefined: nothing is sent


_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def _parse_deep(pairs: list[tuple[str, str]], name: str, item_kind: Any, properties: Any) -> Any:
    root: dict[str, Any] = {}
    seen = False
    for key, value in pairs:
        if key == name and value == "":
            seen = True
            continue
        rest = key[len(name):] if key.startswith(name + "[") else ""
        path = _BRACKETS.findall(rest)
        if not path or "".join(f"[{p}]" for p in path) != rest:
            continue
        seen = True
        node = root
        for segment in path[:-1]:
            node = node.setdefault(segment, {})
            if not isinstance(node, dict):
                raise SerializationError(f"{key}: conflicting deepObject keys")
        leaf = path[-1]
        if isinstance(node.get(leaf), dict):
            raise SerializationError(f"{key}: conflicting deepObject keys")
        if leaf in node:
            node[leaf] = [*(node[leaf] if isinstance(node[leaf], list) else [node[leaf]]), value]
        else:
            node[leaf] = value
    if not seen:
        return None

    def typed(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        if isinstance(value, list):
            return [typed(v) for v in value]
        return _convert(value, item_kind)

    schemas = properties if isinstance(properties, Mapping) else {}
    return {k: _typed(v, schemas[k]) if isinstance(schemas.get(k), Mapping) else typed(v) for k, v in root.items()}


def parse_query(pairs: Iterable[tuple[str, str]], name: str, style: str = "form", explode: bool = True,
                kind: Any = "string", item_kind: Any = "string", properties: Any = None) -> Any:
    """Inverse of serialize_query. `pairs` are DECODED (split_query / parse_qsl(keep_blank_values=True)),
    all of the query string's pairs: the parameter's own are picked by name (or by `properties`)."""
    pairs = list(pairs)
    rule = _rule(style, _QUERY)
    if style == "deepObject" and _shape(kind) == "object":
        return _parse_deep(pairs, name, item_kind, properties)
    if explode:
        rule = STYLES["form"]
    return _collect(pairs, name, rule, explode, kind, item_kind, properties, _ident, rule.list_sep)


# ---------------------------------------------------------------------------------------------------
# header and cookie


def serialize_header(value: Any, explode: bool = False, style: str = "simple") -> str | None:
    """Simple-style header value, not percent-encoded (None for None or an empty array: send no header).
    `style` also takes space/pipe/tabDelimited for Swagger 2 ssv/pipes/tsv headers."""
    rule = _rule(style, _HEADER)
    elements = [] if value is None else _elements("", value, rule, explode, _ident, _ident, rule.list_sep)
    return header_text(rule.explode_sep.join(v for _, v in elements)) if elements else None


_HEADER_TEXT = re.compile(r"[\t\x20-\x7e]*")


def header_text(text: str) -> str:
    """`text` when a header can carry it as it is (visible ASCII, space, tab), else SerializationError saying
    why: CR/LF would end the header, and non-ASCII has no form without an encoding the spec declares."""
    if _HEADER_TEXT.fullmatch(text):
        return text
    bad = next(c for c in text if not _HEADER_TEXT.fullmatch(c))
    what = {"\r": "CR", "\n": "LF", "\0": "NUL"}.get(bad)
    if what is None:
        what = f"the non-ASCII character {bad!r}" if ord(bad) > 0x7e else f"the control character {bad!r}"
    raise SerializationError(f"a header value must be visible ASCII, spaces and tabs; it cannot contain {what}")


def parse_header(text: str, explode: bool = False, kind: Any = "string", item_kind: Any = "string",
                 properties: Any = None, style: str = "simple") -> Any:
    """Inverse of serialize_header; surrounding whitespace of the value and of each item is dropped."""
    rule = _rule(style, _HEADER)
    body = text.strip()
    if explode and _shape(kind) != "scalar":
        elements: list[Element] = [(None, t) for t in body.split(rule.explode_sep)]
    else:
        elements = [(None, body)]
    return _collect(elements, "", rule, explode, kind, item_kind, properties, _strip, rule.list_sep)


def serialize_cookie(name: str, value: Any, explode: bool = True) -> str | None:
    """Form-style cookie text (`color=blue`, percent-encoded; exploded arrays `color=a&color=b`, exploded
    objects `R=100&G=200`); None for None or an empty array (send nothing)."""
    elements = [] if value is None else _elements(name, value, STYLES["form"], explode, _pct, _pct, ",")
    return "&".join(f"{k}={v}" for k, v in elements) if elements else None


def parse_cookie(text: str, name: str, explode: bool = True, kind: Any = "string", item_kind: Any = "string",
                 properties: Any = None) -> Any:
    """Inverse of serialize_cookie; `text` is the whole Cookie header value (cookies separated by ";")."""
    elements: list[Element] = [_split_kv(piece) for cookie in text.split(";")
                               for piece in cookie.strip().split("&") if piece]
    return _collect(elements, name, STYLES["form"], explode, kind, item_kind, properties, unquote, ",")
