"""Token estimates: the bundled o200k_base table and the byte-pair merge count what the bpe-openai Rust tokenizer
counted before them, on real tool definitions and on the texts where two tokenizers could part (special-token
text, contractions, every kind of white space, every code point, lone surrogates), with its refusals; the table
loads only when a count is asked for, and without it (or unreadable) counts fall back to the rule of thumb.

o200k_counts.json holds the counts. They were recorded with the tokenizer of commit 14694fe (bpe-openai 0.1.4's
Rust core, `workbench.tools.tokens.count` as it was then): `python -m tests.tools.test_tokens OUT.json`, this module
run on that checkout, writes the file: its texts (the edge texts and the real tool definitions of `real_texts`, as
converted then) with their counts, and the counts of the texts `generated_texts` makes (with no randomness that
could change between versions).
"""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import sys
import unicodedata
import zlib
from pathlib import Path

import pytest
import regex

from tests.catalogue import GITHUB, TRAVEL, corpus_file
from workbench.examples import example_path
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, Scope, convert, tokens

RECORDED = Path(__file__).with_name("o200k_counts.json")
EDGE_TEXTS = [
    "", "a", "<|endoftext|>", "say <|endofprompt|> and <|endoftext|> twice", "naïve café — 東京 🚀 ﷽",
    "\ud800 a lone surrogate", "   \n\n\t  trailing   ", "x" * 5000, "1234567890" * 300,
    '{"type":"function","name":"get_order","parameters":{"type":"object"}}',
    "I'M HERE, you're there; THEY'LL go, we'd've DON'T 'S 's", "\x1c\x1d\x1e\x1f \x85 \xa0 \u2028 \u3000 x",
    "ſ 'ſ K 'K İ ı", "a\r\nb\rc\n\n  \r\n\t/", "  \n  /  \r\n/ // ///\n", "é  x\u3000 y é", " é", "é ", "  é  ",
]
ASCII_PARTS = [chr(i) for i in range(128)] + ["'s", "'LL", "'Re", "'d", " ", "\n", "\r\n", "  ", "'", "ab", "AB",
                                              "12345", ' "', "\\n", "/", "//"]
UNICODE_PARTS = ASCII_PARTS + list("éÉßñøÆœ東京日本語한국어Ωωπ∑√→—–…“”‘’«»€£¥₹😀🚀👍🏽"
                                   "\u0301\u0308\u200b\u00a0\u3000ǅǈſ") + [
    "\u0915\u094d\u0937", "ä", "ﬁ", "Ⅻ", "٣", "²", "\u2009", "\u1680", "\x85", " é", "é "]


def _lcg(seed: int):
    """A fixed sequence of numbers (the same on every Python), for texts that must not change."""
    while True:
        seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
        yield seed >> 33


def generated_texts() -> dict[str, list[str]]:
    numbers = _lcg(20261202)
    made: dict[str, list[str]] = {}
    for name, parts in (("ascii", ASCII_PARTS), ("unicode", UNICODE_PARTS)):
        made[name] = ["".join(parts[next(numbers) % len(parts)] for _ in range(1 + next(numbers) % 120))
                      for _ in range(400)]
    # every code point in runs of 512 (surrogates left out), then a sample of each astral block
    made["code_points"] = ["".join(chr(c) for c in range(start, start + 512) if not 0xD800 <= c < 0xE000) + " end"
                           for start in range(0, 0x10000, 512)]
    made["code_points"] += ["".join(map(chr, range(start, start + 256))) + " x" for start in range(0x10000, 0x110000,
                                                                                                    0x4000)]
    return made


def real_texts() -> list[str]:
    """Tool definitions from the bundled example and corpus files, all their tools that hold non-ASCII text too."""
    texts = []
    for path, step in ((example_path(), 1), (corpus_file(TRAVEL), 1), (corpus_file(GITHUB), 40),
                       (corpus_file("twilio-verify-v2.yaml"), 10), (corpus_file("box-openapi.json"), 30)):
        toolset = convert(load_spec(path), ConvertOptions(vendor="openai", scope=Scope(include_deprecated=True)))
        serialised = [tokens.serialise(tool) for tool in toolset.native]
        texts += serialised[::step] + [text for text in serialised if not text.isascii() and len(text) < 8000]
    return texts


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


