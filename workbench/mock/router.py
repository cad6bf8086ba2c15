"""Which operation a request is for: the spec's path templates under its base path, literal segments
preferred over templates (`/orders/open` before `/orders/{orderId}`), a trailing slash tolerated."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from workbench.spec import Operation, Spec
from workbench.wire.validate import match_path, wire_path

_TEMPLATE = re.compile(r"\{[^{}]+\}")


@dataclass(frozen=True)
class Route:
    """The answer for one request path: the operation for its method, or what the path allows."""

    operation: Operation | None  # None: the path is known, the method is not one of its operations
    allowed: tuple[str, ...] = ()  # the path's methods, upper case (for 405 and OPTIONS)


def base_path(spec: Spec) -> str:
    """The path of the spec's first server (`https://api.example.com/v1` → `/v1`); "" when none."""
    if not spec.servers:
        return ""
    url = spec.servers[0].url
    for name, variable in spec.servers[0].variables.items():
        url = url.replace("{" + name + "}", variable.default)
    return urlsplit(url).path.rstrip("/") if "://" in url or url.startswith("/") else ""


def _depth(path: str) -> int:
    return path.count("/")


class Router:
    def __init__(self, spec: Spec) -> None:
        self.base = base_path(spec)
        by_path: dict[str, dict[str, Operation]] = {}
        # Some specs write variants of one path as `/files/{id}#add_shared_link`: one path on the wire, where
        # the plain key's operation answers (else the first variant written).
        for op in sorted(spec.operations, key=lambda o: wire_path(o.path) != o.path):
            by_path.setdefault(wire_path(op.path), {}).setdefault(op.method, op)
        # by segment count (a template's `{name}` is one segment), most literal text first: a literal segment
        # beats a template that would also match
        self._templates: dict[int, list[tuple[str, dict[str, Operation]]]] = {}
        for path, methods in sorted(by_path.items(), key=lambda item: (-len(_TEMPLATE.sub("", item[0])), item[0])):
            self._templates.setdefault(_depth(path), []).append((path, methods))
        self._literal = {path: methods for path, methods in by_path.items() if not _TEMPLATE.search(path)}

    def route(self, method: str, raw_path: str) -> Route | None:
        """The route for a RAW request path (the base path included), or None: no such path."""
        path = self.relative(raw_path)
        if path is None:
            return None
        methods = self._literal.get(path) or self._literal.get(path.rstrip("/") or "/")
        if methods is None:
            candidates = self._templates.get(_depth(path.rstrip("/") or "/"), ())
            methods = next((m for template, m in candidates if match_path(template, path) is not None), None)
        if methods is None:
            return None
        return Route(methods.get(method.lower()), tuple(sorted(m.upper() for m in methods)))

    def relative(self, raw_path: str) -> str | None:
        """The request path below the base path, or None when it is not under it."""
        if not self.base:
            return raw_path or "/"
        if raw_path == self.base or raw_path.startswith(self.base + "/"):
            return raw_path[len(self.base):] or "/"
        return None
