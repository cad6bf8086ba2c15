"""Plan and apply zero-noise edits.

An edit sets a value at a JSON pointer, or inserts a new key into an existing mapping. It becomes a
`Splice` — replace `text[start:end]` — computed from the node's exact span and written in the style of
its surroundings. After splicing, the whole document is parsed again and must equal the old data with
exactly the edited values changed; otherwise the edit is refused with a reason, never applied sloppily.
Undo is the inverse splice, which restores the original characters exactly.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from workbench.edit import render
from workbench.spec.errors import SpecError
from workbench.spec.json_parse import index_json, parse_json
from workbench.spec.pointer import escape, lookup, split
from workbench.spec.source import SourceDocument, parse_text
from workbench.spec.yaml_parse import SpanEntry, parse_yaml


@dataclass(frozen=True)
class Edit:
    """Set `value` at `pointer`. When the key does not exist yet, it is inserted into its parent mapping:
    after the first of `after` that exists, else first (`first=True`) or last. In a block YAML list, an item
    can be replaced (a mapping too, written in flow style on the item's lines), appended (`/list/-`) or removed
    (`remove=True`) as a splice of its own lines."""

    pointer: str
    value: Any = None
    after: tuple[str, ...] = ()
    first: bool = False
    remove: bool = False


@dataclass(frozen=True)
class Splice:
    """Replace `text[start:end]` with `text`: an edit as the source text sees it."""

    start: int
    end: int
    text: str

    def apply(self, source: str) -> str:
        return source[: self.start] + self.text + source[self.end :]

    def inverse(self, original: str) -> Splice:
        """The splice that turns the edited text back into `original`, character for character."""
        return Splice(self.start, self.start + len(self.text), original[self.start : self.end])


def inverse_splices(old: str, splices: Sequence[Splice]) -> list[Splice]:
    """The splices that turn `old` with `splices` applied back into `old` (splices planned together against
    `old`): each splice's own inverse, moved by what the splices before it changed in length."""
    shift, inverse = 0, []
    for splice in sorted(splices, key=lambda s: (s.start, s.end)):
        back = splice.inverse(old)
        inverse.append(Splice(back.start + shift, back.end + shift, back.text))
        shift += len(splice.text) - (splice.end - splice.start)
    return inverse


class EditRefused(Exception):
    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(f"{pointer or '/'}: {reason}")
        self.pointer = pointer
        self.reason = reason


@dataclass
class EditOutcome:
    """What applying edits made: the new document, the edits applied with their splices, the refused."""

    document: SourceDocument  # the new document (the old one when nothing applied)
    # Each splice as made: against the old text when the edits verified together (`planned_together`), else
    # against the text as the edits before it had left it.
    applied: list[tuple[Edit, Splice]] = field(default_factory=list)
    refused: list[tuple[Edit, str]] = field(default_factory=list)
    planned_together: bool = True

    @property
    def splices(self) -> list[Splice] | None:
        """The splices that turn the old text into the new one, all planned against the old text (what a view
        showing the old text can apply in place); None when the edits had to be made one after another."""
        return [splice for _edit, splice in self.applied] if self.planned_together else None


_ANCHOR_OR_TAG = re.compile(r"(?:[&!][^\s]*\s+)+")
_BLOCK_HEADER = re.compile(r"[|>][-+0-9]*")


def apply_splices(text: str, splices: list[Splice]) -> str:
    """Apply splices planned against the same text; later positions first so offsets stay valid, and, at
    one position, in planning order.

    Splices that do not overlap (each starts at or after the end of the one before it) are joined in one
    pass, which gives the same text: splicing them one by one copied the whole text per splice (874 renames
    in GitHub's 4 MB spec: 10 s). Overlapping ones are applied one by one as before."""
    ordered = sorted(enumerate(splices), key=lambda item: (item[1].start, item[0]))
    if all(a.end <= b.start for (_, a), (_, b) in pairwise(ordered)):
        pieces, cursor = [], 0
        for _, splice in ordered:
            pieces += (text[cursor:splice.start], splice.text)
            cursor = splice.end
        pieces.append(text[cursor:])
        return "".join(pieces)
    for _, splice in reversed(ordered):
        text = splice.apply(text)
    return text


def apply_edits(document: SourceDocument, edits: list[Edit]) -> EditOutcome:
    """Apply `edits` together; verified by one re-parse. If the batch does not verify, each edit is tried
    alone so that only the ones that cannot be made cleanly are refused."""
    planned: list[tuple[Edit, Splice]] = []
    refused: list[tuple[Edit, str]] = []
    starts: list[int] = []  # the batch's non-empty spans so far, by start (they never overlap, so ends sort too)
    ends: list[int] = []
    pointers: set[str] = set()
    for edit in edits:
        if edit.pointer in pointers:  # two insertions of one new key would both go in: a duplicate key
            refused.append((edit, "the same pointer is edited twice in one batch"))
            continue
        try:
            splice = plan_edit(document, edit)
        except EditRefused as exc:
            refused.append((edit, exc.reason))
            continue
        if splice.end > splice.start:
            before = bisect.bisect_left(starts, splice.end)  # the spans that start before this one ends
            if before and ends[before - 1] > splice.start:
                refused.append((edit, "overlaps another edit in the same batch"))
                continue
            at = bisect.bisect_left(starts, splice.start)
            starts.insert(at, splice.start)
            ends.insert(at, splice.end)
        pointers.add(edit.pointer)
        planned.append((edit, splice))
    if not planned:
        return EditOutcome(document, [], refused)
    new_document, problem = _verified(document, planned)
    if new_document is not None:
        return EditOutcome(new_document, planned, refused)
    if len(planned) == 1:
        return EditOutcome(document, [], [*refused, (planned[0][0], problem)])
    applied: list[tuple[Edit, Splice]] = []
    current = document
    for edit, _ in planned:  # one at a time, against the text as it is now
        outcome = apply_edits(current, [edit])
        if outcome.applied:
            applied.extend(outcome.applied)
            current = outcome.document
        refused.extend(outcome.refused)
    return EditOutcome(current, applied, refused, planned_together=len(applied) <= 1)


def _verified(document: SourceDocument, planned: list[tuple[Edit, Splice]]) -> tuple[SourceDocument | None, str]:
    text = apply_splices(document.text, [s for _, s in planned])
    expected = document.data
    for edit, _ in planned:
        expected = _with_value(expected, split(edit.pointer), edit.value, edit.remove)
    local = _verified_locally(document, planned, text, expected)
    if local is not None:
        return local, ""
    try:
        new = parse_text(text, document.path, document.name, bom=document.bom)
    except SpecError as exc:
        return None, f"the edited text would not parse ({exc.message})"
    if new.data != expected:
        return None, _explain_mismatch(document, planned)
    return new, ""


def _verified_locally(document: SourceDocument, planned: list[tuple[Edit, Splice]], text: str,
                      expected: Any) -> SourceDocument | None:
    """Re-read only the block that holds the edits, when that is enough to be sure (YAML, one block,
    no anchors): a 3 MB file then verifies in milliseconds instead of a third of a second. Returns the new
    document with its span index shifted, or None to fall back to reading the whole text."""
    if len(planned) != 1:
        return None
    edit, splice = planned[0]
    if document.format == "json":
        return _verified_json_locally(document, edit, splice, text, expected)
    if _anchored(document, edit.pointer):
        return None
    block = _edited_block(document, edit, splice, text)
    if block is None:
        return None
    region_pointer, start, lines, removed = block
    dedented = "\n".join(line[cut:] for line, cut in zip(lines, removed, strict=True))
    try:
        data, local_index, problems = parse_yaml(dedented, document.name)
    except SpecError:
        return None
    if problems or data != lookup(expected, region_pointer):
        return None
    index = _block_index(document, splice, region_pointer, start, lines, removed, local_index)
    return SourceDocument(document.path, document.name, text, "yaml", expected, document.bom,
                          list(document.problems), index)


def _edited_block(document: SourceDocument, edit: Edit, splice: Splice,
                  text: str) -> tuple[str, int, list[str], list[int]] | None:
    """The YAML block around the edit, in the edited text: (its pointer, where its text starts, its lines,
    how much indentation to cut from each line to read it alone), or None when it cannot be read alone."""
    region = _enclosing_block(document, edit.pointer)
    if region is None:
        return None
    region_pointer, block_start, end = region
    delta = len(splice.text) - (splice.end - splice.start)
    line_start = _line_start(document.text, block_start)
    indent = block_start - line_start  # the block's column (after any `- `)
    if not document.text[line_start:block_start].strip():
        block_start = line_start  # whole lines: an insertion before the first key is inside the block too
    if not (block_start <= splice.start and splice.end <= end):
        return None
    lines = text[block_start : end + delta].split("\n")
    first = 1 if block_start > line_start else 0  # a `- ` item's first line starts at the key itself
    if any(line.strip() and (len(line) - len(line.lstrip(" ")) < indent) for line in lines[first:]):
        return None  # something now sits left of the block: only a full read can say what it means
    removed = [0] * first + [min(indent, len(line) - len(line.lstrip(" "))) for line in lines[first:]]
    return region_pointer, block_start, lines, removed


def _block_index(document: SourceDocument, splice: Splice, region_pointer: str, start: int, lines: list[str],
                 removed: list[int], local_index: Mapping[str, SpanEntry]) -> ShiftedIndex:
    """The edited document's span index: the re-read block's entries (`local_index`, offsets in its dedented
    text) mapped back to offsets in the whole text, every other entry the old one, shifted."""
    delta = len(splice.text) - (splice.end - splice.start)
    line_offsets = [0]
    for line in lines[:-1]:
        line_offsets.append(line_offsets[-1] + len(line) + 1)
    dedented_offsets = [0]
    for line, cut in zip(lines[:-1], removed, strict=False):
        dedented_offsets.append(dedented_offsets[-1] + len(line) - cut + 1)

    def to_global(offset: int, at_line_start: bool = False) -> int:
        if offset < 0:
            return offset
        row = bisect.bisect_right(dedented_offsets, offset) - 1
        column = offset - dedented_offsets[row]
        if at_line_start and column == 0:
            return start + line_offsets[row]  # a block scalar ends at the line break, before any indentation
        return start + line_offsets[row] + removed[row] + column

    _, own_end, own_key_start, own_key_end, own_kind = _shift(document.index[region_pointer], splice.end, delta)
    region = {region_pointer: (to_global(local_index[""][0]), own_end, own_key_start, own_key_end, own_kind)}
    for pointer, (s, e, ks, ke, kind) in local_index.items():
        if pointer:
            region[region_pointer + pointer] = (to_global(s), to_global(e, kind in ("|", ">")), to_global(ks),
                                                to_global(ke), kind)
    return ShiftedIndex(document.index, splice.end, delta, region_pointer, region)


def _verified_json_locally(document: SourceDocument, edit: Edit, splice: Splice, text: str,
                           expected: Any) -> SourceDocument | None:
    """JSON containers are self-contained text: re-read the edited key's parent object alone."""
    parent_pointer = edit.pointer.rsplit("/", 1)[0]
    entry = document.span(parent_pointer)
    if entry is None or entry[4] not in ("map", "seq") or not (entry[0] <= splice.start and splice.end <= entry[1]):
        return None
    delta = len(splice.text) - (splice.end - splice.start)
    start, end = entry[0], entry[1] + delta
    try:
        data, duplicates = parse_json(text[start:end], document.name)
    except SpecError:
        return None
    if duplicates or data != lookup(expected, parent_pointer):
        return None
    local_index, _ = index_json(text[start:end], document.name)
    region = {parent_pointer: _shift(document.index[parent_pointer], splice.end, delta)}
    for pointer, (s, e, ks, ke, kind) in local_index.items():
        if pointer:
            region[parent_pointer + pointer] = (s + start, e + start, ks + start if ks >= 0 else ks,
                                                ke + start if ke >= 0 else ke, kind)
    index = ShiftedIndex(document.index, splice.end, delta, parent_pointer, region)
    return SourceDocument(document.path, document.name, text, "json", expected, document.bom,
                          list(document.problems), index)


class ShiftedIndex(Mapping[str, SpanEntry]):
    """The span index of a document edited inside one region: the region's entries are new (`region`, keyed
    by full pointer, the region's own pointer included); every other entry is the base index's, moved by
    `delta` where it lies at or past `after`.

    Lookups are answered through the chain of edits instead of copying the whole index per edit: copying it
    cost a tenth of a second per keystroke-sized edit on a 4 MB file. Iterating builds (and keeps) the flat
    dict once."""

    def __init__(self, base: Mapping[str, SpanEntry], after: int, delta: int, region_pointer: str,
                 region: dict[str, SpanEntry]) -> None:
        self._base = base
        self._after = after
        self._delta = delta
        self._prefix = region_pointer + "/"
        self._region = region
        self._flat: dict[str, SpanEntry] | None = None

    def __getitem__(self, pointer: str) -> SpanEntry:
        layer: Mapping[str, SpanEntry] = self
        moves: list[tuple[int, int]] = []  # (after, delta), newest edit first
        while isinstance(layer, ShiftedIndex) and layer._flat is None:  # a loop: edit chains grow long
            found = layer._region.get(pointer)
            if found is not None:
                entry = found
                break
            if pointer.startswith(layer._prefix):
                raise KeyError(pointer)  # inside an edited region, and not there any more
            moves.append((layer._after, layer._delta))
            layer = layer._base
        else:
            entry = layer._flat[pointer] if isinstance(layer, ShiftedIndex) else layer[pointer]
        for after, delta in reversed(moves):  # oldest edit first: each shift is in its own edit's offsets
            entry = _shift(entry, after, delta)
        return entry

    def _flatten(self) -> dict[str, SpanEntry]:
        if self._flat is None:
            chain: list[ShiftedIndex] = []  # from this edit back to the first one not yet flat (a loop, no recursion)
            layer: Mapping[str, SpanEntry] = self
            while isinstance(layer, ShiftedIndex) and layer._flat is None:
                chain.append(layer)
                layer = layer._base
            flat = layer._flat if isinstance(layer, ShiftedIndex) else layer
            for edit in reversed(chain):
                flat = {p: _shift(e, edit._after, edit._delta) for p, e in flat.items()
                        if not p.startswith(edit._prefix)}
                flat.update(edit._region)
            self._flat = flat
        return self._flat

    def __iter__(self) -> Iterator[str]:
        return iter(self._flatten())

    def __len__(self) -> int:
        return len(self._flatten())


def _shift(entry: tuple, after: int, delta: int) -> tuple:
    """A span entry with every offset at or past `after` moved by `delta` (the text grew or shrank there)."""
    s, e, ks, ke, kind = entry
    return (s if s < after else s + delta, e if e < after else e + delta,
            ks if ks < after else ks + delta, ke if ke < after or ke < 0 else ke + delta, kind)


def _enclosing_block(document: SourceDocument, pointer: str) -> tuple[str, int, int] | None:
    """The nearest block mapping or sequence (not the root) holding `pointer`, as (pointer, start, end), when
    it begins its own line."""
    probe = pointer.rsplit("/", 1)[0]
    text = document.text
    while probe:
        entry = document.span(probe)
        if entry is not None and entry[4] in ("map", "seq") and text[entry[0]] not in "{[":
            start = entry[0]
            if not text[_line_start(text, start) : start].strip(" -"):
                return probe, start, entry[1]
        probe = probe.rsplit("/", 1)[0]
    return None


def _explain_mismatch(document: SourceDocument, planned: list[tuple[Edit, Splice]]) -> str:
    for edit, _ in planned:
        if _anchored(document, edit.pointer) or _inside_alias(document, edit.pointer):
            return "the value is shared through a YAML anchor/alias: editing it would change other places too"
    return "re-reading the edited text gave a different document than intended"


def _anchored(document: SourceDocument, pointer: str) -> bool:
    """Does the node or one of its ancestors carry a YAML anchor (`&name`)?"""
    probe = pointer
    while probe:
        entry = document.span(probe)
        if entry is not None:
            before = document.text[entry[3] : entry[0]] if entry[3] >= 0 else ""
            if document.text.startswith("&", entry[0]) or "&" in before:
                return True
        probe = probe.rsplit("/", 1)[0]
    return False


def _inside_alias(document: SourceDocument, pointer: str) -> bool:
    probe = pointer
    while probe:
        entry = document.span(probe)
        if entry is not None and entry[4] == "alias":
            return True
        probe = probe.rsplit("/", 1)[0]
    return False


def _with_value(data: Any, tokens: list[str], value: Any, remove: bool = False) -> Any:
    """A copy of `data` with `value` at `tokens` (appended for a list's `-`; gone with `remove`), copying only the
    containers along the path."""
    if not tokens:
        return value
    head, rest = tokens[0], tokens[1:]
    if isinstance(data, dict):
        copy = dict(data)
        copy[head] = _with_value(data.get(head), rest, value, remove)
        return copy
    if isinstance(data, list):
        copy = list(data)
        if not rest and head == "-":
            copy.append(value)
        elif not rest and remove:
            del copy[int(head)]
        else:
            copy[int(head)] = _with_value(data[int(head)], rest, value, remove)
        return copy
    raise EditRefused("/" + "/".join(escape(t) for t in tokens), "the parent is not a mapping or a list")


# -- planning ------------------------------------------------------------------------------------------

def plan_edit(document: SourceDocument, edit: Edit) -> Splice:
    tokens = split(edit.pointer)
    if not tokens:
        raise EditRefused(edit.pointer, "cannot replace the whole document")
    if _inside_alias(document, edit.pointer):
        raise EditRefused(edit.pointer, "the value is reached through a YAML alias: edit the anchored original")
    parent_pointer = edit.pointer.rsplit("/", 1)[0]
    parent = document.span(parent_pointer)
    if parent is not None and parent[4] == "seq" and (edit.remove or tokens[-1] == "-" or (
            isinstance(edit.value, dict) and document.format == "yaml" and document.text[parent[0]] != "[")):
        return _plan_item(document, edit, parent_pointer)  # a mapping in a JSON or flow list: set as any value
    if edit.remove:
        raise EditRefused(edit.pointer, "only a list item can be removed")
    if document.span(edit.pointer) is not None:
        return _plan_set(document, edit)
    if parent is None or parent[4] != "map":
        raise EditRefused(edit.pointer, "its parent is not an existing mapping")
    return _plan_insert(document, edit, tokens[-1], parent_pointer)


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _column_prefix(text: str, offset: int) -> str:
    """Whitespace as wide as the text before `offset` on its line (`  - ` becomes four spaces)."""
    prefix = text[_line_start(text, offset) : offset]
    return prefix if not prefix.strip() else re.sub(r"[^\t]", " ", prefix)


def _in_flow(document: SourceDocument, pointer: str) -> bool:
    parent = document.span(pointer.rsplit("/", 1)[0])
    return parent is not None and document.text[parent[0] : parent[0] + 1] in ("{", "[")


def _indent_unit(document: SourceDocument) -> str:
    match = re.search(r"\n( +|\t+)\S", document.text[:20000])
    if match is None:
        return "  "
    width = len(match.group(1))
    return match.group(1) if match.group(1).startswith("\t") else " " * (width if width <= 4 else 2)


def _plan_set(document: SourceDocument, edit: Edit) -> Splice:
    text = document.text
    start, end, key_start, _key_end, kind = document.span(edit.pointer)
    value = edit.value
    if document.format == "json":
        if kind in ("map", "seq") and text[start] in "{[" and "\n" in text[start:end]:
            indent = _indent_unit(document)
            level = _column_prefix(text, key_start if key_start >= 0 else start)
            return Splice(start, end, render.json_value(value, indent=indent, level_indent=level,
                                                        newline=document.newline))
        return Splice(start, end, render.json_value(value, indent=None, level_indent="", newline=document.newline))
    written = text[start:end]
    prefix = _ANCHOR_OR_TAG.match(written)
    if prefix:
        start += prefix.end()
        written = written[prefix.end() :]
    flow = _in_flow(document, edit.pointer)
    if isinstance(value, list):
        if kind == "seq" and not written.startswith("["):  # a block list: one item a line, at its column
            tail = written[len(written.rstrip()):]  # the line break (and indentation) that ends its span
            return Splice(start, end, render.yaml_block_list(value, _column_prefix(text, start), document.newline)
                          + tail)
        return Splice(start, end, render.yaml_flow_list(value))
    if isinstance(value, dict):
        raise EditRefused(edit.pointer, "replacing a mapping is not supported; edit its keys")
    if kind in ("map", "seq"):
        raise EditRefused(edit.pointer, "the node is a mapping or a list, not a single value")
    if isinstance(value, str) and (kind in ("|", ">") or "\n" in value.rstrip("\n")):
        if flow:
            return Splice(start, end, render.yaml_double_quoted(value))
        return _plan_block(document, edit, start, end, kind, written)
    prefer = {"'": "'", '"': '"'}.get(kind, "plain")
    return Splice(start, end, render.yaml_scalar(value, flow=flow, prefer=prefer))


def _plan_block(document: SourceDocument, edit: Edit, start: int, end: int, kind: str, written: str) -> Splice:
    text = document.text
    key_start = document.span(edit.pointer)[2]
    owner = key_start if key_start >= 0 else start
    if kind in ("|", ">"):
        lines = written.split("\n")
        content = next((line for line in lines[1:] if line.strip()), "")
        indent = content[: len(content) - len(content.lstrip(" "))] or _column_prefix(text, owner) + "  "
        # Keep the blank lines a block scalar swallows at its end: they separate it from what follows.
        body_end = start + len(written.rstrip("\n")) + 1 if written.rstrip("\n") != written else end
        block = render.yaml_block_scalar(edit.value, indent, document.newline, style=kind)
        if not block:
            return Splice(start, end, render.yaml_double_quoted(edit.value))
        return Splice(start, min(body_end, end), block)
    line_end = text.find("\n", end)
    rest = text[end : line_end if line_end >= 0 else len(text)]
    if rest.strip():
        raise EditRefused(edit.pointer, "a comment or text follows the value on its line; a block scalar would "
                                        "swallow it")
    indent = _column_prefix(text, owner) + _indent_unit(document)
    block = render.yaml_block_scalar(edit.value, indent, document.newline)
    if not block:
        return Splice(start, end, render.yaml_double_quoted(edit.value))
    return Splice(start, end, block.rstrip("\r\n"))  # the line's own line break follows


def _plan_insert(document: SourceDocument, edit: Edit, key: str, parent_pointer: str) -> Splice:
    text = document.text
    parent_start, parent_end, *_ = document.span(parent_pointer)
    parent = lookup(document.data, parent_pointer)
    children = [k for k in parent if document.span(f"{parent_pointer}/{escape(k)}") is not None]
    anchor = next((k for k in edit.after if k in parent), None)
    if document.format == "json":
        return _insert_json(document, edit, key, parent_pointer, parent_start, parent_end, children, anchor)
    if text[parent_start] == "{":
        return _insert_yaml_flow(document, edit, key, parent_pointer, parent_start, parent_end, children)
    if not children:
        raise EditRefused(edit.pointer, "the mapping has no keys to take the indentation from")
    first = document.span(f"{parent_pointer}/{escape(children[0])}")
    indent = _column_prefix(text, first[2])
    newline = document.newline
    if anchor is not None:
        at = _after_line(text, document.span(f"{parent_pointer}/{escape(anchor)}")[1])
    elif edit.first and not text[_line_start(text, first[2]) : first[2]].strip():
        at = _line_start(text, first[2])
    elif edit.first:  # the first key shares its line with a `- `: the new key goes right after it
        at = _after_line(text, first[1])
    else:
        at = _after_line(text, document.span(f"{parent_pointer}/{escape(children[-1])}")[1])
    rendered_key = render.yaml_scalar(key)
    value = edit.value
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        block = render.yaml_block_scalar(value, indent + _indent_unit(document), newline)
        line = f"{indent}{rendered_key}: {block}" if block else f"{indent}{rendered_key}: " \
                                                                    f"{render.yaml_double_quoted(value)}{newline}"
    elif isinstance(value, list):
        line = f"{indent}{rendered_key}: {render.yaml_flow_list(value)}{newline}"
    elif isinstance(value, dict):
        raise EditRefused(edit.pointer, "inserting a mapping is not supported")
    else:
        line = f"{indent}{rendered_key}: {render.yaml_scalar(value)}{newline}"
    if at == len(text) and text and not text.endswith("\n"):
        line = newline + line.rstrip("\r\n")
    return Splice(at, at, line)


def _plan_item(document: SourceDocument, edit: Edit, list_pointer: str) -> Splice:
    """A block YAML list's item replaced, appended or removed, as whole lines of its own: its first line from the
    `- ` on, to the end of its last value (a comment after it on that line stays with a replaced item); the
    comments and the other items around it are not touched."""
    text, newline = document.text, document.newline
    items = lookup(document.data, list_pointer)
    start = document.span(list_pointer)[0]
    if document.format != "yaml" or text[start] == "[" or not isinstance(items, list) or not items:
        raise EditRefused(edit.pointer, "list items are spliced in a block YAML list with items only")
    index = len(items) - 1 if split(edit.pointer)[-1] == "-" else int(split(edit.pointer)[-1])
    if not 0 <= index < len(items):
        raise EditRefused(edit.pointer, "no such list item")
    item_start = document.span(f"{list_pointer}/{index}")[0]
    line = _line_start(text, item_start)
    dash = text[line:item_start]
    if not re.fullmatch(r"[ 	]*- +", dash):
        raise EditRefused(edit.pointer, "the item does not start its own line with `- `")
    content_end = _content_end(document, f"{list_pointer}/{index}")
    if edit.remove:
        if len(items) == 1:  # an empty block list would read as null: the list becomes `[]` after its key
            key_end = document.span(list_pointer)[3]
            colon = text.find(":", key_end) if key_end >= 0 else -1
            if colon < 0 or text[key_end:colon].strip():
                return _plan_set(document, Edit(list_pointer, []))
            return Splice(colon + 1, _after_line(text, content_end), f" []{newline}")
        return Splice(line, _after_line(text, content_end), "")
    written = render.yaml_flow_value(edit.value)
    if split(edit.pointer)[-1] == "-":
        at = _after_line(text, content_end)
        item = f"{dash[:dash.index('-')]}- {written}{newline}"
        if at == len(text) and text and not text.endswith("\n"):
            item = newline + item.rstrip("\r\n")
        return Splice(at, at, item)
    return Splice(item_start, content_end, written)


def _content_end(document: SourceDocument, pointer: str) -> int:
    """Where a node's own text ends: a block collection's span runs on over the comments and indentation before
    whatever follows it, so it ends with its last child's content."""
    start, end, _key_start, _key_end, kind = document.span(pointer)
    if kind not in ("map", "seq") or document.text[start] in "{[":
        return end
    value = lookup(document.data, pointer)
    children = list(value) if isinstance(value, dict) else list(range(len(value)))
    if not children:
        return end
    return _content_end(document, f"{pointer}/{escape(str(children[-1]))}")


def _after_line(text: str, offset: int) -> int:
    """The start of the line after the one that `offset` ends on (block scalars already end at one)."""
    if offset > 0 and text[offset - 1] == "\n":
        return offset
    found = text.find("\n", offset)
    return len(text) if found < 0 else found + 1


def _insert_yaml_flow(document: SourceDocument, edit: Edit, key: str, parent_pointer: str, start: int, end: int,
                      children: list[str]) -> Splice:
    item = f"{render.yaml_scalar(key, flow=True)}: "
    value = edit.value
    if isinstance(value, list):
        item += render.yaml_flow_list(value)
    elif isinstance(value, dict):
        raise EditRefused(edit.pointer, "inserting a mapping is not supported")
    else:
        item += render.yaml_scalar(value, flow=True) if not (isinstance(value, str) and "\n" in value) \
            else render.yaml_double_quoted(value)
    if not children:
        inner = document.text[start + 1 : end - 1]
        return Splice(start + 1, end - 1, f"{inner}{item}" if not inner.strip() else item)
    last = document.span(f"{parent_pointer}/{escape(children[-1])}")
    return Splice(last[1], last[1], f", {item}")


def _insert_json(document: SourceDocument, edit: Edit, key: str, parent_pointer: str, start: int, end: int,
                 children: list[str], anchor: str | None) -> Splice:
    text = document.text
    newline = document.newline
    if not children:
        pair = f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(edit.value, ensure_ascii=False)}"
        return Splice(start + 1, end - 1, pair)
    first = document.span(f"{parent_pointer}/{escape(children[0])}")
    multiline = "\n" in text[start : first[2]]
    indent = _column_prefix(text, first[2]) if multiline else ""
    rendered = render.json_value(edit.value, indent=_indent_unit(document) if multiline else None,
                                 level_indent=indent, newline=newline)
    pair = f"{json.dumps(key, ensure_ascii=False)}: {rendered}"
    separator = ("," + newline + indent) if multiline else ", "
    if anchor is None and edit.first:
        return Splice(first[2], first[2], pair + separator)
    sibling = anchor if anchor is not None else children[-1]
    at = document.span(f"{parent_pointer}/{escape(sibling)}")[1]
    return Splice(at, at, separator + pair)
