"""Tool names per vendor: the operationId when the vendor accepts it, else a readable name from method +
path; sanitised; collisions detected after every step and resolved deterministically (`_2`, `_3`…)."""

from __future__ import annotations

import re

from workbench.naming import operation_name, sanitize_tool_name, with_suffix
from workbench.spec import Operation


def assign_names(operations: list[Operation], pattern: re.Pattern, max_length: int,
                 allowed: str) -> tuple[list[str], dict[int, str]]:
    """Names in operation order, and a warning per operation whose name differs from its operationId."""
    names: list[str] = []
    notes: dict[int, str] = {}
    # Valid operationIds are the tool names: reserve them first, so that a cleaned-up or derived name for
    # another operation never takes one (first come wins only among duplicates of the same id).
    reserved = {op.operation_id for op in operations if op.operation_id and pattern.fullmatch(op.operation_id)}
    taken: set[str] = set()
    for i, op in enumerate(operations):
        wanted = op.operation_id if op.operation_id in reserved and op.operation_id not in taken else None
        base = wanted or sanitize_tool_name(op.operation_id or operation_name(op), allowed, max_length)
        name = base
        n = 2
        while name in taken or (name in reserved and name != wanted):
            name, n = with_suffix(base, f"_{n}", max_length), n + 1
        taken.add(name)
        names.append(name)
        if name != op.operation_id:
            if not op.operation_id:
                why = "no operationId"
            elif op.operation_id in reserved:
                why = f"operationId {op.operation_id!r} is used twice"
            else:
                why = f"operationId {op.operation_id!r} is not a valid name"
            notes[i] = f"{why}: named {name!r}" + (" (renamed to stay unique)" if name != base else "")
    return names, notes

