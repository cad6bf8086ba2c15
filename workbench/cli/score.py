"""`workbench score SPEC`: the agent-readiness score with its breakdown."""

from __future__ import annotations

import argparse

from workbench.cli import common
from workbench.lint import lint
from workbench.lint.score import score

HELP = "the agent-readiness score (0-100) with its breakdown"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    result = score(lint(common.load(args, args.spec), common.config(args, args.spec).lint))
    print(result.to_json() if args.format == "json" else result.to_text())
    return common.EXIT_OK
