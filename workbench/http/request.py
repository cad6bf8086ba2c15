"""A tool call's arguments → the HTTP request, by the tool's wire bindings (nothing is guessed)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from workbench import wire
from workbench.spec import Parameter, Server, Spec, SpecVersion
from workbench.tools.model import Binding, Tool
from workbench.wire.validate import Violation

_TEMPLATE = re.compile(r"\{([^{}]+)\}")


@dataclass
class HttpRequest:
    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


def server_url(spec: Spec, tool: Tool, base_url: str | None = None) -> str:
    """The base URL: an override, else the operation's (or the spec's) first server with its variables'
    defaults. A relative server URL needs a base_url override to mean anything."""
    if base_url:
        return base_url
    servers: tuple[Server, ...] = tool.operation.servers or spec.servers
    if not servers:
        return ""
    server = servers[0]
    url = server.url
    for name, variable in server.variables.items():
        url = url.replace("{" + name + "}", variable.default)
    return url


def join_url(base: str, path: str) -> str:
    """`https://a/v1/` + `/pets` → `https://a/v1/pets` (one slash, never two); fragments and queries that
    some specs put into path keys (`/files/{id}#get_shared_link`, `/x?beta=true`) stay out of the path."""
    path = path.split("#", 1)[0]
    return base.rstrip("/") + "/" + path.lstrip("/") if base else path


def build_request(spec: Spec, tool: Tool, arguments: dict[str, Any], base_url: str | None = None) -> HttpRequest:
    op = tool.operation
    params = {(p.name, p.location): p for p in op.parameters}
    parts = _Parts(op.path)
    for binding in tool.bindings:
        value = _argument(arguments, binding.argument)
        # a null left after validation is one the spec allows: a body field or a whole JSON body carries it
        # (JSON null); a parameter or a body in another media type has no form for it and is left out
        if value is not _UNSET and (value is not None or binding.location == "body-field"
                                    or (binding.location == "body" and _json_media(tool))):
            parts.add(binding, value, params.get((binding.name, binding.location)))
    base_path, _, fixed_query = parts.path.partition("?")  # `/x?beta=true` path keys: the fixed query is kept
    unfilled = _TEMPLATE.findall(base_path)
    if unfilled:
        raise MissingPathValue(unfilled)
    url = join_url(server_url(spec, tool, base_url), base_path)
    query_text = "&".join(filter(None, [fixed_query, wire.join_query(parts.query)]))
    if query_text:
        url += "?" + query_text
    headers = parts.headers
    if parts.cookies:
        headers.append(("Cookie", "; ".join(parts.cookies)))
    encoded = _body(spec, tool, parts)
    body = None
    if encoded is not None:
        body, content_type = encoded
        headers.append(("Content-Type", content_type))
    return HttpRequest(op.method.upper(), url, headers, body)


@dataclass
class _Parts:
    """The request's pieces as the bindings fill them in."""

    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    headers: list[tuple[str, str]] = field(default_factory=list)
    cookies: list[str] = field(default_factory=list)
    body_fields: dict[str, Any] = field(default_factory=dict)
    whole_body: Any = None
    has_whole_body: bool = False

    def add(self, binding: Binding, value: Any, param: Parameter | None) -> None:
        try:
            self._add(binding, value, param)
        except wire.SerializationError as exc:
            raise UnsendableArgument(binding, value, str(exc)) from None

    def _add(self, binding: Binding, value: Any, param: Parameter | None) -> None:
        location = binding.location
        if location == "body":
            self.whole_body, self.has_whole_body = value, True
            return
        if location == "body-field":
            _place(self.body_fields, binding.body_path or (binding.name,), value)
            return
        style, explode, reserved = _style(param, location)
        if location == "path":
            self.path = self.path.replace("{" + binding.name + "}", wire.serialize_path(binding.name, value, style,
                                                                                          explode))
        elif location == "query":
            self.query += wire.serialize_query(binding.name, value, style, explode, reserved)
        elif location == "header":
            text = wire.serialize_header(value, explode, style)
            self.headers += [(binding.name, text)] if text is not None else []
        elif location == "cookie":
            text = wire.serialize_cookie(binding.name, value, explode)
            self.cookies += [text] if text is not None else []


