"""Writing one value in the style of the text around it: YAML plain/quoted/block scalars and flow lists,
JSON with the file's own spacing. Every rendering is checked by re-parsing, never trusted blindly."""

from __future__ import annotations

import json
from typing import Any

from workbench.spec.yaml_parse import resolve_plain

# Characters that cannot start a YAML plain scalar, and sequences that cannot appear inside one.
_PLAIN_BAD_START = set("-?:,[]{}#&*!|>'\"%@`")
_FLOW_INDICATORS = set(",[]{}")


def yaml_plain_ok(text: str, *, flow: bool = False) -> bool:
    """Can `text` be written as a YAML plain scalar and read back as exactly this string?"""
    if not text or text != text.strip() or "\n" in text or "\t" in text:
        return False
    if text[0] in _PLAIN_BAD_START or ": " in text or " #" in text or text.endswith(":"):
        return False
    if flow and any(c in _FLOW_INDICATORS for c in text):
        return False
    if resolve_plain(text) != text:  # `yes` is fine, `12` or `true` would be read as a number/boolean
        return False
    return text.lower() not in ("yes", "no", "on", "off", "y", "n")  # YAML 1.1 readers would turn these


def yaml_double_quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # JSON string escapes are valid YAML double-quoted escapes


def yaml_single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def yaml_scalar(value: Any, *, flow: bool = False, prefer: str = "plain") -> str:
    """One line: a plain scalar when safe, else quoted in the preferred quote style."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    if prefer == "plain" and yaml_plain_ok(text, flow=flow):
        return text
    if prefer == "'" and "\n" not in text and "\\" not in text:
        return yaml_single_quoted(text)
    if prefer in ("plain", "'") and "\n" not in text and '"' not in text and "\\" not in text and "'" not in text:
        return yaml_single_quoted(text)
    return yaml_double_quoted(text)


def yaml_flow_list(values: list) -> str:
    return "[" + ", ".join(yaml_flow_value(v) for v in values) + "]"


def yaml_flow_value(value: Any) -> str:
    """One line in flow style: a mapping as `{key: value, …}`, a list as `[…]`, else a scalar."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{yaml_scalar(str(k), flow=True)}: {yaml_flow_value(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return yaml_flow_list(value)
    return yaml_scalar(value, flow=True)


def yaml_block_list(values: list, indent: str, newline: str) -> str:
    """A block sequence whose first `- ` goes where the text already is and the others at `indent`, one item a
    line in flow style (`[]` when empty)."""
    return (newline + indent).join(f"- {yaml_flow_value(v)}" for v in values) if values else "[]"


def yaml_block_scalar(text: str, indent: str, newline: str, style: str = "|") -> str:
    """A literal (or folded, for single-paragraph text) block scalar: header, then indented lines."""
    body = text[:-1] if text.endswith("\n") else text
    chomp = "" if text.endswith("\n") and not text.endswith("\n\n") else "-"
    if style == ">" and "\n" not in body:
        lines = _wrap(body, 100 - len(indent))
    else:
        style = "|"
        lines = body.split("\n")
    if lines and lines[0].startswith(" "):
        return ""  # a leading space needs an indentation indicator; let the caller quote instead
    return style + chomp + newline + "".join((indent + line if line else "") + newline for line in lines)


def _wrap(text: str, width: int) -> list[str]:
    """Break a paragraph at single spaces for a folded scalar (line breaks fold back into those spaces)."""
    words = text.split(" ")
    if any(w == "" for w in words):
        return [text]  # double spaces would not survive folding cleanly: keep one line
    lines, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def json_value(value: Any, *, indent: str | None, level_indent: str, newline: str) -> str:
    """JSON for `value`, multi-line in the file's own indentation when it is a non-empty container."""
    if indent is None or not isinstance(value, (list, dict)) or not value:
        return json.dumps(value, ensure_ascii=False)
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return text.replace("\n", newline + level_indent)
