"""`workbench audit [SPEC]`: the headless audit (summary, loading problems, lint) of a spec or the example."""

from __future__ import annotations

import argparse

from workbench.cli import common
from workbench.examples import example_path
from workbench.lint import report as lint_report
from workbench.summary import summarize
from workbench.workspace.linting import lint_in_scope, scored

HELP = "the headless audit of a spec (default: the bundled example)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", nargs="?")
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    path = args.spec or str(example_path())
    spec = common.load(args, path)
    print(summarize(spec).to_text())
    print(f"{'problems:':<12}{len(spec.problems)} found while loading" if spec.problems else
          f"{'problems:':<12}none found while loading")
    print()
    config = common.config(args, path)
    result = lint_in_scope(spec, config, parallel=True)
    print(lint_report.to_text(result, scored(result, config)))
    return common.EXIT_OK
