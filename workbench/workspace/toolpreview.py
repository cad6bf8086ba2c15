"""The tool preview without Qt: the tool set the window shows for a choice of vendor and scope (built by the one
builder, `workbench.tools.options.build_toolset`, so `workbench tools` prints the same), what changed between two
tool sets after an edit, how close the set is to the clients' tool caps, and the config's `tools:` section written
back with the zero-noise edit engine (comments kept; `.workbench.yaml` created beside the spec when there is none).
"""

from __future__ import annotations

import difflib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.config import ToolsConfig, WorkbenchConfig
from workbench.edit import write_atomically
from workbench.spec import Spec
from workbench.tools.model import Tool, ToolSet
from workbench.tools.options import DEFAULT_VENDOR, ToolOverrides, build_toolset
from workbench.workspace.configfile import write_section


@dataclass(frozen=True)
class VendorChoice:
    """One entry of the vendor selector: a vendor module, its strict mode, and whether to show the vendor's JSON
    Schema form (a way of looking, never written to the config: `workbench tools --gemini-json-schema`)."""

    label: str
    vendor: str
    strict: bool = False
    json_schema_form: bool = False

    @property
    def overrides(self) -> ToolOverrides:
        return ToolOverrides(json_schema_form=True) if self.json_schema_form else ToolOverrides()


VENDOR_CHOICES = (
    VendorChoice("OpenAI Chat", "openai"),
    VendorChoice("OpenAI Responses", "openai-responses"),
    VendorChoice("OpenAI strict", "openai", strict=True),
    VendorChoice("Anthropic", "anthropic"),
    VendorChoice("Anthropic strict", "anthropic", strict=True),
    VendorChoice("Gemini", "gemini"),
    VendorChoice("Gemini JSON Schema", "gemini", json_schema_form=True),
    VendorChoice("MCP", "mcp"),
    VendorChoice("JSON Schema", "jsonschema"),
)


def choice_index(settings: ToolsConfig, json_schema_form: bool = False) -> int:
    """The selector's entry for a `tools:` section (the vendor's plain entry when its strict mode has none)."""
    vendor = settings.vendor or DEFAULT_VENDOR
    exact = [i for i, c in enumerate(VENDOR_CHOICES) if c.vendor == vendor and c.strict == settings.strict
             and c.json_schema_form == json_schema_form]
    loose = [i for i, c in enumerate(VENDOR_CHOICES) if c.vendor == vendor]
    return (exact or loose or [0])[0]


def with_choice(settings: ToolsConfig, choice: VendorChoice) -> ToolsConfig:
    return settings._replace(vendor=choice.vendor, strict=choice.strict)


# -- limits ---------------------------------------------------------------------------------------------------------

CLIENT_LIMITS = (("Cursor", 40), ("Windsurf", 50), ("OpenAI", 128))  # tools a client (or the API) accepts


@dataclass(frozen=True)
class LimitState:
    level: str  # "ok" | "amber" (over a client's cap) | "red" (over the API's cap of 128)
    text: str
    maximum: int  # the bar's end


def limit_state(count: int, tokens: int) -> LimitState:
    over = [f"{name} {limit}" for name, limit in CLIENT_LIMITS if count > limit]
    cap = CLIENT_LIMITS[-1][1]
    level = "red" if count > cap else "amber" if over else "ok"
    said = f"{count} tools · ~{tokens} tokens"
    return LimitState(level, f"{said} · over {', '.join(over)}" if over else said, max(cap, count))


# -- building ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolRow:
    """One tool as the list shows it."""

    name: str
    operation: str  # "GET /path"
    tokens: int
    warnings: int
    index: int  # in `toolset.tools` (and `toolset.native`)


@dataclass(frozen=True)
class ToolChange:
    """A tool that differs from the preview before: `kind` is added, removed, renamed, tokens or description."""

    name: str
    kind: str
    text: str
    token_delta: int = 0


@dataclass
class ToolPreview:
    """A built tool set with what the panel shows of it (computed off the UI thread, tokens included)."""

    toolset: ToolSet
    settings: ToolsConfig
    rows: list[ToolRow]
    seconds: float
    changes: list[ToolChange] = field(default_factory=list)
    json_schema_form: bool = False

    @property
    def total_tokens(self) -> int:
        return self.toolset.tokens.total


def effective_config(config: WorkbenchConfig, settings: ToolsConfig) -> WorkbenchConfig:
    """The config as it is once `settings` is its `tools:` section (what the file says after the panel wrote it)."""
    return config._replace(tools=settings)


def build_preview(spec: Spec, config: WorkbenchConfig, settings: ToolsConfig,
                  json_schema_form: bool = False) -> ToolPreview:
    """The tool set for `settings`, exactly as `workbench tools SPEC` builds it from a config with that section
    (and `--gemini-json-schema` when asked); the token estimate is made here (it loads the tokenizer's tables: not on
    the UI thread)."""
    began = time.perf_counter()
    overrides = ToolOverrides(json_schema_form=json_schema_form)
    toolset = build_toolset(spec, effective_config(config, settings), overrides)
    per_tool = toolset.tokens.per_tool
    counts = _warning_counts(toolset)
    rows = [ToolRow(t.name, t.operation.label(), per_tool.get(t.name, 0), counts.get(t.name, 0), i)
            for i, t in enumerate(toolset.tools)]
    return ToolPreview(toolset, settings, rows, time.perf_counter() - began, json_schema_form=json_schema_form)


def _warning_counts(toolset: ToolSet) -> dict[str, int]:
    counts: dict[str, int] = {}
    for tool in toolset.tools:
        counts[tool.name] = len(tool_warnings(toolset, tool))
    return counts


