"""The runners' disk cache: a model's parsed answer, keyed by the request exactly as sent and by the sample
number — so R repeats are R real samples (one cached answer is never reused for every repeat) and an
unchanged re-run sends nothing. Only the answer is stored: never headers, never the key."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from workbench import cache_folder, replace_file
from workbench.selection.model import Called, Sample

CACHE_FORMAT = 1


def default_folder() -> Path:
    return cache_folder("selection")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def endpoint_of(base_url: str) -> str:
    """The part of a base URL that picks the model server: scheme, host, port and path, without any user
    info or query (which could carry a credential)."""
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


_SLOT = f"\x00tools {secrets.token_hex(16)}\x00"  # stands for the tools while the rest is encoded
_SLOT_JSON = json.dumps(_SLOT)


def request_key(api: str, endpoint: str, body: Mapping[str, Any], sample: int, tools_json: str | None = None) -> str:
    """sha256 over canonical JSON of everything that decides the answer: the API, the endpoint, the request
    body as sent (model, every setting, messages, the offered tools' native JSON) and the sample number.
    `tools_json`: the canonical JSON of `body["tools"]` when the caller has it (`tools_text`), spliced in rather
    than encoded again; the text hashed, and so the key, is the same."""
    content = {"format": CACHE_FORMAT, "api": api, "endpoint": endpoint, "body": body, "sample": sample}
    if tools_json is None or "tools" not in body:
        text = canonical_json(content)
    else:
        text = canonical_json({**content, "body": {**body, "tools": _SLOT}}).replace(_SLOT_JSON, tools_json, 1)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tools_text(encoded: Sequence[str]) -> str:
    """The canonical JSON of a list of tools from each tool's own canonical JSON (`canonical_json(native)`): a
    run offers the same tools in many requests, and encoding every request's whole list again held the
    interpreter lock for the length of a 100-tool catalogue per request."""
    return "[" + ",".join(encoded) + "]"


class Cache:
    """One JSON file per answer under `folder/<first two hex digits>/<key>.json`, written atomically. A file
    that cannot be read is treated as absent, so the answer is fetched again and the file rewritten."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_folder()

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str, case_id: str, sample: int) -> Sample | None:
        try:
            entry = json.loads(self.path(key).read_text("utf-8"))
            return _sample_from(entry, key, case_id, sample)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def put(self, key: str, sample: Sample) -> None:
        """Store an answer. A sample with an error is no answer and is never stored (it is asked again)."""
        if sample.error is not None:
            return
        entry = {"format": CACHE_FORMAT, "key": key,
                 "calls": [{"name": c.name, "arguments": c.arguments, "raw_arguments": c.raw_arguments,
                            "problem": c.problem} for c in sample.calls],
                 "text": sample.text, "input_tokens": sample.input_tokens, "output_tokens": sample.output_tokens,
                 "latency": sample.latency}
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, canonical_json(entry).encode("utf-8"))  # not durable: a torn entry is corrupt, asked again


def _sample_from(entry: dict, key: str, case_id: str, sample: int) -> Sample:
    if entry["format"] != CACHE_FORMAT or entry["key"] != key:
        raise ValueError("not this entry")
    calls = []
    for call in entry["calls"]:
        arguments = call["arguments"]
        if not isinstance(call["name"], str) or not (arguments is None or isinstance(arguments, dict)):
            raise ValueError("not a call")
        calls.append(Called(call["name"], arguments, _text(call["raw_arguments"]), call["problem"]))
    return Sample(case_id, sample, tuple(calls), text=_text(entry["text"]), input_tokens=_count(entry["input_tokens"]),
                  output_tokens=_count(entry["output_tokens"]), latency=float(entry["latency"]), cached=True)


def _text(value: Any) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    raise ValueError("not text")


def _count(value: Any) -> int | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError("not a token count")
