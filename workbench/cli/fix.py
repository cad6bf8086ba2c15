"""`workbench fix SPEC`: quick fixes for lint findings, as a diff or written in place."""

from __future__ import annotations

import argparse
import json
import sys

from workbench.cli import common
from workbench.edit import write_atomically
from workbench.edit.diff import unified_diff
from workbench.edit.fixes import DEFAULT_RULES, apply_fixes, quick_fixes
from workbench.lint import RULES, lint
from workbench.spec import SpecError

HELP = "quick fixes for lint findings: a diff, or --apply to write them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("--rule", action="append", metavar="ID",
                        help=f"only this rule's fixes (repeatable; default: {', '.join(DEFAULT_RULES)})")
    parser.add_argument("--apply", action="store_true", help="write the fixes (atomically) instead of showing them")
    parser.add_argument("--format", choices=("diff", "json"), default="diff")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    unknown = sorted(set(args.rule or ()) - set(RULES))
    if unknown:
        raise SpecError(f"unknown rule(s): {', '.join(unknown)}", args.spec)
    spec = common.load(args, args.spec)
    wanted = args.rule or DEFAULT_RULES  # only these rules run: their fixes are all that is asked for
    fixes = quick_fixes(spec, lint(spec, common.config(args, args.spec).lint, only=wanted), wanted)
    outcomes = apply_fixes(fixes)
    refused = {(fix.document.name, edit.pointer): reason for outcome in outcomes.values()
               for edit, reason in outcome.refused for fix in fixes if edit in fix.edits}
    for (name, pointer), reason in refused.items():
        where = spec.documents[name].locate(pointer)
        print(f"{name}:{where.start.line}:{where.start.column}: fix not applied: {reason}", file=sys.stderr)
    changed = {name: outcome for name, outcome in outcomes.items() if outcome.applied}
    if args.format == "json":
        print(json.dumps([{"rule": fix.rule, "file": fix.document.name, "pointer": fix.edits[0].pointer,
                           "old": fix.old, "new": fix.new,
                           "applied": (fix.document.name, fix.edits[0].pointer) not in refused}
                          for fix in fixes], indent=2, ensure_ascii=False))
    elif not args.apply:
        for name, outcome in changed.items():
            sys.stdout.write(unified_diff(spec.documents[name].text, [s for _, s in outcome.applied], name))
    if not args.apply:
        return common.EXIT_FINDINGS if changed else common.EXIT_OK
    for name, outcome in changed.items():
        document = outcome.document
        write_atomically(document.path, document.text, bom=document.bom)
        print(f"{name}: {len(outcome.applied)} edit(s) written", file=sys.stderr)
    return common.EXIT_FINDINGS if refused else common.EXIT_OK