def _json_media(tool: Tool) -> bool:
    return wire.media_family(tool.media_type or "application/json") == "json"


def _body(spec: Spec, tool: Tool, parts: _Parts) -> tuple[bytes, str] | None:
    """(body, Content-Type) in the tool's media type, or None for no body."""
    request_body = tool.operation.request_body
    payload = parts.whole_body if parts.has_whole_body else parts.body_fields
    if not parts.has_whole_body and not parts.body_fields:
        if request_body is None or not request_body.required or not request_body.content:
            return None
        payload = {}  # a required body whose fields are all optional: the empty object, not nothing
    media = tool.media_type or "application/json"
    content = request_body.content.get(media) if request_body else None
    encoding = content.encoding if content else None
    if content is not None and wire.media_family(media) == "multipart" and isinstance(payload, dict):
        payload = _binary_fields_as_files(spec, content.schema, payload)
    version = "3.0" if spec.version in (SpecVersion.SWAGGER_2_0, SpecVersion.OPENAPI_3_0) else "3.1"
    return wire.encode_body(payload, media, openapi_version=version, encoding=encoding)


def _binary_fields_as_files(spec: Spec, schema: Any, payload: dict) -> dict:
    """Multipart fields the spec has as binary strings (or arrays of them) go as file parts, with a file
    name and a content type, whether a person gave a file or the model gave the text."""
    props = (_resolved(spec, schema) or {}).get("properties") or {}
    out = {}
    for name, value in payload.items():
        sub = _resolved(spec, props.get(name))
        items = _resolved(spec, sub.get("items")) if isinstance(sub, dict) else None
        if wire.binary_schema(sub):
            value = wire.as_file(name, value)
        elif wire.binary_schema(items) and isinstance(value, list | tuple):
            value = [wire.as_file(name, item) for item in value]
        out[name] = value
    return out


def _resolved(spec: Spec, schema: Any) -> Any:
    for _ in range(32):  # a ref to a ref, never a cycle forever
        target = spec.resolve_schema(schema["$ref"]) if isinstance(schema, dict) and \
            isinstance(schema.get("$ref"), str) else None
        if target is None:
            break
        schema = target
    return schema


class MissingPathValue(ValueError):
    def __init__(self, names: list[str]) -> None:
        super().__init__(f"no value for path parameter(s) {', '.join(names)}")
        self.names = names


class UnsendableArgument(wire.SerializationError):
    """A valid argument that its place on the wire cannot carry (a header with a line break, non-ASCII text
    in a header): the model hears which argument and why, as for any other invalid value."""

    def __init__(self, binding: Binding, value: Any, reason: str) -> None:
        where = binding.location.replace("body-field", "body")
        super().__init__(f"{binding.argument}: {reason}")
        self.violation = Violation("/" + binding.argument.replace(".", "/"),
                                   f"a value the {where} can carry ({reason})", value)


_UNSET = object()


def _argument(arguments: dict[str, Any], name: str) -> Any:
    """Flat names, or `group.name` in the nested style."""
    if name in arguments:
        return arguments[name]
    if "." in name:
        group, _, inner = name.partition(".")
        holder = arguments.get(group)
        if isinstance(holder, dict) and inner in holder:
            return holder[inner]
    return _UNSET


def _place(body: dict, path: tuple[str, ...], value: Any) -> None:
    node = body
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _style(param: Parameter | None, location: str) -> tuple[str, bool, bool]:
    if param is None:
        default = "form" if location in ("query", "cookie") else "simple"
        return default, default == "form", False
    return param.style, param.explode, param.allow_reserved


def safe_url(url: str) -> str:
    """For display: the URL with its parts percent-encoded as they went on the wire."""
    parts = urlsplit(url)
    return parts._replace(path=quote(parts.path, safe="/%;,=.:@")).geturl()
