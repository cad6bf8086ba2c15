"""A source file: its text exactly as on disk, its parsed data, and where every node sits in the text.

Offsets are indices into the decoded text (characters, not bytes). Lines and columns are 1-based and
computed on demand from the offsets.
"""

import bisect
import codecs
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from workbench import lazy_pattern, only_thread
from workbench.spec import limits
from workbench.spec.errors import Problem, SpecError
from workbench.spec.json_parse import covering, index_json, parse_json
from workbench.spec.pointer import MISSING, lookup
from workbench.spec.yaml_parse import SpanEntry, parse_yaml

Format = Literal["json", "yaml"]


class Position(NamedTuple):
    """A place in a text: line and column (1-based, in characters) and offset (0-based)."""

    line: int  # 1-based
    column: int  # 1-based, in characters
    offset: int  # 0-based index into the text


class Location(NamedTuple):
    """Where a node is: the file, its JSON pointer, its value's span and (for mapping members) its key's."""

    file: str
    pointer: str
    start: Position
    end: Position
    key_start: Position | None
    key_end: Position | None
    kind: str  # "map", "seq", "alias", "json" (a JSON string), or a YAML scalar style: plain ' " | >
    exact: bool  # False when the pointer does not exist and this is its nearest existing ancestor

    def __str__(self) -> str:
        return f"{self.file}:{self.start.line}:{self.start.column}"


# A report makes thousands of positions and locations: each is made straight from its values, without the keyword
# handling of a named tuple's `__new__`. The same objects.
_make_tuple = tuple.__new__


def _position(line: int, column: int, offset: int) -> Position:
    return _make_tuple(Position, (line, column, offset))


def _location(file: str, pointer: str, start: Position, end: Position, key_start: Position | None,
              key_end: Position | None, kind: str, exact: bool) -> Location:
    return _make_tuple(Location, (file, pointer, start, end, key_start, key_end, kind, exact))


