"""Lenient reading of the JSON a model wrote: fences, trailing commas, Python literals, single quotes,
a missing closing brace. Every repair is reported; nothing is guessed beyond these."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class RepairFailed(ValueError):
    pass


def repair_json(text: str) -> tuple[Any, list[str]]:
    """(value, repairs made). Raises RepairFailed with the parser's complaint when nothing works."""
    repairs: list[str] = []
    try:
        return json.loads(text), repairs
    except json.JSONDecodeError as first:
        error = first
    candidate = text
    fence = _FENCE.match(candidate)
    if fence:
        candidate = fence.group(1)
        repairs.append("removed a Markdown code fence")
    if _TRAILING_COMMA.search(candidate):
        candidate = _TRAILING_COMMA.sub(r"\1", candidate)
        repairs.append("removed trailing commas")
    for attempt in (candidate, _close(candidate)):
        try:
            value = json.loads(attempt)
        except json.JSONDecodeError:
            try:
                value = ast.literal_eval(attempt)  # Python-style: single quotes, True/False/None
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
            repairs.append("read Python-style literals (quotes, True/False/None)")
        if attempt != candidate:
            repairs.append("closed unbalanced brackets")
        return value, repairs
    raise RepairFailed(f"not JSON: {error.msg} at line {error.lineno} column {error.colno}")


def _close(text: str) -> str:
    """Append the closing brackets a truncated object lacks (outside strings)."""
    stack, in_string, escaped = [], False, False
    for char in text:
        if in_string:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and stack:
            stack.pop()
    return text + ('"' if in_string else "") + "".join(reversed(stack))
