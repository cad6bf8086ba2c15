"""One section of the workbench config (`tools:`, `mock:`) written back with the zero-noise edit engine: the keys
that changed set in place (comments and layout elsewhere kept; in a block list such as `faults:`, only the items
that changed are replaced, removed or appended, each a splice of its own lines, so the comments and the other items
stay byte for byte; a list the engine cannot splice item by item is written whole, one flow item a line), a missing
section added at the end of the file, or a new `.workbench.yaml` beside the spec when there is none. What a panel
writes, the command line reads the same way.

A section is given as plain config values by key (`{"vendor": "openai", "tags": [...]}`, `{"faults": [{...}]}`).
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from workbench.config import CONFIG_NAMES
from workbench.edit import Edit, apply_edits, write_atomically
from workbench.edit.engine import EditOutcome
from workbench.edit.render import yaml_flow_value
from workbench.spec import SourceDocument, SpecError
from workbench.spec.source import parse_document, parse_text

DEFAULT_CONFIG_NAME = CONFIG_NAMES[0]


def section_edits(name: str, before: dict[str, Any], after: dict[str, Any], written: dict) -> list[Edit]:
    """The edits that turn the written section into `after`: the keys whose value changed, and any written key
    that does not say what `after` does (a key written and its default left alone)."""
    return [Edit(f"/{name}/{key}", value) for key, value in after.items()
            if before.get(key) != value or (key in written and written[key] != value)]


def item_edits(pointer: str, before: list, after: list) -> list[Edit] | None:
    """The item edits that turn the list `before` (as written at `pointer`) into `after`, last index first (so each
    one's index is still right when it is made): items replaced in place, removed, appended at the end. None when
    the change is another (an insertion in the middle)."""
    keys = [[json.dumps(v, sort_keys=True, default=str) for v in values] for values in (before, after)]
    edits: list[Edit] = []
    for tag, i1, i2, j1, j2 in reversed(difflib.SequenceMatcher(None, *keys, autojunk=False).get_opcodes()):
        if tag == "replace" and i2 - i1 == j2 - j1:
            edits += [Edit(f"{pointer}/{i1 + k}", after[j1 + k]) for k in reversed(range(i2 - i1))]
        elif tag == "delete":
            edits += [Edit(f"{pointer}/{i}", remove=True) for i in reversed(range(i1, i2))]
        elif tag == "insert" and i1 == len(before):
            edits += [Edit(f"{pointer}/-", value) for value in after[j1:j2]]
        elif tag != "equal":
            return None
    return edits


def _by_items(document: SourceDocument, edits: list[Edit], before: dict[str, Any],
              written: dict) -> EditOutcome | None:
    """The section's edits with each changed list made item by item (one verified splice each); None when a list
    cannot be, and the edits are then made with the lists whole."""
    whole, items = [], []
    for edit in edits:
        key = edit.pointer.rsplit("/", 1)[1]
        old, new = before.get(key), edit.value
        spliced = (item_edits(edit.pointer, old, new)
                   if isinstance(old, list) and isinstance(new, list) and isinstance(written.get(key), list)
                   and len(written[key]) == len(old) and new else None)
        if spliced is None:
            whole.append(edit)
        else:
            items += spliced
    if not items:
        return None
    outcome = apply_edits(document, whole) if whole else EditOutcome(document)
    if outcome.refused:
        return None
    current, applied = outcome.document, list(outcome.applied)
    for edit in items:
        step = apply_edits(current, [edit])
        if step.refused:
            return None
        current = step.document
        applied += step.applied
    return EditOutcome(current, applied, [], planned_together=False)


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
        outcome = _by_items(document, edits, before, section) or apply_edits(document, edits)
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
