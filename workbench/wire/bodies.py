"""Request and response bodies, both directions: JSON (and +json), form-urlencoded, multipart/form-data,
text/* and binary. Form bodies are query strings, so they reuse the parameter table (`parameters.py`).

`openapi_version` picks the form-urlencoded rules: "2.x" and "3.0.x" put every property in
form/explode (objects as `R=100&G=200`); "3.1" and later apply a style only when `encoding[prop]`
declares style/explode/allowReserved and otherwise JSON-encode objects (arrays are repeated keys).
Multipart: bytes values are parts without a filename (application/octet-stream) and come back as bytes;
`{"filename", "content", "content_type"}` dicts are file parts and come back as such a dict with
`content` as bytes and all three keys present; objects are JSON parts; other scalars are text parts
with no Content-Type. Pass a `boundary=` parameter in the media type to choose the boundary.
`decode_body` uses `schema` (resolved, no $ref) to type form/multipart values and to tell a one-item
array from a scalar; without it a repeated key becomes a list and values stay text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

from workbench.wire.parameters import (
    _FORM_BODY,
    SerializationError,
    _convert,
    _json_or_text,
    _query_pairs,
    _scalar,
    _typed,
    join_query,
    parse_query,
    schema_kind,
    split_query,
)

__all__ = ["as_file", "binary_schema", "decode_body", "decode_xml", "encode_body", "file_stand_in", "is_file", "is_xml",
           "text_only_form_field"]


def parse_media_type(content_type: str) -> tuple[str, dict[str, str]]:
    head, *rest = (content_type or "").split(";")
    params = {}
    for part in rest:
        key, _, value = part.partition("=")
        params[key.strip().lower()] = value.strip().strip('"')
    return head.strip().lower(), params


def media_family(media_type: str) -> str:
    if media_type in ("application/json", "text/json") or media_type.endswith("+json"):
        return "json"
    if media_type == "application/x-www-form-urlencoded":
        return "form"
    if media_type.startswith("multipart/"):
        return "multipart"
    if media_type.startswith("text/") or media_type == "application/xml" or media_type.endswith("+xml"):
        return "text"
    return "binary"


def _concrete(media_type: str, value: Any) -> str:
    """A wildcard media type (`*/*`, `text/*`, `application/*`) made concrete for this value."""
    if isinstance(value, bytes | bytearray | memoryview):
        return "application/octet-stream"
    if media_type.startswith("text/") or (isinstance(value, str) and media_type == "*/*"):
        return "text/plain"
    return "application/json" if media_type in ("*/*", "application/*") else "application/octet-stream"


def _legacy_form(openapi_version: str | None) -> bool:
    """Swagger 2 and OpenAPI 3.0 put every form property in form/explode; 3.1+ only declared styles."""
    return str(openapi_version or "3.1").startswith(("2", "3.0"))


_SHAPING = ("type", "properties", "items", "anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref")


def text_only_form_field(schema: Any, enc: Mapping[str, Any] | None = None) -> bool:
    """A form-urlencoded property with no type at all (Twilio's `Metadata`, "a stringified JSON"), which a
    form body carries only as text: in Swagger 2 and OpenAPI 3.0 (form/explode for every property) an
    object value goes as fields of its own names, which no server can tell from the body's other fields, and
    an array of objects has no form at all; from 3.1 such a value's default content type is not JSON
    (application/octet-stream), so the server reads the text it was sent as. Every form value is text on the
    wire, so a string loses nothing. Not one: a property whose Encoding declares a style or a JSON content
    type."""
    if not isinstance(schema, Mapping) or any(k in schema for k in _SHAPING):
        return False
    return not _declared(enc or {}) and not _json_part(enc or {})


def binary_schema(schema: Any) -> bool:
    """A (resolved) schema of raw bytes: a string with `format: binary` (Swagger 2 `file` included), or a 3.1
    `contentMediaType` without a `contentEncoding`. A file goes where it stands."""
    if not isinstance(schema, Mapping) or schema_kind(schema) != "string":
        return False
    return schema.get("format") == "binary" or ("contentMediaType" in schema and "contentEncoding" not in schema)


def is_file(value: Any) -> bool:
    """A file as both sides hold one: `{"filename", "content", "content_type"}` (content type optional)."""
    return (isinstance(value, Mapping) and "filename" in value and "content" in value
            and set(value) <= {"filename", "content", "content_type"})


def as_file(name: str, value: Any) -> Any:
    """A value for a binary multipart field as a file part: text or bytes named after the field."""
    if isinstance(value, str | bytes | bytearray | memoryview):
        return {"filename": name, "content": value}
    return value


def file_stand_in(value: Any) -> Any:
    """What stands in for uploaded bytes or a file where a schema says string (JSON Schema has no bytes): the
    bytes as Latin-1 text, the file's name."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("latin-1")
    if is_file(value):
        return str(value["filename"])
    return value


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _declared(enc: Mapping[str, Any]) -> bool:
    return any(k in enc for k in ("style", "explode", "allowReserved"))


def _first_type(content_type: Any) -> str | None:
    """The first of an Encoding object's comma-separated content types."""
    if not isinstance(content_type, str):
        return None
    return content_type.split(",")[0].strip() or None


def encode_body(value: Any, media_type: str, *, openapi_version: str = "3.1",
                encoding: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[bytes, str]:
    """(body bytes, Content-Type header value) for JSON (and +json), form-urlencoded, multipart/form-data,
    text/* and any binary media type. `encoding` is the media type's Encoding object per property."""
    media, params = parse_media_type(media_type)
    if "*" in media:
        media_type = media = _concrete(media, value)
        params = {}
    family = media_family(media)
    if family == "json":
        return _json(value).encode("utf-8"), media_type
    if family in ("text", "binary") and is_file(value):
        value = value["content"]  # a whole body from a file: its bytes
    if family == "form":
        return _encode_form(value, openapi_version, encoding or {}).encode("ascii"), media_type
    if family == "multipart":
        data, boundary = _encode_multipart(value, encoding or {}, params.get("boundary"))
        return data, f"{media}; boundary={boundary}"
    if family == "text":
        charset = params.get("charset", "utf-8")
        data = bytes(value) if isinstance(value, bytes | bytearray | memoryview) else _scalar(value).encode(charset)
        return data, media_type if "charset" in params else f"{media_type}; charset=utf-8"
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value), media_type
    if isinstance(value, str):
        return value.encode("utf-8"), media_type
    raise SerializationError(f"a {media} body needs bytes or str, got {type(value).__name__}")


def decode_body(data: bytes, content_type: str, *, openapi_version: str = "3.1",
                encoding: Mapping[str, Mapping[str, Any]] | None = None, schema: Any = None) -> Any:
    """Inverse of encode_body, chosen by the request's Content-Type. Form and multipart values are typed
    by `schema` (a resolved object schema) when given."""
    media, params = parse_media_type(content_type)
    family = media_family(media)
    if family == "json":
        return json.loads(bytes(data).decode("utf-8-sig"))
    if family == "form":
        return _decode_form(bytes(data).decode("utf-8", "replace"), openapi_version, encoding or {}, schema)
    if family == "multipart":
        return _decode_multipart(bytes(data), content_type, params, schema)
    if family == "text":
        return _decode_text(bytes(data), params.get("charset"))
    return bytes(data)


def is_xml(media_type: str) -> bool:
    media = parse_media_type(media_type)[0]
    return media in ("application/xml", "text/xml") or media.endswith("+xml")


def decode_xml(data: bytes, schema: Any, resolve: Callable[[Any], Any] = lambda schema: schema) -> Any:
    """An XML body as the value its schema describes, the way OpenAPI's XML object maps it: an element per
    property (named by `xml.name` where given), `xml.attribute` properties as attributes, arrays as repeated
    elements (inside one wrapper element with `xml.wrapped`), texts typed by the schema. `resolve` follows a
    schema's `$ref`. A document type declaration is refused: no entity is ever expanded."""
    if re.search(rb"<!(DOCTYPE|ENTITY)", bytes(data), re.IGNORECASE):
        raise SerializationError("an XML body with a document type declaration is not read")
    from xml.etree import ElementTree  # (this module's three stdlib parsers are imported where used: 40 ms)

    try:
        root = ElementTree.fromstring(bytes(data))
    except ElementTree.ParseError as exc:
        raise SerializationError(f"not well-formed XML: {exc}") from None
    return _xml_value(root, schema, resolve, 0)


def _xml_properties(schema: Mapping, resolve: Callable[[Any], Any]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for member in [schema, *(resolve(m) for m in schema.get("allOf") or [])]:
        if isinstance(member, Mapping) and isinstance(member.get("properties"), Mapping):
            props.update({name: resolve(sub) for name, sub in member["properties"].items()})
    return props


def _xml_name(name: str, schema: Any) -> str:
    xml = schema.get("xml") if isinstance(schema, Mapping) else None
    return str(xml["name"]) if isinstance(xml, Mapping) and isinstance(xml.get("name"), str) else name


def _xml_local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]  # `{namespace}name` → name


def _xml_value(element: Element, schema: Any, resolve: Callable[[Any], Any], depth: int) -> Any:
    schema = resolve(schema) if isinstance(schema, Mapping) else {}
    if depth > 64:
        raise SerializationError("the XML body is nested too deeply")
    props = _xml_properties(schema, resolve)
    kind = "object" if props else schema_kind(schema)
    if kind == "array":
        return [_xml_value(child, schema.get("items") or {}, resolve, depth + 1) for child in element]
    if kind != "object":
        return _convert(element.text or "", kind) if kind != "string" else element.text or ""
    children = list(element)
    if not children and not element.attrib and (element.text or "").strip():
        return element.text  # text where an object belongs: the schema's check says so
    out: dict[str, Any] = {}
    used: set[int] = set()
    for name, sub in props.items():
        tag = _xml_name(name, sub)
        xml = sub.get("xml") if isinstance(sub, Mapping) else None
        if isinstance(xml, Mapping) and xml.get("attribute") and tag in element.attrib:
            out[name] = _convert(element.attrib[tag], schema_kind(sub))
            continue
        found = [child for child in children if _xml_local(child.tag) == tag]
        if schema_kind(sub) == "array" and not (isinstance(xml, Mapping) and xml.get("wrapped")):
            items = resolve(sub.get("items") or {})
            item_tag = _xml_name(tag, items)
            found = [child for child in children if _xml_local(child.tag) == item_tag]
            if found:
                out[name] = [_xml_value(child, items, resolve, depth + 1) for child in found]
        elif found:
            out[name] = _xml_value(found[0], sub, resolve, depth + 1)
        used.update(id(child) for child in found)
    extra = schema.get("additionalProperties")
    for child in children:  # elements no property names: kept, so a closed schema can say so
        if id(child) not in used:
            out.setdefault(_xml_local(child.tag), _xml_value(child, extra if isinstance(extra, Mapping) else {},
                                                            resolve, depth + 1))
    return out


def _decode_text(data: bytes, charset: str | None) -> str:
    try:
        return data.decode(charset or "utf-8")
    except LookupError as exc:
        raise SerializationError(f"unknown charset {charset!r}") from exc


def _encode_form(value: Any, openapi_version: str, encoding: Mapping[str, Mapping[str, Any]]) -> str:
    if not isinstance(value, Mapping):
        raise SerializationError("a form-urlencoded body is an object")
    legacy = _legacy_form(openapi_version)
    pairs: list[tuple[str, str]] = []
    for prop, v in value.items():
        enc = encoding.get(prop) or {}
        json_type = media_family(parse_media_type(enc.get("contentType") or "")[0]) == "json"
        if v is None:
            continue
        if _declared(enc) or (legacy and not json_type):
            style = enc.get("style", "form")
            pairs += _query_pairs(prop, v, style, enc.get("explode", style == "form"), enc.get("allowReserved", False),
                                  _FORM_BODY)
        elif json_type or isinstance(v, Mapping):
            pairs += _query_pairs(prop, _json(v), "form", True, False, _FORM_BODY)
        else:  # 3.1+: arrays are repeated keys, their object or array items JSON-encoded
            items = [_json(i) if isinstance(i, Mapping | list | tuple) else i for i in v] \
                if isinstance(v, list | tuple) else v
            pairs += _query_pairs(prop, items, "form", True, False, _FORM_BODY)
    return join_query(pairs)


def _decode_form(text: str, openapi_version: str, encoding: Mapping[str, Mapping[str, Any]], schema: Any) -> Any:
    pairs = split_query(text)
    legacy = _legacy_form(openapi_version)
    props = (schema.get("properties") or {}) if isinstance(schema, Mapping) else {}
    out: dict[str, Any] = {}
    claimed: set[str] = set()
    free_object = None  # a 3.0 exploded object without declared properties takes the unclaimed pairs
    for prop, prop_schema in props.items():
        enc = encoding.get(prop) or {}
        styled = _declared(enc) or (legacy and not _json_part(enc))
        if styled and _is_free_object(prop_schema, enc):
            free_object = prop
            continue
        value, names = (_styled_form_property if styled else _plain_form_property)(pairs, prop, prop_schema, enc)
        claimed |= names
        if value is not None:
            out[prop] = value
    out.update(_unclaimed_form_pairs(pairs, claimed, free_object, props, schema))
    return out


def _json_part(enc: Mapping[str, Any]) -> bool:
    return media_family(parse_media_type(enc.get("contentType") or "")[0]) == "json"


def _form_style(enc: Mapping[str, Any]) -> tuple[str, bool]:
    style = enc.get("style", "form")
    return style, enc.get("explode", style == "form")


def _is_free_object(prop_schema: Any, enc: Mapping[str, Any]) -> bool:
    """An exploded form object without declared properties: its keys cannot be told from other fields."""
    style, explode = _form_style(enc)
    return schema_kind(prop_schema) == "object" and style == "form" and bool(explode) \
        and not prop_schema.get("properties")


def _styled_form_property(pairs: list[tuple[str, str]], prop: str, prop_schema: Any,
                          enc: Mapping[str, Any]) -> tuple[Any, set[str]]:
    """(value or None, the pair keys it takes) of a property in a style (Swagger 2 and 3.0 always, 3.1 when
    its Encoding declares one)."""
    style, explode = _form_style(enc)
    kind = schema_kind(prop_schema)
    item_kind = schema_kind(prop_schema.get("items") if isinstance(prop_schema, Mapping) else None)
    sub = (prop_schema.get("properties") or None) if kind == "object" else None
    if sub is not None and style == "form" and explode:
        names = set(sub)
    elif style == "deepObject":
        names = {k for k, _ in pairs if k == prop or k.startswith(prop + "[")}
    else:
        names = {prop}
    value = parse_query(pairs, prop, style, explode, kind, item_kind, sub)
    if value is not None and kind == "array" and item_kind in ("object", "array"):
        value = [_json_or_text(i) if isinstance(i, str) else i for i in value]
    return value, names


def _plain_form_property(pairs: list[tuple[str, str]], prop: str, prop_schema: Any,
                         enc: Mapping[str, Any]) -> tuple[Any, set[str]]:
    """A 3.1+ property without a declared style: objects (and JSON parts) JSON-encoded, arrays repeated keys."""
    kind = schema_kind(prop_schema)
    if _json_part(enc) or kind == "object":
        value = parse_query(pairs, prop, "form", True, "string")
        return (None if value is None else _json_or_text(value)), {prop}
    value = parse_query(pairs, prop, "form", True, kind, "string")
    if isinstance(value, list):
        items_schema = prop_schema.get("items") if isinstance(prop_schema, Mapping) else None
        value = [_typed(i, items_schema or {}) for i in value]
    return value, {prop}


def _unclaimed_form_pairs(pairs: list[tuple[str, str]], claimed: set[str], free_object: str | None,
                          props: Mapping[str, Any], schema: Any) -> dict[str, Any]:
    """The pairs no property took: the free object's keys, or additional properties."""
    leftover: dict[str, list[str]] = {}
    for k, v in pairs:
        if k not in claimed:
            leftover.setdefault(k, []).append(v)
    if free_object is not None:
        empty = leftover.get(free_object) == [""]  # `name=`: the empty object
        if empty:
            del leftover[free_object]
        if leftover or empty:
            return {free_object: _typed({k: vs[0] for k, vs in leftover.items()}, props[free_object])}
        return {}
    extra = schema.get("additionalProperties") if isinstance(schema, Mapping) else None
    out: dict[str, Any] = {}
    for k, vs in leftover.items():
        value = vs[0] if len(vs) == 1 else vs
        out[k] = _typed(value, extra) if isinstance(extra, Mapping) else value
    return out


def _quote_param(text: str) -> str:
    """A Content-Disposition parameter as browsers quote it (WHATWG: %22 %0D %0A, no backslashes)."""
    return text.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


def _part(name: str, item: Any, content_type: str | None) -> tuple[bytes, bytes]:
    disposition = f'form-data; name="{_quote_param(name)}"'
    if is_file(item):
        content = item["content"]
        content = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        disposition += f'; filename="{_quote_param(str(item["filename"] or ""))}"'
        content_type = item.get("content_type") or content_type or "application/octet-stream"
    elif isinstance(item, bytes | bytearray | memoryview):
        content, content_type = bytes(item), content_type or "application/octet-stream"
    elif isinstance(item, Mapping | list | tuple) or media_family(parse_media_type(content_type or "")[0]) == "json":
        content, content_type = _json(item).encode("utf-8"), content_type or "application/json"
    else:  # text part: no Content-Type means text/plain (RFC 7578), sent as UTF-8
        content = _scalar(item).encode("utf-8")
    head = f"Content-Disposition: {disposition}\r\n" + (f"Content-Type: {content_type}\r\n" if content_type else "")
    return head.encode("utf-8"), content


def _encode_multipart(value: Any, encoding: Mapping[str, Mapping[str, Any]],
                      boundary: str | None) -> tuple[bytes, str]:
    if not isinstance(value, Mapping):
        raise SerializationError("a multipart/form-data body is an object")
    parts = []
    for name, v in value.items():
        content_type = _first_type((encoding.get(name) or {}).get("contentType"))
        for item in v if isinstance(v, list | tuple) else [v]:
            if item is not None:
                parts.append(_part(str(name), item, content_type))
    import secrets

    given = boundary
    while True:
        boundary = given or "----workbench" + secrets.token_hex(16)
        if not any(boundary.encode() in head or boundary.encode() in content for head, content in parts):
            break
        if given:
            raise SerializationError("the multipart boundary occurs in the content")
    delimiter = b"--" + boundary.encode()
    out = bytearray()
    for head, content in parts:
        out += delimiter + b"\r\n" + head + b"\r\n" + content + b"\r\n"
    out += delimiter + b"--\r\n"
    return bytes(out), boundary


_PARAM = re.compile(r';\s*([A-Za-z0-9_.*-]+)\s*=\s*(?:"([^"]*)"|([^;\s]*))')


def _disposition(value: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for match in _PARAM.finditer(value):
        key, quoted, bare = match.group(1).lower(), match.group(2), match.group(3)
        if key.endswith("*"):  # RFC 5987: charset'lang'percent-encoded
            charset, _, rest = (bare or quoted or "").partition("'")
            params[key[:-1]] = unquote(rest.partition("'")[2], encoding=charset or "utf-8", errors="replace")
        elif key not in params:
            params[key] = (quoted.replace("%22", '"').replace("%0D", "\r").replace("%0A", "\n")
                           if quoted is not None else bare)
    return params


def _header_text(value: str) -> str:
    """A header value from the email parser (undecodable bytes surrogate-escaped) as UTF-8 text."""
    return re.sub(r"\r\n|\r|\n", "", value.encode("ascii", "surrogateescape").decode("utf-8", "replace"))


def _decode_multipart(data: bytes, content_type: str, params: Mapping[str, str], schema: Any) -> Any:
    values: dict[str, list[Any]] = {}
    for part in _multipart_parts(data, content_type, params.get("boundary")):
        named = _part_value(part)
        if named is not None:
            values.setdefault(named[0], []).append(named[1])
    props = (schema.get("properties") or {}) if isinstance(schema, Mapping) else {}
    extra = schema.get("additionalProperties") if isinstance(schema, Mapping) else None
    out: dict[str, Any] = {}
    for name, items in values.items():
        prop_schema = props.get(name, extra if isinstance(extra, Mapping) else None)
        if prop_schema is None:
            out[name] = items[0] if len(items) == 1 else items
        elif schema_kind(prop_schema) == "array":
            out[name] = [_typed(i, prop_schema.get("items") or {}) for i in items]
        else:
            typed = [_typed(i, prop_schema) for i in items]
            out[name] = typed[0] if len(typed) == 1 else typed
    return out


def _multipart_parts(data: bytes, content_type: str, boundary: str | None) -> list[Any]:
    """The body's parts (email.message.Message objects), by the stdlib's MIME parser."""
    if not boundary:
        raise SerializationError("multipart body without a boundary parameter")
    if data.strip() == b"--" + boundary.encode("latin-1") + b"--":
        return []
    from email.errors import CloseBoundaryNotFoundDefect, StartBoundaryNotFoundDefect
    from email.parser import BytesParser

    message = BytesParser().parsebytes(b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + data)
    if not message.is_multipart() or any(
            isinstance(d, StartBoundaryNotFoundDefect | CloseBoundaryNotFoundDefect) for d in message.defects):
        raise SerializationError("malformed multipart body (boundary not found)")
    return message.get_payload()


def _part_value(part: Any) -> tuple[str, Any] | None:
    """(field name, value) of one part (None for a part without a name): a file dict, JSON, text or bytes."""
    headers = {k.lower(): _header_text(v) for k, v in part.raw_items()}
    disposition = _disposition(headers.get("content-disposition", ""))
    if "name" not in disposition:
        return None
    content = part.get_payload(decode=True)
    if not isinstance(content, bytes):
        raise SerializationError(f"part {disposition['name']!r}: nested multipart/message parts are not supported")
    part_type = headers.get("content-type", "").strip()
    if "filename" in disposition:
        return disposition["name"], {"filename": disposition["filename"], "content": content,
                                     "content_type": part_type or "application/octet-stream"}
    media, part_params = parse_media_type(part_type or "text/plain")
    family = media_family(media)
    if family == "json":
        return disposition["name"], json.loads(content.decode("utf-8-sig"))
    if family == "text":
        return disposition["name"], _decode_text(content, part_params.get("charset"))
    return disposition["name"], content
