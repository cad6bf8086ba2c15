"""Rules register themselves here; each rule is one small function with an id and a default severity."""

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from workbench.lint.finding import Fix, Severity
from workbench.spec import SourceDocument, Spec


class Report(NamedTuple):
    """What a rule yields: the message, where (document + pointer), and optionally a fix."""

    message: str
    document: SourceDocument
    pointer: str
    fix: Fix | None = None


class Rule(NamedTuple):
    """A lint rule: its id, default severity, category, one-line summary, check function and how to fix."""

    id: str
    severity: Severity
    category: str  # one of CATEGORIES
    summary: str
    check: Callable[[Spec, Any], Iterator[Report]]  # (spec, LintContext) -> reports
    fix: str = ""  # how to fix it: what to write in the spec (Help > Rules, `lint --explain`, SARIF `help`)

    @property
    def default_run(self) -> Severity:
        """The severity it runs at when the config does not name it: a `hint` rule (one whose findings are not
        useful often enough to show everyone) is off until the config turns it on."""
        return Severity.OFF if self.severity is Severity.HINT else self.severity


# The readiness score's categories, in the order reports show them.
CATEGORIES = ("naming", "descriptions", "parameters", "responses", "safety", "scope")

RULES: dict[str, Rule] = {}


def rule(rule_id: str, severity: str, category: str, summary: str, fix: str = ""):
    def register(check: Callable[[Spec, Any], Iterator[Report]]):
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id} registered twice")
        if category not in CATEGORIES:
            raise ValueError(f"rule {rule_id}: unknown category {category!r}")
        RULES[rule_id] = Rule(rule_id, Severity.parse(severity), category, summary, check, fix)
        return check

    return register
