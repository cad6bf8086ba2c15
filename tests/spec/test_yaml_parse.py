"""YAML as an API description needs it: 1.1 traps, duplicates, aliases, nesting, positions."""

from __future__ import annotations

import math
import subprocess
import sys
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.catalogue import corpus_file
from workbench.spec import SpecError, limits
from workbench.spec.yaml_parse import parse_yaml, read_fast


def load(text: str):
    data, index, problems = parse_yaml(text, "t.yaml")
    return data, index, problems


def test_response_codes_written_as_ints_are_string_keys():
    data, _, _ = load("responses:\n  200:\n    description: ok\n  '404':\n    description: nf\n  4XX: {}\n")
    assert list(data["responses"]) == ["200", "404", "4XX"]


def test_yaml_11_booleans_stay_strings_as_keys_and_values():
    data, _, _ = load("on: push\nyes: 1\nenum: [yes, no, on, off, y, n]\nflag: true\nother: False\n")
    assert data == {"on": "push", "yes": 1, "enum": ["yes", "no", "on", "off", "y", "n"], "flag": True,
                    "other": False}


def test_timestamps_and_versions_stay_as_written():
    data, _, _ = load("created: 2001-12-14t21:59:43.10-05:00\nday: 2024-01-31\nopenapi: 3.0.3\nv: 1.10\n")
    assert data["created"] == "2001-12-14t21:59:43.10-05:00"
    assert data["day"] == "2024-01-31"
    assert data["openapi"] == "3.0.3"
    assert data["v"] == 1.1  # a plain number is a number; the text is kept in the span index


def test_exponent_without_a_dot_is_a_number_as_in_yaml_12_and_js_yaml():
    data, _, _ = load("a: 1e3\nb: 0E0\nc: '1e3'\n")
    assert data == {"a": 1000.0, "b": 0.0, "c": "1e3"}


def test_core_schema_scalars():
    data, _, _ = load("a: ~\nb: null\nc: 12\nd: -3.5e2\ne: 0x1F\nf: 0o17\ng: .inf\nh: '12'\ni: 012\nj: 1_000\n")
    assert data == {"a": None, "b": None, "c": 12, "d": -350.0, "e": 31, "f": 15, "g": float("inf"), "h": "12",
                    "i": 12, "j": "1_000"}


def test_core_schema_hex_and_nan_exactly():
    # `0x` takes hex digits only (Python's int() would also take a second `0x`, a sign or an underscore), and only
    # infinity takes a sign.
    data, _, _ = load("a: 0x0x5\nb: 0x-1\nc: 0x1_0\nd: +.nan\ne: -.NaN\nf: --.inf\ng: +.inf\nh: -.Inf\ni: .NaN\n")
    assert [data[k] for k in "abcdef"] == ["0x0x5", "0x-1", "0x1_0", "+.nan", "-.NaN", "--.inf"]
    assert (data["g"], data["h"]) == (float("inf"), float("-inf"))
    assert math.isnan(data["i"])


def test_explicit_tags():
    data, _, _ = load("a: !!str 12\nb: !!int '7'\nc: !Custom text\n")
    assert data == {"a": "12", "b": 7, "c": "text"}


def test_duplicate_keys_are_reported_with_place():
    data, _, problems = load("info:\n  title: A\n  title: B\n")
    assert data["info"]["title"] == "B"
    assert [(p.code, p.pointer, p.line) for p in problems] == [("duplicate-key", "/info/title", 3)]


def test_merge_keys_and_aliases():
    text = "base: &b {type: string, maxLength: 5}\nuse:\n  <<: *b\n  maxLength: 9\nsame: *b\nquoted:\n  '<<': x\n"
    data, index, _ = load(text)
    assert data["use"] == {"type": "string", "maxLength": 9}
    assert data["same"] is data["base"]
    assert data["quoted"] == {"<<": "x"}
    assert index["/same"][4] == "alias"


def test_alias_bomb_is_refused_fast():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    started = time.monotonic()
    with pytest.raises(SpecError, match="alias bomb"):
        load("\n".join(lines) + "\n")
    assert time.monotonic() - started < 5


def test_recursive_alias_is_refused():
    with pytest.raises(SpecError, match="recursive alias"):
        load("a: &x\n  b: *x\n")


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,
    "a: " + "{b: " * 100_000 + "}" * 100_000,
    "- " * 100_000 + "x\n",
])
def test_nesting_past_the_limit_is_refused_fast_without_crashing(text):
    started = time.monotonic()
    with pytest.raises(SpecError, match=f"nesting deeper than {limits.MAX_NESTING}"):
        load(text)
    assert time.monotonic() - started < 5


