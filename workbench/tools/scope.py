"""Which operations become tools: tags, allowlist, read-only, deprecated, hidden ones."""

from typing import TYPE_CHECKING, NamedTuple

from workbench.policy import safety
from workbench.spec import Operation, Spec

if TYPE_CHECKING:
    from workbench.tools.model import Rejected

# Extensions that hide an operation from agents (the common `x-internal`, and ours).
HIDING_EXTENSIONS = ("x-internal", "x-agent-hidden")


class Scope(NamedTuple):
    """Which operations become tools: by tag (or not), an allowlist of operationIds, read-only, deprecated ones, and
    how many tools a set may hold before it warns."""

    tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    operations: tuple[str, ...] = ()  # an allowlist of operationIds
    read_only: bool = False
    include_deprecated: bool = False
    budget: int = 40


def describe(scope: Scope) -> str:
    """The scope in the config's words: "tags: issues, pulls; read-only; deprecated left out"."""
    parts = []
    if scope.tags:
        parts.append("tags: " + ", ".join(scope.tags))
    if scope.exclude_tags:
        parts.append("exclude-tags: " + ", ".join(scope.exclude_tags))
    if scope.operations:
        parts.append(f"an allowlist of {len(scope.operations)} operationIds")
    if scope.read_only:
        parts.append("read-only")
    if not parts:
        parts.append("no tags or allowlist: every operation")
    parts.append("deprecated included" if scope.include_deprecated else "deprecated left out")
    return "; ".join(parts)


def select(spec: Spec, scope: Scope) -> "tuple[list[Operation], list[Rejected]]":
    """The operations in scope, and every one left out with its reason (left-out is not an error)."""
    chosen: list[Operation] = []
    left_out: list[tuple[str, str, str]] = []
    wanted_ids = set(scope.operations)
    for op in spec.operations:
        reason = _reason(op, scope, wanted_ids)
        if reason:
            left_out.append((op.method, op.path, reason))
        else:
            chosen.append(op)
    missing = wanted_ids - {op.operation_id for op in spec.operations}
    left_out += [("", "", f"operationId {m!r} is not in the spec") for m in sorted(missing)]
    if not left_out:
        return chosen, []
    from workbench.tools.model import Rejected  # the tool set's model: imported when something is left out

    return chosen, [Rejected(*fields) for fields in left_out]


def _reason(op: Operation, scope: Scope, wanted_ids: set[str]) -> str:
    if any(op.extensions.get(ext) is True for ext in HIDING_EXTENSIONS):
        return "hidden from agents (" + next(e for e in HIDING_EXTENSIONS if op.extensions.get(e) is True) + ")"
    if wanted_ids and op.operation_id not in wanted_ids:
        return "not in the operations allowlist"
    if scope.tags and not set(op.tags) & set(scope.tags):
        return "no selected tag"
    if scope.exclude_tags and set(op.tags) & set(scope.exclude_tags):
        return "excluded tag"
    if scope.read_only and not safety(op).read_only:
        return "read-only tool set: this operation changes something"
    if op.deprecated and not scope.include_deprecated:
        return "deprecated (use --include-deprecated)"
    return ""
