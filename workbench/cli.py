"""The `workbench` command: every subcommand calls the same core functions the desktop workbench uses.

Exit codes: 0 success; 2 the input could not be used (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench import __version__
from workbench.edit import write_atomically
from workbench.edit.diff import unified_diff
from workbench.edit.fixes import DEFAULT_RULES as DEFAULT_FIX_RULES
from workbench.edit.fixes import apply_fixes, quick_fixes
from workbench.examples import example_path
from workbench.lint import RULES, LintConfig, Severity, find_config, lint, load_config
from workbench.lint import report as lint_report
from workbench.lint.engine import parser_result
from workbench.lint.score import score
from workbench.spec import RefPolicy, Spec, SpecError, load_spec
from workbench.summary import summarize
from workbench.tools import VENDORS, ConvertOptions, Scope, convert

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_UNUSABLE = 2
EXIT_INVALID_CALL = 3


def _add_ref_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-remote-refs", action="store_true",
                        help="fetch $refs to http(s) URLs (refused by default)")
    parser.add_argument("--allow-outside-refs", action="store_true",
                        help="read $refs to files outside the spec's folder (refused by default)")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Agent Spec Workbench: make an OpenAPI "
                                     "document trustworthy as a set of tools for language-model agents.")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    info = commands.add_parser("info", help="what a spec holds: version, operations, paths, tags, servers")
    info.add_argument("spec", metavar="SPEC")
    info.add_argument("--format", choices=("text", "json"), default="text")
    _add_ref_options(info)

    lint = commands.add_parser("lint", help="agent-readiness findings, with exit codes for CI")
    lint.add_argument("spec", metavar="SPEC")
    lint.add_argument("--format", choices=("text", "json", "sarif", "junit", "github"), default="text")
    lint.add_argument("--fail-severity", choices=("error", "warn", "info", "hint"), default="error",
                      help="exit 1 when a finding is at least this severe (default: error)")
    lint.add_argument("--config", metavar="FILE", help="lint config (default: .workbench.yaml beside the spec)")
    lint.add_argument("--output", metavar="FILE", help="write the report here instead of stdout")
    _add_ref_options(lint)

    score_cmd = commands.add_parser("score", help="the agent-readiness score (0-100) with its breakdown")
    score_cmd.add_argument("spec", metavar="SPEC")
    score_cmd.add_argument("--format", choices=("text", "json"), default="text")
    score_cmd.add_argument("--config", metavar="FILE", help="lint config (default: .workbench.yaml beside the spec)")
    _add_ref_options(score_cmd)

    fix = commands.add_parser("fix", help="quick fixes for lint findings: a diff, or --apply to write them")
    fix.add_argument("spec", metavar="SPEC")
    fix.add_argument("--rule", action="append", metavar="ID",
                     help=f"only this rule's fixes (repeatable; default: {', '.join(DEFAULT_FIX_RULES)})")
    fix.add_argument("--apply", action="store_true", help="write the fixes (atomically) instead of showing them")
    fix.add_argument("--format", choices=("diff", "json"), default="diff")
    fix.add_argument("--config", metavar="FILE", help="lint config (default: .workbench.yaml beside the spec)")
    _add_ref_options(fix)

    tools = commands.add_parser("tools", help="the spec's operations as tool definitions for one vendor")
    tools.add_argument("spec", metavar="SPEC")
    tools.add_argument("--vendor", choices=sorted(VENDORS), default=None, help="default: the config's, else openai")
    tools.add_argument("--strict", action="store_true", help="the vendor's strict mode (OpenAI, Anthropic)")
    tools.add_argument("--tags", type=_csv, default=(), metavar="A,B", help="only operations with these tags")
    tools.add_argument("--exclude-tags", type=_csv, default=(), metavar="C", help="leave out these tags")
    tools.add_argument("--operations", type=_csv, default=(), metavar="ID1,ID2", help="an allowlist of operationIds")
    tools.add_argument("--read-only", action="store_true", help="safe methods only (GET, HEAD, OPTIONS)")
    tools.add_argument("--include-deprecated", action="store_true")
    tools.add_argument("--nested", action="store_true", help="arguments grouped as {path, query, header, body}")
    tools.add_argument("--flatten-depth", type=int, default=0, metavar="N",
                       help="lift nested body objects into flat arguments N levels down")
    tools.add_argument("--split-unions", action="store_true", help="one tool per variant of a oneOf body")
    tools.add_argument("--gemini-json-schema", action="store_true", help="Gemini: parametersJsonSchema")
    tools.add_argument("--budget", type=int, default=None, help="warn above this many tools (default: config)")
    tools.add_argument("--format", choices=("json", "text"), default="json")
    tools.add_argument("--output", metavar="FILE", help="write the result here instead of stdout")
    tools.add_argument("--config", metavar="FILE", help="config (default: .workbench.yaml beside the spec)")
    _add_ref_options(tools)

    call = commands.add_parser("call", help="execute one tool call against the API (or --base-url)")
    call.add_argument("spec", metavar="SPEC")
    call.add_argument("tool", metavar="TOOL", help="the tool's name (as `workbench tools` names it)")
    call.add_argument("--args", default="{}", metavar="JSON",
                      help="the arguments as JSON, or a vendor's whole tool-call object")
    call.add_argument("--vendor", choices=sorted(VENDORS), default="openai", help="whose tool names and shapes")
    call.add_argument("--strict", action="store_true")
    call.add_argument("--base-url", metavar="URL", help="send here instead of the spec's server")
    call.add_argument("--approve", action="store_true", help="approve a destructive call without asking")
    call.add_argument("--read-only", action="store_true", help="refuse every write")
    call.add_argument("--deadline", type=float, default=30.0, metavar="SECONDS", help="total time for the call")
    call.add_argument("--human", default="{}", metavar="JSON",
                      help="the human-side arguments (secrets better via WORKBENCH_HUMAN_<NAME>; @file for uploads)")
    call.add_argument("--format", choices=("json", "text"), default="json")
    _add_ref_options(call)

    audit = commands.add_parser("audit", help="the headless audit of a spec (default: the bundled example)")
    audit.add_argument("spec", metavar="SPEC", nargs="?")
    _add_ref_options(audit)

    gui = commands.add_parser("gui", help="the desktop workbench (on SPEC if given)")
    gui.add_argument("spec", metavar="SPEC", nargs="?")
    gui.add_argument("--screenshots", metavar="DIR",
                     help="render the main views to PNG files in DIR and exit (no display needed; default SPEC: "
                          "the bundled example)")
    return parser


def _load(args: argparse.Namespace, path: str) -> Spec:
    spec = load_spec(path, RefPolicy(allow_remote=args.allow_remote_refs, allow_outside=args.allow_outside_refs))
    for problem in spec.problems:
        print(problem, file=sys.stderr)
    return spec


def _info(args: argparse.Namespace) -> int:
    summary = summarize(_load(args, args.spec))
    print(summary.to_json() if args.format == "json" else summary.to_text())
    return EXIT_OK


def _config_for(args: argparse.Namespace, spec_path: str) -> LintConfig:
    path = Path(args.config) if getattr(args, "config", None) else find_config(Path(spec_path))
    return load_config(path, set(RULES))


def _lint(args: argparse.Namespace) -> int:
    config = _config_for(args, args.spec)
    try:
        spec = load_spec(args.spec, RefPolicy(allow_remote=args.allow_remote_refs,
                                              allow_outside=args.allow_outside_refs))
        result = lint(spec, config)
    except SpecError as exc:
        if exc.code != "syntax":
            raise
        result = parser_result(exc, Path(args.spec))
    renderers = {"text": lint_report.to_text, "json": lint_report.to_json, "sarif": lint_report.to_sarif,
                 "junit": lint_report.to_junit, "github": lint_report.to_github}
    _emit(args, renderers[args.format](result))
    return result.exit_code(Severity.parse(args.fail_severity))


def _score(args: argparse.Namespace) -> int:
    config = _config_for(args, args.spec)
    result = score(lint(_load(args, args.spec), config))
    print(result.to_json() if args.format == "json" else result.to_text())
    return EXIT_OK


def _fix(args: argparse.Namespace) -> int:
    unknown = sorted(set(args.rule or ()) - set(RULES))
    if unknown:
        raise SpecError(f"unknown rule(s): {', '.join(unknown)}", args.spec)
    spec = _load(args, args.spec)
    fixes = quick_fixes(spec, lint(spec, _config_for(args, args.spec)), args.rule)
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
    if args.apply:
        for name, outcome in changed.items():
            document = outcome.document
            write_atomically(document.path, document.text, bom=document.bom)
            print(f"{name}: {len(outcome.applied)} edit(s) written", file=sys.stderr)
        return EXIT_FINDINGS if refused else EXIT_OK
    return EXIT_FINDINGS if changed else EXIT_OK


def _csv(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _tools(args: argparse.Namespace) -> int:
    spec = _load(args, args.spec)
    config = _config_for(args, args.spec)
    shared = config.tools  # the team's tool-set definition; options given on the command line win

    def option(name: str, given: Any, default: Any) -> Any:
        return given if given not in (None, (), False) else shared.get(name, default)

    budget = args.budget if args.budget is not None else int(config.threshold("tool-budget"))
    scope = Scope(tags=tuple(option("tags", args.tags, ())),
                  exclude_tags=tuple(option("exclude-tags", args.exclude_tags, ())),
                  operations=tuple(option("operations", args.operations, ())),
                  read_only=option("read-only", args.read_only, False),
                  include_deprecated=option("include-deprecated", args.include_deprecated, False), budget=budget)
    vendor = option("vendor", args.vendor, "openai")
    if vendor not in VENDORS:
        raise SpecError(f"unknown vendor {vendor!r} in the config (known: {', '.join(VENDORS)})",
                        config.source or args.spec)
    toolset = convert(spec, ConvertOptions(vendor=vendor, strict=option("strict", args.strict, False), scope=scope,
                                           nested=option("nested", args.nested, False),
                                           json_schema_form=args.gemini_json_schema,
                                           flatten_depth=option("flatten-depth", args.flatten_depth, 0),
                                           split_unions=option("split-unions", args.split_unions, False)))
    if args.format == "json":
        _emit(args, json.dumps(toolset.to_json(), indent=2, ensure_ascii=False))
    else:
        lines = [f"{tool.name:<40} {toolset.tokens.per_tool[tool.name]:>6} tokens  {tool.operation.label()}"
                 for tool in toolset.tools]
        lines += [f"left out: {r.method.upper()} {r.path}: {r.reason}" for r in toolset.rejected]
        lines += [f"warning: {w.tool + ': ' if w.tool else ''}{w.message}" for w in toolset.warnings]
        lines.append(f"{len(toolset.tools)} tools for {toolset.vendor}, about {toolset.tokens.total} tokens "
                     f"({toolset.tokens.method})")
        _emit(args, "\n".join(lines))
    return EXIT_OK


def _call(args: argparse.Namespace) -> int:
    from workbench.http.calls import CallFormatError, looks_like_call, parse_call
    from workbench.http.executor import CallOptions, Executor
    from workbench.http.repair import RepairFailed, repair_json

    spec = _load(args, args.spec)
    toolset = convert(spec, ConvertOptions(vendor=args.vendor, strict=args.strict,
                                           scope=Scope(include_deprecated=True)))
    try:
        given, _ = repair_json(args.args)
        call = parse_call(given if looks_like_call(given) else {"name": args.tool, "arguments": args.args})
    except (CallFormatError, RepairFailed) as exc:
        raise SpecError(f"--args: {exc}", "<command line>") from None
    if call.name != args.tool:
        call = type(call)(args.tool, call.arguments, call.call_id, call.repairs)
    human = _human_values(args, toolset.tool(args.tool))

    def approve(request, tool) -> bool:
        if args.approve:
            return True
        if not sys.stdin.isatty():
            return False
        answer = input(f"{request.method} {request.url} is destructive ({tool.name}). Send it? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    executor = Executor(spec, toolset, CallOptions(base_url=args.base_url, deadline_s=args.deadline, approve=approve,
                                                  read_only=args.read_only, human=human))
    result = executor.call(call)
    if result.feedback is not None:
        print(result.feedback.text if args.format == "text" else json.dumps(
            {"feedback": result.feedback.text, "violations": [
                {"path": v.path, "expected": v.expected, "given": v.given} for v in result.feedback.violations]},
            indent=2, ensure_ascii=False, default=str))
        return EXIT_INVALID_CALL
    print(result.to_text() if args.format == "text" else json.dumps(result.to_json(), indent=2, ensure_ascii=False,
                                                                   default=str))
    return EXIT_OK if result.status is not None else EXIT_FINDINGS


def _human_values(args: argparse.Namespace, tool) -> dict:
    """The human part: --human JSON, then WORKBENCH_HUMAN_<ARGUMENT> from the environment; `@path` reads a
    file for an upload."""
    try:
        values = json.loads(args.human)
    except json.JSONDecodeError as exc:
        raise SpecError(f"--human is not JSON: {exc.msg}", "<command line>") from None
    if tool is not None:
        for binding in tool.bindings:
            env = os.environ.get("WORKBENCH_HUMAN_" + binding.argument.upper())
            if binding.human and binding.argument not in values and env is not None:
                values[binding.argument] = env
    for name, value in list(values.items()):
        if isinstance(value, str) and value.startswith("@"):
            path = Path(value[1:])
            values[name] = {"filename": path.name, "content": path.read_bytes(),
                            "content_type": "application/octet-stream"}
    return values


def _emit(args: argparse.Namespace, text: str) -> None:
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)


def _audit(args: argparse.Namespace) -> int:
    path = args.spec or str(example_path())
    spec = _load(args, path)
    print(summarize(spec).to_text())
    print(f"{'problems:':<12}{len(spec.problems)} found while loading" if spec.problems else
          f"{'problems:':<12}none found while loading")
    print()
    print(lint_report.to_text(lint(spec, _config_for(args, path))))
    return EXIT_OK


def _gui(args: argparse.Namespace) -> int:
    from workbench import gui  # Qt is imported only once a window is wanted

    reason = gui.qt_unavailable_reason()
    if reason is None and args.screenshots is None:
        reason = gui.headless_reason()
        if reason is not None:
            reason = f"cannot open a window ({reason}); use --screenshots DIR, or `workbench audit`"
    if reason is not None:
        print(f"workbench: {reason}", file=sys.stderr)
        return EXIT_UNUSABLE
    return gui.run(args.spec, args.screenshots)


def _default(args: argparse.Namespace) -> int:
    """No subcommand: the desktop workbench on the bundled example where a window can open; else the audit."""
    from workbench import gui  # importing it does not import Qt; asking whether Qt is usable does

    reason = gui.headless_reason() or gui.qt_unavailable_reason()
    if reason is None:
        return gui.run(example_path())
    print(f"No window to open ({reason}); here is the headless audit of the bundled example.\n", file=sys.stderr)
    args.spec = None
    args.allow_remote_refs = args.allow_outside_refs = False
    args.config = None
    return _audit(args)


def main(argv: Sequence[str] | None = None) -> int:
    # A command builds one large acyclic tree and exits: collecting cycles every 700 allocations only costs
    # time (about 10% of a lint of a 4 MB spec).
    gc.set_threshold(50_000, 50, 100)
    parser = _build_parser()
    args = parser.parse_args(argv)
    handler = {"info": _info, "lint": _lint, "score": _score, "fix": _fix, "tools": _tools, "call": _call,
               "audit": _audit, "gui": _gui}.get(args.command, _default)
    try:
        return handler(args)
    except SpecError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # the promise is one line, never a traceback; the env var shows it
        if os.environ.get("WORKBENCH_DEBUG"):
            raise
        print(f"workbench: internal error: {type(exc).__name__}: {exc} (set WORKBENCH_DEBUG=1 for details)",
              file=sys.stderr)
        return EXIT_UNUSABLE
