"""Output formats for lint results. Each is a function of the result object, nothing recomputed."""

from __future__ import annotations

import json

from workbench.lint.engine import LintResult
from workbench.lint.finding import Finding, Severity


def _range(finding: Finding):
    where = finding.locate()
    return (where.key_start or where.start), where.end


def to_text(result: LintResult) -> str:
    """`file:line:col severity code message`, 1-based, then one line of counts."""
    lines = []
    for finding in result.findings:
        start, _ = _range(finding)
        lines.append(f"{finding.file}:{start.line}:{start.column} {finding.severity.label} {finding.rule} "
                     f"{finding.message}")
    counts = ", ".join(f"{result.count(s)} {s.label}" for s in (Severity.ERROR, Severity.WARN, Severity.INFO,
                                                                   Severity.HINT))
    lines.append(f"{len(result.findings)} finding(s): {counts}")
    return "\n".join(lines)


def to_json(result: LintResult) -> str:
    """Spectral-compatible: code, path (list), message, severity (0 error … 3 hint), 0-based range, source."""
    items = []
    for finding in result.findings:
        start, end = _range(finding)
        items.append({
            "code": finding.rule,
            "path": [t.replace("~1", "/").replace("~0", "~") for t in finding.pointer.split("/")[1:]],
            "message": finding.message,
            "severity": finding.severity.spectral,
            "range": {"start": {"line": start.line - 1, "character": start.column - 1},
                      "end": {"line": end.line - 1, "character": end.column - 1}},
            "source": finding.file,
        })
    return json.dumps(items, indent=2, ensure_ascii=False)
