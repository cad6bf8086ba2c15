"""`workbench roundtrip SPEC`: every tool's generated arguments through the executor to the mock (or a server
of yours), each wire request judged by an independent validator, each failure blamed on who is at fault.

Exit 0: nothing to fix in the tools or the executor; 1: a conversion loss, an executor bug, a fault-drill
result against the policy, or a failure new against the baseline; 2: it could not run."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides
from workbench.spec import SpecError
from workbench.tools.options import build_toolset

HELP = "send generated tool calls through the executor to the mock and judge every request"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC")
    add_toolset_options(parser)
    parser.add_argument("--examples", type=int, default=3, metavar="N",
                        help="generated argument sets per tool, besides the required-only and example sets "
                             "(default 3)")
    parser.add_argument("--seed", type=int, default=None, help="the generator's and the mock's seed (default: "
                        "the config's mock seed, else 0)")
    parser.add_argument("--base-url", metavar="URL", help="a server of yours instead of the mock (read-only "
                        "operations only, unless --allow-writes)")
    parser.add_argument("--allow-writes", action="store_true",
                        help="with --base-url: send writes too, each operation asked for in a terminal")
    parser.add_argument("--faults", action="store_true", help="then drill retries and the deadline against the "
                        "mock's faults (503, 429, reset, hang, dribble, fail 2 then succeed)")
    parser.add_argument("--time-budget", dest="op_budget", type=float, default=10.0, metavar="S",
                        help="seconds per operation (default 10)")
    parser.add_argument("--jobs", type=_jobs, default=None, metavar="N",
                        help="worker processes against the mock (default auto: one per core; 1: all in this "
                             "process; a server of yours is always called from one)")
    parser.add_argument("--oracle-spec", metavar="FILE", help="an OpenAPI 3 copy of a Swagger 2.0 spec for the "
                        "independent judge (e.g. made by swagger2openapi)")
    parser.add_argument("--baseline", metavar="FILE", help="compare with a saved run: new, fixed, still failing")
    parser.add_argument("--save-baseline", metavar="FILE", help="save this run (JSON) to compare later runs with")
    parser.add_argument("--format", choices=("text", "json", "junit"), default="text")
    parser.add_argument("--verbose", action="store_true", help="text: show mock limitations and skips too")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def _jobs(text: str) -> int | None:
    if text == "auto":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a number of processes (1 or more) or auto, not {text!r}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    from workbench.roundtrip.pool import WorkerFailed
    from workbench.roundtrip.report import read_baseline
    from workbench.roundtrip.suite import check_baseline, reachable, run_roundtrip

    if args.examples < 0 or args.op_budget <= 0:
        raise SpecError("--examples must be 0 or more, --time-budget more than 0", "<command line>")
    if args.faults and args.base_url:
        raise SpecError("--faults drills the executor against the mock's faults: not with --base-url",
                        "<command line>")
    spec = common.load(args, args.spec, positions=False)
    config = common.config(args, args.spec)
    toolset = build_toolset(spec, config, overrides(args))
    baseline = read_baseline(Path(args.baseline)) if args.baseline else None
    options = _options(args, config)

    def live(attempt) -> None:
        if args.format == "text" and sys.stderr.isatty():
            print(f"\r{attempt.tool[:60]:60}", end="", file=sys.stderr, flush=True)

    if baseline is not None:
        check_baseline(baseline, toolset.vendor, options)
    if args.base_url:
        reachable(args.base_url)
    try:
        report = run_roundtrip(spec, Path(args.spec), toolset, toolset.vendor, options, on_attempt=live,
                               baseline=baseline)
    except WorkerFailed as failed:  # one line, as any internal error; the worker's own traceback on request
        if os.environ.get("WORKBENCH_DEBUG"):
            print(failed.details, end="", file=sys.stderr)
        raise
    if args.format == "text" and sys.stderr.isatty():
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    _emit(args, report)
    return common.EXIT_FINDINGS if report.failed else common.EXIT_OK


def _options(args: argparse.Namespace, config):
    from workbench.roundtrip.suite import RoundTripOptions

    def ask(tool) -> bool:  # on stderr: stdout holds the report (JSON, JUnit)
        if not sys.stdin.isatty():
            return False
        print(f"{tool.operation.method.upper()} {tool.operation.path} ({tool.name}) writes to {args.base_url}. "
              "Send generated calls to it? [y/N] ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()  # "" at end of input: no
        return answer.strip().lower() in ("y", "yes")

    return RoundTripOptions(count=args.examples, seed=args.seed if args.seed is not None else config.mock.seed,
                            base_url=args.base_url, allow_writes=args.allow_writes,
                            approve_write=ask if args.allow_writes else None, faults=args.faults,
                            budget_s=args.op_budget, jobs=args.jobs,
                            oracle_document=Path(args.oracle_spec) if args.oracle_spec else None)


def _emit(args: argparse.Namespace, report) -> None:
    from workbench.edit.save import write_atomically

    if args.save_baseline:
        try:
            write_atomically(Path(args.save_baseline), json.dumps(report.to_json(), indent=1, ensure_ascii=False,
                                                                  default=str) + "\n")
        except OSError as exc:
            raise SpecError(f"cannot save the baseline: {exc.strerror or exc}", args.save_baseline) from None
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False, default=str))
    elif args.format == "junit":
        print(report.to_junit(), end="")
    else:
        print(report.to_text(verbose=args.verbose))

