"""The lint configuration: one YAML file used by the CLI and the desktop workbench alike.

    rules:            {rule-id: off|hint|info|warn|error}
    thresholds:       {description-min-chars: 30, tool-budget: 40, ...}
    ignore:           [{rule: rule-id, pointer: /paths/~1a/get}]   # the pointer and everything under it
    tools:            {vendor: openai, strict: false, tags: [a], exclude-tags: [b], operations: [id1],
                       read-only: false, include-deprecated: false, nested: false, flatten-depth: 0,
                       split-unions: false}      # the tool set's scope and shape, shared with the team

Found as `.workbench.yaml` (or `workbench.yaml`) beside the spec, or given with `--config`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.lint.finding import Severity
from workbench.spec import SpecError
from workbench.spec.source import parse_document

CONFIG_NAMES = (".workbench.yaml", "workbench.yaml")

# `tools:` keys and the type each takes (command-line options override them).
TOOLS_KEYS: dict[str, type | tuple[type, ...]] = {
    "vendor": str, "strict": bool, "tags": list, "exclude-tags": list, "operations": list, "read-only": bool,
    "include-deprecated": bool, "nested": bool, "flatten-depth": int, "split-unions": bool,
}

DEFAULT_THRESHOLDS: dict[str, float] = {
    "description-min-chars": 30,
    "tool-budget": 40,
    "max-parameters": 15,
    "max-required-parameters": 7,
    "similarity": 0.85,
}


@dataclass(frozen=True)
class LintConfig:
    severities: dict[str, Severity] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))
    ignores: tuple[tuple[str, str], ...] = ()  # (rule id or "*", JSON pointer)
    tools: dict[str, Any] = field(default_factory=dict)  # validated `tools:` section
    source: str | None = None

    def threshold(self, name: str) -> float:
        return self.thresholds.get(name, DEFAULT_THRESHOLDS[name])

    def ignored(self, rule: str, pointer: str) -> bool:
        return any((r == rule or r == "*") and (pointer == p or pointer.startswith(p + "/"))
                   for r, p in self.ignores)


def find_config(spec_path: Path) -> Path | None:
    for name in CONFIG_NAMES:
        candidate = spec_path.parent / name
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None, known_rules: set[str]) -> LintConfig:
    if path is None:
        return LintConfig()
    name = str(path)
    # The spec reader, so the config gets the same YAML 1.2 reading (`off` is the word, not False), the
    # same encodings and the same one-line errors with line and column.
    raw = parse_document(path, name).data or {}
    if not isinstance(raw, dict):
        raise SpecError("config must be a mapping with rules/thresholds/ignore", name)
    unknown = set(raw) - {"rules", "thresholds", "ignore", "tools"}
    if unknown:
        raise SpecError(f"unknown config key(s): {', '.join(sorted(unknown))}", name)
    severities: dict[str, Severity] = {}
    for rule, level in _mapping(raw.get("rules"), "rules", name).items():
        if rule not in known_rules:
            raise SpecError(f"unknown rule {rule!r} in config", name, pointer=f"/rules/{rule}")
        try:
            severities[rule] = Severity.parse(str(level))
        except ValueError as exc:
            raise SpecError(str(exc), name, pointer=f"/rules/{rule}") from None
    thresholds = dict(DEFAULT_THRESHOLDS)
    for key, value in _mapping(raw.get("thresholds"), "thresholds", name).items():
        if key not in DEFAULT_THRESHOLDS:
            raise SpecError(f"unknown threshold {key!r} (known: {', '.join(DEFAULT_THRESHOLDS)})", name,
                            pointer=f"/thresholds/{key}")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise SpecError(f"threshold {key!r} must be a number", name, pointer=f"/thresholds/{key}")
        thresholds[key] = value
    ignores = []
    for i, entry in enumerate(raw.get("ignore") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("rule"), str) or not isinstance(
                entry.get("pointer", ""), str):
            raise SpecError("each ignore needs a `rule` and a `pointer`", name, pointer=f"/ignore/{i}")
        ignores.append((entry["rule"], entry.get("pointer", "")))
    tools = _mapping(raw.get("tools"), "tools", name)
    for key, value in tools.items():
        expected = TOOLS_KEYS.get(key)
        if expected is None:
            raise SpecError(f"unknown tools option {key!r} (known: {', '.join(TOOLS_KEYS)})", name,
                            pointer=f"/tools/{key}")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise SpecError(f"tools option {key!r} must be a {expected.__name__}", name, pointer=f"/tools/{key}")
    return LintConfig(severities, thresholds, tuple(ignores), dict(tools), name)


def _mapping(value: Any, key: str, name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SpecError(f"`{key}` must be a mapping", name, pointer=f"/{key}")
    return value
