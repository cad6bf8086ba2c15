"""The agent-readiness score: 0–100, a breakdown by category, and the counts users ask for first.

Formula (documented in README.md):
- every finding weighs by its effective severity: error 1, warn 0.5, info 0.1, hint 0;
- a category's score is 100 × (1 − its findings' total weight ÷ its units), floored at 0, where the units
  are the operations, plus, for "descriptions" and "parameters", the parameters and request-body
  properties: each unit may carry one error's worth of problems before the category reaches 0;
- the overall score is the weighted mean of the six category scores (weights below), rounded.
It is computed from the lint result, so config severities and ignores count exactly as they do in CI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from workbench.lint.engine import LintResult
from workbench.lint.finding import Severity
from workbench.lint.registry import CATEGORIES, RULES
from workbench.lint.schemas import schema_sites

SEVERITY_WEIGHT = {Severity.ERROR: 1.0, Severity.WARN: 0.5, Severity.INFO: 0.1, Severity.HINT: 0.0}
CATEGORY_WEIGHT = {"naming": 15, "descriptions": 25, "parameters": 25, "responses": 15, "safety": 10, "scope": 10}


@dataclass(frozen=True)
class CategoryScore:
    name: str
    score: int
    weight: int
    findings: int


@dataclass(frozen=True)
class Score:
    score: int
    categories: tuple[CategoryScore, ...]
    operations: int
    operations_without_description: int
    parameters: int
    parameters_without_description: int
    invalid_tool_names: int

    def to_json(self) -> str:
        return json.dumps({
            "score": self.score,
            "categories": {c.name: {"score": c.score, "weight": c.weight, "findings": c.findings}
                           for c in self.categories},
            "operations": self.operations,
            "operations_without_description": self.operations_without_description,
            "parameters": self.parameters,
            "parameters_without_description": self.parameters_without_description,
            "invalid_tool_names": self.invalid_tool_names,
        }, indent=2)

    def to_text(self) -> str:
        lines = [f"Agent-readiness score: {self.score}/100"]
        lines += [f"  {c.name:<13}{c.score:>4}  ({c.findings} finding{'s' if c.findings != 1 else ''})"
                  for c in self.categories]
        lines.append(f"Operations without a description: {self.operations_without_description} of {self.operations}")
        lines.append(f"Parameters without a description: {self.parameters_without_description} of {self.parameters}")
        lines.append(f"Invalid tool names: {self.invalid_tool_names}")
        return "\n".join(lines)


def score(result: LintResult) -> Score:
    spec = result.spec
    operations = spec.operations if spec is not None else ()
    arguments = 0
    if spec is not None:
        arguments = len({(s.document.name, s.pointer) for s in schema_sites(spec)
                         if s.role in ("parameter", "request") and s.name and not s.composition})
    units = {name: max(1, len(operations) + (arguments if name in ("descriptions", "parameters") else 0))
             for name in CATEGORIES}
    weights = dict.fromkeys(CATEGORIES, 0.0)
    counts = dict.fromkeys(CATEGORIES, 0)
    for finding in result.findings:
        category = RULES[finding.rule].category if finding.rule in RULES else "parameters"
        weights[category] += SEVERITY_WEIGHT.get(finding.severity, 0.0)
        counts[category] += 1
    categories = tuple(CategoryScore(name, round(max(0.0, 1 - weights[name] / units[name]) * 100),
                                     CATEGORY_WEIGHT[name], counts[name]) for name in CATEGORIES)
    overall = sum(c.score * c.weight for c in categories) / sum(CATEGORY_WEIGHT.values())
    parameters = {(p.origin.document.name, p.origin.pointer): p for op in operations for p in op.parameters}
    return Score(
        score=round(overall),
        categories=categories,
        operations=len(operations),
        operations_without_description=sum(1 for op in operations if not (op.description or "").strip()),
        parameters=len(parameters),
        parameters_without_description=sum(1 for p in parameters.values() if not (p.description or "").strip()),
        invalid_tool_names=sum(1 for f in result.findings if f.rule == "operation-id-tool-name-invalid"),
    )
