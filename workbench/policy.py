"""What an operation may do to the world, decided once: read-only, idempotent, destructive, needs a person's
approval. The executor's gates, the tool description, the MCP annotations and the lint rule all read
`safety(op)`.

The rule: what the spec states explicitly wins over what the method implies.
- Markers. `x-destructive`, `x-destructive-hint` and `x-mcp-destructive-hint` declare whether the operation
  is destructive (any one true: destructive; otherwise, one declared false: not destructive, even a DELETE);
  `x-agent-requires-approval` asks for a person's approval (it does not by itself say the change cannot be
  undone; false asks nothing and lifts nothing). A marker counts when its value is truthy; a destructive
  marker with a present, non-null falsy value declares "no".
- Destructive (cannot be undone): as declared, else DELETE.
- Requires approval: destructive, or `x-agent-requires-approval`.
- Read-only: never when approval is required; else `x-mcp-read-only-hint` when it is a boolean, else the safe
  methods (GET, HEAD, OPTIONS, TRACE).
- Overwrites (may replace or remove what exists, MCP's `destructiveHint`): as declared by a destructive
  marker, else when approval is required, else the method: PUT, PATCH, DELETE and methods outside the table;
  never for a read-only operation.
- Idempotent: `x-mcp-idempotent-hint` when it is a boolean, else GET, HEAD, OPTIONS, TRACE, PUT and DELETE
  are, POST is not, PATCH and methods outside the table are unknown (None).
Words in a description do not decide any of this (a "warning" in prose gates nothing); whether a description
warns its reader is the lint rule's business.
"""

from collections.abc import Mapping
from typing import Any, NamedTuple

from workbench.spec import Operation
from workbench.spec.model import SAFE_METHODS

__all__ = ["APPROVAL_MARKER", "DESTRUCTIVE_MARKERS", "Safety", "safety"]

DESTRUCTIVE_MARKERS = ("x-destructive", "x-destructive-hint", "x-mcp-destructive-hint")
APPROVAL_MARKER = "x-agent-requires-approval"
READ_ONLY_HINT = "x-mcp-read-only-hint"
IDEMPOTENT_HINT = "x-mcp-idempotent-hint"

_IDEMPOTENT = {"get": True, "head": True, "options": True, "trace": True, "put": True, "delete": True,
               "post": False}
_ADDITIVE = SAFE_METHODS | {"post"}  # methods that do not overwrite what exists


class Safety(NamedTuple):
    """How careful an agent must be with one operation: the one definition of read-only and destructive."""

    read_only: bool  # changes nothing: the only calls --read-only lets through
    destructive: bool  # the change cannot be undone
    requires_approval: bool  # a person approves before it reaches a real server
    overwrites: bool  # may replace or remove existing state (MCP destructiveHint)
    idempotent: bool | None  # repeating it changes nothing more (safe to retry); None: unknown
    marked: bool  # the spec says itself how careful to be: a destructive marker (true or false) or approval


def _declared(extensions: Mapping[str, Any], names: tuple[str, ...]) -> bool | None:
    """True when one of the markers is truthy, False when one is present (not null) and none is, else None."""
    values = [extensions[name] for name in names if extensions.get(name) is not None]
    if not values:
        return None
    return any(bool(v) for v in values)


def safety(op: Operation) -> Safety:
    ext = op.extensions
    declared = _declared(ext, DESTRUCTIVE_MARKERS)
    approval = bool(ext.get(APPROVAL_MARKER))
    destructive = declared if declared is not None else op.method == "delete"
    requires_approval = destructive or approval
    read_hint = ext.get(READ_ONLY_HINT)
    read_only = not requires_approval and (read_hint if isinstance(read_hint, bool) else op.method in SAFE_METHODS)
    by_method = requires_approval or (not read_only and op.method not in _ADDITIVE)
    overwrites = declared if declared is not None else by_method
    idempotent_hint = ext.get(IDEMPOTENT_HINT)
    idempotent = idempotent_hint if isinstance(idempotent_hint, bool) else _IDEMPOTENT.get(op.method)
    marked = declared is not None or approval
    return Safety(read_only, destructive, requires_approval, overwrites, idempotent, marked)
