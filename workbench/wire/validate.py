"""A concrete HTTP request checked against the operation it is meant for: the method, the path, query,
header and cookie parameters and the body, each parsed the way `workbench.wire` writes it and validated
against the spec's own schemas (JSON Schema 2020-12, model `$ref`s resolved through `Spec.resolve_schema`).
The mock server is to call it for each incoming request; the requests the executor builds pass it (tests
hold both to that).

Each problem is a `Violation` with its place (`method`, `path/id`, `query/limit`, `header/X-Trace`,
`cookie/session`, `header/Content-Type`, `body`, `body/items/0/name`), what was expected and what was
given. Extra query parameters, headers and cookies are not violations (clients send them freely).
A required property that is readOnly is not required in a request (OpenAPI: it applies to responses), and
header parameters named Accept, Content-Type or Authorization are ignored, as OpenAPI says they SHALL be
(content negotiation, the body's media type and the security schemes govern those).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from workbench.spec import Operation, Parameter, Spec, SpecVersion
from workbench.wire.bodies import decode_body, decode_xml, file_stand_in, is_xml, media_family, parse_media_type
from workbench.wire.messages import Request
from workbench.wire.parameters import (
    SerializationError,
    parse_cookie,
    parse_header,
    parse_path,
    parse_query,
    schema_kind,
    split_query,
)

__all__ = ["OperationContract", "SchemaStore", "Violation", "check_request", "describe_error", "match_path"]

_LOCATION_ORDER = {"path": 0, "query": 1, "header": 2, "cookie": 3}
_IGNORED_HEADERS = frozenset(("accept", "content-type", "authorization"))
_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_REF_URI = "urn:workbench:ref:"


def _openapi_formats() -> jsonschema.FormatChecker:
    """JSON Schema's format checks plus OpenAPI's integer formats (an int32 above 2^31 is a value the server
    refuses): the one format checker for the executor's argument check, the mock's request check and the
    round trip."""
    checker = copy.deepcopy(jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for name, bits in (("int32", 31), ("int64", 63)):
        def check(value: Any, bits: int = bits) -> bool:
            return not isinstance(value, int) or isinstance(value, bool) or -(2**bits) <= value < 2**bits

        checker.checks(name)(check)
    return checker


FORMAT_CHECKER = _openapi_formats()


@dataclass(frozen=True)
class Violation:
    """One thing a request (or a tool call's arguments) does not do as the spec says."""

    place: str  # a request: "query/limit", "body/items/0/name", ...; arguments: a pointer ("/limit", "" = all)
    expected: str
    given: Any
    # where the spec says it: the JSON pointer of the violated keyword in the spec's document (`#/components/
    # schemas/Pet/properties/name/minLength`, `#/paths/~1pets/get/parameters/0/required`); None when unknown.
    # Where a rule is written is not what the violation is: two violations alike compare equal.
    schema_pointer: str | None = field(default=None, compare=False)


# ---------------------------------------------------------------------------------------------------
# schemas as jsonschema sees them


class SchemaStore:
    """Validators for the spec's schemas. Every model `$ref` becomes a registry resource of its own, built
    once per store and shared by every validator it makes (components are reused across operations)."""

    # keywords whose values are data, not schemas (a `$ref` key inside them is not a reference)
    _DATA = frozenset(("enum", "const", "default", "examples", "example"))
    # keywords whose values map names to schemas (a property may be called "enum" or "$ref")
    _NAMED = frozenset(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"))

    def __init__(self, spec: Spec, direction: str = "request") -> None:
        self.spec = spec
        self.skip = "readOnly" if direction == "request" else "writeOnly"  # required only the other way
        self.registry: Registry = Registry()
        self._built: set[str] = set()

    def validator(self, schema: Any) -> Any:
        refs: set[str] = set()
        root = self._rewrite(schema if isinstance(schema, Mapping | bool) else {}, refs)
        self._add(refs)
        return jsonschema.Draft202012Validator(root, registry=self.registry,
                                               format_checker=FORMAT_CHECKER)

    def resolved(self, schema: Any) -> Any:
        """A schema with its top-level `$ref` chain followed (siblings of a `$ref` kept over the target)."""
        for _ in range(32):
            if not (isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str)):
                break
            target = self.spec.resolve_schema(schema["$ref"])
            if target is None:
                break
            schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
        return schema

    def _add(self, refs: set[str]) -> None:
        todo = sorted(refs - self._built)
        while todo:
            ref = todo.pop()
            if ref in self._built:
                continue
            self._built.add(ref)
            found: set[str] = set()
            target = self.spec.resolve_schema(ref)  # a broken ref (already a load problem) accepts anything
            contents = self._rewrite(target if target is not None else {}, found)
            self.registry = self.registry.with_resource(_uri(ref), Resource.from_contents(
                contents, default_specification=DRAFT202012))
            todo.extend(found - self._built)

    def _rewrite(self, node: Any, refs: set[str]) -> Any:
        if isinstance(node, list):
            return [self._rewrite(v, refs) for v in node]
        if not isinstance(node, Mapping):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                refs.add(value)
                out[key] = _uri(value)
            elif key in self._DATA:
                out[key] = value
            elif key in self._NAMED and isinstance(value, Mapping):
                out[key] = {name: self._rewrite(sub, refs) for name, sub in value.items()}
            else:
                out[key] = self._rewrite(value, refs)
        if isinstance(out.get("required"), list) and isinstance(node.get("properties"), Mapping):
            props = node["properties"]
            out["required"] = [name for name in out["required"]
                               if not (isinstance(self.resolved(props.get(name)), Mapping)
                                       and self.resolved(props.get(name)).get(self.skip) is True)]
        return out


def _pointer(base: str | None, *parts: Any) -> str | None:
    """`base` (a JSON pointer, with or without its leading `#`) and `parts`, escaped, as `#/...`."""
    if base is None:
        return None
    text = base.removeprefix("#") + "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return "#" + text


def _uri(ref: str) -> str:
    return _REF_URI + quote(ref, safe="")


def describe_error(error: jsonschema.ValidationError) -> str:
    """What the schema wanted, in words (integer-ness included, extra properties named)."""
    validator, value = error.validator, error.validator_value
    if validator == "type":
        return f"a value of type {' or '.join(value) if isinstance(value, list) else value}"
    if validator == "required":
        return error.message.replace("is a required property", "is required")
    if validator == "enum":
        return "one of " + ", ".join(json.dumps(v) for v in value)
    if validator == "additionalProperties" and value is False and isinstance(error.instance, dict):
        listed = list(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in listed and not _matches_pattern(k, error.schema)]
        return (f"no {', '.join(repr(k) for k in extra)} here: only "
                + (", ".join(repr(k) for k in listed) if listed else "no properties"))
    if validator == "additionalProperties":
        return error.message
    if validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                     "minItems", "maxItems", "pattern", "format", "multipleOf", "const"):
        return f"{validator} {json.dumps(value)}"
    if validator in ("oneOf", "anyOf") and error.context:
        overlaps = _overlaps_only(error)
        if overlaps:  # the branch that fits fails only because a oneOf inside it has overlapping members
            inner = overlaps[0]
            where = "/" + "/".join(str(p) for p in list(inner.absolute_path)[len(error.absolute_path):])
            return (f"the member of this {validator} that fits fails only at {where}, whose value is valid under "
                    f"each of several of the {len(inner.validator_value)} oneOf members there (the spec's members "
                    "overlap)")
    return error.message


