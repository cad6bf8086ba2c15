"""Tool-name rules shared by lint (is this operationId usable?) and conversion (what do we call it?)."""

from __future__ import annotations

import keyword
import re
from itertools import islice

from workbench import lazy_pattern

# OpenAI, Anthropic and Gemini all accept this and reject the whole tools array otherwise.
TOOL_NAME = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_-]{0,63}\Z")
_JS_RESERVED_WORDS = (
    "break case catch class const continue debugger default delete do else enum export extends false finally "
    "for function if import in instanceof new null return super switch this throw true try typeof var void "
    "while with yield let static implements interface package private protected public await")
JS_RESERVED = frozenset(_JS_RESERVED_WORDS.split())

MAX_NAME_LENGTH = 64  # OpenAI, Anthropic and Gemini
_METHOD_VERBS = {"get": "get", "put": "replace", "post": "create", "delete": "delete", "patch": "update",
                 "head": "check", "options": "options", "trace": "trace"}

# Verbs an operation name can start with (after any namespace such as `repos/`), and the verbs a summary
# may open with to name what an operation does ("List orders", "Search customers", "Cancel a payment").
VERBS = frozenset((
    "get", "list", "create", "update", "delete", "remove", "add", "set", "search", "find", "fetch", "retrieve",
    "read", "write", "put", "post", "patch", "replace", "check", "cancel", "refund", "send", "upload", "download",
    "enable", "disable", "start", "stop", "run", "rerun", "restart", "approve", "reject", "accept", "decline",
    "verify", "validate", "test", "sync", "import", "export", "generate", "issue", "revoke", "rotate", "reset",
    "transfer", "merge", "close", "open", "reopen", "lock", "unlock", "archive", "unarchive", "publish", "unpublish",
    "submit", "complete", "assign", "unassign", "invite", "block", "unblock", "follow", "unfollow", "star", "unstar",
    "mark", "move", "copy", "rename", "restore", "review", "dismiss", "request", "render", "preview", "estimate",
    "calculate", "compare", "connect", "disconnect", "register", "unregister", "subscribe", "unsubscribe", "upsert",
    "apply", "execute", "invoke", "trigger", "redeliver", "ping", "login", "logout", "authorize", "authenticate",
    "exchange", "terminate", "suspend", "unsuspend", "resume", "pause", "watch", "proxy", "count", "head",
    "options", "query", "lookup", "describe", "attach", "detach", "pin", "unpin", "save", "load", "clear", "mute",
    "unmute", "report", "confirm", "capture", "charge", "void", "purge", "process", "track", "notify", "share",
    "schedule", "reschedule", "upgrade", "downgrade", "install", "uninstall", "deploy", "redeploy", "scale", "grant",
    "deny", "claim", "release", "retry", "create_or_update", "list_for", "delete_for", "add_or_update", "batch",
    "bulk", "is", "has", "can", "convert", "parse", "translate", "transcribe", "embed", "moderate", "classify", "edit",
    "modify", "change", "toggle", "fork", "mirror", "gets", "lists",
    "buy", "sell", "pay", "purchase", "book", "reserve", "rent", "return", "ship", "deliver", "sign", "signup",
    "signin", "signout", "log", "order", "checkout", "refresh", "reload", "resend", "reply", "respond", "answer",
    "comment", "like", "unlike", "vote", "rate", "tag", "untag", "label", "filter", "sort", "aggregate", "analyze",
    "analyse", "summarize", "summarise", "score", "predict", "detect", "extract", "encode", "decode", "encrypt",
    "decrypt", "hash", "compress", "resize", "crop", "fill", "flush", "drain", "cordon", "evict",
    "bind", "unbind", "link", "unlink", "join", "leave", "kick", "ban", "unban", "hide", "unhide", "show",
    "enqueue", "dequeue", "acknowledge", "ack", "nack", "snooze", "escalate", "resolve", "reassign",
    "perform", "provision", "map", "diff", "regenerate", "rerequest", "re", "append", "trim", "activate",
    "deactivate", "hangup", "refer", "place", "compact", "call", "dial", "forward"))
