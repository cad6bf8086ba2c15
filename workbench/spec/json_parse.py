"""JSON → plain Python data (the C parser), plus a span index built on demand by a token scan.

Most commands never need positions for most nodes, so the 4 MB GitHub description parses in
milliseconds and only pays for the index when a finding or an edit asks for a place.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
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


def _close(stack: list[_Frame], index: dict[str, SpanEntry], end: int) -> None:
    frame = stack.pop()
    entry = index.get(frame.pointer)
    key_start, key_end = (entry[2], entry[3]) if entry else (-1, -1)
    index[frame.pointer] = (frame.start, end, key_start, key_end, "map" if frame.is_map else "seq")
    if stack and stack[-1].is_map:
        stack[-1].expect_key = True


def _check_duplicate(frame: _Frame, key: str, file: str, problems: list[Problem]) -> None:
    if frame.keys is None:
        frame.keys = set()
    if key in frame.keys:
        problems.append(Problem("duplicate-key", f"duplicate key {key!r}; the later value is the one read", file,
                                f"{frame.pointer}/{escape(key)}"))
    frame.keys.add(key)


_SKIP_VALUE = json.JSONDecoder().raw_decode  # a subtree's end, found in C


def covering(pointers: Iterable[str]) -> set[str]:
    """The pointers and every ancestor of each: what a partial index must hold to answer for them."""
    needed: set[str] = set()
    for pointer in pointers:
        while pointer not in needed:
            needed.add(pointer)
            if not pointer:
                break
            pointer = pointer.rsplit("/", 1)[0]
    return needed


def index_json(text: str, file: str, *, find_duplicates: bool = False,
               only: set[str] | None = None) -> tuple[dict[str, SpanEntry], list[Problem]]:
    """Spans of every node of an already-validated JSON text, by JSON pointer. With `only` (a set closed under
    ancestors, see `covering`), just those nodes: every other subtree is skipped by the C decoder, so placing a few
    thousand findings in a 4 MB file costs a tenth of the whole index."""
    index: dict[str, SpanEntry] = {}
    problems: list[Problem] = []
    stack: list[_Frame] = []
    search, position = _TOKEN.search, 0
    while (match := search(text, position)) is not None:
        start, end = match.span()
        position = end
        first = text[start]  # not match.group(): long string values are never copied
        if first in "}]":
            _close(stack, index, end)
            continue
        top = stack[-1] if stack else None
        if top is not None and top.expect_key:
            token = text[start:end]
            key = token[1:-1] if "\\" not in token else json.loads(token)
            top.key, top.key_start, top.key_end, top.expect_key = key, start, end, False
            if find_duplicates:
                _check_duplicate(top, key, file, problems)
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
        if only is not None and pointer not in only:
            if first == "{" or first == "[":
                _, position = _SKIP_VALUE(text, start)
            if top is not None and top.is_map:
                top.expect_key = True
            continue
        if first == "{" or first == "[":
            index[pointer] = (start, -1, key_start, key_end, "map" if first == "{" else "seq")
            stack.append(_Frame(first == "{", pointer, start))
        else:
            index[pointer] = (start, end, key_start, key_end, "json" if first == '"' else "plain")
            if top is not None and top.is_map:
                top.expect_key = True
    return index, problems
