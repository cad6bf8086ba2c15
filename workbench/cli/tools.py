"""`workbench tools SPEC`: the spec's operations as one vendor's tool definitions."""

from __future__ import annotations

import argparse
import sys

from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides
from workbench.tools import ToolSet
from workbench.tools.options import build_toolset
from workbench.tools.tokens import CountingProcess

HELP = "the spec's operations as tool definitions for one vendor"
DEFAULT_TOP = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    toolset = add_toolset_options(parser)
    toolset.add_argument("--read-only", action=argparse.BooleanOptionalAction, default=None,
                         help="read-only operations only (the safe methods, or x-mcp-read-only-hint: true; "
                              "never one that needs approval)")
    relevant = parser.add_argument_group("relevance (seed 004: a few tools per turn, picked by the task)")
    relevant.add_argument("--relevant-to", metavar="TEXT",
                           help="only the tools that best match TEXT, best first (offline: BM25 and the word "
                                "embeddings bundled with wordllama; nothing is downloaded)")
    relevant.add_argument("--top", metavar="K", type=_positive, default=None,
                           help=f"how many tools --relevant-to keeps (default {DEFAULT_TOP})")
    parser.add_argument("--format", choices=("json", "text"), default="json")
    parser.add_argument("--output", metavar="FILE", help="write the result here instead of stdout")
    parser.add_argument("--check", metavar="FILE", help="compare a saved tool set (this command's JSON, or a "
                        "vendor tool list in any vendor's shape) with the spec's tools now; exit 1 when it breaks")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    if args.top is not None and args.relevant_to is None:
        print("workbench: --top keeps the best matches of --relevant-to TEXT; give both", file=sys.stderr)
        return common.EXIT_UNUSABLE
    if args.relevant_to is not None and not args.relevant_to.strip():
        print("workbench: --relevant-to needs the task's words", file=sys.stderr)
        return common.EXIT_UNUSABLE
    if args.check and args.relevant_to is not None:  # the picks depend on the words: nothing stable to compare
        print("workbench: --check compares the whole tool set with a saved one; --relevant-to narrows it to a "
              "task's picks: give one of them", file=sys.stderr)
        return common.EXIT_UNUSABLE
    if args.check:
        from workbench.cli.diff import run_check

        return run_check(args, overrides(args, read_only=args.read_only))
    # (forked first, while this process is small: it loads the token table and counts the spec's words while the
    # spec is read here)
    counter = CountingProcess.start(words_from=args.spec)
    try:
        return _convert_and_emit(args, counter)
    finally:
        if counter is not None:
            counter.close()


def _convert_and_emit(args: argparse.Namespace, counter: CountingProcess | None) -> int:
    spec = common.load(args, args.spec, positions=False)
    toolset = build_toolset(spec, common.config(args, args.spec), overrides(args, read_only=args.read_only))
    if args.relevant_to is not None:
        from workbench.tools import relevance  # numpy and the embedding model only when asked for

        try:
            picked = relevance.relevant(toolset, args.relevant_to, args.top or DEFAULT_TOP)
        except relevance.ModelUnavailable as exc:
            print(f"workbench: {exc}", file=sys.stderr)
            return common.EXIT_UNUSABLE
        toolset = relevance.narrowed(toolset, [t.name for t in picked])
    toolset.estimate_with(counter)
    if args.format == "json":
        if counter is not None and args.relevant_to is None:
            counter.send(toolset.native_json())  # (counted there while the tools are written here)
        common.emit_pieces(args, toolset.json_pieces())
    else:
        common.emit(args, to_text(toolset))
    return common.EXIT_OK


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def to_text(toolset: ToolSet) -> str:
    lines = [f"{tool.name:<40} {toolset.tokens.per_tool[tool.name]:>6} tokens  {tool.operation.label()}"
             for tool in toolset.tools]
    lines += [f"left out: {r.method.upper()} {r.path}: {r.reason}" for r in toolset.rejected]
    lines += [f"warning: {w.tool + ': ' if w.tool else ''}{w.message}" for w in toolset.warnings]
    lines.append(f"{len(toolset.tools)} tools for {toolset.vendor}, about {toolset.tokens.total} tokens "
                 f"({toolset.tokens.method})")
    return "\n".join(lines)
