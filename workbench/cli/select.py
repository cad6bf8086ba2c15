"""`workbench select SUITE`: the tool-selection regression suite — every case through a model (or the
offline scorer, with no key and no network) R times, judged, compared with the last baseline.

Exit 0: as good as before; 1: a regression against the baseline, or accuracy under --min-accuracy;
2: it could not run (a bad suite, no key, no answer at all)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli import common
from workbench.spec import SpecError

HELP = "run a tool-selection suite against a model (or offline) and compare with a baseline"
APIS = ("offline", "openai-chat", "openai-responses")  # selection.model.APIS (not imported for every command)
FORMATS = ("text", "json", "junit", "html")  # selection.report.FORMATS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suite", metavar="SUITE", help="a selection suite (YAML or JSON)")
    parser.add_argument("--spec", metavar="FILE", help="the spec to test instead of the suite's `spec:`")
    model = parser.add_argument_group("model (each overrides the suite's `model:` section)")
    model.add_argument("--api", choices=APIS, default=None, help="default: the suite's, else offline")
    model.add_argument("--base-url", metavar="URL", help="any OpenAI-compatible endpoint (a gateway, vLLM, Ollama, "
                       "llama.cpp, LM Studio, Anthropic's or Gemini's compatible endpoints)")
    model.add_argument("--model", metavar="M", help="the model's name")
    model.add_argument("--temperature", type=float, default=None)
    run = parser.add_argument_group("run")
    run.add_argument("--repeats", type=int, default=None, metavar="N", help="samples per case (default: the suite's)")
    run.add_argument("--concurrency", type=int, default=4, metavar="N", help="requests in flight (default 4)")
    run.add_argument("--max-requests", type=int, default=None, metavar="N",
                     help="send at most N requests (retries count); the rest are reported as not run")
    run.add_argument("--scale", type=_scale, default=(), metavar="LIST",
                     help="accuracy against tool count, e.g. 10,20,40,all: the expected tools plus the most "
                          "similar others")
    run.add_argument("--no-cache", action="store_true", help="send every request even when an answer is cached")
    run.add_argument("--cache-dir", metavar="DIR", help="where answers are cached (default: the user cache folder)")
    out = parser.add_argument_group("results")
    out.add_argument("--baseline", metavar="FILE", help="compare with a saved run: flips and regressions")
    out.add_argument("--save-baseline", metavar="FILE", help="save this run (JSON) to compare later runs with")
    out.add_argument("--min-accuracy", type=float, default=None, metavar="X", help="fail under this top-1 accuracy")
    out.add_argument("--format", choices=FORMATS, default="text")
    out.add_argument("--output", metavar="FILE", help="write the report here instead of standard output")
    common.add_config_option(parser)
    common.add_ref_options(parser)


def _scale(text: str) -> tuple[int | None, ...]:
    sizes: list[int | None] = []
    for part in common.csv(text):
        if part.lower() == "all":
            sizes.append(None)
        elif part.isdigit() and int(part) > 0:
            sizes.append(int(part))
        else:
            raise argparse.ArgumentTypeError(f"{part!r} is not a tool count (a positive number or `all`)")
    return tuple(sizes)


def run(args: argparse.Namespace) -> int:
    from workbench.http.auth import url_host
    from workbench.selection.baseline import compare, read_baseline
    from workbench.selection.keys import is_loopback
    from workbench.selection.metrics import evaluate
    from workbench.selection.report import render_results, save_baseline
    from workbench.selection.run import RunOptions, make_runner, run_selection
    from workbench.selection.suite import open_suite
    from workbench.tools.relevance import ModelUnavailable

    _check_numbers(args)
    baseline = read_baseline(Path(args.baseline)) if args.baseline else None
    opened = open_suite(Path(args.suite), spec_override=Path(args.spec) if args.spec else None,
                        config_path=args.config, policy=common.ref_policy(args),
                        model={"api": args.api, "base_url": args.base_url, "model": args.model,
                               "temperature": args.temperature})
    for problem in opened.spec.problems:
        print(problem, file=sys.stderr)
    for note in opened.notes:
        print(f"note: {note}", file=sys.stderr)
    options = RunOptions(repeats=args.repeats, scale=args.scale, concurrency=args.concurrency,
                         max_requests=args.max_requests, cache_dir=Path(args.cache_dir) if args.cache_dir else None,
                         use_cache=not args.no_cache)
    settings = opened.suite.model
    if settings.api != "offline" and settings.base_url and not args.base_url and not is_loopback(settings.base_url):
        where = url_host(settings.base_url) or "it"
        print(f"note: the key from {settings.key_env} (or the keyring) is sent to {where}, the suite's model.base-url",
              file=sys.stderr)
    runner = make_runner(settings, options)
    try:
        result = run_selection(opened.suite, opened.spec, opened.toolset, runner, options, progress=_progress())
    except ModelUnavailable as exc:
        raise SpecError(str(exc), "<offline scorer>") from None
    finally:
        _clear_progress()
        getattr(runner, "close", lambda: None)()
    if getattr(runner, "cache_problem", None):
        print(f"note: {runner.cache_problem}", file=sys.stderr)
    results = evaluate(result)
    summary = results.summary
    unanswered = [c.id for c in results.cases if c.errors and not c.runs]
    if summary.runs == 0 and summary.errors:
        first = next(v.answer.error for v in result.verdicts if v.answer is not None and v.answer.error)
        raise SpecError(f"no case got an answer: {first}", args.suite)
    comparison = compare(results, baseline, args.baseline) if baseline is not None else None
    if args.save_baseline:
        save_baseline(results, Path(args.save_baseline), comparison)
    text = render_results(results, args.format, comparison)
    if args.output:
        common.save_output(args.output, text)
    else:
        print(text, end="" if text.endswith("\n") else "\n")
    gated = args.min_accuracy is not None or comparison is not None
    if gated and unanswered:  # a gate says nothing about cases that were never answered
        print(f"workbench: {len(unanswered)} of {summary.cases} cases got no answer ({', '.join(unanswered[:5])}"
              f"{', …' if len(unanswered) > 5 else ''}): the run cannot pass a gate", file=sys.stderr)
        return common.EXIT_UNUSABLE
    below = args.min_accuracy is not None and (summary.accuracy or 0.0) < args.min_accuracy
    if below:
        print(f"workbench: accuracy {summary.accuracy or 0:.1%} is under --min-accuracy {args.min_accuracy:.1%}",
              file=sys.stderr)
    return common.EXIT_FINDINGS if below or (comparison is not None and comparison.regression) else common.EXIT_OK


def _check_numbers(args: argparse.Namespace) -> None:
    if args.repeats is not None and args.repeats < 1:
        raise SpecError("--repeats must be 1 or more", "<command line>")
    if args.concurrency < 1:
        raise SpecError("--concurrency must be 1 or more", "<command line>")
    if args.max_requests is not None and args.max_requests < 0:
        raise SpecError("--max-requests must be 0 or more", "<command line>")
    if args.min_accuracy is not None and not 0 <= args.min_accuracy <= 1:
        raise SpecError("--min-accuracy is a fraction between 0 and 1", "<command line>")


def _progress():
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, what: str) -> None:
        print(f"\r{done}/{total} {what[:50]:50}", end="", file=sys.stderr, flush=True)

    return show


def _clear_progress() -> None:
    if sys.stderr.isatty():
        print("\r" + " " * 70 + "\r", end="", file=sys.stderr)


