"""A drift report as text, JSON, a pull-request comment (Markdown) or SARIF annotating the new file. Each is a
function of the `DriftReport`, nothing recomputed."""

from __future__ import annotations

import json

from workbench import __version__
from workbench.drift.model import KINDS, Change, DriftReport


def summary(report: DriftReport) -> str:
    broken = len(report.breaking)
    head = (f"{report.old} → {report.new} ({report.vendor}, {report.old_tools} → {report.new_tools} tools): "
            f"{broken} breaking change{'s' if broken != 1 else ''}, {len(report.safe)} other")
    return head if report.changes else f"{report.old} → {report.new} ({report.vendor}): no changes"


def _subject(change: Change) -> str:
    return f"{change.tool}.{change.argument}" if change.argument else change.tool


def to_text(report: DriftReport) -> str:
    """Breaking changes first, one line each with its places below."""
    lines = []
    for change in [*report.breaking, *report.safe]:
        mark = "BREAKING" if change.breaking else "ok      "
        lines.append(f"{mark} {change.kind:<21} {_subject(change)}: {change.reason}")
        if change.old:
            lines.append(f"         old {change.old}")
        if change.new:
            lines.append(f"         new {change.new}")
    lines.append(summary(report))
    return "\n".join(lines)


def to_json(report: DriftReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{_cell(text)}`" if text else ""


def to_markdown(report: DriftReport) -> str:
    """A pull-request comment: the summary line, a table of what breaks, the rest folded away."""
    broken = report.breaking
    lines = [f"**Tool drift**: {_cell(summary(report))}" if broken else
             f"**Tool drift**: {_cell(summary(report))}. Nothing breaks an agent built on the old tools."]
    if broken:
        lines += ["", "| change | tool | argument | why | where |", "|---|---|---|---|---|"]
        lines += [f"| {c.kind} | {_code(c.tool)} | {_code(c.argument)} | {_cell(c.reason)} | "
                  f"{_code(str(c.new)) if c.new else 'was ' + _code(str(c.old))} |" for c in broken]
    if report.safe:
        lines += ["", f"<details><summary>{len(report.safe)} change(s) that break nothing</summary>", "",
                  "| change | tool | argument | note |", "|---|---|---|---|"]
        lines += [f"| {c.kind} | {_code(c.tool)} | {_code(c.argument)} | {_cell(c.reason)} |" for c in report.safe]
        lines += ["", "</details>"]
    return "\n".join(lines)


def to_sarif(report: DriftReport) -> str:
    """SARIF 2.1.0, every result in the new version's file (a removed tool at its top, the old place named)."""
    from workbench.lint.report import SARIF_SCHEMA

    kinds = list(KINDS)
    rules = [{"id": kind, "shortDescription": {"text": text}} for kind, text in KINDS.items()]
    results = []
    for change in report.changes:
        where = change.new
        message = f"{_subject(change)}: {change.reason}"
        if where is None:
            message += f" (was at {change.old})" if change.old else ""
        region = {"startLine": where.line, "startColumn": where.column} if where and where.line else {"startLine": 1}
        results.append({
            "ruleId": change.kind, "ruleIndex": kinds.index(change.kind),
            "level": "error" if change.breaking else "note",
            "message": {"text": message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(where.file if where else
                                                                                  report.new_file)},
                                                "region": region}}],
            "properties": {"breaking": change.breaking, "tool": change.tool, "argument": change.argument,
                           "pointer": where.pointer if where else "",
                           "oldPointer": change.old.pointer if change.old else None},
        })
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "workbench diff", "version": __version__, "rules": rules}},
        "columnKind": "unicodeCodePoints", "results": results}]}
    return json.dumps(log, indent=2, ensure_ascii=False)


def _uri(file: str) -> str:
    """A file as SARIF names it: `git:REV:api.yaml` is the repository's `api.yaml` at that revision."""
    return file.split(":", 2)[2] if file.startswith("git:") and file.count(":") >= 2 else file


FORMATS = {"text": to_text, "json": to_json, "markdown": to_markdown, "sarif": to_sarif}
