"""`workbench suite draft SPEC -o FILE`: a starter tool-selection suite to review, one case per operation,
off-topic `none` cases and the lint's near-duplicate pairs as traps."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli import common
from workbench.cli.toolset_args import add_toolset_options, overrides
from workbench.edit.save import write_atomically
from workbench.selection.model import OFFLINE, OPENAI_CHAT, OPENAI_RESPONSES, ModelSettings
from workbench.spec import SpecError
from workbench.tools.options import build_toolset

HELP = "tool-selection suites: `suite draft SPEC -o FILE` writes a starter suite to review"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="suite_action", metavar="ACTION", required=True)
    draft = actions.add_parser("draft", help="a starter suite for a spec, every case marked as a draft")
    draft.add_argument("spec", metavar="SPEC")
    draft.add_argument("-o", "--output", metavar="FILE", required=True, help="the suite file to write (`-` for stdout)")
    draft.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    toolset = add_toolset_options(draft)
    toolset.add_argument("--read-only", action=argparse.BooleanOptionalAction, default=None,
                         help="read-only operations only")
    model = draft.add_argument_group("prompts written by a model (default: made from each operation's summary)")
    model.add_argument("--api", choices=(OFFLINE, OPENAI_CHAT, OPENAI_RESPONSES), default=OFFLINE)
    model.add_argument("--model", metavar="M", help="the model name (needed with an openai API)")
    model.add_argument("--base-url", metavar="URL", help="any OpenAI-compatible endpoint")
    common.add_config_option(draft)
    common.add_ref_options(draft)
    draft.set_defaults(suite_run=run_draft)


def run(args: argparse.Namespace) -> int:
    return args.suite_run(args)


def run_draft(args: argparse.Namespace) -> int:
    from workbench.selection.draft import ModelPrompts, draft_suite, render, spec_reference  # not for every command
    from workbench.selection.keys import api_key

    output = None if args.output == "-" else Path(args.output)
    if output is not None and output.exists() and not args.force:
        raise SpecError("already exists; pass --force to overwrite it", args.output)
    settings = _settings(args)
    spec = common.load(args, args.spec)
    config = common.config(args, args.spec)
    given = overrides(args, read_only=args.read_only)
    toolset = build_toolset(spec, config, given)
    if not toolset.tools:
        raise SpecError("the tool set is empty: no operation to write a case for", args.spec)
    prompts = ModelPrompts(settings, api_key(settings, settings.base_url)) if settings.api != OFFLINE else None
    draft = draft_suite(spec, toolset, spec_path=spec_reference(args.spec, output),
                        similarity=config.lint.threshold("similarity"), overrides=given, settings=settings,
                        prompts=prompts)
    for problem in prompts.problems if prompts else ():
        print(f"workbench: {problem}", file=sys.stderr)
    text = render(draft)
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            write_atomically(output, text)
        except OSError as exc:
            raise SpecError(f"cannot write the suite: {exc.strerror or exc}", str(output)) from None
        print(f"{output}: {len(draft.cases)} draft cases for {len(toolset.tools)} tools", file=sys.stderr)
    return common.EXIT_OK


def _settings(args: argparse.Namespace) -> ModelSettings:
    if args.api != OFFLINE and not args.model:
        raise SpecError(f"--api {args.api} needs --model", "<command line>")
    return ModelSettings(api=args.api, model=args.model, base_url=args.base_url)
