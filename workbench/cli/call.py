"""`workbench call SPEC TOOL`: execute one tool call, as a model would make it, against the API."""

from __future__ import annotations

import argparse
import json
import os
import sys

from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides
from workbench.spec import Spec, SpecError
from workbench.tools import ToolSet
from workbench.tools.human import human_values
from workbench.tools.options import build_toolset

HELP = "execute one tool call against the API (or --base-url)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    parser.add_argument("tool", metavar="TOOL", help="the tool's name (as `workbench tools` names it)")
    parser.add_argument("--args", default="{}", metavar="JSON",
                        help="the arguments as JSON, or a vendor's whole tool-call object")
    add_toolset_options(parser)
    parser.add_argument("--base-url", metavar="URL", help="send here instead of the spec's server")
    parser.add_argument("--approve", action="store_true", help="approve a destructive call without asking")
    parser.add_argument("--read-only", action=argparse.BooleanOptionalAction, default=None,
                        help="only read-only operations: the tool set holds no others and the executor refuses "
                             "any other call (--no-read-only: the whole set, whatever the config says)")
    parser.add_argument("--deadline", type=float, default=30.0, metavar="SECONDS", help="total time for the call")
    parser.add_argument("--human", default="{}", metavar="JSON",
                        help="the human-side arguments (secrets better via WORKBENCH_HUMAN_<NAME>; @file for uploads)")
    parser.add_argument("--format", choices=("json", "text"), default="json")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def run(args: argparse.Namespace) -> int:
    # the HTTP client is loaded only by the command that sends requests
    from workbench.http.calls import CallFormatError, looks_like_call, parse_call
    from workbench.http.executor import CallOptions, Executor
    from workbench.http.repair import RepairFailed, repair_json

    spec = common.load(args, args.spec, positions=False)
    toolset = build_toolset(spec, common.config(args, args.spec), overrides(args, read_only=args.read_only))
    try:
        given, _ = repair_json(args.args)
        call = parse_call(given if looks_like_call(given) else {"name": args.tool, "arguments": args.args})
    except (CallFormatError, RepairFailed) as exc:
        raise SpecError(f"--args: {exc}", "<command line>") from None
    if call.name != args.tool:
        call = type(call)(args.tool, call.arguments, call.call_id, call.repairs)
    try:
        given_human = json.loads(args.human)
    except json.JSONDecodeError as exc:
        raise SpecError(f"--human is not JSON: {exc.msg}", "<command line>") from None
    if not isinstance(given_human, dict):
        raise SpecError("--human must be a JSON object of argument names and values", "<command line>")
    left_out = _left_out(spec, toolset, args.tool)
    if left_out:
        raise SpecError(f"{args.tool} is not in the tool set: {left_out}", args.spec)
    human = human_values(toolset.tool(args.tool), given_human, os.environ)

    def approve(request, tool) -> bool:
        if args.approve:
            return True
        if not sys.stdin.isatty():
            return False
        answer = input(f"{request.method} {request.url} is destructive ({tool.name}). Send it? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    executor = Executor(spec, toolset, CallOptions(base_url=args.base_url, deadline_s=args.deadline, approve=approve,
                                                  read_only=bool(args.read_only), human=human))
    result = executor.call(call)
    if result.feedback is not None:
        print(result.feedback.text if args.format == "text" else json.dumps(
            {"feedback": result.feedback.text, "violations": [
                {"path": v.place, "expected": v.expected, "given": v.given} for v in result.feedback.violations]},
            indent=2, ensure_ascii=False, default=str))
        return common.EXIT_INVALID_CALL
    print(result.to_text() if args.format == "text" else json.dumps(result.to_json(), indent=2, ensure_ascii=False,
                                                                   default=str))
    return common.EXIT_OK if result.status is not None else common.EXIT_FINDINGS


def _left_out(spec: Spec, toolset: ToolSet, name: str) -> str | None:
    """Why the operation a person named is not a tool of this set (its operationId, not in the set), or None."""
    if toolset.tool(name) is not None:
        return None
    wanted = next((op for op in spec.operations if op.operation_id == name), None)
    if wanted is None:
        return None  # not an operation either: the executor's feedback lists the tools there are
    return next((r.reason for r in toolset.rejected if (r.method, r.path) == (wanted.method, wanted.path)), None)
