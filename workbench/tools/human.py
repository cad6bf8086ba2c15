"""Human-side arguments (seed 002's `separate`): secrets and file uploads come from a person or the
harness, never from the model. A predicate decides; the model's tool schema shows only its part."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from workbench.spec import SpecError
from workbench.tools.model import Tool

HUMAN_EXTENSION = "x-agent-human"

# A name is read as words (`nextPageToken`, `X-Api-Key`, `Config.NotificationToken`); its last word says
# what the value is (`secret_name` is a name, `api_key_id` an id, `max_tokens` a count), after modifiers
# that keep the meaning (`password_confirmation`, `password2`).
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_WORDS = frozenset(("password", "passwords", "passwd", "passphrase", "secret", "secrets", "credential",
                           "credentials", "apikey", "token"))
_SECRET_PAIRS = frozenset((("api", "key"), ("private", "key"), ("access", "key")))
_MODIFIERS = frozenset(("confirm", "confirmation", "repeat", "again", "value", "plain", "plaintext", "raw"))
# a token that continues or repeats something (a page, a sync, an idempotent request) or names a device is a
# value the API itself hands out for the model to pass back, not a credential
_NOT_SECRET_TOKENS = frozenset(("page", "next", "prev", "previous", "continuation", "continue", "cursor", "sync",
                                "idempotency", "idempotent", "pagination", "paging", "resume", "start", "starting",
                                "skip", "delta", "change", "changes", "watch", "marker", "more", "poll", "scroll",
                                "search", "list", "offset", "after", "before", "since", "notification", "device",
                                "push"))
_TEXT_TYPES = frozenset(("string", "null"))

HumanPredicate = Callable[[str, Any], bool]


def default_human(name: str, schema: Any) -> bool:
    """Secrets (by name, `format: password`, writeOnly), file uploads (binary strings) and anything marked
    `x-agent-human: true`."""
    if isinstance(schema, dict):
        if schema.get(HUMAN_EXTENSION) is True or schema.get("writeOnly") is True:
            return True
        if schema.get("format") in ("password", "binary"):
            return True
        if schema.get("type") == "array" and isinstance(schema.get("items"), dict) and \
                schema["items"].get("format") == "binary":
            return True
        kind = schema.get("type")
        if kind is not None and not ({kind} if isinstance(kind, str) else set(kind)) & _TEXT_TYPES:
            return False  # a flag, a count or a structure named after a secret is not one
    return secret_name(name)


def secret_name(name: str) -> bool:
    """Whether a name says its value is a secret: a password, a secret, credentials, an API, private or
    access key, or a token that is not a page, continuation, sync, idempotency or device token."""
    words = [w.lower() for w in _WORD.findall(name)]
    while words and (words[-1] in _MODIFIERS or words[-1].isdigit()):
        words.pop()
    if not words:
        return False
    if tuple(words[-2:]) in _SECRET_PAIRS:
        return True
    if words[-1] not in _SECRET_WORDS:
        return False
    return words[-1] != "token" or not _NOT_SECRET_TOKENS.intersection(words[:-1])


def never_human(name: str, schema: Any) -> bool:
    return False


HUMAN_ENV_PREFIX = "WORKBENCH_HUMAN_"


def human_values(tool: Tool | None, given: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The human part of a call, as every front end resolves it: the values given, then
    `WORKBENCH_HUMAN_<ARGUMENT>` from the environment for the tool's human arguments not given; a string
    `@path` is a file to upload (read now; an unreadable one is a SpecError naming it)."""
    values = dict(given)
    for binding in tool.bindings if tool is not None else ():
        env = environ.get(HUMAN_ENV_PREFIX + binding.argument.upper())
        if binding.human and binding.argument not in values and env is not None:
            values[binding.argument] = env
    for name, value in list(values.items()):
        if isinstance(value, str) and value.startswith("@"):
            path = Path(value[1:])
            try:
                content = path.read_bytes()
            except OSError as exc:
                raise SpecError(f"cannot read the upload for {name!r}: {exc.strerror or exc}", str(path)) from None
            values[name] = {"filename": path.name, "content": content, "content_type": "application/octet-stream"}
    return values