# Verbs that open a summary only as verbs ("List orders", "Cancels a payment"): the operation's own verb.
_ACTION_VERBS = frozenset((
    "list", "search", "find", "create", "add", "set", "update", "modify", "edit", "change", "replace", "upsert",
    "delete", "remove", "purge", "clear", "cancel", "send", "resend", "upload", "download", "enable", "disable",
    "toggle", "start", "stop", "restart", "rerun", "retry", "approve", "reject", "accept", "decline", "verify",
    "validate", "sync", "generate", "regenerate", "revoke", "rotate", "reset", "merge", "close", "open", "reopen",
    "lock", "unlock", "archive", "unarchive", "publish", "unpublish", "submit", "complete", "assign", "unassign",
    "reassign", "invite", "unblock", "follow", "unfollow", "unstar", "unpin", "move", "copy", "rename", "restore",
    "dismiss", "render", "calculate", "compare", "connect", "disconnect", "register", "unregister", "subscribe",
    "unsubscribe", "apply", "execute", "invoke", "trigger", "redeliver", "ping", "authorize", "authenticate",
    "terminate", "suspend", "unsuspend", "resume", "pause", "attach", "detach", "mute", "unmute", "confirm",
    "capture", "notify", "reschedule", "upgrade", "downgrade", "install", "uninstall", "deploy", "redeploy", "grant",
    "deny", "convert", "parse", "translate", "transcribe", "embed", "moderate", "classify", "fork", "buy", "sell",
    "pay", "purchase", "reserve", "refresh", "reload", "reply", "respond", "aggregate", "analyze", "analyse",
    "summarize", "summarise", "predict", "detect", "extract", "encode", "decode", "encrypt", "decrypt", "compress",
    "resize", "crop", "flush", "drain", "cordon", "evict", "bind", "unbind", "unlink", "join", "leave", "kick",
    "ban", "unban", "hide", "unhide", "enqueue", "dequeue", "acknowledge", "snooze", "escalate", "resolve",
    "perform", "provision", "append", "trim", "activate", "deactivate", "dial", "forward", "refund", "write",
    "transfer", "import", "export", "check", "describe", "watch", "save", "share", "schedule", "void", "rerequest"))
# Words that are verbs or nouns ("Test a webhook" / "Test results"): the verb only before a determiner.
_AMBIGUOUS_VERBS = frozenset((
    "test", "issue", "request", "report", "comment", "label", "tag", "untag", "map", "answer", "call", "filter",
    "sort", "rate", "score", "like", "vote", "place", "hash", "diff", "count", "query", "track", "release",
    "review", "preview", "estimate", "process", "charge", "book", "sign", "link", "order", "return", "mark",
    "block", "star", "pin", "fill", "ship", "deliver", "rent", "mirror", "claim", "scale", "load", "run", "lookup"))
_DETERMINERS = frozenset(("a", "an", "the", "all", "one", "many", "multiple", "several", "some", "each", "every",
                          "this", "that", "these", "those", "my", "your", "its", "their", "our", "new", "existing",
                          "specific", "single", "current", "given", "selected"))


def is_valid_tool_name(name: str) -> bool:
    return bool(TOOL_NAME.match(name))


def is_reserved_word(name: str) -> bool:
    return keyword.iskeyword(name) or name in JS_RESERVED


# A word: capitals before the capital that starts a capitalised word (`HTTP` of `HTTPServer`), or letters and
# digits with no capital after the first lower-case one or digit (`unit`, `Price`, `V1`), or a run of capitals.
# One pattern for what was a split into runs of letters and digits, then each run at its case changes: the
# same words, found in one pass (lint tokenises every description).
_WORD = lazy_pattern(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]*[a-z0-9]+|[A-Z]+")
_NAMESPACE = lazy_pattern(r"[/.:]")


def split_words(text: str) -> list[str]:
    """Words of an identifier or a text, as written: `unitPriceCents`, `unit_price-cents`, `HTTPServer`
    and `unit price cents` all split at the same places."""
    return _LED_WORDS.findall(text)


# `_WORD` led by the class of a word's first character, so that a search skips what lies between words in one step
# rather than trying the three alternatives at each character (lint splits every description: 40% fewer
# instructions). The same words: after a lower-case letter or a digit only the second alternative can match, after a
# capital each alternative with that capital taken.
_LED_WORDS = lazy_pattern(r"[A-Za-z0-9](?:(?<=[a-z0-9])[a-z0-9]*|[A-Z]*(?=[A-Z][a-z])|[A-Z]*[a-z0-9]+|[A-Z]*)")


def first_words(text: str, count: int) -> list[str]:
    """The first `count` words of `split_words(text)`, found without splitting a long text to its end."""
    return [match.group() for match in islice(_WORD.finditer(text), count)]


def last_segment(operation_id: str) -> str:
    """`repos/get` → `get`; `Files.upload` → `upload`: the part after any namespace."""
    return _NAMESPACE.split(operation_id)[-1]



def _camel(words: list[str]) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


_NOT_PLURAL = ("ss", "us", "is", "details", "status", "settings", "metrics", "stats", "analytics", "news")


def _plural(segment: str) -> bool:
    word = split_words(segment)[-1].lower() if split_words(segment) else ""
    return word.endswith("s") and not word.endswith(_NOT_PLURAL)