class SourceDocument:
    """One parsed file. `data` is plain dicts/lists/scalars; mapping keys are always strings. Compared by identity."""

    __slots__ = ("_blocks", "_counted", "_cursor", "_index", "_line_starts", "_partial", "bom", "data", "format",
                 "name", "path", "problems", "refs_written", "text")

    path: Path
    name: str  # how the file is named to the user (as given, or relative to the root document)
    text: str
    format: Format
    data: Any
    bom: bool
    problems: list[Problem]
    _index: Mapping[str, SpanEntry] | None  # an edited copy's is computed
    _line_starts: list[int] | None
    _partial: tuple[set[str], dict[str, SpanEntry]] | None
    _blocks: list[tuple[int, int]] | None  # see _line_blocks
    _counted: int  # positions found from the blocks (the table built after many)
    _cursor: tuple[int, int, int]  # the last of them: offset, line, its start
    # Every string a YAML parse read as the value of a `$ref` key, data included (None: not gathered, as for JSON,
    # whose refs are scanned for in the text): lets the ref check skip its walk when all are local and resolve.
    refs_written: list[str] | None

    def __init__(self, path: Path, name: str, text: str, format: Format, data: Any, bom: bool = False,
                 problems: list[Problem] | None = None, _index: Mapping[str, SpanEntry] | None = None,
                 _line_starts: list[int] | None = None,
                 _partial: tuple[set[str], dict[str, SpanEntry]] | None = None,
                 _blocks: list[tuple[int, int]] | None = None, _counted: int = 0,
                 _cursor: tuple[int, int, int] = (0, 1, 0), refs_written: list[str] | None = None) -> None:
        self.path = path
        self.name = name
        self.text = text
        self.format = format
        self.data = data
        self.bom = bom
        self.problems = [] if problems is None else problems
        self._index = _index
        self._line_starts = _line_starts
        self._partial = _partial
        self._blocks = _blocks
        self._counted = _counted
        self._cursor = _cursor
        self.refs_written = refs_written

    @property
    def newline(self) -> str:
        """The line ending the file uses (for edits written in the file's own style)."""
        return "\r\n" if "\r\n" in self.text[: 64 * 1024] else "\n"

    @property
    def index(self) -> Mapping[str, SpanEntry]:
        if self._index is None:
            if self.format == "yaml":  # parsed without positions (see parse_text): read again, with them
                _, self._index, _ = parse_yaml(self.text, self.name)
            else:
                self._index, _ = index_json(self.text, self.name)
            self._partial = None
        return self._index

    @property
    def is_indexed(self) -> bool:
        """The whole span index is built (asking for any pointer's span is cheap)."""
        return self._index is not None

    def prepare_spans(self, pointers: Iterable[str]) -> None:
        """Make the spans of these pointers (and their ancestors) cheap to ask for, without the whole index when
        it is not built yet: a JSON file's index is built on demand, and a lint places a few thousand nodes of a
        4 MB file. Asking for any other pointer afterwards builds the whole index, as before."""
        if self._index is not None:
            return
        if self.format == "yaml":
            self.index  # noqa: B018 - a YAML file has no partial index: the whole one, read once
            return
        covered = covering(pointers)
        if self._partial is not None:
            covered |= self._partial[0]
        spans, _ = index_json(self.text, self.name, only=covered)
        self._partial = (covered, spans)

    def _entry(self, pointer: str) -> SpanEntry | None:
        partial = self._partial
        if self._index is None and partial is not None and pointer in partial[0]:
            return partial[1].get(pointer)
        return self.index.get(pointer)

    def position(self, offset: int) -> Position:
        starts = self._line_starts
        if starts is None:
            text = self.text
            if 0 <= offset <= len(text) and self._counted < len(text) >> _TABLE_AFTER:
                # Until many positions are asked for, the newlines are counted from the previous position when
                # it is a little before this one (a report asks in file order), else from the start of the
                # offset's block: a report's few thousand positions in a 4 MB file cost 5 ms, the table 9 ms.
                self._counted += 1
                blocks = self._blocks
                if blocks is None:
                    blocks = self._blocks = _line_blocks(text)
                block = offset >> _BLOCK_BITS
                at, line, line_start = self._cursor
                if not block << _BLOCK_BITS < at <= offset:
                    at = block << _BLOCK_BITS
                    line, line_start = blocks[block]
                newlines = text.count("\n", at, offset)
                if newlines:
                    line += newlines
                    line_start = text.rfind("\n", at, offset) + 1
                self._cursor = (offset, line, line_start)
                return _position(line, offset - line_start + 1, offset)
            # a match object per line is half the time of a find() loop
            starts = self._line_starts = [0] + [newline.end() for newline in _NEWLINE.finditer(text)]
        line = bisect.bisect_right(starts, offset)
        return _position(line, offset - starts[line - 1] + 1, offset)

    def span(self, pointer: str) -> SpanEntry | None:
        return self._entry(pointer)

    def locate(self, pointer: str) -> Location:
        """The node at `pointer`, or its nearest existing ancestor (then `exact` is False)."""
        (start, end, key_start, key_end, kind), exact = self._placed(pointer)
        position = self.position
        return _location(self.name, pointer, position(start), position(end),
                         position(key_start) if key_start >= 0 else None,
                         position(key_end) if key_end >= 0 else None, kind, exact)

    def extent(self, pointer: str) -> tuple[Position, Position]:
        """`locate(pointer)`'s `key_start or start` and `end`: where a report marks the node, from its key when it
        is a mapping member. Only these two positions are found (a report of a few thousand findings asked for
        twice as many through `locate`)."""
        (start, end, key_start, _, _), _ = self._placed(pointer)
        return self.position(key_start if key_start >= 0 else start), self.position(end)

    def _placed(self, pointer: str) -> tuple[SpanEntry, bool]:
        """The span entry of `pointer`, or of its nearest existing ancestor, and whether it is the pointer's own."""
        probe = pointer
        entry = self._entry(probe)
        while entry is None and probe:
            probe = probe.rsplit("/", 1)[0]
            entry = self._entry(probe)
        return entry or (0, 0, -1, -1, "map"), probe == pointer

    def source_text(self, pointer: str) -> str | None:
        """The exact text of the node at `pointer` (for declared-as-written values like `openapi: 3.0`)."""
        entry = self._entry(pointer)
        return None if entry is None else self.text[entry[0] : entry[1]]

    def has(self, pointer: str) -> bool:
        try:
            return lookup(self.data, pointer, MISSING) is not MISSING
        except ValueError:  # not a JSON pointer
            return False


_NEWLINE = lazy_pattern("\n")
# Positions without the line table: the text in blocks of 2048 characters, each block's first line and where that
# line starts (str.count goes through a 4 MB text's blocks in 2 ms). After one position per 256 characters of
# text the whole table is built: random access (the window's) is then a bisect.
_BLOCK_BITS = 11
_TABLE_AFTER = 8


def _line_blocks(text: str) -> list[tuple[int, int]]:
    blocks = []
    line, line_start, count, rfind = 1, 0, text.count, text.rfind
    for at in range(0, len(text) + 1, 1 << _BLOCK_BITS):
        blocks.append((line, line_start))
        end = at + (1 << _BLOCK_BITS)
        newlines = count("\n", at, end)
        if newlines:
            line += newlines
            line_start = rfind("\n", at, end) + 1
    return blocks


