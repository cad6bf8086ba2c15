"""Output formats for lint results. Each is a function of the result object, nothing recomputed."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workbench import __version__, lazy_pattern
from workbench.lint.engine import LintResult
from workbench.lint.finding import Finding, Severity
from workbench.lint.registry import RULES
from workbench.spec.pointer import split

if TYPE_CHECKING:
    from workbench.lint.score import Score


def _range(finding: Finding):
    return finding.document.extent(finding.pointer)


def to_text(result: LintResult, readiness: Score | None = None) -> str:
    """`file:line:col severity code message`, 1-based, one line of counts, then the readiness score (`readiness`,
    else scored over every operation)."""
    lines = []
    for finding in result.findings:
        start, _ = _range(finding)
        lines.append(f"{finding.file}:{start.line}:{start.column} {finding.severity.label} {finding.rule} "
                     f"{finding.message}")
    counts = ", ".join(f"{result.count(s)} {s.label}" for s in (Severity.ERROR, Severity.WARN, Severity.INFO,
                                                                   Severity.HINT))
    lines.append(f"{len(result.findings)} finding(s): {counts}")
    if result.spec is not None:
        if readiness is None:
            from workbench.lint.score import score  # the text report's alone: JSON, SARIF… never score

            readiness = score(result)
        lines += ["", readiness.to_text()]
    return "\n".join(lines)


def explain(rule_id: str) -> str:
    """A rule's documentation as `workbench lint --explain` prints it: what it checks and how to fix it (the
    registry's text, which Help > Rules and SARIF's `help` show too)."""
    rule = RULES[rule_id]
    default = rule.severity.label + (" (off unless the config names it)" if rule.default_run is Severity.OFF else "")
    return (f"{rule.id}\n  category: {rule.category}\n  default:  {default}\n  checks:   {rule.summary}\n"
            f"  fix:      {rule.fix}")


def to_json(result: LintResult) -> str:
    """Spectral-compatible: code, path (list), message, severity (0 error … 3 hint), 0-based range, source. One
    finding per line, each exactly as `json.dumps(finding, ensure_ascii=False)` would write it (a test holds it to
    that), but written out here with only its strings through the C string encoder: an encoder call per finding
    was half the report of a spec with six thousand findings."""
    lines = []
    quoted: dict[str, str] = {}  # rule ids and file names, quoted once
    for finding in result.findings:
        start, end = _range(finding)
        code = quoted.get(finding.rule) or quoted.setdefault(finding.rule, _QUOTE(finding.rule))
        source = quoted.get(finding.file) or quoted.setdefault(finding.file, _QUOTE(finding.file))
        path = ", ".join(map(_QUOTE, split(finding.pointer)))
        lines.append(f'{{"code": {code}, "path": [{path}], "message": {_QUOTE(finding.message)}, '
                     f'"severity": {finding.severity.spectral}, "range": {{"start": {{"line": {start.line - 1}, '
                     f'"character": {start.column - 1}}}, "end": {{"line": {end.line - 1}, '
                     f'"character": {end.column - 1}}}}}, "source": {source}}}')
    return "[\n" + ",\n".join(lines) + "\n]" if lines else "[]"


_QUOTE = json.encoder.encode_basestring  # a JSON string as `ensure_ascii=False` writes it (in C)


# SARIF, GitHub annotations and JUnit all have three or four levels; hint and info share the lowest.
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARN: "warning", Severity.INFO: "note", Severity.HINT: "note",
                Severity.OFF: "none"}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARN: "warning", Severity.INFO: "notice",
                   Severity.HINT: "notice"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_sarif(result: LintResult) -> str:
    """SARIF 2.1.0: every registered rule in `tool.driver.rules`, one result per finding, 1-based regions
    (columns counted in characters, end column exclusive, as SARIF defines it)."""
    rules = list(RULES.values())
    index = {rule.id: i for i, rule in enumerate(rules)}
    descriptors = []
    for rule in rules:
        descriptor: dict = {
            "id": rule.id,
            "shortDescription": {"text": rule.summary},
            "help": {"text": rule.fix},
            "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
            "properties": {"category": rule.category},
        }
        if rule.default_run is Severity.OFF:
            descriptor["defaultConfiguration"]["enabled"] = False
        descriptors.append(descriptor)
    results = []
    for finding in result.findings:
        start, end = _range(finding)
        item: dict = {"ruleId": finding.rule}
        if finding.rule in index:
            item["ruleIndex"] = index[finding.rule]
        item["level"] = _SARIF_LEVEL[finding.severity]
        item["message"] = {"text": finding.message}
        item["locations"] = [{"physicalLocation": {
            "artifactLocation": {"uri": finding.file},
            "region": {"startLine": start.line, "startColumn": start.column,
                       "endLine": end.line, "endColumn": end.column},
        }}]
        properties = {"pointer": finding.pointer}
        if finding.fix is not None:
            properties["suggestion"] = finding.fix.title
        item["properties"] = properties
        results.append(item)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "workbench", "version": __version__, "rules": descriptors}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


def github_escape(value: str, *, prop: bool = False) -> str:
    """GitHub workflow-command escaping: `%`, CR and LF always; `:` and `,` too in a property value."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def to_github(result: LintResult) -> str:
    """One GitHub Actions annotation per finding: `::warning title=rule,file=…,line=…,col=…,…::message`."""
    lines = []
    for finding in result.findings:
        start, end = _range(finding)
        properties = {"title": finding.rule, "file": finding.file, "line": start.line, "col": start.column,
                      "endLine": end.line, "endColumn": end.column}
        rendered = ",".join(f"{key}={github_escape(str(value), prop=True)}" for key, value in properties.items())
        lines.append(f"::{_GITHUB_COMMAND[finding.severity]} {rendered}::{github_escape(finding.message)}")
    return "\n".join(lines)


# XML 1.0 cannot carry most C0 controls (YAML can, escaped); ElementTree would write them and break the file.
_XML_ILLEGAL = lazy_pattern("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _XML_ILLEGAL.sub("\ufffd", text)


def to_junit(result: LintResult) -> str:
    """JUnit XML: one test case per enabled rule; a rule with findings fails, listing them one a line."""
    import xml.etree.ElementTree as ET

    by_rule: dict[str, list[Finding]] = {}
    for finding in result.findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    enabled = [rule.id for rule in RULES.values()
               if result.config.severities.get(rule.id, rule.default_run) is not Severity.OFF]
    # A finding from a rule that is not registered (should not happen) still gets its failing test case.
    cases = enabled + [rule_id for rule_id in by_rule if rule_id not in enabled]
    failures = sum(1 for rule_id in cases if rule_id in by_rule)
    counts = {"tests": str(len(cases)), "failures": str(failures), "errors": "0", "skipped": "0"}
    root = ET.Element("testsuites", {"name": "workbench lint", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": "workbench lint", **counts})
    for rule_id in cases:
        case = ET.SubElement(suite, "testcase", {"classname": "workbench.lint", "name": rule_id})
        findings = by_rule.get(rule_id)
        if not findings:
            continue
        worst = max(f.severity for f in findings)
        failure = ET.SubElement(case, "failure", {"message": f"{len(findings)} finding(s)", "type": worst.label})
        lines = []
        for finding in findings:
            start, _ = _range(finding)
            lines.append(f"{finding.file}:{start.line}:{start.column} {finding.message}")
        failure.text = _xml_text("\n".join(lines))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)
