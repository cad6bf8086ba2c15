"""Tool calls as the vendors return them, reduced to (tool name, arguments)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from workbench.http.repair import repair_json


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    call_id: str | None = None
    repairs: tuple[str, ...] = field(default=())  # what had to be fixed to read the arguments


class CallFormatError(ValueError):
    pass


def parse_call(raw: Any) -> ToolCall:
    """Accepts an OpenAI Chat tool call (`{"function": {"name", "arguments": "<json>"}}`), a Responses
    `function_call`, an Anthropic `tool_use` block, a Gemini `functionCall`, an MCP `tools/call` params
    object, or a plain `{"name", "arguments"}`. Arguments may be an object or a JSON string."""
    if isinstance(raw, str):
        raw, _ = repair_json(raw)
    if not isinstance(raw, dict):
        raise CallFormatError("a tool call must be an object")
    if isinstance(raw.get("function"), dict):  # OpenAI Chat Completions
        return _call(raw["function"].get("name"), raw["function"].get("arguments"), raw.get("id"))
    if isinstance(raw.get("functionCall"), dict):  # Gemini
        return _call(raw["functionCall"].get("name"), raw["functionCall"].get("args"), raw["functionCall"].get("id"))
    if raw.get("type") == "tool_use":  # Anthropic
        return _call(raw.get("name"), raw.get("input"), raw.get("id"))
    if raw.get("type") == "function_call":  # OpenAI Responses
        return _call(raw.get("name"), raw.get("arguments"), raw.get("call_id"))
    for key in ("arguments", "args", "input"):  # MCP tools/call params, or plain
        if key in raw:
            return _call(raw.get("name"), raw[key], raw.get("id"))
    return _call(raw.get("name"), {}, raw.get("id"))


def looks_like_call(value: Any) -> bool:
    """Is this a whole tool-call object (of any vendor) rather than bare arguments?"""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("function"), dict) or isinstance(value.get("functionCall"), dict):
        return True
    if value.get("type") in ("tool_use", "function_call"):
        return True
    return isinstance(value.get("name"), str) and any(k in value for k in ("arguments", "args", "input"))


def _call(name: Any, arguments: Any, call_id: Any) -> ToolCall:
    if not isinstance(name, str) or not name:
        raise CallFormatError("the tool call has no name")
    repairs: tuple[str, ...] = ()
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        if arguments.strip():
            arguments, found = repair_json(arguments)
            repairs = tuple(found)
        else:
            arguments = {}
    if not isinstance(arguments, dict):
        raise CallFormatError(f"the arguments of {name!r} must be an object, got {type(arguments).__name__}")
    return ToolCall(name, arguments, str(call_id) if call_id is not None else None, repairs)


def dumps(arguments: dict) -> str:
    return json.dumps(arguments, ensure_ascii=False)
