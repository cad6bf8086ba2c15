"""A tool's description: summary and description without repetition, then the facts a model must know."""

from __future__ import annotations

from workbench.policy import safety
from workbench.spec import Operation

LONG_DESCRIPTION = 1024


def describe(op: Operation) -> tuple[str, list[str]]:
    summary = " ".join((op.summary or "").split())
    description = (op.description or "").strip()
    if summary and description:
        flat = " ".join(description.split())
        text = description if flat.lower().startswith(summary.rstrip(".").lower()) else f"{summary}\n\n{description}"
    else:
        text = description or summary or f"{op.method.upper()} {op.path}"
    facts = []
    if op.deprecated:
        facts.append("Deprecated: prefer another tool.")
    care = safety(op)
    if care.requires_approval:
        facts.append("Requires human approval before it runs.")
    if care.destructive:
        facts.append("Destructive: the change cannot be undone.")
    if facts:
        text = f"{text}\n\n{' '.join(facts)}"
    warnings = []
    if len(text) > LONG_DESCRIPTION:
        warnings.append(f"description is {len(text)} characters; some vendors used to reject more than "
                        f"{LONG_DESCRIPTION} (kept whole)")
    return text, warnings
