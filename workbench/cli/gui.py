"""`workbench gui [SPEC]`, and what `workbench` with no command does: the desktop workbench where a window
can open, else (no command) the headless audit of the bundled example and why."""

from __future__ import annotations

import argparse
import sys

from workbench.cli import audit, common
from workbench.examples import example_path

HELP = "the desktop workbench (on SPEC if given)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", nargs="?")
    parser.add_argument("--screenshots", metavar="DIR",
                        help="render the main views to PNG files in DIR and exit (no display needed; default SPEC: "
                             "the bundled example)")


def run(args: argparse.Namespace) -> int:
    from workbench import gui  # Qt is imported only once a window is wanted

    reason = gui.qt_unavailable_reason()
    if reason is None and args.screenshots is None:
        reason = gui.headless_reason()
        if reason is not None:
            reason = f"cannot open a window ({reason}); use --screenshots DIR, or `workbench audit`"
    if reason is not None:
        print(f"workbench: {reason}", file=sys.stderr)
        return common.EXIT_UNUSABLE
    return gui.run(args.spec, args.screenshots)


def run_default(args: argparse.Namespace) -> int:
    from workbench import gui  # importing it does not import Qt; asking whether Qt is usable does

    reason = gui.headless_reason() or gui.qt_unavailable_reason()
    if reason is None:
        return gui.run(example_path())
    print(f"No window to open ({reason}); here is the headless audit of the bundled example.\n", file=sys.stderr)
    return audit.run(argparse.Namespace(spec=None, allow_remote_refs=False, allow_outside_refs=False, config=None))
