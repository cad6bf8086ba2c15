"""`workbench score SPEC`: the agent-readiness score with its breakdown."""

from __future__ import annotations

import argparse

from workbench.cli import common
from workbench.cli.toolset_args import add_scope_options, scope_overrides
from workbench.workspace.linting import lint_in_scope, scored

HELP = "the agent-readiness score (0-100): blockers first, then quality per operation"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    common.add_config_option(parser)
    common.add_ref_options(parser)
    add_scope_options(parser.add_argument_group("scope (each overrides the config's `tools:` section)"))


def run(args: argparse.Namespace) -> int:
    config = common.config(args, args.spec)
    spec = common.load(args, args.spec)
    overrides = scope_overrides(args)
    result = scored(lint_in_scope(spec, config, overrides, parallel=True), config, overrides)
    print(result.to_json() if args.format == "json" else result.to_text())
    return common.EXIT_OK
