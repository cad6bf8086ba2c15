"""What a vendor module declares: its name rules, how it wants refs, its passes, and its tool shape."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from workbench.spec import Schema, Spec
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext

Build = Callable[[Schema, PassContext, bool], Schema]
Wrap = Callable[[Tool, bool], dict]
Finish = Callable[[Tool, Spec, dict], None]  # (tool, spec, shared components) -> fills vendor-only fields
SetChecks = Callable[[list[Tool], bool], list[str]]  # (tools, strict) -> warnings about the whole set


class Vendor(NamedTuple):
    name: str
    name_chars: str  # the characters a tool name may use, as a regex class body
    max_name: int
    build: Build  # (parameters, context, strict) -> the schema the vendor gets
    wrap: Wrap  # (tool, strict) -> the vendor's native tool object
    max_tools: int | None = None
    overhead_tokens: int = 0  # fixed cost the vendor adds once per request with tools
    supports_strict: bool = False
    finish: Finish | None = None  # a per-tool step after the schema (MCP: annotations, outputSchema)
    set_checks: SetChecks | None = None  # per-request limits the vendor sets on the whole tool list
    json_schema_form: Vendor | None = None  # the vendor's plain-JSON-Schema flavour, where it has one

    @property
    def name_pattern(self) -> re.Pattern:
        return re.compile(f"[A-Za-z_][{self.name_chars}]{{0,{self.max_name - 1}}}")
