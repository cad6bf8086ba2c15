"""A plain HTTP request as it stands on the wire: what the mock server receives and what the client sends,
before either side interprets it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Request:
    method: str  # any case
    path: str  # RAW (still percent-encoded), relative to the server's base path: "/items/a%2Fb"
    query: str = ""  # RAW query string, without "?"
    headers: tuple[tuple[str, str], ...] = ()  # in order, repeated names kept
    body: bytes | None = None

    @classmethod
    def from_url(cls, method: str, url: str, headers: Iterable[tuple[str, str]] = (), body: bytes | None = None,
                 base_url: str = "") -> Request:
        """From a full URL (or a path with a query); the path of `base_url` (the server's) is taken off."""
        parts = urlsplit(url)
        path = parts.path or "/"
        base = urlsplit(base_url).path.rstrip("/")
        if base and (path == base or path.startswith(base + "/")):
            path = path[len(base):] or "/"
        return cls(method, path, parts.query, tuple(headers), body)

    def header_values(self, name: str) -> list[str]:
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def header(self, name: str) -> str | None:
        """All values of a header joined as one (`a, b`), or None when it is absent."""
        values = self.header_values(name)
        return ", ".join(values) if values else None
