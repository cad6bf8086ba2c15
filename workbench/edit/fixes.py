"""Quick fixes: the fixes lint findings carry, turned into edits placed where a reader expects them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workbench.edit.engine import Edit, EditOutcome, apply_edits
from workbench.lint import Finding, LintResult
from workbench.spec import SourceDocument, Spec
from workbench.spec.pointer import escape, lookup, split

# Applied by `workbench fix` unless --rule names others: each is safe to apply without reading it first.
# (operation-id-opaque and string-format-missing also propose fixes, applied only when asked for.)
DEFAULT_RULES = ("operation-id-missing", "operation-id-tool-name-invalid", "enum-in-prose",
                 "operation-description-missing")

# Where a new key goes: after the first of these siblings that exists, else first or last.
_PLACEMENT: dict[str, tuple[tuple[str, ...], bool]] = {
    "operationId": (("tags",), True),
    "description": (("summary", "operationId", "title", "format", "type"), True),  # operations, then schemas
    "summary": (("operationId", "tags"), True),
    "enum": (("format", "type"), False),
    "format": (("type",), False),
}
_RENAMES = ("operation-id-tool-name-invalid", "operation-id-opaque")


def placed_edit(pointer: str, value: Any) -> Edit:
    """An edit whose new key (if it is new) goes where a reader expects it: operationId first, description
    after summary, enum after type/format (the same placement for `workbench fix` and the window)."""
    after, first = _PLACEMENT.get(split(pointer)[-1], ((), False))
    return Edit(pointer, value, after=after, first=first)


@dataclass(frozen=True)
class QuickFix:
    rule: str
    title: str
    finding: Finding
    edits: tuple[Edit, ...]
    old: Any  # the value before (None when the key is new)
    new: Any

    @property
    def document(self) -> SourceDocument:
        return self.finding.document


def quick_fixes(spec: Spec, result: LintResult, rules: Iterable[str] | None = None) -> list[QuickFix]:
    wanted = set(rules) if rules else set(DEFAULT_RULES)
    fixes = []
    for finding in result.findings:
        fix = finding.fix
        if fix is None or finding.rule not in wanted:
            continue
        document = finding.document
        old = lookup(document.data, fix.pointer, None)
        if old == fix.value:
            continue  # already there (a placeholder description stays a finding, but needs no edit)
        edits = [placed_edit(fix.pointer, fix.value)]
        if finding.rule in _RENAMES and isinstance(old, str):
            edits += [Edit(pointer, fix.value) for pointer in _links_to(spec, old)]
        fixes.append(QuickFix(finding.rule, fix.title, finding, tuple(edits), old, fix.value))
    return fixes


def apply_fixes(fixes: list[QuickFix]) -> dict[str, EditOutcome]:
    """Apply fixes per document; every document is re-read once to confirm the batch."""
    by_document: dict[str, tuple[SourceDocument, list[Edit]]] = {}
    for fix in fixes:
        entry = by_document.setdefault(fix.document.name, (fix.document, []))
        entry[1].extend(fix.edits)
    return {name: apply_edits(document, edits) for name, (document, edits) in by_document.items()}


def _links_to(spec: Spec, operation_id: str) -> list[str]:
    """Pointers of every `operationId` in a Link Object (under any `links` map) naming `operation_id`."""
    found = []
    stack: list[tuple[str, Any]] = [("", spec.root.data)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, dict):
            links = node.get("links")
            if isinstance(links, dict):
                found += [f"{pointer}/links/{escape(name)}/operationId" for name, link in links.items()
                          if isinstance(link, dict) and link.get("operationId") == operation_id]
            stack.extend((f"{pointer}/{escape(key)}", value) for key, value in node.items()
                         if isinstance(value, (dict, list)))
        elif isinstance(node, list):
            stack.extend((f"{pointer}/{i}", value) for i, value in enumerate(node) if isinstance(value, (dict, list)))
    return sorted(found)