_OVERLAP = "is valid under each of"


def _overlaps_only(error: jsonschema.ValidationError) -> list[jsonschema.ValidationError]:
    """The oneOf errors whose only fault is a value matching several members, when they alone make `error`
    fail: `error` is such a one, or one branch of this oneOf/anyOf fails only through such ones. Else []."""
    if error.validator == "oneOf" and _OVERLAP in error.message:
        return [error]
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return []
    branches: dict[object, list[jsonschema.ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0] if sub.schema_path else None, []).append(sub)
    for subs in branches.values():
        found = [_overlaps_only(sub) for sub in subs]
        if all(found):
            return [leaf for leaves in found for leaf in leaves]
    return []


def _matches_pattern(key: str, schema: dict) -> bool:
    return any(re.search(pattern, key) for pattern in schema.get("patternProperties", {}))


# ---------------------------------------------------------------------------------------------------
# the request


def match_path(template: str, path: str) -> dict[str, str] | None:
    """The RAW text that stands at each `{name}` of `template` in `path`, or None when it does not match.
    What some specs put after `?` or `#` in a path key is not part of the path; a trailing slash is allowed."""
    pattern, names = template_pattern(template)
    found = pattern.fullmatch(path)
    if found is None:
        return None
    return {name: found.group(f"p{i}") for i, name in enumerate(names)}


