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
DEFAULT_RULES = ("operation-id-missing", "operation-id-tool-name-invalid", "enum-in-prose")

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
    links: dict[str, list[str]] | None = None  # built on the first rename: one walk for all of them
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
            links = _link_index(spec) if links is None else links
            edits += [Edit(pointer, fix.value) for pointer in links.get(old, ())]
        fixes.append(QuickFix(finding.rule, fix.title, finding, tuple(edits), old, fix.value))
    return fixes


def apply_fixes(fixes: list[QuickFix]) -> dict[str, EditOutcome]:
    """Apply fixes per document; every document is re-read once to confirm the batch."""
    by_document: dict[str, tuple[SourceDocument, list[Edit]]] = {}
    for fix in fixes:
        entry = by_document.setdefault(fix.document.name, (fix.document, []))
        entry[1].extend(fix.edits)
    return {name: apply_edits(document, edits) for name, (document, edits) in by_document.items()}


def _link_index(spec: Spec) -> dict[str, list[str]]:
    """Pointers of every `operationId` in a Link Object (under any `links` map), by the operationId each names,
    sorted: one walk of the document, however many operations are renamed (GitHub's 874 took 874 walks)."""
    found: dict[str, list[str]] = {}
    stack: list[tuple[str, Any]] = [("", spec.root.data)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, dict):
            links = node.get("links")
            if isinstance(links, dict):
                for name, link in links.items():
                    target = link.get("operationId") if isinstance(link, dict) else None
                    if isinstance(target, str):
                        found.setdefault(target, []).append(f"{pointer}/links/{escape(name)}/operationId")
            stack.extend((f"{pointer}/{escape(key)}", value) for key, value in node.items()
                         if isinstance(value, (dict, list)))
        elif isinstance(node, list):
            stack.extend((f"{pointer}/{i}", value) for i, value in enumerate(node) if isinstance(value, (dict, list)))
    return {target: sorted(pointers) for target, pointers in found.items()}
