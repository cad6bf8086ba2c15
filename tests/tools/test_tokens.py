"""Token estimates: the Rust tokenizer loaded straight from bpe-openai's extension counts exactly what the
package's own Encoding counts (the way counts were made before), on real tool definitions and on the texts
where the two could part: special-token text, non-ASCII, lone surrogates, the package's refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.catalogue import GITHUB, TRAVEL, corpus_file
from workbench.examples import example_path
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, Scope, convert, tokens

bpe_openai = pytest.importorskip("bpe_openai")

EDGE_TEXTS = [
    "", "a", "<|endoftext|>", "say <|endofprompt|> and <|endoftext|> twice", "naïve café — 東京 🚀 ﷽",
    "\ud800 a lone surrogate", "   \n\n\t  trailing   ", "x" * 5000, "1234567890" * 300,
    '{"type":"function","name":"get_order","parameters":{"type":"object"}}',
]


@pytest.fixture(scope="module")
def package_count():
    encoding = bpe_openai.get_encoding("o200k_base")
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def _tool_texts() -> list[str]:
    texts = []
    for path, step in ((example_path(), 1), (corpus_file(TRAVEL), 1), (corpus_file(GITHUB), 15)):
        toolset = convert(load_spec(path), ConvertOptions(vendor="openai", scope=Scope(include_deprecated=True)))
        texts += [tokens.serialise(tool) for tool in toolset.native[::step]]
    return texts


def test_the_rust_tokenizer_is_the_one_in_use():
    assert tokens._rust_tokenizer() is not None
    assert tokens.method() == tokens.METHOD


def test_counts_equal_the_packages_on_real_tools_and_edge_texts(package_count):
    texts = _tool_texts() + EDGE_TEXTS
    assert len(texts) > 80
    assert [tokens.count(text) for text in texts] == [package_count(text) for text in texts]


def test_the_packages_refusals_fall_back_to_the_rule_of_thumb_alike(package_count):
    too_long = "word " * 200_001  # 1,000,005 characters: the package refuses it before counting
    with pytest.raises(ValueError):
        package_count(too_long)
    assert tokens.count(too_long) == len(too_long) // 4
    many = '{"a":1}' * 60_000  # 420,000 characters, 300,000 tokens: over the 200,000-token chunk limit
    with pytest.raises(ValueError):
        package_count(many)
    assert tokens.count(many) == len(many) // 4


def test_estimate_takes_texts_already_serialised():
    toolset = convert(load_spec(example_path()), ConvertOptions(vendor="openai"))
    names = [t.name for t in toolset.tools]
    texts = [tokens.serialise(tool) for tool in toolset.native]
    given = tokens.estimate(toolset.native, names, 7, texts=lambda: texts)
    assert given == tokens.estimate(toolset.native, names, 7)
    assert given.total == sum(tokens.count(text) for text in texts) + 7


def test_counting_does_not_import_the_package():
    code = ("import sys; from workbench.tools import tokens; n = tokens.count('hello world'); "
            "print(n, 'bpe_openai' in sys.modules, 'bpe_openai.compat' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.split() == ["2", "False", "False"]


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
