"""Agent-readiness lint: rules, engine, config and output formats."""

from workbench.lint.engine import LintResult, lint
from workbench.lint.finding import Finding, Fix, Severity
from workbench.lint.registry import RULES

__all__ = ["RULES", "Finding", "Fix", "LintResult", "Severity", "lint"]
