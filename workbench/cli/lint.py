"""`workbench lint SPEC`: agent-readiness findings in a format for people or CI."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.cli import common
from workbench.lint import RULES, Severity
from workbench.lint import report as lint_report
from workbench.lint.engine import parser_result
from workbench.spec import SpecError, load_spec
from workbench.workspace.linting import lint_in_scope, scored

HELP = "agent-readiness findings, with exit codes for CI"
RENDERERS = {"text": lint_report.to_text, "json": lint_report.to_json, "sarif": lint_report.to_sarif,
             "junit": lint_report.to_junit, "github": lint_report.to_github}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", nargs="?")
    parser.add_argument("--explain", metavar="RULE", action="append",
                        help="print what the rule checks and how to fix it (repeatable; `all` for every rule); "
                             "no SPEC needed")
    parser.add_argument("--format", choices=tuple(RENDERERS), default="text")
    parser.add_argument("--fail-severity", choices=("error", "warn", "info", "hint"), default="error",
                        help="exit 1 when a finding is at least this severe (default: error)")
    common.add_config_option(parser)
    parser.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    if args.explain:
        return explain(args.explain)
    if args.spec is None:
        raise SpecError("give a SPEC to lint (or --explain RULE)", "<command line>")
    config = common.config(args, args.spec)
    try:
        result = lint_in_scope(load_spec(args.spec, common.ref_policy(args)), config, parallel=True)
    except SpecError as exc:
        if exc.code != "syntax":
            raise
        result = parser_result(exc, Path(args.spec))  # a syntax error is a finding of the `parser` rule
    if args.format == "text" and result.spec is not None:  # the score over the tools in the config's scope
        common.emit(args, lint_report.to_text(result, scored(result, config)))
    else:
        common.emit(args, RENDERERS[args.format](result))
    return result.exit_code(Severity.parse(args.fail_severity))


def explain(rule_ids: list[str]) -> int:
    wanted = list(RULES) if "all" in rule_ids else rule_ids
    unknown = [rule_id for rule_id in wanted if rule_id not in RULES]
    if unknown:
        raise SpecError(f"--explain: unknown rule {unknown[0]!r} (`--explain all` lists every rule)", "<command line>")
    print("\n\n".join(lint_report.explain(rule_id) for rule_id in wanted))
    return common.EXIT_OK