def test_nesting_below_the_limit_loads():
    depth = limits.MAX_NESTING - 1
    data, _, _ = load("[" * depth + "1" + "]" * depth)
    for _ in range(depth):
        data = data[0]
    assert data == 1


def test_syntax_error_names_line_and_column():
    with pytest.raises(SpecError) as info:
        load("a: 1\nb: [1, 2\nc: 3\n")
    assert info.value.line == 3
    assert info.value.column is not None
    assert "YAML syntax error" in str(info.value)


def test_spans_use_character_offsets_and_survive_crlf():
    text = "a: 1\r\nb:\r\n  c: 'é x'\r\n"
    _, index, _ = load(text)
    start, end, key_start, key_end, style = index["/b/c"]
    assert text[start:end] == "'é x'"
    assert text[key_start:key_end] == "c"
    assert style == "'"


def test_block_scalar_style_and_span():
    text = "d: |\n  line one\n  line two\ne: x\n"
    data, index, _ = load(text)
    assert data["d"] == "line one\nline two\n"
    assert index["/d"][4] == "|"


def test_second_document_is_reported():
    _, _, problems = load("a: 1\n---\nb: 2\n")
    assert [p.code for p in problems] == ["multiple-documents"]


# Run in a fresh interpreter, where PyYAML is not imported yet: the first parse imports it.
_DEFERRED_CHECK = r"""
import re, sys, threading
compile_before = re.compile
if sys.argv[1] == "thread":
    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
from workbench.spec.yaml_parse import parse_yaml
data, _, _ = parse_yaml("a: yes\nb: 1\n", "x.yaml")
assert data == {"a": "yes", "b": 1}, data
import yaml
assert re.compile is compile_before
deferred = not isinstance(yaml.reader.Reader.NON_PRINTABLE, re.Pattern)
resolvers = [regexp for pairs in yaml.SafeLoader.yaml_implicit_resolvers.values() for _, regexp in pairs]
assert all(isinstance(r, re.Pattern) for r in resolvers) != deferred
# PyYAML's own pure-Python loader reads and refuses as it always did, its patterns compiled when it needs them.
assert yaml.load("a: yes\nb: 2001-12-14\nc: 0x1F\nd: ~\n", Loader=yaml.SafeLoader) == \
    {"a": True, "b": __import__("datetime").date(2001, 12, 14), "c": 31, "d": None}
try:
    yaml.load('a: "\x07"', Loader=yaml.SafeLoader)
except yaml.reader.ReaderError:
    pass
else:
    raise AssertionError("a control character was read")
print("deferred" if deferred else "compiled")
if sys.argv[1] == "thread":
    stop.set()
    helper.join()
"""


@pytest.mark.parametrize(("threads", "expected"), [("alone", "deferred"), ("thread", "compiled")])
def test_pyyaml_patterns_are_compiled_when_first_used_in_a_process_of_one_thread(threads, expected):
    run = subprocess.run([sys.executable, "-c", _DEFERRED_CHECK, threads], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [expected]



# The fast reading (`read_fast`, yaml-rs) is used without spans only where it reads exactly what the loop reads.

def same(a, b) -> bool:
    """Equal, type for type (1 is not 1.0 nor True), NaN equal to NaN, keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def by_loop(text: str):
    refs: list[str] = []
    data, _, problems = parse_yaml(text, "t.yaml", spans=True, refs=refs)  # (spans: never the fast reading)
    return data, refs, problems


def assert_fast_reads_as_loop(text: str) -> bool:
    """The fast reading declines, or gives the loop's data and `$ref`s; whether it read the text."""
    fast = read_fast(text)
    try:
        data, refs, problems = by_loop(text)
    except SpecError:
        assert fast is None, f"the loop refuses {text!r}, the fast reading read {fast!r}"
        return False
    if fast is not None:
        assert not problems
        assert same(fast[0], data), (text, fast[0], data)
        assert sorted(fast[1]) == sorted(refs)
    return fast is not None


# Plain scalars spelt from the characters numbers, booleans and nulls are made of, as values, keys and items.
_SPELLINGS = st.text(st.sampled_from("0123456789+-._eExXoObBaAfFiInNlLuUtTrRsS~"), min_size=1, max_size=8)


@settings(max_examples=600, deadline=None)
@given(spelling=_SPELLINGS, form=st.sampled_from(["k: {}\n", "{}: v\n", "- {}\n", "[{}]\n", "{{{}: 1}}\n",
                                                   "a:\n  {}: v\n", "- {}: v\n"]))
def test_fast_reading_reads_every_plain_scalar_as_the_loop_does(spelling, form):
    assert_fast_reads_as_loop(form.format(spelling))


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30) | st.sampled_from(
    ["", " lead", "trail ", "a: b", "- x", "#c", "x # y", "'q'", '"d"', "\\", "line\nbreak", "l1\n\nl2\n", "\t",
     "1_000", "0x1F", "0b1", "-0", "yes", "~", "null", "<<", "&a", "*a", "!t", "? k", "%x", "---", "...", "@", "`"])
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) |
                       st.dictionaries(_TEXT | st.sampled_from(["$ref", "200", "0200", "+1"]), inner, max_size=4),
                       max_leaves=20)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_VALUES, style=st.sampled_from([None, '"', "'", "|", ">"]), flow=st.sampled_from([None, True, False]),
       width=st.sampled_from([20, 80]), unicode=st.booleans(), indent=st.sampled_from([2, 4]))
