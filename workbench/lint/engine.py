"""Run the rules over a spec: severities from config, ignores (config and inline `x-lint-ignore`),
one finding per place (a `$ref`'d component is reported once, at its definition), stable order."""

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from workbench import Frozen, lazy_pattern
from workbench.config import LintConfig
from workbench.lint import rules as _rules  # noqa: F401  (importing registers every rule)
from workbench.lint.finding import Finding, Severity
from workbench.lint.parallel import run_rules
from workbench.lint.registry import RULES
from workbench.spec import Operation, SourceDocument, Spec, SpecError
from workbench.spec.pointer import split
from workbench.spec.source import detect_format, read_text


class ToolScope(NamedTuple):
    """The operations that become tools under the config's `tools:` scope (the caller selects them: the tool set's
    scope lives above the lint), and that scope in words, for messages."""

    operations: tuple[Operation, ...]
    description: str


class LintContext(NamedTuple):
    """What a rule may consult besides the spec: the lint config and which operations count as tools."""

    config: LintConfig
    scope: ToolScope | None = None  # None: every operation of the spec counts as a tool


class LintResult(Frozen):
    """One lint run: the spec (None when it could not be read), the findings in report order, the config."""

    __slots__ = ("config", "findings", "spec")

    spec: Spec | None
    findings: tuple[Finding, ...]
    config: LintConfig

    def __init__(self, spec: Spec | None, findings: tuple[Finding, ...], config: LintConfig | None = None) -> None:
        object.__setattr__(self, "spec", spec)
        object.__setattr__(self, "findings", findings)
        object.__setattr__(self, "config", LintConfig() if config is None else config)

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def counts(self) -> dict[Severity, int]:
        """How many findings at each severity, most severe first (every severity present, zero or not)."""
        return severity_counts(self.findings)

    def exit_code(self, fail_severity: Severity) -> int:
        return 1 if any(f.severity >= fail_severity for f in self.findings) else 0


def severity_counts(findings) -> dict[Severity, int]:
    counts = {severity: 0 for severity in sorted(Severity, reverse=True) if severity is not Severity.OFF}
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def lint(spec: Spec, config: LintConfig | None = None, scope: ToolScope | None = None,
         only: Iterable[str] | None = None, parallel: bool = False) -> LintResult:
    """The findings on `spec`; `scope`: the tools in the config's scope (`workspace.linting.lint_in_scope` builds
    it), which the tool-count rule counts instead of every operation; `only`: run just these rules (`workbench
    fix --rule` needs one rule's findings, not a tenth of a second of each of the others); `parallel`: the rules
    may be shared with forked copies of this process on its other CPUs (a command line process, see
    `lint.parallel`), with the same findings."""
    config = config or LintConfig()
    context = LintContext(config, scope)
    findings: list[Finding] = []
    marked: dict[int, bool] = {}  # per document: may it hold an `x-lint-ignore` at all (most hold none)
    running = []
    for rule in RULES.values() if only is None else [RULES[rule_id] for rule_id in dict.fromkeys(only)]:
        severity = config.severities.get(rule.id, rule.default_run)
        if severity is not Severity.OFF:
            running.append((rule, severity))
    reports_by_rule = run_rules(spec, context, [rule for rule, _ in running], parallel)
    for (rule, severity), reports in zip(running, reports_by_rule, strict=True):
        seen: set[tuple[str, str, str]] = set()
        for report in reports:
            key = (report.document.name, report.pointer, report.message)
            if key in seen:
                continue
            seen.add(key)
            if config.ignored(rule.id, report.pointer):
                continue
            document = report.document
            may_ignore = marked.get(id(document))
            if may_ignore is None:
                may_ignore = marked[id(document)] = may_hold_ignore(document.text)
            if may_ignore and inline_ignored(document, report.pointer, rule.id):
                continue
            findings.append(Finding(rule.id, severity, report.message, report.document, report.pointer, report.fix))
    by_document: dict[int, tuple[SourceDocument, list[str]]] = {}
    for finding in findings:
        by_document.setdefault(id(finding.document), (finding.document, []))[1].append(finding.pointer)
    for document, pointers in by_document.values():  # placed once, not the whole index of a 4 MB JSON file
        document.prepare_spans(pointers)
    findings.sort(key=_order)
    return LintResult(spec, tuple(findings), config)


def with_hints(config: LintConfig | None = None) -> LintConfig:
    """`config` with every hint rule turned on at `hint` (a rule the config names keeps its severity): what the
    precision bench samples and what the example spec's annotations document."""
    config = config or LintConfig()
    hints = {rule.id: Severity.HINT for rule in RULES.values() if rule.severity is Severity.HINT}
    return LintConfig({**hints, **config.severities}, dict(config.thresholds), config.ignores)


def parser_result(error: SpecError, path: Path, text: str | None = None, bom: bool = False) -> LintResult:
    """A spec that does not parse is one `parser` finding (as in Spectral), so every output format and
    the exit code treat it like any other error. `text`: the file's text (as edited), else it is read."""
    if text is None:
        text, bom = read_text(path, error.file)
    lines = text.split("\n")
    line = min(max(error.line or 1, 1), len(lines))
    offset = sum(len(row) + 1 for row in lines[: line - 1]) + max((error.column or 1) - 1, 0)
    offset = min(offset, len(text))
    document = SourceDocument(path, error.file, text, detect_format(text), None, bom,
                              _index={"": (offset, offset, -1, -1, "plain")})
    return LintResult(None, (Finding("parser", Severity.ERROR, error.message, document, ""),))


def _order(finding: Finding) -> tuple:
    entry = finding.document.span(finding.pointer)
    offset = entry[2] if entry and entry[2] >= 0 else (entry[0] if entry else finding.locate().start.offset)
    return (finding.file, offset, finding.rule)


# An escape that spells one of the characters of `x-lint-ignore` (JSON's and YAML's `\u`, YAML's `\x` and `\U`) or a
# YAML line continuation: the only ways a key can read `x-lint-ignore` without those characters in a row in the text.
# (One backslash first: searched for as a literal, 0.7x the time of two alternatives that each start with one.)
_SPELT_ESCAPE = lazy_pattern(r"\\(?:(?:u00|x|U000000)(?:2[dD]|6[579cCeEfF]|7[248])|[\r\n])")


def may_hold_ignore(text: str) -> bool:
    """False when no key of a document with this text can be `x-lint-ignore`, so no finding in it needs the walk of
    `inline_ignored` (six thousand findings of a 4 MB spec, each from its root: 2% of its lint)."""
    return "x-lint-ignore" in text or _SPELT_ESCAPE.search(text) is not None


def inline_ignored(document: SourceDocument, pointer: str, rule_id: str) -> bool:
    """`x-lint-ignore: rule-id` (or a list, or `all`) on a node silences that rule for it and its children."""
    node = document.data
    for token in [None, *split(pointer)]:
        if token is not None:
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return False
        if isinstance(node, dict) and "x-lint-ignore" in node:
            marker = node["x-lint-ignore"]
            ids = [marker] if isinstance(marker, str) else marker if isinstance(marker, list) else []
            if rule_id in ids or "all" in ids:
                return True
    return False
