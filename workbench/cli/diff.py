"""`workbench diff OLD NEW`: what the new spec version breaks for agents built on the old one's tools. OLD and
NEW are files or `git:REV:PATH` (read with `git show`, no checkout). Both tool sets are built with the same
options (the new version's config, then the flags), so only the spec's changes show.

Exit 0: nothing breaks; 1: something does (a release gate); 2: an input could not be used."""

from __future__ import annotations

import argparse
import sys

from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides

HELP = "what a new spec version breaks for agents: tools and arguments added, removed, renamed, narrowed"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the earlier version: a file or git:REV:PATH")
    parser.add_argument("new", metavar="NEW", help="the new version: a file or git:REV:PATH")
    toolset = add_toolset_options(parser)
    toolset.add_argument("--read-only", action=argparse.BooleanOptionalAction, default=None,
                         help="compare the read-only tools only")
    parser.add_argument("--format", choices=("text", "json", "markdown", "sarif"), default="text")
    parser.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    from workbench.drift import FORMATS, Side, diff_sides, sources
    from workbench.tools.options import build_toolset

    config = common.config(args, sources.config_path(args.new))
    chosen = overrides(args, read_only=args.read_only)
    sides = []
    for given in (args.old, args.new):
        spec = sources.load(given, common.ref_policy(args))
        for problem in spec.problems:
            print(problem, file=sys.stderr)
        sides.append(Side(spec, build_toolset(spec, config, chosen)))
    report = diff_sides(sides[0], sides[1], args.old, args.new)
    report.new_file = sides[1].spec.root.name
    common.emit(args, FORMATS[args.format](report))
    return common.EXIT_FINDINGS if report.breaking else common.EXIT_OK


def run_check(args: argparse.Namespace, chosen) -> int:
    """`workbench tools SPEC --check FILE`: the saved set against the tools the spec produces now, built for the
    vendor the file is for (its own word, else its tools' shape, else --vendor). Exit 1 when it breaks."""
    from workbench.drift import FORMATS, check_saved, read_saved
    from workbench.tools.options import build_toolset

    saved = read_saved(args.check)
    if saved.vendor and args.vendor and saved.vendor != args.vendor:
        print(f"workbench: {args.check} holds {saved.vendor} tools: compared as {saved.vendor}, not {args.vendor}",
              file=sys.stderr)
    if saved.vendor:
        chosen = chosen._replace(vendor=saved.vendor)
    if chosen.strict is None and saved.strict is not None:  # built as the saved tools were
        chosen = chosen._replace(strict=saved.strict)
    if saved.json_schema_form:
        chosen = chosen._replace(json_schema_form=True)
    spec = common.load(args, args.spec)
    toolset = build_toolset(spec, common.config(args, args.spec), chosen)
    report = check_saved(saved, spec, toolset, args.check, args.spec)
    report.new_file = spec.root.name
    common.emit(args, FORMATS["json" if args.format == "json" else "text"](report))
    return common.EXIT_FINDINGS if report.breaking else common.EXIT_OK