def wire_path(template: str) -> str:
    """The path a template stands for on the wire: what some specs write after `#` or `?` in a path key
    (`/files/{id}#add_shared_link`, variants of one path) is not part of it."""
    return template.split("#", 1)[0].split("?", 1)[0] or "/"


@lru_cache(maxsize=65536)
def template_pattern(template: str) -> tuple[re.Pattern, tuple[str, ...]]:
    """A path template compiled once: the pattern (each `{name}` one segment) and the names in order."""
    template = wire_path(template)
    pattern, names, last = [], [], 0
    for match in _TEMPLATE.finditer(template):
        pattern.append(re.escape(template[last:match.start()]))
        pattern.append(f"(?P<p{len(names)}>[^/]*)")
        names.append(match.group(1))
        last = match.end()
    pattern.append(re.escape(template[last:]))
    return re.compile("".join(pattern) + "/?"), tuple(names)


class OperationContract:
    """One operation's request contract: its validators, built once and used for every request."""

    def __init__(self, spec: Spec, op: Operation, store: SchemaStore | None = None) -> None:
        self.spec, self.op = spec, op
        self.store = store or SchemaStore(spec)
        self.version = "3.0" if spec.version in (SpecVersion.SWAGGER_2_0, SpecVersion.OPENAPI_3_0) else "3.1"
        self.parameters = sorted((p for p in op.parameters
                                  if not (p.location == "header" and p.name.lower() in _IGNORED_HEADERS)),
                                 key=lambda p: _LOCATION_ORDER.get(p.location, 9))
        self._validators: dict[int, Any] = {}

    def check(self, request: Request) -> list[Violation]:
        violations: list[Violation] = []
        if request.method.lower() != self.op.method:
            violations.append(Violation("method", self.op.method.upper(), request.method))
        raw_path = match_path(self.op.path, request.path)
        if raw_path is None:
            violations.append(Violation("path", self.op.path, request.path))
        pairs = split_query(request.query)
        cookies = "; ".join(request.header_values("cookie"))
        for param in self.parameters:
            text = _raw(param, raw_path or {}, pairs, request, cookies)
            if text is None:
                if param.required and not (param.location == "path" and raw_path is None):
                    violations.append(Violation(f"{param.location}/{param.name}", "a value (required)", None,
                                                _pointer(param.origin.pointer, "required")))
                continue
            violations += self._parameter(param, text, pairs)
        violations += self._body(request)
        return violations

    def _validate(self, schema: Any, value: Any, place: str, pointer: str | None = None) -> list[Violation]:
        """`value` against `schema`, which the spec says at `pointer` (for each violation's schema_pointer)."""
        key = id(schema)
        if key not in self._validators:
            self._validators[key] = (schema, self.store.validator(schema))  # the schema kept: ids stay unique
        validator = self._validators[key][1]
        out = []
        for error in sorted(validator.iter_errors(value), key=lambda e: [f"{p:012d}" if isinstance(p, int) else p
                                                                          for p in e.absolute_path]):
            where = "/".join([place, *(str(p) for p in error.absolute_path)])
            out.append(Violation(where, describe_error(error), error.instance,
                                 self._keyword_pointer(schema, pointer, list(error.absolute_schema_path))))
        return out

    def _keyword_pointer(self, schema: Any, pointer: str | None, path: list[Any]) -> str | None:
        """The pointer of the keyword at `path` (jsonschema's schema path) below `schema`, which is at `pointer`;
        a `$ref` on the way moves it to the schema referred to (`#/components/schemas/Pet/...`)."""
        node = schema
        for part in path:
            # jsonschema goes through a `$ref` without always naming it in the path
            for _ in range(32):
                if not (isinstance(node, Mapping) and isinstance(node.get("$ref"), str)
                        and (part == "$ref" or part not in node)):
                    break
                ref = node["$ref"]
                pointer = ref if ref.startswith("#") else None
                node = self.spec.resolve_schema(ref)
            if part == "$ref":
                continue
            pointer = _pointer(pointer, part)
            node = node.get(part) if isinstance(node, Mapping) else \
                node[part] if isinstance(node, list) and isinstance(part, int) and part < len(node) else None
        return pointer

    def _parameter_pointer(self, param: Parameter) -> str | None:
        """Where a parameter's schema is in the spec: `schema` (or `content/<media>/schema`) below it; in
        Swagger 2.0 the parameter holds the keywords itself."""
        if self.spec.version == SpecVersion.SWAGGER_2_0:
            return param.origin.pointer
        if param.schema is None and param.content:
            return _pointer(param.origin.pointer, "content", next(iter(param.content)), "schema")
        return _pointer(param.origin.pointer, "schema")

    def _body_pointer(self, media: str) -> str | None:
        body = self.op.request_body
        if self.spec.version != SpecVersion.SWAGGER_2_0:
            return _pointer(body.origin.pointer, "content", media, "schema")
        family = media_family(media)
        return _pointer(body.origin.pointer, "schema") if family not in ("form", "multipart") else None

    def _parameter(self, param: Parameter, text: Any, pairs: list[tuple[str, str]]) -> list[Violation]:
        place = f"{param.location}/{param.name}"
        schema = _parameter_schema(param)
        try:
            value = self._parse(param, text, pairs)
        except (SerializationError, ValueError) as exc:
            return [Violation(place, f"the {param.style} form of a {schema_kind(self.store.resolved(schema))} "
                                     f"({exc})", text)]
        if value is None:
            return [Violation(place, "a value (required)", None, _pointer(param.origin.pointer, "required"))] \
                if param.required else []
        return self._validate(schema, value, place, self._parameter_pointer(param)) if schema is not None else []

    def _parse(self, param: Parameter, text: Any, pairs: list[tuple[str, str]]) -> Any:
        if param.content:  # a `content` parameter: its media type (JSON, in practice) as one string
            raw = parse_query(pairs, param.name) if param.location == "query" else text
            media = next(iter(param.content))
            return json.loads(raw) if raw is not None and media_family(parse_media_type(media)[0]) == "json" else raw
        schema = self.store.resolved(param.schema)
        kind = schema_kind(schema)
        item_kind = schema_kind(self.store.resolved(schema.get("items"))) if isinstance(schema, Mapping) else "string"
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if param.location == "path":
            return parse_path(text, param.name, param.style, param.explode, kind, item_kind, props)
        if param.location == "query":
            return parse_query(pairs, param.name, param.style, param.explode, kind, item_kind, props)
        if param.location == "header":
            return parse_header(text, param.explode, kind, item_kind, props, param.style)
        return parse_cookie(text, param.name, param.explode, kind, item_kind, props)

    def _body(self, request: Request) -> list[Violation]:
        body = self.op.request_body
        if body is None or not body.content:
            return []
        if not request.body:
            return [Violation("body", "a request body (required)", None, _pointer(body.origin.pointer, "required"))] \
                if body.required else []
        given = request.header("content-type") or ""
        media = _pick(body.content, parse_media_type(given)[0])
        if media is None:
            return [Violation("header/Content-Type", "one of " + ", ".join(body.content), given or None)]
        content = body.content[media]
        try:
            if is_xml(given) and schema_kind(self.store.resolved(content.schema)) != "string":
                value = decode_xml(request.body, content.schema, self.store.resolved)
            else:
                value = decode_body(request.body, given, openapi_version=self.version, encoding=content.encoding,
                                    schema=self._shallow(content.schema))
        except (SerializationError, ValueError) as exc:
            return [Violation("body", f"a {parse_media_type(given)[0]} body ({exc})", _preview(request.body))]
        if content.schema is None:
            return []
        return self._validate(content.schema, _files_as_text(value, self._shallow(content.schema)), "body",
                              self._body_pointer(media))

    def _shallow(self, schema: Any) -> Any:
        """The body schema with its own and its properties' (and their items') refs followed, to type form
        and multipart fields by."""
        top = self.store.resolved(schema)
        if not isinstance(top, Mapping) or not isinstance(top.get("properties"), Mapping):
            return top
        props = {}
        for name, sub in top["properties"].items():
            sub = self.store.resolved(sub)
            if isinstance(sub, Mapping) and "items" in sub:
                sub = {**sub, "items": self.store.resolved(sub["items"])}
            props[name] = sub
        return {**top, "properties": props}


