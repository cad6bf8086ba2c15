"""Agent-readiness lint: rules, engine, config and output formats."""

from workbench.lint.config import LintConfig, find_config, load_config
from workbench.lint.engine import LintResult, lint
from workbench.lint.finding import Finding, Fix, Severity
from workbench.lint.registry import RULES

__all__ = ["RULES", "Finding", "Fix", "LintConfig", "LintResult", "Severity", "find_config", "lint", "load_config"]
