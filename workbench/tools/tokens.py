"""Token estimates, offline: o200k_base (the bundled `bpe-openai` tokenizer) over each tool's serialised
definition, plus the vendor's fixed overhead where known. Always labelled an estimate."""

from __future__ import annotations

import json
from functools import cache

from workbench.tools.model import TokenEstimate

METHOD = "estimate: o200k_base tokens of the serialised tool definition"


@cache
def _encoder():
    try:
        import bpe_openai

        return bpe_openai.get_encoding("o200k_base")
    except Exception:  # the package missing or broken: fall back to the 4-characters rule of thumb
        return None


def count(text: str) -> int:
    encoder = _encoder()
    if encoder is not None:
        try:
            return len(encoder.encode(text, disallowed_special=()))  # `<|endoftext|>` in a spec is just text
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
