"""Reading files: encodings, formats by content, bad input, and exact positions."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from unittest import mock

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench import only_thread
from workbench.spec import SpecError, source
from workbench.spec.json_parse import covering, index_json, parse_json
from workbench.spec.pointer import lookup, unescape
from workbench.spec.source import parse_document, parse_text
from workbench.spec.yaml_parse import resolve_plain


def test_json_detected_by_content_whatever_the_extension(write):
    doc = parse_document(write("spec.yaml", '{"openapi": "3.1.0"}'))
    assert doc.format == "json"
    doc = parse_document(write("spec.json.txt", "openapi: 3.1.0\n"))
    assert doc.format == "yaml"


def test_flow_yaml_starting_with_a_brace_still_loads(write):
    doc = parse_document(write("spec.yaml", "{openapi: 3.1.0, info: {title: t}}\n"))
    assert doc.data == {"openapi": "3.1.0", "info": {"title": "t"}}


def test_empty_file(write):
    with pytest.raises(SpecError, match="empty"):
        parse_document(write("e.yaml", "  \n\n"))


def test_not_utf8_names_line_and_column(write):
    with pytest.raises(SpecError) as info:
        parse_document(write("bad.yaml", b"a: 1\nb: caf\xe9\n"))
    assert (info.value.line, info.value.column) == (2, 7)
    assert "not UTF-8" in str(info.value)


def test_a_big_file_reads_the_same_and_its_bad_byte_is_placed_however_far_in(write):
    # Past the first slice a big file is decoded in, with characters of every width across the slice edges.
    lines = [f"k{i}: \"{'é😀x' * (i % 7)}\"" for i in range(60_000)]
    text = "\n".join(lines) + "\n"
    doc = parse_document(write("big.yaml", text.encode()))
    assert doc.text == text and doc.data["k59999"] == "é😀x" * (59999 % 7)
    line = 50_000
    raw = "\n".join(lines[: line - 1]).encode() + b"\nb: caf\xe9\n"
    with pytest.raises(SpecError) as info:
        parse_document(write("bad.yaml", raw))
    assert (info.value.line, info.value.column) == (line, 7)
    with pytest.raises(SpecError, match="empty"):
        parse_document(write("blank.yaml", " \n" * 400_000))


@pytest.mark.parametrize("sliced", [False, True])
def test_a_big_text_decodes_the_same_whole_or_in_slices(sliced):
    # Whole when nothing else runs (a command line), in slices beside another thread (the window's): the same text,
    # and the same error offset, with characters of every width across the slice edges.
    text = "".join(f"k{i}: \"{'é😀x' * (i % 7)}\"\n" for i in range(60_000))
    raw = text.encode()
    assert len(raw) > 3 * source._DECODE_SLICE
    assert source._decode(raw, "utf-8", sliced=sliced) == text
    at = raw.index(b"\n", 2 * source._DECODE_SLICE) + 1  # a line's start, past two slices
    with pytest.raises(UnicodeDecodeError) as info:
        source._decode(raw[:at] + b"\xe9" + raw[at:], "utf-8", sliced=sliced)
    assert info.value.start == at


def test_only_thread_counts_every_thread_of_the_process():
    if not sys.platform.startswith("linux"):
        assert not only_thread()
        return
    release = threading.Event()
    helper = threading.Thread(target=release.wait)
    helper.start()
    try:
        assert not only_thread()
    finally:
        release.set()
        helper.join()
    check = "import sys, workbench; sys.exit(0 if workbench.only_thread() else 1)"
    alone = subprocess.run([sys.executable, "-c", check], timeout=60)
    assert alone.returncode == 0


def test_utf8_bom_is_accepted_and_offsets_are_after_it(write):
    doc = parse_document(write("bom.json", b'\xef\xbb\xbf{"a": "b"}'))
    assert doc.bom and doc.data == {"a": "b"}
    assert doc.locate("/a").start.column == 7


def test_utf16_with_bom(write):
    doc = parse_document(write("u16.json", '{"a": "b"}'.encode("utf-16")))
    assert doc.data == {"a": "b"}


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(SpecError, match="no such file"):
        parse_document(tmp_path / "nope.yaml")
    with pytest.raises(SpecError, match="folder"):
        parse_document(tmp_path)


def test_json_syntax_error_line_and_column(write):
    with pytest.raises(SpecError) as info:
        parse_document(write("bad.json", '{\n  "a": 1,\n  "b": \n}\n'))
    assert (info.value.line, info.value.column) == (4, 1)


def test_json_duplicate_keys_are_located(write):
    doc = parse_document(write("d.json", '{\n "info": {"title": "a",\n  "title": "b"}}'))
    assert [(p.code, p.pointer, p.line, p.column) for p in doc.problems] == [("duplicate-key", "/info/title", 3, 3)]


def test_json_too_deep_is_refused(write):
    with pytest.raises(SpecError, match="nesting deeper"):
        parse_document(write("deep.json", "[" * 50_000 + "]" * 50_000))


def test_locate_gives_one_based_lines_and_falls_back_to_ancestor(write):
    text = 'openapi: 3.1.0\npaths:\n  /a:\n    get:\n      summary: "Hi"\n'
    doc = parse_document(write("s.yaml", text))
    where = doc.locate("/paths/~1a/get/summary")
    assert (where.start.line, where.start.column, where.end.line, where.end.column) == (5, 16, 5, 20)
    assert (where.key_start.line, where.key_start.column) == (5, 7)
    assert where.kind == '"' and where.exact
    missing = doc.locate("/paths/~1a/get/description")
    assert not missing.exact and missing.start.line == 5  # the operation's mapping starts at `summary`


def test_crlf_is_kept_byte_for_byte(write):
    doc = parse_document(write("c.yaml", b"a: 1\r\nb: two\r\n"))
    assert doc.text == "a: 1\r\nb: two\r\n" and doc.newline == "\r\n"
    where = doc.locate("/b")
    assert (where.start.line, where.start.column) == (2, 4)
    assert doc.text[where.start.offset:where.end.offset] == "two"


# Property: for any JSON-able document, written as JSON (indented or not) or as YAML (block or flow),
# every node's span re-parses to exactly the node.
_keys = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)
_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
                       max_leaves=25)


def _strings(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    else:
        yield value


def _check_spans(doc, parse_fragment):
    for pointer, (start, end, key_start, key_end, _kind) in doc.index.items():
        assert parse_fragment(doc.text[start:end]) == lookup(doc.data, pointer), pointer
        if key_start >= 0:
            assert parse_fragment(doc.text[key_start:key_end]) == pointer.rsplit("/", 1)[1].replace(
                "~1", "/").replace("~0", "~"), pointer


@settings(max_examples=150, deadline=None)
@given(value=st.dictionaries(_keys, _values, min_size=1, max_size=5), indent=st.sampled_from([None, 2, 4]))
def test_json_spans_round_trip(tmp_path_factory, value, indent):
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    doc = parse_text(text, tmp_path_factory.getbasetemp() / "x.json", "x.json")
    _check_spans(doc, json.loads)


# JSON as people and tools write it, not only as json.dumps does: keys with `~`, `/`, quotes, backslashes and
# non-ASCII letters, raw or escaped (`\u00e9`, `\/`); strings holding brackets and quotes; empty and nested
# containers; any whitespace between tokens; and repeated keys (the later one is the one read).
_awkward = st.lists(st.sampled_from([*'ab~/"\\é{}[]:, ', "~0", "~1", "😀", "\x01"]), max_size=4).map("".join)
_trees = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | _awkward,
    lambda inner: st.tuples(st.just("["), st.lists(inner, max_size=4))
    | st.tuples(st.just("{"), st.lists(st.tuples(_awkward, inner), max_size=4)),
    max_leaves=30)
_gaps = st.lists(st.sampled_from(["", " ", "\n", "\t", "\r\n", "\n    ", " \t "]), min_size=1, max_size=6)


def _write(tree, gaps, ascii_keys, slash_escaped):
    """JSON text of a tree of `_trees`, the whitespace between tokens taken in turn from `gaps`."""
    turn = iter(range(10**9))

    def gap():
        return gaps[next(turn) % len(gaps)]

    def key(text):
        written = json.dumps(text, ensure_ascii=ascii_keys)
        return written.replace("/", "\\/") if slash_escaped else written

    def value(node):
        if isinstance(node, tuple) and node[0] == "[":
            return "[" + gap() + f"{gap()},{gap()}".join(value(item) for item in node[1]) + gap() + "]"
        if isinstance(node, tuple):
            members = (f"{key(name)}{gap()}:{gap()}{value(item)}" for name, item in node[1])
            return "{" + gap() + f"{gap()},{gap()}".join(members) + gap() + "}"
        return json.dumps(node, ensure_ascii=not ascii_keys)

    return gap() + value(tree) + gap()


_json_texts = st.one_of(
    st.builds(lambda value, indent: json.dumps(value, indent=indent, ensure_ascii=indent is None),  # escaped
              st.dictionaries(_keys, _values, min_size=1, max_size=5), st.sampled_from([None, 2])),  # and raw keys
    st.builds(_write, st.tuples(st.just("{"), st.lists(st.tuples(_awkward, _trees), min_size=1, max_size=5)),
              _gaps, st.booleans(), st.booleans()))


@settings(max_examples=300, deadline=None)
@given(text=_json_texts, data=st.data())
def test_spans_prepared_for_some_pointers_are_the_whole_indexs(tmp_path_factory, text, data):
    whole = parse_text(text, tmp_path_factory.getbasetemp() / "x.json", "x.json").index
    doc = parse_text(text, tmp_path_factory.getbasetemp() / "x.json", "x.json")
    asked = data.draw(st.lists(st.sampled_from(sorted(whole)), max_size=6))
    missing = [f"{asked[0] if asked else ''}/no-such-key~1x", "/~2", "/a~"]  # prepared too: said absent
    # and the asked ones' keys as written, unescaped (`/~` for `/~0`): no key's pointer, or another key's
    missing += [f"{parent}/{unescape(segment)}" for parent, _, segment in (p.rpartition("/") for p in asked)]
    # The partial index is exactly the whole one restricted to what it was asked for and their ancestors.
    covered = covering(asked + missing)
    partial, _ = index_json(text, "x.json", only=covered)
    assert partial == {pointer: whole[pointer] for pointer in covered if pointer in whole}
    lazy = doc._index is None  # (a file with repeated keys is indexed whole as it is read, to place them)
    assert lazy is not parse_json(text, "x.json")[1]  # and only such a file
    doc.prepare_spans(asked + missing)
    for pointer in asked:
        assert doc.span(pointer) == whole[pointer]
        assert doc.locate(pointer).start.offset == whole[pointer][0]
    assert doc.span(missing[0]) is None
    assert doc.locate(missing[0]).exact is False
    assert (doc._index is None) == lazy  # nothing asked for beyond what was prepared: no whole index built
    other = next((p for p in whole if p not in covered), None)
    if other is not None:  # anything else: the whole index, as before
        assert doc.span(other) == whole[other] and doc._index is not None


@settings(max_examples=150, deadline=None)
@given(value=st.dictionaries(_keys, _values, min_size=1, max_size=5), flow=st.booleans())
def test_yaml_spans_round_trip(tmp_path_factory, value, flow):
    # PyYAML writes YAML 1.1: it leaves `0E0` or `1e5` unquoted as strings, which YAML 1.2 (and js-yaml, as the
    # peers read specs) reads as numbers. That difference is pinned in test_yaml_parse; here only spans matter.
    assume(not any(isinstance(s, str) and resolve_plain(s) != s for s in _strings(value)))
    text = yaml.safe_dump(value, allow_unicode=True, default_flow_style=flow, sort_keys=False)
    doc = parse_text(text, tmp_path_factory.getbasetemp() / "x.yaml", "x.yaml")
    assert doc.data == value
    for pointer, (start, end, _ks, _ke, kind) in doc.index.items():
        if kind in ("'", '"') or (kind == "plain" and start < end):
            # A scalar's span is the scalar as written: alone, it reads back as the same value.
            assert yaml.safe_load(doc.text[start:end]) == lookup(doc.data, pointer), pointer
        if pointer:
            parent = doc.index[pointer.rsplit("/", 1)[0]]
            assert parent[0] <= start <= end <= parent[1], pointer


def test_a_yaml_file_read_without_positions_places_nodes_as_one_read_with_them(tmp_path):
    from tests.catalogue import corpus_file

    path = corpus_file("twilio-verify-v2.yaml")
    eager = parse_document(path, "v.yaml")
    lazy = parse_document(path, "v.yaml", positions=False)
    assert lazy.data == eager.data and lazy.problems == eager.problems
    assert lazy._index is None  # nothing asked for a place yet: the span index is not built
    pointer = "/paths/~1v2~1Services/post/requestBody"
    assert eager.span(pointer) is not None
    assert lazy.locate(pointer) == eager.locate(pointer)
    assert lazy.index == eager.index


def test_a_yaml_duplicate_key_is_located_without_positions_too(write):
    path = write("d.yaml", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\npaths: {}\n")
    problem, = parse_document(path, "d.yaml", positions=False).problems
    assert (problem.code, problem.pointer, problem.line) == ("duplicate-key", "/paths", 4)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.text(alphabet="ab\r", max_size=300), min_size=1, max_size=60), data=st.data())
def test_positions_counted_without_the_line_table_are_the_tables(tmp_path_factory, lines, data):
    text = "\n".join(lines)
    offsets = data.draw(st.lists(st.integers(0, len(text)), max_size=40))
    offsets += sorted(offsets)  # in file order too, as a report asks
    doc = parse_text(text or "x", tmp_path_factory.getbasetemp() / "x.yaml", "x.yaml")
    table = parse_text(text or "x", tmp_path_factory.getbasetemp() / "x.yaml", "x.yaml")
    table.position(-1)  # builds the whole line table
    assert table._line_starts is not None
    with mock.patch.object(source, "_BLOCK_BITS", 4), mock.patch.object(source, "_TABLE_AFTER", 0):
        # blocks of 16 characters, and no table before one position per character of text
        counted = [doc.position(offset) for offset in offsets]
    assert counted == [table.position(offset) for offset in offsets]
    assert doc._line_starts is None or len(offsets) > len(text)


def test_positions_and_locations_made_from_their_values_equal_the_named_tuples_own():
    from workbench.spec import source

    # `_position` and `_location` pass the values in the fields' order, without naming them.
    assert source.Position._fields == ("line", "column", "offset")
    assert source.Location._fields == ("file", "pointer", "start", "end", "key_start", "key_end", "kind", "exact")
    start, end = source.Position(3, 4, 40), source.Position(5, 1, 60)
    made_start = source._position(3, 4, 40)
    assert type(made_start) is source.Position and made_start == start and repr(made_start) == repr(start)
    assert (made_start.line, made_start.column, made_start.offset) == (3, 4, 40)
    made = source._location("a.yaml", "/paths", start, end, None, end, "map", True)
    assert type(made) is source.Location
    assert made == source.Location("a.yaml", "/paths", start, end, None, end, "map", True)
    assert repr(made) == repr(source.Location("a.yaml", "/paths", start, end, None, end, "map", True))
    assert str(made) == "a.yaml:3:4"


@pytest.mark.parametrize("name, text", [
    ("s.json", '{"a": {"b": [1, {"c": "x"}], "d~e/f": true}, "g": []}'),
    ("s.yaml", "a:\n  b:\n    - 1\n    - c: x\n  d~e/f: true\ng: []\n"),
])
def test_extent_is_the_key_or_value_start_and_the_end_that_locate_gives(tmp_path, name, text):
    # A report asks `extent` for the two positions it shows instead of `locate` for four: the same ones, for a
    # member (from its key), an array element and the root (no key), and a missing pointer (its nearest ancestor).
    path = tmp_path / name
    path.write_text(text)
    document = parse_document(path)
    for pointer in ("", "/a", "/a/b", "/a/b/0", "/a/b/1/c", "/a/d~0e~1f", "/g", "/a/b/1/nothing", "/nowhere/x"):
        where = parse_document(path).locate(pointer)  # a fresh document: each asks in its own order
        assert document.extent(pointer) == ((where.key_start or where.start), where.end), pointer


def test_a_json_number_longer_than_python_reads_is_refused_with_its_place():
    with pytest.raises(SpecError, match="more than 4,300 digits") as info:
        parse_json('{"s": "' + "1" * 5000 + '",\n "a": -' + "9" * 5000 + "}", "t.json")
    assert (info.value.line, info.value.column) == (2, 8)  # the number, not the string of digits before it
