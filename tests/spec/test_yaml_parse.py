"""YAML as an API description needs it: 1.1 traps, duplicates, aliases, nesting, positions."""

from __future__ import annotations

import contextlib
import math
import subprocess
import sys
import time

import pytest

from workbench.spec import SpecError, limits
from workbench.spec.yaml_parse import parse_yaml


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


@pytest.mark.parametrize("spans", [True, False])
def test_a_number_longer_than_python_reads_is_refused_with_its_place(spans):
    with pytest.raises(SpecError, match="more than 4,300 digits") as info:
        parse_yaml("a:\n  b: " + "9" * 5000 + "\n", "t.yaml", spans=spans)
    assert (info.value.line, info.value.column) == (2, 6)


# -- the events, made without running Python code -------------------------------------------------------------

# Every kind of event and every path of the loop that reads one: tags, anchors and aliases (as values and as keys),
# merge keys, block and flow collections, duplicates, quoting styles, a second document, keys needing escapes.
EVERY_EVENT = """%YAML 1.1
---
base: &base {a: 1, 'b': "two"}
list: &items [x, !!str 3, !!int "4", !!float 5, !!bool yes, !!null ~, !Ref local]
key: &k name
*k : aliased key
merged:
  <<: *base
  c: *items
  "a/b~c": |
    block
  folded: >
    folded
  dup: 1
  dup: 2
top: *base
---
second: document
"""


def _parse_every_way(text):
    return [parse_yaml(text, "t.yaml", spans=spans, refs=[]) for spans in (True, False)]


def test_events_made_as_the_parser_s_own_classes_read_the_same(monkeypatch):
    from workbench.spec import yaml_parse

    assert yaml_parse._c_events()  # (this PyYAML has libyaml, and passes the fields in the order read)
    made = _parse_every_way(EVERY_EVENT)
    data, index, problems = made[0]
    assert data["merged"] == {"a": 1, "b": "two", "c": ["x", "3", 4, 5.0, True, None, "local"], "a/b~c": "block\n",
                              "folded": "folded\n", "dup": 2} and data["name"] == "aliased key"
    assert [p.code for p in problems] == ["duplicate-key", "multiple-documents"]
    alias_key = EVERY_EVENT.index("*k :")
    assert index["/merged/a~1b~0c"][4] == "|" and index["/name"][2:4] == (alias_key, alias_key + 2)
    monkeypatch.setattr(yaml_parse, "_made_in_c", False)  # each of PyYAML's own events copied instead
    assert repr(_parse_every_way(EVERY_EVENT)) == repr(made)
    import yaml

    monkeypatch.setattr(yaml_parse, "_EventLoader", yaml.SafeLoader)  # its pure-Python parser
    assert repr(_parse_every_way(EVERY_EVENT)) == repr(made)


@pytest.mark.parametrize("text", ["a: [1, 2", "a: *nowhere\n", "a: &x [*x]\n", "a: !!int nine\n", "ok: 1\n"])
def test_the_parser_s_own_event_classes_are_back_after_every_parse(text):
    import yaml
    import yaml._yaml

    with contextlib.suppress(SpecError):
        parse_yaml(text, "t.yaml")
    assert all(getattr(yaml._yaml, name) is getattr(yaml.events, name)
               for name in ("ScalarEvent", "AliasEvent", "MappingStartEvent", "SequenceEndEvent"))
    assert [type(event) for event in yaml.parse("a: 1\n", Loader=yaml.CSafeLoader)][3] is yaml.ScalarEvent


def test_parses_in_two_threads_at_once_read_what_one_reads(corpus):
    import threading

    text = (corpus / "twilio-verify-v2.yaml").read_text(encoding="utf-8")
    alone = repr(parse_yaml(text, "t.yaml")), repr(parse_yaml(EVERY_EVENT, "t.yaml"))
    results: list[tuple[str, str]] = []

    def parse(times):
        for _ in range(times):
            results.append((repr(parse_yaml(text, "t.yaml")), repr(parse_yaml(EVERY_EVENT, "t.yaml"))))

    threads = [threading.Thread(target=parse, args=(3,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert results == [alone] * 6