def summary_verb(summary: str | None) -> str | None:
    """The verb a summary opens with, as a name's first word: "List orders" → `list`, "Creates a pet" →
    `create`, "Test a webhook" → `test`; None when it opens with no verb, with a word that may be a noun
    ("Test results"), or only says that it reads ("Get a pet", "Returns a pet": the method says which read)."""
    words = (summary or "").split(None, 2)
    if not words:
        return None
    first = re.sub(r"[^a-z]", "", words[0].lower())
    second = re.sub(r"[^a-z]", "", words[1].lower()) if len(words) > 1 else ""
    for candidate in (first, first[:-1] if first.endswith("s") else "", first[:-2] if first.endswith("es") else ""):
        if candidate in _ACTION_VERBS:
            return candidate
    if first in _AMBIGUOUS_VERBS and second in _DETERMINERS:
        return first
    return None


def derive_operation_id(method: str, path: str, summary: str | None = None) -> str:
    """A readable, stable name: the summary's verb when it opens with one ("List orders" → `list…`, whatever
    the method), else the method's (collection GETs `list…`, item GETs `get…`), then the path's words and
    `By` its parameters: GET /orders/{orderId}/refunds → listOrdersRefundsByOrderId.

    The result always satisfies `is_valid_tool_name`: a long one is shortened at word boundaries."""
    segments = [s for s in path.split("/") if s]
    statics = [s for s in segments if not s.startswith("{")]
    params = [s.strip("{}") for s in segments if s.startswith("{")]
    ends_with_param = bool(segments) and segments[-1].startswith("{")
    verb = summary_verb(summary)
    if verb is None:
        verb = _METHOD_VERBS.get(method.lower(), method.lower())
        if verb == "get" and not ends_with_param and statics and _plural(statics[-1]):
            verb = "list"
    verb = re.sub(r"[^A-Za-z0-9]", "", verb)
    if not verb[:1].isalpha():
        verb = "op" + verb
    nouns = [_camel([w]) for s in statics for w in split_words(s)]
    if nouns and nouns[0].lower() == verb:
        nouns.pop(0)  # POST /search/orders "Search orders": searchOrders
    by = "And".join(_camel(split_words(p)) for p in params if split_words(p))
    name = verb + "".join(nouns) + ("By" + by if by else "")
    if len(name) <= MAX_NAME_LENGTH:
        return name
    # Too long: the parameters go first (the path names the resource), then the path's leading words (its
    # last words name the most specific thing): GET /a/{x}/b/{y}/c/d → getABCD → getBCD.
    while nouns and len(verb + "".join(nouns)) > MAX_NAME_LENGTH:
        nouns.pop(0)
    return shorten(verb + "".join(nouns), MAX_NAME_LENGTH)


_BOUNDARY = lazy_pattern(r"[_\-.:/]|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def shorten(name: str, limit: int = MAX_NAME_LENGTH) -> str:
    """`name` within `limit` characters by whole words: the first word (usually the verb) and the last ones
    (the most specific) stay, the words after the first go until it fits —
    `deleteAdmissionregistrationV1CollectionMutatingAdmissionPolicyBinding` →
    `deleteV1CollectionMutatingAdmissionPolicyBinding`. Never mid-word, unless one word is itself too long."""
    if len(name) <= limit:
        return name
    cuts = [m.start() for m in _BOUNDARY.finditer(name) if m.start() > 0]
    if not cuts:
        return name[:limit]
    first = name[: cuts[0]]
    for cut in cuts[1:]:
        if len(first) + len(name) - cut <= limit:
            return first + name[cut:]
    return (first + name[cuts[-1]:])[:limit]  # the last word alone is too long: cut, as nothing else fits


def sanitize_tool_name(name: str, allowed: str = "A-Za-z0-9_-", limit: int = MAX_NAME_LENGTH) -> str:
    """The nearest valid tool name: characters outside `allowed` become `_`, a leading digit is prefixed,
    and a long result is shortened at a word boundary (`shorten`)."""
    cleaned = re.sub(f"[^{allowed}]+", "_", name).strip("_") or "tool"
    if not (cleaned[0].isalpha() or cleaned[0] == "_"):
        cleaned = "op_" + cleaned
    return shorten(cleaned, limit)


def with_suffix(base: str, suffix: str, limit: int = MAX_NAME_LENGTH) -> str:
    """`base` + `suffix` (`_2`) within `limit`, `base` shortened at a word boundary to make room."""
    return shorten(base, limit - len(suffix)) + suffix


def operation_name(op) -> str:
    """The name derived for an operation without a usable operationId: its summary's verb, else its method."""
    return derive_operation_id(op.method, op.path, op.summary)