def test_counts_equal_the_recorded_ones_on_real_tools_and_edge_texts(recorded):
    texts, counts = zip(*recorded["texts"], strict=True)
    assert len(texts) > 80 and sum(not text.isascii() for text in texts) >= 15
    assert [tokens.count(text) for text in texts] == list(counts)


def test_a_text_cut_at_its_spaces_counts_as_the_text_whole_and_the_second_time_as_the_first(recorded):
    texts = [text for text, _ in recorded["texts"]] + [text for group in generated_texts().values() for text in group]
    texts = [text.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for text in texts]
    counter = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
    cut = [text for text in texts if " " in text and not tokens._UNCUT_SPACE.search(text)]
    assert len(cut) > 300 and len(texts) - len(cut) > 300  # both ways are taken
    assert [counter._count(text) for text in texts] == [counter._pieces_count(text) for text in texts]
    assert [counter._count(text) for text in texts] == [counter._pieces_count(text) for text in texts]  # cached


def test_the_white_space_that_is_not_a_space_is_named_one_character_at_a_time_as_the_class_names_it():
    named = "".join(char for group in tokens._WHITE_CHARS_BUT_SPACE for char in group)
    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    assert sorted(named) == [char for char in every if tokens._IS_WHITE.match(char) and char != " "]
    assert all(tokens._white_but_space(f"text{char}é") and tokens._white_but_space(f"text{char}")
               for char in named)
    assert not tokens._white_but_space("text é → text") and not tokens._white_but_space("plain  text")


def test_texts_of_spaces_and_other_white_space_cut_or_not_count_as_the_pattern_counts():
    # Every text of up to six characters over letters, digits, punctuation and white space of four kinds, and
    # of up to four parts with runs of spaces.
    counter = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
    texts = ["".join(chars) for size in range(1, 7) for chars in itertools.product("a. \n\xa0", repeat=size)]
    texts += ["".join(chars) for chars in itertools.product("A1 \t", repeat=6)]
    texts += ["".join(chars) for chars in itertools.product(["a", ".", " ", "   ", "\n", "\xa0", " " * 9], repeat=4)]
    assert [counter._count(text) for text in texts] == [counter._pieces_count(text) for text in texts]


def test_counts_equal_the_recorded_ones_on_generated_texts_and_every_code_point(recorded):
    made = generated_texts()
    assert made.keys() == recorded["generated"].keys()
    for name, texts in made.items():
        assert [tokens.count(text) for text in texts] == recorded["generated"][name], name


def test_cutting_a_text_before_a_space_splits_it_as_the_whole_pattern_does(recorded):
    whole = regex.compile(tokens.PATTERN).findall
    texts = [text for text, _ in recorded["texts"]] + [text for group in generated_texts().values() for text in group]
    texts = [text.encode("utf-16", "surrogatepass").decode("utf-16", "replace") for text in texts]
    assert [[piece for run in tokens.split(text) for piece in run] for text in texts] == list(map(whole, texts))
    ascii_texts = [text for text in texts if text.isascii()]
    assert len(ascii_texts) > 400
    ascii_split = regex.compile(tokens.ASCII_PATTERN).findall
    assert list(map(ascii_split, ascii_texts)) == list(map(whole, ascii_texts))


