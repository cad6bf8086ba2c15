"""The `workbench` command: one small module per subcommand (`add_arguments` + `run`), each calling the
same core functions the desktop workbench uses and rendering their result objects.

Exit codes: 0 success; 1 findings (or a call that got no response); 2 the input could not be used (one
line on stderr, never a traceback); 3 a tool call the spec does not accept (the feedback is printed).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence

from workbench import __version__, patterns
from workbench.cli import common
from workbench.spec import SpecError
from workbench.spec.limits import collect_rarely

# The subcommands, in the order `workbench --help` lists them. A command imports only its own module: all
# of them together pull in the workspace, the selection runners and the lint rules (0.4 s of start-up).
COMMANDS = ("info", "lint", "score", "fix", "tools", "diff", "call", "mock", "roundtrip", "select", "suite",
            "audit", "serve-mcp", "gui")


def command_module(name: str):
    return importlib.import_module(f"workbench.cli.{name.replace('-', '_')}")  # serve-mcp: serve_mcp.py


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, its width found without `shutil` (whose import, with the compressors it imports, was a
    fiftieth of a small lint's run): COLUMNS, else the terminal's, else 80."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def _columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (`only`) the one command's alone: argv names it, so no other is ever parsed, and an
    error's usage line names COMMAND, not the list (each parser costs an ArgumentParser and its gettext look-ups:
    a twentieth of a small lint's start-up for the thirteen left out)."""
    parser = argparse.ArgumentParser(prog="workbench", description="Agent Spec Workbench: make an OpenAPI "
                                     "document trustworthy as a set of tools for language-model agents.",
                                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        module = command_module(name)
        sub = commands.add_parser(name, help=module.HELP, formatter_class=_HelpFormatter)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    parser.set_defaults(run=_run_default)
    return parser


def _run_default(args: argparse.Namespace) -> int:
    return command_module("gui").run_default(args)


def _named_command(argv: Sequence[str]) -> str | None:
    """The command argv runs when its first word names one (options before it mean the full parser)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


# Commands that leave nothing running or pending once they return (no server, thread, child process or window):
# their process may end without freeing its objects one by one (a twentieth of a lint of a 4 MB spec), and runs
# without the cyclic collector. Such a command builds one spec and what it derives from it, freed by reference
# counting, so the collector finds next to nothing, yet its passes over the young objects, while the spec is read
# and walked, took a seventh of a lint of a 3 MB spec; the peak memory is the same without them.
_ENDS_AT_ONCE = frozenset(("info", "lint", "score", "tools", "diff"))


def entry() -> None:
    """The `workbench` program: `main`, then the exit (see `_ENDS_AT_ONCE`)."""
    ends_at_once = _named_command(sys.argv[1:]) in _ENDS_AT_ONCE
    if ends_at_once:
        gc.disable()
    code = main()
    patterns.save()  # (before `os._exit`, which runs no clean-up)
    if ends_at_once:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        os._exit(code)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    collect_rarely()  # a command builds one large acyclic tree: collecting cycles often only costs time
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(_named_command(argv)).parse_args(argv)
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
