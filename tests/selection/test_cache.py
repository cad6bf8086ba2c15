"""The runners' disk cache on its own: what the key depends on, what an entry holds, where it lives, and that
a bad entry is no entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.selection.cache import Cache, canonical_json, default_folder, endpoint_of, request_key, tools_text
from workbench.selection.model import Called, Sample

BODY = {"model": "m", "messages": [{"role": "user", "content": "list customers"}], "temperature": 0.2,
        "tools": [{"type": "function", "function": {"name": "listCustomers", "parameters": {"type": "object"}}}]}


def answer(**fields) -> Sample:
    return Sample("c1", 0, (Called("listCustomers", {"limit": 5}, '{"limit": 5}'),
                            Called("getCustomer", None, '{"id"', "arguments are not valid JSON: x")),
                  text="here you go", input_tokens=31, output_tokens=7, latency=0.25, **fields)


def test_the_key_depends_on_every_part_of_the_request_and_the_sample_number():
    key = request_key("openai-chat", "http://h/v1", BODY, 0)
    assert len(key) == 64 and key == request_key("openai-chat", "http://h/v1", dict(reversed(BODY.items())), 0)
    changed = [
        request_key("openai-responses", "http://h/v1", BODY, 0),
        request_key("openai-chat", "http://other/v1", BODY, 0),
        request_key("openai-chat", "http://h/v1", {**BODY, "model": "m2"}, 0),
        request_key("openai-chat", "http://h/v1", {**BODY, "temperature": 0.3}, 0),
        request_key("openai-chat", "http://h/v1", {**BODY, "messages": [{"role": "user", "content": "list"}]}, 0),
        request_key("openai-chat", "http://h/v1", {**BODY, "tools": []}, 0),
        request_key("openai-chat", "http://h/v1", BODY, 1),
    ]
    assert len({key, *changed}) == 8


def test_tools_encoded_once_give_the_key_of_the_whole_request_encoded():
    tools = [{"type": "function", "function": {"name": name, "description": "Ünïcode \u0000 \"quoted\" [ok]",
                                               "parameters": {"type": "object", "properties": {"b": {}, "a": {}}}}}
             for name in ("listCustomers", "getCustomer", "deleteCustomer")]
    body = {**BODY, "tools": tools, "messages": [{"role": "user", "content": 'tools: "[]" \u0000'}]}
    encoded = tools_text([canonical_json(tool) for tool in tools])
    assert encoded == canonical_json(tools)
    for sample in (0, 3):
        assert request_key("openai-chat", "http://h/v1", body, sample, encoded) == request_key(
            "openai-chat", "http://h/v1", body, sample)
    untooled = {k: v for k, v in BODY.items() if k != "tools"}
    assert request_key("openai-chat", "http://h/v1", untooled, 0, "[]") == request_key(
        "openai-chat", "http://h/v1", untooled, 0)


def test_the_endpoint_keeps_what_picks_the_server_and_drops_credentials():
    assert endpoint_of("HTTPS://user:secret@API.Example.com:8443/v1/?key=secret") == "https://api.example.com:8443/v1"
    assert endpoint_of("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434/v1"


def test_an_answer_round_trips_and_an_error_is_never_stored(tmp_path: Path):
    cache = Cache(tmp_path)
    cache.put("ab" * 32, answer())
    got = cache.get("ab" * 32, "c7", 2)
    assert got == Sample("c7", 2, answer().calls, text="here you go", input_tokens=31, output_tokens=7, latency=0.25,
                         cached=True)

    cache.put("cd" * 32, Sample("c1", 0, error="HTTP 500: boom"))
    assert cache.get("cd" * 32, "c1", 0) is None and not cache.path("cd" * 32).exists()
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["ab" * 32 + ".json"]  # no temporary left


def test_an_entry_holds_the_answer_only(tmp_path: Path):
    cache = Cache(tmp_path)
    cache.put("ab" * 32, answer(detail={"authorization": "Bearer x"}))
    entry = json.loads(cache.path("ab" * 32).read_text())
    assert set(entry) == {"format", "key", "calls", "text", "input_tokens", "output_tokens", "latency"}


@pytest.mark.parametrize("content", ["", "{", "[]", '{"format": 1}', '{"format": 2, "key": "KEY"}',
                                     '{"format": 1, "key": "other"}',
                                     '{"format": 1, "key": "KEY", "calls": [{"name": 3}], "text": "", '
                                     '"input_tokens": null, "output_tokens": null, "latency": 0}',
                                     '{"format": 1, "key": "KEY", "calls": [], "text": "", '
                                     '"input_tokens": "many", "output_tokens": null, "latency": 0}'])
def test_a_corrupt_or_foreign_entry_is_absent(tmp_path: Path, content: str):
    cache, key = Cache(tmp_path), "ef" * 32
    cache.path(key).parent.mkdir(parents=True)
    cache.path(key).write_text(content.replace("KEY", key))
    assert cache.get(key, "c1", 0) is None


def test_the_default_folder_is_in_the_user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert Cache().folder == default_folder() == tmp_path / "agent-spec-workbench" / "selection"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_folder() == tmp_path / "home" / ".cache" / "agent-spec-workbench" / "selection"