_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def read_text(path: Path, name: str) -> tuple[str, bool]:
    """Read a file as text, byte for byte (no newline translation). Returns (text, had_bom)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise SpecError("no such file", name, code="file-missing") from None
    except OSError as exc:
        raise SpecError(f"cannot read: {exc.strerror}", name) from None
    if path.is_dir():
        raise SpecError("is a folder, not a file", name)
    if size > limits.MAX_FILE_BYTES:
        raise SpecError(f"file is {size / 2**20:.0f} MiB; the limit is {limits.MAX_FILE_BYTES // 2**20} MiB", name)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(f"cannot read: {exc.strerror}", name) from None
    encoding, bom = "utf-8", False
    for mark, codec in _BOMS:
        if raw.startswith(mark):
            encoding, bom = codec, True
            raw = raw[len(mark):] if codec == "utf-8" else raw
            break
    try:
        # (the threads are counted only for a file big enough to be sliced)
        text = _decode(raw, encoding, sliced=len(raw) > _DECODE_SLICE and not only_thread())
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise SpecError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})", name,
                        line=line, column=column) from None
    if encoding != "utf-8":
        text = text.lstrip("\ufeff")
    return text, bom


# A big file is decoded a slice at a time while another thread runs: one decode of a 4 MB file with a character
# beyond U+FFFF holds the interpreter for 25 ms (the window's UI thread waits that long for it), a slice's about
# 3 ms. Alone (a command line), it is decoded whole: the slices and their join cost more than twice as much (a
# 3.2 MB file with a few accented letters: 17 ms in slices, 7 ms whole).
_DECODE_SLICE = 1 << 19


def _decode(raw: bytes, encoding: str, *, sliced: bool) -> str:
    if not sliced or len(raw) <= _DECODE_SLICE:
        return raw.decode(encoding)
    decoder = codecs.getincrementaldecoder(encoding)()
    view = memoryview(raw)
    try:
        parts = [decoder.decode(view[at:at + _DECODE_SLICE]) for at in range(0, len(raw), _DECODE_SLICE)]
        parts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        return raw.decode(encoding)  # raises again, with the offset in the whole file
    return "".join(parts)


def is_blank(text: str) -> bool:
    """Whether `text` holds nothing but white space (without copying it, as strip() does: 25 ms on 4 MB)."""
    return not text or text.isspace()


def detect_format(text: str) -> Format:
    """By content: a document whose first meaningful character opens a JSON object or array is JSON."""
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        return "json"
    return "yaml"


def parse_document(path: Path, name: str | None = None, *, positions: bool = True) -> SourceDocument:
    """Read and parse one file. Raises SpecError for anything that makes it unusable. Without `positions` a
    YAML file's span index is left to be built when first asked for (a JSON file's always is)."""
    name = name if name is not None else os.fspath(path)
    text, bom = read_text(path, name)
    if is_blank(text):
        raise SpecError("the file is empty", name, code="file-empty")
    return parse_text(text, path, name, bom=bom, positions=positions)


MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")


def parse_text(text: str, path: Path, name: str, *, bom: bool = False, positions: bool = True) -> SourceDocument:
    fmt = detect_format(text)
    problems: list[Problem] = []
    if fmt == "json":
        try:
            data, duplicates = parse_json(text, name)
        except SpecError as json_error:
            # A flow-style YAML document also starts with `{`; only a .json file is held to JSON.
            if path.suffix.lower() == ".json" or json_error.message.startswith("nesting"):
                raise
            refs: list[str] = []
            try:
                data, index, problems = parse_yaml(text, name, spans=positions, refs=refs)
            except SpecError:
                raise json_error from None
            return SourceDocument(path, name, text, "yaml", data, bom, problems, index, refs_written=refs)
        document = SourceDocument(path, name, text, "json", data, bom)
        if duplicates:
            document._index, found = index_json(text, name, find_duplicates=True)
            for problem in found:
                where = document.locate(problem.pointer)
                at = where.key_start or where.start
                problems.append(Problem(problem.code, problem.message, name, problem.pointer, at.line, at.column))
            document.problems = problems
        return document
    refs = []
    try:
        data, index, problems = parse_yaml(text, name, spans=positions, refs=refs)
    except SpecError as exc:
        if exc.code == "syntax" and path.suffix.lower() in MARKDOWN_SUFFIXES:  # not a broken spec: another kind
            raise SpecError(f"not an API description: a Markdown file ({path.suffix}), not YAML or JSON", name,
                            code="not-a-spec") from None
        raise
    return SourceDocument(path, name, text, "yaml", data, bom, problems, index, refs_written=refs)
