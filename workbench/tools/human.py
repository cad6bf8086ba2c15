"""Human-side arguments (seed 002's `separate`): secrets and file uploads come from a person or the
harness, never from the model. A predicate decides; the model's tool schema shows only its part."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

HUMAN_EXTENSION = "x-agent-human"
_SECRET_NAME = re.compile(r"(^|[_\-.]|(?<=[a-z]))(password|passwd|secret|token|api[_-]?key|apikey|credentials?|"
                          r"private[_-]?key|client[_-]?secret)($|[_\-.]|(?=[A-Z]))", re.I)

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
    return bool(_SECRET_NAME.search(name))


def never_human(name: str, schema: Any) -> bool:
    return False
