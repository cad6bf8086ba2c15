"""The `workbench` command: one small module per subcommand (`add_arguments` + `run`), each calling the
same core functions the desktop workbench uses and rendering their result objects.

Exit codes: 0 success; 1 findings (or a call that got no response); 2 the input could not be used (one
line on stderr, never a traceback); 3 a tool call the spec does not accept (the feedback is printed).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence

from workbench import __version__
from workbench.cli import (
    audit,
    call,
    common,
    diff,
    fix,
    gui,
    info,
    lint,
    mock,
    roundtrip,
    score,
    select,
    serve_mcp,
    suite,
    tools,
)
from workbench.spec import SpecError

# The subcommands, in the order `workbench --help` lists them.
COMMANDS = {"info": info, "lint": lint, "score": score, "fix": fix, "tools": tools, "diff": diff, "call": call,
            "mock": mock, "roundtrip": roundtrip, "select": select, "suite": suite, "audit": audit,
            "serve-mcp": serve_mcp, "gui": gui}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Agent Spec Workbench: make an OpenAPI "
                                     "document trustworthy as a set of tools for language-model agents.")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        sub = commands.add_parser(name, help=module.HELP)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    parser.set_defaults(run=gui.run_default)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # A command builds one large acyclic tree and exits: collecting cycles every 700 allocations only costs
    # time (about 10% of a lint of a 4 MB spec).
    gc.set_threshold(50_000, 50, 100)
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except SpecError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return common.EXIT_UNUSABLE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return common.EXIT_OK
    except Exception as exc:  # the promise is one line, never a traceback; the env var shows it
        if os.environ.get("WORKBENCH_DEBUG"):
            raise
        print(f"workbench: internal error: {type(exc).__name__}: {exc} (set WORKBENCH_DEBUG=1 for details)",
              file=sys.stderr)
        return common.EXIT_UNUSABLE
