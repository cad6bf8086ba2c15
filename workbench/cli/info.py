"""`workbench info SPEC`: what a spec holds."""

from __future__ import annotations

import argparse

from workbench.cli import common
from workbench.summary import summarize

HELP = "what a spec holds: version, operations, paths, tags, servers"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    summary = summarize(common.load(args, args.spec))
    print(summary.to_json() if args.format == "json" else summary.to_text())
    return common.EXIT_OK
