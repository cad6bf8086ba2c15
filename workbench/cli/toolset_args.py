"""The tool-set options `tools` and `call` share, so both build the same tools from the same config."""

from __future__ import annotations

import argparse

from workbench.cli.common import csv
from workbench.tools.options import ToolOverrides
from workbench.tools.vendors import VENDORS


def add_toolset_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    group = parser.add_argument_group("tool set (each overrides the config's `tools:` section)")
    group.add_argument("--vendor", choices=sorted(VENDORS), default=None, help="default: the config's, else openai")
    group.add_argument("--strict", action=argparse.BooleanOptionalAction, default=None,
                       help="the vendor's strict mode (OpenAI, Anthropic)")
    add_scope_options(group)
    group.add_argument("--nested", action=argparse.BooleanOptionalAction, default=None,
                       help="arguments grouped as {path, query, header, body}")
    group.add_argument("--flatten-depth", type=int, default=None, metavar="N",
                       help="lift nested body objects into flat arguments N levels down")
    group.add_argument("--split-unions", action=argparse.BooleanOptionalAction, default=None,
                       help="one tool per variant of a oneOf body")
    group.add_argument("--gemini-json-schema", action=argparse.BooleanOptionalAction, default=None,
                       help="Gemini: parametersJsonSchema")
    group.add_argument("--budget", type=int, default=None, help="warn above this many tools (default: config)")
    return group


def add_scope_options(group) -> None:
    """Which operations become tools: also the readiness score's scope."""
    group.add_argument("--tags", type=csv, default=None, metavar="A,B", help="only operations with these tags")
    group.add_argument("--exclude-tags", type=csv, default=None, metavar="C", help="leave out these tags")
    group.add_argument("--operations", type=csv, default=None, metavar="ID1,ID2",
                       help="an allowlist of operationIds")
    group.add_argument("--include-deprecated", action=argparse.BooleanOptionalAction, default=None)


def scope_overrides(args: argparse.Namespace) -> ToolOverrides:
    return ToolOverrides(tags=args.tags, exclude_tags=args.exclude_tags, operations=args.operations,
                         include_deprecated=args.include_deprecated)


def overrides(args: argparse.Namespace, *, read_only: bool | None = None) -> ToolOverrides:
    return ToolOverrides(vendor=args.vendor, strict=args.strict, tags=args.tags, exclude_tags=args.exclude_tags,
                         operations=args.operations, read_only=read_only,
                         include_deprecated=args.include_deprecated, nested=args.nested,
                         flatten_depth=args.flatten_depth, split_unions=args.split_unions,
                         json_schema_form=args.gemini_json_schema, budget=args.budget)
