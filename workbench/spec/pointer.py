"""JSON pointers (RFC 6901) and the URI-fragment form used inside `$ref`."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote


def escape(token: str) -> str:
    """Escape one reference token (`~` before `/`, as the RFC requires)."""
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


def unescape(token: str) -> str:
    """Undo `escape` (`~1` before `~0`, so `~01` stays `~1`)."""
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def join(pointer: str, *tokens: str | int) -> str:
    for token in tokens:
        pointer = f"{pointer}/{escape(str(token))}"
    return pointer


def split(pointer: str) -> list[str]:
    """Split a pointer into unescaped tokens; `""` is the whole document."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON pointer must start with '/': {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


def from_fragment(fragment: str) -> str:
    """A `$ref` fragment (after `#`) is a URI fragment: percent-decode it, then it is a JSON pointer."""
    return unquote(fragment)


MISSING: Any = object()
"""The `default` of `lookup` when nothing is at the pointer (a value no document holds); compare with `is`."""

_RAISE: Any = object()


def lookup(document: object, pointer: str, default: Any = _RAISE) -> Any:
    """The value at `pointer` (tokens unescaped: `~1` is `/`, `~0` is `~`). When nothing is there, `default`
    if given, else KeyError naming the first token that does not exist. Array indexes are decimal without
    leading zeros and in range."""
    node = document
    for token in split(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif (isinstance(node, list) and token.isdigit() and int(token) < len(node)
              and (token == "0" or not token.startswith("0"))):
            node = node[int(token)]
        elif default is _RAISE:
            raise KeyError(token)
        else:
            return default
    return node