def test_a_text_whose_other_characters_are_punctuation_splits_by_the_ascii_pattern_as_by_the_whole_one():
    whole = regex.compile(tokens.PATTERN).findall
    points = [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000]
    alike = [c for c in points if tokens._punctuation_alike(c)]
    # every such character but the private-use ones (a sample of those), each in a dozen and a half surroundings
    sample = [c for c in alike if unicodedata.category(c) != "Co"] + [c for c in alike if
                                                                       unicodedata.category(c) == "Co"][::97]
    assert len(sample) > 8000 and {"—", "’", "“", "→", "€", "\u200b", "\ufeff", "😀"} <= set(sample)
    surroundings = ["a{}b", "A{}B", " {}", "{} ", "{}\n", "\n{}", " {}s", "{}'s", "{}{}", "1{}2", "{}  x", "x  {}",
                    "{}\r\n/", "  {}  ", "{}a'LL", "'{}", "é{}", "{}\xa0"]
    texts = [where.replace("{}", c) for c in sample for where in surroundings]
    assert [[piece for run in tokens.split(text) for piece in run] for text in texts] == list(map(whole, texts))
    # letters, marks, numbers, white space and characters Python's Unicode does not know are never taken so
    others = [c for c in points if not tokens._punctuation_alike(c)]
    assert {unicodedata.category(c)[0] for c in others} == {"L", "M", "N", "Z", "C"}
    assert {unicodedata.category(c) for c in others if unicodedata.category(c)[0] == "C"} == {"Cn", "Cc"}
    assert not any(tokens._splits_as_ascii(f"a {c} b — c") for c in [*others[::50], "é", "\xa0", "\u0301", "٣"])
    assert tokens._splits_as_ascii("say “hi” — it’s → ok")


def test_the_white_space_of_the_cuts_is_the_patterns():
    white = regex.compile(r"\s").match
    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    assert [c for c in points if tokens._IS_WHITE.match(c)] == [c for c in points if white(c)]


def test_the_refusals_fall_back_to_the_rule_of_thumb():
    too_long = "word " * 200_001  # 1,000,005 characters: refused before counting
    assert tokens.count(too_long) == len(too_long) // 4
    many = '{"a":1}' * 60_000  # 420,000 characters, 300,000 tokens: over the 200,000-token chunk limit
    assert tokens.count(many) == len(many) // 4
    assert tokens.count('{"a":1}' * 40_000) == 200_000  # at the limit: counted
    assert tokens.count('{"a":1}' * 40_001) == 40_001 * 7 // 4


def test_the_bundled_table_is_o200k_base():
    table = tokens._encoder().table
    ranks = [rank for _, group_ranks in table.groups.values() for rank in group_ranks]
    assert sorted(ranks) == list(range(199_998))
    assert max(table.groups) == 128 and len(table.groups[1][0]) == 256
    # ranks as in tiktoken's o200k_base.tiktoken
    assert [table.rank(token) for token in (b"!", b"hello", b" the", b" Hello", b"\xe6\x9d\xb1", b"zzzzzz")] == [
        0, 24912, 290, 32949, 35529, None]


def test_the_table_file_is_made_from_a_tiktoken_file_and_read_back():
    pairs = {b"a": 0, b"b": 1, b"ab": 2, b"abb": 4, b"\n\x00": 3}
    text = b"\n".join(base64.b64encode(token) + b" " + str(rank).encode() for token, rank in pairs.items())
    table = tokens.Table(tokens.ranks_file(text + b"\n"))
    assert {token: table.rank(token) for token in pairs} == pairs
    assert table.rank(b"ba") is None and table.rank(b"") is None
    assert table.merged_count(b"abab") == 2 and table.merged_count(b"abbab") == 2 and table.merged_count(b"ba") == 2


@pytest.fixture
def table_at(monkeypatch):
    def use(path: Path) -> None:
        monkeypatch.setattr(tokens, "RANKS", path)
        tokens._encoder.cache_clear()

    yield use
    monkeypatch.undo()
    tokens._encoder.cache_clear()


def test_without_the_regex_package_counts_are_the_rule_of_thumb(table_at, monkeypatch):
    table_at(tokens.RANKS)
    monkeypatch.setattr(tokens, "find_spec", lambda name: None)
    assert tokens.count("hello world, hello") == 4
    assert tokens.method() == "estimate: characters / 4 (no tokenizer available)"


_NO_LENGTH = zlib.compress(b"\x01\x00" + b"\x00" + (1).to_bytes(4, "little") + (0).to_bytes(4, "little"))


@pytest.mark.parametrize("content", [None, b"", b"not zlib", zlib.compress(b"\x09\x00\x01"), "truncated", _NO_LENGTH])
def test_without_a_readable_table_counts_are_the_rule_of_thumb(table_at, tmp_path, content):
    path = tmp_path / "o200k_base.ranks"
    if content == "truncated":
        content = zlib.compress(zlib.decompress(tokens.RANKS.read_bytes())[:-10])
    if content is not None:
        path.write_bytes(content)
    table_at(path)
    assert tokens.count("hello world, hello") == 4
    assert tokens.method() == "estimate: characters / 4 (no tokenizer available)"
    assert tokens.estimate([{"a": 1}], ["a"]).method == tokens.method()