def tool_warnings(toolset: ToolSet, tool: Tool) -> list[str]:
    """What the conversion lost or moved for this tool: its own warnings and the set's warnings naming it."""
    seen = list(tool.warnings)
    seen += [w.message for w in toolset.warnings if w.tool == tool.name and w.message not in seen]
    return seen


def operation_key(tool: Tool) -> tuple[str, str, bool]:
    op = tool.operation
    return op.method, op.path, op.webhook


def changes_between(before: ToolSet | None, after: ToolSet) -> list[ToolChange]:
    """What an edit changed in the tool set, tool by tool (matched by operation, in order where one operation
    gives several tools): added, removed, renamed, tokens up or down, description changed."""
    if before is None:
        return []
    old, new = _by_operation(before), _by_operation(after)
    changes: list[ToolChange] = []
    for key, tools in new.items():
        previous = old.get(key, [])
        for n, tool in enumerate(tools):
            if n >= len(previous):
                changes.append(ToolChange(tool.name, "added", f"{tool.name}: new tool"))
                continue
            changes.extend(_tool_changes(before, previous[n], after, tool))
    for key, tools in old.items():
        for tool in tools[len(new.get(key, [])):]:
            changes.append(ToolChange(tool.name, "removed", f"{tool.name}: no longer a tool"))
    return changes


def _by_operation(toolset: ToolSet) -> dict[tuple[str, str, bool], list[Tool]]:
    grouped: dict[tuple[str, str, bool], list[Tool]] = {}
    for tool in toolset.tools:
        grouped.setdefault(operation_key(tool), []).append(tool)
    return grouped


def _tool_changes(before: ToolSet, old: Tool, after: ToolSet, new: Tool) -> list[ToolChange]:
    changes = []
    if old.name != new.name:
        changes.append(ToolChange(new.name, "renamed", f"{old.name} renamed {new.name}"))
    delta = after.tokens.per_tool.get(new.name, 0) - before.tokens.per_tool.get(old.name, 0)
    if delta:
        changes.append(ToolChange(new.name, "tokens", f"{new.name}: tokens {'up' if delta > 0 else 'down'} "
                                                      f"{abs(delta)}", delta))
    if old.description != new.description:
        changes.append(ToolChange(new.name, "description", f"{new.name}: description changed"))
    return changes


def native_text(toolset: ToolSet, index: int) -> str:
    return json.dumps(toolset.native[index], indent=2, ensure_ascii=False)


def export_text(toolset: ToolSet) -> str:
    """What `workbench tools --format json` prints for the same tool set (the same function writes both)."""
    return toolset.json_text()


def write_export(toolset: ToolSet, path: Path) -> None:
    """The file `workbench tools --format json --output FILE` writes, written atomically."""
    write_atomically(path, export_text(toolset) + "\n")


# -- side by side -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SideBySide:
    """The same operation's tool in two vendors' JSON, and which lines of each have no equal in the other."""

    left: str
    right: str
    left_changed: frozenset[int]  # 0-based line numbers
    right_changed: frozenset[int]


def side_by_side(left: str, right: str) -> SideBySide:
    # Lines compared without their indentation: one vendor wraps the tool in an object the other does not, and
    # the same member one level deeper is the same member.
    a, b = [line.strip() for line in left.splitlines()], [line.strip() for line in right.splitlines()]
    same_a: set[int] = set()
    same_b: set[int] = set()
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        same_a.update(range(block.a, block.a + block.size))
        same_b.update(range(block.b, block.b + block.size))
    return SideBySide(left, right, frozenset(set(range(len(a))) - same_a),
                      frozenset(set(range(len(b))) - same_b))


def tool_for_operation(toolset: ToolSet, key: tuple[str, str, bool], nth: int = 0) -> int | None:
    """The index of the operation's `nth` tool in `toolset`, or None when it is not a tool there."""
    found = [i for i, t in enumerate(toolset.tools) if operation_key(t) == key]
    return found[nth] if nth < len(found) else (found[0] if found else None)


def compare_vendors(spec: Spec, config: WorkbenchConfig, settings: ToolsConfig, key: tuple[str, str, bool],
                    left: VendorChoice, right: VendorChoice,
                    cancelled: Callable[[], bool] = lambda: False) -> SideBySide | None:
    """The operation's tool under two vendors (same scope and shape), lines that differ marked."""
    texts = []
    for choice in (left, right):
        if cancelled():
            return None
        toolset = build_toolset(spec, effective_config(config, with_choice(settings, choice)), choice.overrides)
        index = tool_for_operation(toolset, key)
        texts.append(native_text(toolset, index) if index is not None else f"// not a tool for {choice.label}")
    return side_by_side(*texts)


# -- the config's `tools:` section --------------------------------------------------------------------------------


def _key(name: str) -> str:
    return name.replace("_", "-")


def _value(settings: ToolsConfig, name: str) -> Any:
    value = getattr(settings, name)
    if name == "vendor":
        return value or DEFAULT_VENDOR
    return list(value) if isinstance(value, tuple) else value


def section_values(settings: ToolsConfig) -> dict[str, Any]:
    """The `tools:` section as the config writes it, every key."""
    return {_key(name): _value(settings, name) for name in ToolsConfig._fields}


def write_tools_section(spec_path: Path, config_path: Path | None, before: ToolsConfig,
                        after: ToolsConfig) -> Path:
    """Write `after` as the config's `tools:` section and return the file (see `configfile.write_section`): a new
    section names the vendor and what differs from the defaults."""
    default = ToolsConfig()
    fresh = {_key(name): _value(after, name) for name in ToolsConfig._fields
             if name == "vendor" or getattr(after, name) != getattr(default, name)}
    return write_section(spec_path, config_path, "tools", section_values(before), section_values(after), fresh,
                         "The workbench config (see `workbench lint --help`); written by the Tools panel.")
