"""One section of the workbench config (`tools:`, `mock:`) written back with the zero-noise edit engine: the keys
that changed set in place (comments and layout elsewhere kept; a list value that changed, such as `faults:`, is
written whole, one flow item a line, so comments inside that list go), a missing section added at the end of the
file, or a new `.workbench.yaml` beside the spec when there is none. What a panel writes, the command line reads
the same way.

A section is given as plain config values by key (`{"vendor": "openai", "tags": [...]}`, `{"faults": [{...}]}`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.config import CONFIG_NAMES
from workbench.edit import Edit, apply_edits, write_atomically
from workbench.edit.render import yaml_flow_value
from workbench.spec import SourceDocument, SpecError
from workbench.spec.source import parse_document, parse_text

DEFAULT_CONFIG_NAME = CONFIG_NAMES[0]


def section_edits(name: str, before: dict[str, Any], after: dict[str, Any], written: dict) -> list[Edit]:
    """The edits that turn the written section into `after`: the keys whose value changed, and any written key
    that does not say what `after` does (a key written and its default left alone)."""
    return [Edit(f"/{name}/{key}", value) for key, value in after.items()
            if before.get(key) != value or (key in written and written[key] != value)]


def section_lines(name: str, fresh: dict[str, Any]) -> list[str]:
    """A new section holding `fresh` (one key a line, values in flow style)."""
    if not fresh:
        return [f"{name}: {{}}"]
    return [f"{name}:", *(f"  {key}: {yaml_flow_value(value)}" for key, value in fresh.items())]


def write_section(spec_path: Path, config_path: Path | None, name: str, before: dict[str, Any],
                  after: dict[str, Any], fresh: dict[str, Any], header: str) -> Path:
    """Write `after` as the config's section `name` and return the file: changed in place, the section added at
    its end (with the keys of `fresh`), or a new `.workbench.yaml` beside the spec (`header` its first comment).
    Raises SpecError (the file unchanged) when it cannot be done cleanly."""
    if config_path is None or not config_path.is_file():
        target = spec_path.parent / DEFAULT_CONFIG_NAME
        write_atomically(target, "\n".join([f"# {header}", *section_lines(name, fresh)]) + "\n")
        return target
    document = parse_document(config_path, str(config_path))
    data = document.data if document.data is not None else {}
    if not isinstance(data, dict):
        raise SpecError(f"the config is not a mapping: the {name}: section was not written", str(config_path))
    section = data.get(name)
    if not isinstance(section, dict):
        text = _with_new_section(document, data, name, fresh, config_path)
    else:
        edits = section_edits(name, before, after, section)
        if not edits:
            return config_path
        outcome = apply_edits(document, edits)
        if outcome.refused:
            edit, reason = outcome.refused[0]
            raise SpecError(f"cannot write {edit.pointer}: {reason}", str(config_path))
        text = outcome.document.text
    write_atomically(config_path, text, bom=document.bom)
    return config_path


def _with_new_section(document: SourceDocument, data: dict, name: str, fresh: dict[str, Any], path: Path) -> str:
    """The file with the section added at its end (the edit engine inserts values, not whole mappings), checked
    by parsing it again: everything else must read as before."""
    if name in data:
        raise SpecError(f"`{name}:` has no mapping to change: write `{name}: {{}}` or remove it", str(path))
    text = document.text
    section = "\n".join(section_lines(name, fresh)) + "\n"
    text = text + ("\n" if text and not text.endswith("\n") else "") + section
    try:
        reread = parse_text(text, path, str(path)).data
    except SpecError as exc:
        raise SpecError(f"cannot add a {name}: section here ({exc.message})", str(path)) from None
    expected = {**data, name: reread.get(name) if isinstance(reread, dict) else None}
    if not isinstance(reread, dict) or reread != expected or not isinstance(reread.get(name), dict):
        raise SpecError(f"cannot add a {name}: section at the end of this file (not block YAML)", str(path))
    return text
