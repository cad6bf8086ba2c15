"""Token estimates, offline: o200k_base (the bundled `bpe-openai` tokenizer) over each tool's serialised
definition, plus the vendor's fixed overhead where known. Always labelled an estimate.

The tokenizer is bpe-openai's Rust core, loaded straight from the package's extension module: importing the
package itself decodes the base64 rank tables of three encodings into Python dictionaries (2.7 s and some
90 MiB) that counting never reads — the Rust tokenizer carries its own tables and builds o200k_base in about
0.1 s. When the extension cannot be loaded that way, the package is imported as before; counts are the same
either way (tests/tools/test_tokens.py compares them on real tool definitions)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from workbench.tools.model import TokenEstimate, compact_json

METHOD = "estimate: o200k_base tokens of the serialised tool definition"
ENCODING = "o200k_base"
# What bpe-openai's Encoding.encode refuses (a ValueError; `count` falls back to the rule of thumb then):
MAX_CHARS = 1_000_000  # "Input too long to encode safely"
CHUNK_LIMIT = 200_000  # its default chunk limit for o200k_base (TokenLimitError)



def serialise(tool: dict) -> str:
    """A tool definition as the text its tokens are counted over (compact JSON, non-ASCII as is)."""
    return compact_json(tool)


def _rust_tokenizer():
    """bpe-openai's Rust tokenizer for o200k_base, from its extension module, without the package's import."""
    spec = importlib.util.find_spec("bpe_openai")  # finds the package; does not run its __init__
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"_bindings{suffix}"
            if path.is_file():
                loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(path))
                module_spec = importlib.util.spec_from_file_location("bpe_openai._bindings", path, loader=loader)
                if module_spec is None:
                    continue
                module = importlib.util.module_from_spec(module_spec)
                loader.exec_module(module)
                return module.tokenizer_for_encoding(ENCODING)
    return None


def _package_counter() -> Callable[[str], int]:
    import bpe_openai

    encoding = bpe_openai.get_encoding(ENCODING)
    return lambda text: len(encoding.encode(text, disallowed_special=()))  # `<|endoftext|>` is just text


@cache
def _encoder() -> Callable[[str], int] | None:
    """How to count one text's tokens (raising ValueError where bpe-openai's Encoding would), or None."""
    try:
        tokenizer = _rust_tokenizer()
    except Exception:  # an extension built differently: the package's own way below
        tokenizer = None
    if tokenizer is not None:
        return lambda text: _count_rust(tokenizer, text)
    try:
        return _package_counter()
    except Exception:  # the package missing or broken: fall back to the 4-characters rule of thumb
        return None


def prepare() -> None:
    """Build the tokenizer now. Its Rust build holds the interpreter lock for 0.1-0.25 s in one go, so the
    window does it before it is shown rather than on a worker while it is (its first token estimate, a Tools
    conversion or a selection run, froze it that long)."""
    _encoder()


def _count_rust(tokenizer, text: str) -> int:
    """What `len(Encoding.encode(text, disallowed_special=()))` gives, with the same refusals."""
    if not text:
        return 0
    if len(text) >= MAX_CHARS:
        raise ValueError("Input too long to encode safely")
    try:
        counted = tokenizer.count(text)
    except UnicodeEncodeError:  # lone surrogates: replaced, as the package does
        counted = tokenizer.count(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
    if counted > CHUNK_LIMIT:
        raise ValueError(f"{counted} tokens is beyond the chunk limit of {CHUNK_LIMIT}")
    return counted


def count(text: str) -> int:
    encoder = _encoder()
    if encoder is not None:
        try:
            return encoder(text)
        except ValueError:
            pass  # beyond what the tokenizer takes in one piece: the rule of thumb below
    return max(1, len(text) // 4)


def method() -> str:
    return METHOD if _encoder() is not None else "estimate: characters / 4 (no tokenizer available)"


def estimate(native_tools: list[dict], names: list[str], overhead: int = 0,
             texts: Callable[[], Sequence[str]] | None = None) -> TokenEstimate:
    """`texts`, when given, returns each native tool already serialised by `serialise` (aligned with
    `native_tools`), so that a command that prints the tools serialises each one once."""
    serialised = texts() if texts is not None else [serialise(tool) for tool in native_tools]
    per_tool = {name: count(text) for name, text in zip(names, serialised, strict=True)}
    overhead = overhead if native_tools else 0
    return TokenEstimate(sum(per_tool.values()) + overhead, per_tool, overhead, method())
