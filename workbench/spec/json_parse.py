"""JSON → plain Python data (the C parser), plus a span index built on demand by a token scan.

Most commands never need positions for most nodes, so the 4 MB GitHub description parses in
milliseconds and only pays for the index when a finding or an edit asks for a place.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from typing import Any

from workbench import lazy_pattern
from workbench.spec import limits
from workbench.spec.errors import Problem, SpecError
from workbench.spec.pointer import escape, unescape
from workbench.spec.yaml_parse import SpanEntry

# Strings use the "unrolled loop" form: runs of plain characters are consumed in one step, not one by one.
# Commas and colons are not tokens at all: in a valid object, keys and values simply alternate.
_TOKEN = lazy_pattern(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]]|[^\s{}\[\],:"]+', re.S)


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
    except ValueError:  # not a syntax error (caught above): a number longer than Python reads
        digits = sys.get_int_max_str_digits()
        found = re.search(f"[:\\[,]\\s*-?([0-9]{{{digits + 1}}})", text) if digits else None  # (a value, not a string)
        at = found.start(1) if found else 0
        line = text.count("\n", 0, at) + 1
        raise limits.too_many_digits(file, line, at - text.rfind("\n", 0, at)) from None


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
    if only is not None:  # (duplicates are looked for in the whole index only)
        return _index_only(text, only), []
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
        if first == "{" or first == "[":
            index[pointer] = (start, -1, key_start, key_end, "map" if first == "{" else "seq")
            stack.append(_Frame(first == "{", pointer, start))
        else:
            index[pointer] = (start, end, key_start, key_end, "json" if first == '"' else "plain")
            if top is not None and top.is_map:
                top.expect_key = True
    return index, problems


# What `_index_only` reads: a member's key (group 1, without its quotes) up to its value's first character (after
# the comma before it, if any), and the gap before an array element or a closing bracket.
_MEMBER = lazy_pattern(r'[\s,]*"([^"\\]*(?:\\.[^"\\]*)*)"\s*:\s*', re.S)
_GAP = lazy_pattern(r"[\s,]*")
# (value, end) of the value at an index: `raw_decode` without its Python frame. Only the end is ever used, so an object
# is handed to `len` as its list of pairs instead of being built into a dict: skipping the whole of a 3 MB spec takes
# 0.7x the time.
_SCAN = json.JSONDecoder(object_pairs_hook=len).scan_once


def _raw_keys(segments: set[str]) -> dict[str, str]:
    """The keys (as read, unescaped) whose pointer segment is one of `segments`, each to its segment. A segment
    that no key escapes to (`~2`, a lone `~`) is left out: no member could have it."""
    keys: dict[str, str] = {}
    for segment in segments:
        key = unescape(segment)
        if escape(key) == segment:
            keys[key] = segment
    return keys


def _index_only(text: str, only: set[str]) -> dict[str, SpanEntry]:  # noqa: C901 - one loop: no call per child
    """`index_json(text, only=only)`, walking just the containers that hold a wanted node: each child is read as
    its key (one pattern match) and, unless its pointer segment is among that container's wanted ones, skipped
    in C; a wanted container without wanted children is skipped whole. No pointer is built for an unwanted node."""
    children: dict[str, set[str]] = {}  # container pointer -> the pointer segments of its wanted children
    for pointer in only:
        if pointer:
            parent, _, segment = pointer.rpartition("/")
            children.setdefault(parent, set()).add(segment)
    index: dict[str, SpanEntry] = {}
    if "" not in only:
        return index
    member, gap, scan = _MEMBER.match, _GAP.match, _SCAN
    # The open containers that hold wanted children, innermost last: [pointer, is_map, start, key_start, key_end,
    # wanted (a map's: key -> segment; an array's: the segments), elements read so far].
    stack: list[list[Any]] = []
    pointer, at, key_start, key_end = "", gap(text, 0).end(), -1, -1
    while True:
        # The wanted node `pointer` starts at `at`.
        first = text[at]
        if (first == "{" or first == "[") and (wanted := children.get(pointer)) is not None:
            is_map = first == "{"
            frame = [pointer, is_map, at, key_start, key_end, _raw_keys(wanted) if is_map else wanted, 0]
            stack.append(frame)
            position = at + 1
        else:
            position = scan(text, at)[1]
            index[pointer] = (at, position, key_start, key_end, ("map" if first == "{" else "seq")
                              if first == "{" or first == "[" else "json" if first == '"' else "plain")
            if not stack:
                return index
            frame = stack[-1]
        parent, is_map, _, _, _, wanted, count = frame
        # The next wanted child of the innermost open container, closing the containers that end first.
        while True:
            if is_map:
                while (match := member(text, position)) is not None:
                    key = match[1]
                    if "\\" in key:
                        key = json.loads(f'"{key}"')
                    segment = wanted.get(key)
                    if segment is not None:
                        key_start, key_end = match.span(1)
                        key_start -= 1
                        key_end += 1
                        at = match.end()
                        break
                    position = scan(text, match.end())[1]
                else:
                    segment = None
            else:
                key_start = key_end = -1
                position = gap(text, position).end()
                while text[position] != "]":
                    segment = str(count)
                    count += 1
                    if segment in wanted:
                        at = position
                        break
                    position = gap(text, scan(text, position)[1]).end()
                else:
                    segment = None
                frame[6] = count
            if segment is not None:
                pointer = f"{parent}/{segment}"
                break
            end = gap(text, position).end() + 1  # the container ends here
            stack.pop()
            index[parent] = (frame[2], end, frame[3], frame[4], "map" if is_map else "seq")
            if not stack:
                return index
            frame, position = stack[-1], end
            parent, is_map, _, _, _, wanted, count = frame
