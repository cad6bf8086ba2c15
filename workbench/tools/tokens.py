"""Token estimates, offline: o200k_base (the bundled `bpe-openai` tokenizer) over each tool's serialised
definition, plus the vendor's fixed overhead where known. Always labelled an estimate."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

from workbench.tools.model import TokenEstimate

METHOD = "estimate: o200k_base tokens of the serialised tool definition"


@cache
def _encoder():
    """A counter of o200k tokens: the package's Rust tokenizer by itself when it can be loaded alone (0.1 s;
    importing the package builds three encodings' Python rank tables first, 2.2 s, for nothing we use; the
    counts are the same, special tokens counted as text), else the package's own encoding."""
    rust = _rust_tokenizer()
    if rust is not None:
        return rust.count
    try:
        import bpe_openai

        encoding = bpe_openai.get_encoding("o200k_base")
    except Exception:  # the package missing or broken: fall back to the 4-characters rule of thumb
        return None
    return lambda text: len(encoding.encode(text, disallowed_special=()))  # `<|endoftext|>` is just text


def _rust_tokenizer():
    try:
        package = importlib.util.find_spec("bpe_openai")  # found, not imported
        folders = package.submodule_search_locations if package else None
        binary = next((f for folder in folders or () for f in Path(folder).glob("_bindings*")
                       if f.suffix in (".so", ".pyd")), None)
        if binary is None:
            return None
        spec = importlib.util.spec_from_file_location("bpe_openai._bindings", binary)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.tokenizer_for_encoding("o200k_base")
    except Exception:
        return None


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


def estimate(native_tools: list[dict], names: list[str], overhead: int = 0) -> TokenEstimate:
    per_tool = {name: count(json.dumps(tool, ensure_ascii=False, separators=(",", ":")))
                for name, tool in zip(names, native_tools, strict=True)}
    overhead = overhead if native_tools else 0
    return TokenEstimate(sum(per_tool.values()) + overhead, per_tool, overhead, method())