def test_the_table_is_kept_decompressed_in_the_user_cache_and_a_damaged_copy_is_never_read(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    texts = ["hello world", "naïve café — 東京 🚀", '{"type":"function","name":"get_order"}']
    expected = [tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))(text) for text in texts]
    first = tokens._bundled_table()
    [kept] = (tmp_path / "agent-spec-workbench" / "tokens").iterdir()
    assert kept.name == f"o200k_base-{zlib.crc32(tokens.RANKS.read_bytes()):08x}.table"
    assert kept.read_bytes()[:-4] == zlib.decompress(tokens.RANKS.read_bytes())
    second = tokens._bundled_table()  # from the cached copy
    assert [tokens.Counter(t)(text) for t in (first, second) for text in texts] == expected * 2
    damaged = bytearray(kept.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF  # a token's byte: the table would still parse, and count wrong
    kept.write_bytes(bytes(damaged))
    assert [tokens.Counter(tokens._bundled_table())(text) for text in texts] == expected
    assert kept.read_bytes()[:-4] == zlib.decompress(tokens.RANKS.read_bytes())  # written afresh
    kept.write_bytes(b"")
    assert [tokens.Counter(tokens._bundled_table())(text) for text in texts] == expected
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("not a folder")
    assert [tokens.Counter(tokens._bundled_table())(text) for text in texts] == expected  # unwritable: no cache
    assert not list(tmp_path.glob("**/*.partial"))


def test_estimate_takes_texts_already_serialised():
    toolset = convert(load_spec(example_path()), ConvertOptions(vendor="openai"))
    names = [t.name for t in toolset.tools]
    texts = [tokens.serialise(tool) for tool in toolset.native]
    given = tokens.estimate(toolset.native, names, 7, texts=lambda: texts)
    assert given == tokens.estimate(toolset.native, names, 7)
    assert given.total == sum(tokens.count(text) for text in texts) + 7
    assert given.method == tokens.METHOD


def test_the_table_loads_on_the_first_count_and_regex_on_the_first_text_with_letters_not_ascii():
    code = ("import sys; from workbench.tools import tokens; "
            "print(tokens._encoder.cache_info().currsize, 'regex' in sys.modules); "
            "n = tokens.count('hello world'); print(n, tokens._encoder.cache_info().currsize, 'regex' in sys.modules); "
            "n = tokens.count('say “hi” — it’s'); print(n, 'regex' in sys.modules); "
            "n = tokens.count('naïve café'); print(n, 'regex' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.split() == ["0", "False", "2", "1", "False", str(tokens.count("say “hi” — it’s")), "False",
                                   str(tokens.count("naïve café")), "True"]


def test_json_text_is_to_json_with_each_tool_on_one_line_as_counted():
    toolset = convert(load_spec(example_path()), ConvertOptions(vendor="openai"))
    text = toolset.json_text()
    assert json.loads(text) == toolset.to_json()
    lines = text.splitlines()
    for tool_text in toolset.native_json():
        assert "    " + tool_text + "," in lines or "    " + tool_text in lines
    assert toolset.native_json() is toolset.native_json()  # serialised once
    empty = convert(load_spec(example_path()), ConvertOptions(vendor="openai", scope=Scope(operations=("nope",))))
    assert not empty.tools
    assert empty.json_text() == json.dumps(empty.to_json(), indent=2, ensure_ascii=False)


if __name__ == "__main__":  # the record: `python -m tests.tools.test_tokens OUT.json`, with the tokenizer to record
    pairs = ",\n".join(json.dumps([text, tokens.count(text)]) for text in EDGE_TEXTS + real_texts())
    made = ",\n".join(f"{json.dumps(name)}: {json.dumps(list(map(tokens.count, texts)))}"
                      for name, texts in generated_texts().items())
    Path(sys.argv[1]).write_text(f'{{"texts": [\n{pairs}\n],\n"generated": {{\n{made}\n}}}}\n', encoding="utf-8")
