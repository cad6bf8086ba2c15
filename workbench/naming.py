"""Tool-name rules shared by lint (is this operationId usable?) and conversion (what do we call it?)."""

from __future__ import annotations

import keyword
import re

# OpenAI, Anthropic and Gemini all accept this and reject the whole tools array otherwise.
TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}\Z")
_JS_RESERVED_WORDS = (
    "break case catch class const continue debugger default delete do else enum export extends false finally "
    "for function if import in instanceof new null return super switch this throw true try typeof var void "
    "while with yield let static implements interface package private protected public await")
JS_RESERVED = frozenset(_JS_RESERVED_WORDS.split())

_VERBS = {"get": "get", "put": "replace", "post": "create", "delete": "delete", "patch": "update",
          "head": "check", "options": "options", "trace": "trace"}


def is_valid_tool_name(name: str) -> bool:
    return bool(TOOL_NAME.match(name))


def is_reserved_word(name: str) -> bool:
    return keyword.iskeyword(name) or name in JS_RESERVED


_WORD_BOUNDARY = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NAMESPACE = re.compile(r"[/.:]")


def split_words(text: str) -> list[str]:
    """Words of an identifier or a text, as written: `unitPriceCents`, `unit_price-cents`, `HTTPServer`
    and `unit price cents` all split at the same places."""
    return [w for w in _WORD_BOUNDARY.split(text) if w]


def last_segment(operation_id: str) -> str:
    """`repos/get` → `get`; `Files.upload` → `upload`: the part after any namespace."""
    return _NAMESPACE.split(operation_id)[-1]



def _camel(words: list[str]) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


_NOT_PLURAL = ("ss", "us", "is", "details", "status", "settings", "metrics", "stats", "analytics", "news")


def _plural(segment: str) -> bool:
    word = split_words(segment)[-1].lower() if split_words(segment) else ""
    return word.endswith("s") and not word.endswith(_NOT_PLURAL)


def derive_operation_id(method: str, path: str) -> str:
    """A readable, stable name from method + path: GET /orders/{orderId}/refunds → listOrderRefunds…

    Collection GETs (path not ending in a parameter) are `list…`, item GETs `get…ById`-style; the result
    always satisfies `is_valid_tool_name` (truncated to 64 characters)."""
    segments = [s for s in path.split("/") if s]
    statics = [s for s in segments if not s.startswith("{")]
    params = [s.strip("{}") for s in segments if s.startswith("{")]
    ends_with_param = bool(segments) and segments[-1].startswith("{")
    verb = _VERBS.get(method.lower(), method.lower())
    if verb == "get" and not ends_with_param and statics and _plural(statics[-1]):
        verb = "list"
    name = verb + _camel([w for s in statics for w in split_words(s)])
    if params:
        name += "By" + "And".join(_camel(split_words(p)) for p in params)
    name = re.sub(r"[^A-Za-z0-9_-]", "", name)
    if not name or not name[0].isalpha():
        name = "op" + name
    return name[:64]


def sanitize_tool_name(name: str) -> str:
    """The nearest valid tool name: disallowed characters become `_`, a leading digit is prefixed, and the
    result is cut to 64 characters."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "tool"
    if not (cleaned[0].isalpha() or cleaned[0] == "_"):
        cleaned = "op_" + cleaned
    return cleaned[:64]