def check_request(spec: Spec, op: Operation, request: Request) -> list[Violation]:
    """`request` against `op` (for many requests, keep an OperationContract per operation instead)."""
    return OperationContract(spec, op).check(request)


def _parameter_schema(param: Parameter) -> Any:
    if param.schema is None and param.content:
        return next(iter(param.content.values())).schema
    return param.schema


def _raw(param: Parameter, raw_path: Mapping[str, str], pairs: list[tuple[str, str]], request: Request,
         cookies: str) -> Any:
    """What stands on the wire for the parameter: the path text, all query pairs (the parameter picks its
    own), the header's value, the Cookie header; None when there is nothing."""
    if param.location == "path":
        return raw_path.get(param.name)
    if param.location == "query":
        return pairs
    if param.location == "header":
        return request.header(param.name)
    return cookies or None


def _files_as_text(value: Any, schema: Any) -> Any:
    """Uploaded bytes and file parts where the schema has a (binary) string: their file name or text stands in
    for them, so that they meet `type: string` (JSON Schema has no bytes)."""
    if schema_kind(schema) == "string":
        return file_stand_in(value)
    if not (isinstance(value, dict) and isinstance(schema, Mapping)):
        return value
    props = schema.get("properties") or {}
    out = {}
    for name, item in value.items():
        sub = props.get(name) if isinstance(props, Mapping) else None
        if schema_kind(sub) == "array" and isinstance(item, list) and isinstance(sub, Mapping):
            out[name] = [file_stand_in(i) if schema_kind(sub.get("items")) == "string" else i for i in item]
        else:
            out[name] = file_stand_in(item) if schema_kind(sub) == "string" else item
    return out


def _pick(content: Mapping[str, Any], media: str) -> str | None:
    """The operation's media type that `media` (the request's Content-Type, lower case) falls under."""
    declared = {parse_media_type(key)[0]: key for key in content}
    for candidate in (media, media.split("/", 1)[0] + "/*", "*/*"):
        if candidate in declared:
            return declared[candidate]
    return None


def _preview(data: bytes, limit: int = 200) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return text + ("…" if len(data) > limit else "")
