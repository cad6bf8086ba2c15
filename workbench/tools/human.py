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
