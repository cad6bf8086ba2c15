"""A tool call's arguments → the HTTP request, by the tool's wire bindings (nothing is guessed)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from workbench import wire
from workbench.spec import Parameter, Server, Spec, SpecVersion
from workbench.tools.model import Tool

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
    path = op.path
    query: list[tuple[str, str]] = []
    headers: list[tuple[str, str]] = []
    cookies: list[str] = []
    body_fields: dict[str, Any] = {}
    whole_body: Any = _UNSET
    for binding in tool.bindings:
        value = _argument(arguments, binding.argument)
        if value is _UNSET or value is None:
            continue
        if binding.location == "body":
            whole_body = value
        elif binding.location == "body-field":
            _place(body_fields, binding.body_path or (binding.name,), value)
        else:
            param = params.get((binding.name, binding.location))
            style, explode, reserved = _style(param, binding.location)
            if binding.location == "path":
                text = wire.serialize_path(binding.name, value, style, explode)
                path = path.replace("{" + binding.name + "}", text)
            elif binding.location == "query":
                query += wire.serialize_query(binding.name, value, style, explode, reserved)
            elif binding.location == "header":
                headers.append((binding.name, wire.serialize_header(value, explode, style)))
            elif binding.location == "cookie":
                cookies.append(wire.serialize_cookie(binding.name, value, explode))
    base_path, _, fixed_query = path.partition("?")  # `/x?beta=true` path keys: the fixed query is kept
    unfilled = _TEMPLATE.findall(base_path)
    if unfilled:
        raise MissingPathValue(unfilled)
    url = join_url(server_url(spec, tool, base_url), base_path)
    query_text = "&".join(filter(None, [fixed_query, "&".join(f"{k}={v}" for k, v in query)]))
    if query_text:
        url += "?" + query_text
    if cookies:
        headers.append(("Cookie", "; ".join(cookies)))
    body = None
    required_body = op.request_body is not None and op.request_body.required and bool(op.request_body.content)
    if whole_body is _UNSET and not body_fields and required_body:
        whole_body = {}  # a required body whose fields are all optional: the empty object, not nothing
    if whole_body is not _UNSET or body_fields:
        media = tool.media_type or "application/json"
        content = tool.operation.request_body.content.get(media) if tool.operation.request_body else None
        encoding = content.encoding if content else None
        version = "3.0" if spec.version in (SpecVersion.SWAGGER_2_0, SpecVersion.OPENAPI_3_0) else "3.1"
        payload = whole_body if whole_body is not _UNSET else body_fields
        body, content_type = wire.encode_body(payload, media, openapi_version=version, encoding=encoding)
        headers.append(("Content-Type", content_type))
    return HttpRequest(op.method.upper(), url, headers, body)


class MissingPathValue(ValueError):
    def __init__(self, names: list[str]) -> None:
        super().__init__(f"no value for path parameter(s) {', '.join(names)}")
        self.names = names


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