def test_fast_reading_reads_what_the_loop_reads(value, style, flow, width, unicode, indent):
    text = yaml.safe_dump({"v": value, "$ref": "#/v"}, default_style=style, default_flow_style=flow, width=width,
                          allow_unicode=unicode, indent=indent, sort_keys=False)
    assert_fast_reads_as_loop(text)


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n",  # an alias
    "a: 1\na: 2\n",  # a duplicate key
    "200: a\n'200': b\n",  # the same key, once as a number
    "base: {a: 1}\nuse:\n  <<: {b: 2}\n",  # a merge key
    "a: 1\n---\nb: 2\n", "a: 1\n...\n",  # a second document
    "%YAML 1.2\n---\na: 1\n",  # a directive
    "a: !!str 12\n", "a: !Ref x\n", "- !t x\n", "a: &x !t y\n",  # tags
    "? a\n: 1\n", "{? a: 1}\n",  # explicit keys
    "a: 1_000\n", "a: _1\n", "a: 0b101\n", "a: 0X1F\n", "a: 0O7\n", "a: -0x1\n", "a: 0x1_0\n", "a: [1, 2_0]\n",
    "0200: a\n", "+1: a\n", "-0: a\n", "0x1F: a\n", "- 0o7: a\n", "{0200: a}\n", "a: {b: 1, 010: c}\n",
    "true: a\n", "null: a\n", "1.5: a\n", "9" * 5000 + ": a\n",  # keys that are not text (or too long to be)
    "a: x\ty\n", "a: x\x01y\n", "a: x\x85y\n", "a: x\u2028y\n", "a: x\ufeffy\n", "a: x\ufffey\n",
    "- " * 100 + "\n" + " " * 200 + "x\n",  # indentation that deep
])
def test_fast_reading_leaves_to_the_loop_what_it_may_read_otherwise(text):
    assert read_fast(text) is None
    assert_fast_reads_as_loop(text)


def test_fast_reading_reads_response_codes_as_text_and_gathers_refs():
    text = ("paths:\n  /a:\n    get:\n      responses:\n        200: {$ref: '#/r'}\n"
            "        4XX:\n          $ref: \"#/s\"\n")
    data, refs = read_fast(text)
    assert data == by_loop(text)[0]
    assert list(data["paths"]["/a"]["get"]["responses"]) == ["200", "4XX"]
    assert sorted(refs) == ["#/r", "#/s"]


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,
    "a: " + "{b: " * 100_000 + "}" * 100_000,
    "- " * 100_000 + "x\n",
    "".join(" " * i + "a:\n" for i in range(30_000)),
])
def test_nesting_past_the_limit_is_refused_without_spans_too(text):
    started = time.monotonic()
    with pytest.raises(SpecError, match=f"nesting deeper than {limits.MAX_NESTING}"):
        parse_yaml(text, "t.yaml", spans=False)
    assert time.monotonic() - started < 10


def test_alias_bomb_is_refused_without_spans_too():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    with pytest.raises(SpecError, match="alias bomb"):
        parse_yaml("\n".join(lines) + "\n", "t.yaml", spans=False)


def test_duplicates_are_reported_without_spans_too():
    _, _, problems = parse_yaml("info:\n  title: A\n  title: B\n", "t.yaml", spans=False)
    assert [(p.code, p.pointer, p.line) for p in problems] == [("duplicate-key", "/info/title", 3)]


def test_a_large_corpus_spec_is_read_fast_as_the_loop_reads_it():
    text = corpus_file("openai-openapi.yaml").read_text(encoding="utf-8")
    assert assert_fast_reads_as_loop(text)  # (read fast: nothing in it may read otherwise)


@pytest.mark.parametrize("spans", [True, False])
def test_a_number_longer_than_python_reads_is_refused_with_its_place(spans):
    with pytest.raises(SpecError, match="more than 4,300 digits") as info:
        parse_yaml("a:\n  b: " + "9" * 5000 + "\n", "t.yaml", spans=spans)
    assert (info.value.line, info.value.column) == (2, 6)
