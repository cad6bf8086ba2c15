"""JSON → plain Python data (the C parser), plus a span index built on demand by a token scan.

Most commands never need positions for most nodes, so the 4 MB GitHub description parses in
milliseconds and only pays for the index when a finding or an edit asks for a place.
"""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.spec import limits
from workbench.spec.errors import Problem, SpecError
from workbench.spec.pointer import escape
from workbench.spec.yaml_parse import SpanEntry

# Strings use the "unrolled loop" form: runs of plain characters are consumed in one step, not one by one.
# Commas and colons are not tokens at all: in a valid object, keys and values simply alternate.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|[^\s{}\[\],:"]+', re.S)


def parse_json(text: str, file: str) -> tuple[Any, bool]:
    """Parse `text`; returns (data, has_duplicate_keys). Duplicates are located later by the index."""
    duplicates = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict:
        nonlocal duplicates
        obj = dict(pairs)
        if len(obj) != len(pairs):
            duplicates = True
        return obj

    try:
        return json.loads(text, object_pairs_hook=pairs_hook), duplicates
    except json.JSONDecodeError as exc:
        raise SpecError(f"JSON syntax error: {exc.msg}", file, line=exc.lineno, column=exc.colno,
                        code="syntax") from None
    except RecursionError:
        raise SpecError(f"nesting deeper than {limits.MAX_NESTING} levels", file) from None


class _Frame:
    __slots__ = ("count", "expect_key", "is_map", "key", "key_end", "key_start", "keys", "pointer", "start")

    def __init__(self, is_map: bool, pointer: str, start: int) -> None:
        self.is_map = is_map
        self.pointer = pointer
        self.start = start
        self.count = 0
        self.expect_key = is_map
        self.key = ""
        self.key_start = -1
        self.key_end = -1
        self.keys: set[str] | None = None


def index_json(text: str, file: str, *, find_duplicates: bool = False) -> tuple[dict[str, SpanEntry], list[Problem]]:
    """Spans of every node of an already-validated JSON text, by JSON pointer."""
    index: dict[str, SpanEntry] = {}
    problems: list[Problem] = []
    stack: list[_Frame] = []
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        first = text[start]  # not match.group(): long string values are never copied
        if first in "}]":
            frame = stack.pop()
            entry = index.get(frame.pointer)
            key_start, key_end = (entry[2], entry[3]) if entry else (-1, -1)
            index[frame.pointer] = (frame.start, end, key_start, key_end, "map" if frame.is_map else "seq")
            if stack and stack[-1].is_map:
                stack[-1].expect_key = True
            continue
        top = stack[-1] if stack else None
        if top is not None and top.expect_key:
            token = text[start:end]
            key = token[1:-1] if "\\" not in token else json.loads(token)
            top.key, top.key_start, top.key_end, top.expect_key = key, start, end, False
            if find_duplicates:
                if top.keys is None:
                    top.keys = set()
                if key in top.keys:
                    problems.append(Problem("duplicate-key", f"duplicate key {key!r}; the later value is the "
                                            "one read", file, f"{top.pointer}/{escape(key)}"))
                top.keys.add(key)
            continue
        if top is None:
            pointer, key_start, key_end = "", -1, -1
        elif top.is_map:
            key = top.key
            pointer = f"{top.pointer}/{escape(key) if '~' in key or '/' in key else key}"
            key_start, key_end = top.key_start, top.key_end
        else:
            pointer, key_start, key_end = f"{top.pointer}/{top.count}", -1, -1
            top.count += 1
        if first == "{" or first == "[":
            index[pointer] = (start, -1, key_start, key_end, "map" if first == "{" else "seq")
            stack.append(_Frame(first == "{", pointer, start))
        else:
            index[pointer] = (start, end, key_start, key_end, "json" if first == '"' else "plain")
            if top is not None and top.is_map:
                top.expect_key = True
    return index, problems
