"""A quick start over stdio: the handshake and the first tools/list answered before the SDK is imported, the
list kept between starts, and the SDK's own answers afterwards the same."""

from __future__ import annotations

import json
import subprocess
import sys

import mcp_types as types
from mcp_types import methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from workbench import __version__
from workbench.mcp.early import ANSWERED_VERSIONS, HANDSHAKE_VERSIONS, initialize_result
from workbench.mcp.server import build_server
from workbench.mcp.service import Service
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.loading import spec_config


def test_the_early_answers_use_the_sdks_revisions():
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_the_early_initialize_answer_is_the_sdks(shop):
    spec = load_spec(shop)
    service = Service(spec, build_toolset(spec, spec_config(shop), ToolOverrides(vendor="mcp")))
    options = build_server(service, "shop").create_initialization_options()
    for requested in ("2025-06-18", "2025-11-25", "1999-01-01"):
        sdk = types.InitializeResult(
            protocol_version=requested if requested in HANDSHAKE_PROTOCOL_VERSIONS else HANDSHAKE_PROTOCOL_VERSIONS[-1],
            capabilities=options.capabilities,
            server_info=types.Implementation(name=options.server_name, version=options.server_version),
            instructions=options.instructions)
        wire = methods.serialize_server_result("initialize", sdk.protocol_version,
                                               sdk.model_dump(by_alias=True, mode="json", exclude_none=True))
        assert initialize_result(requested, "shop", __version__) == wire  # what the SDK would have sent


def test_the_early_list_is_what_the_sdk_sends_at_each_revision_answered_early(shop):
    spec = load_spec(shop)
    service = Service(spec, build_toolset(spec, spec_config(shop), ToolOverrides(vendor="mcp")))
    for version in ANSWERED_VERSIONS:
        assert methods.serialize_server_result("tools/list", version, {"tools": service.listed()}) == \
            {"tools": service.listed()}


def exchange(shop, env, *extra: str) -> tuple[list[dict], str]:
    """initialize, initialized, tools/list twice (the second answered by the SDK itself), on the raw pipe."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]
    return talk(shop, env, lines, *extra)


def test_the_sdk_takes_over_with_the_same_answers_and_the_list_is_kept(shop, env, tmp_path):
    own = lambda: env(XDG_CACHE_HOME=str(tmp_path))  # noqa: E731 (a cache no other test has filled)
    first, first_log = exchange(shop, own)
    again, again_log = exchange(shop, own)
    assert [a["id"] for a in first] == [1, 2, 3]  # each request answered once: the SDK's duplicates dropped
    assert first[0]["result"]["protocolVersion"] == "2025-11-25"
    assert first[1]["result"]["tools"] == first[2]["result"]["tools"]  # the early list is the SDK's own
    assert {t["name"] for t in first[1]["result"]["tools"]} >= {"getItem", "deleteItem"}
    assert "kept from before" in again_log and "kept from before" not in first_log
    assert again == first


def test_a_changed_spec_is_listed_afresh(shop, env, tmp_path):
    copy = tmp_path / "shop.yaml"
    copy.write_text(shop.read_text())
    exchange(copy, env)
    copy.write_text(shop.read_text().replace("Get one item", "Fetch one item"))
    answers, log = exchange(copy, env)
    assert "kept from before" not in log
    assert next(t for t in answers[1]["result"]["tools"] if t["name"] == "getItem")["annotations"]["title"] == \
        "Fetch one item"


def talk(shop, env, messages: list[dict], *extra: str, unanswered: tuple = ()) -> tuple[list[dict], str]:
    """Each message on the raw pipe; an answer read for each one with an id (but the ids in `unanswered`)."""
    process = subprocess.Popen([sys.executable, "-m", "workbench", "serve-mcp", str(shop), "--mock", *extra],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    answers = []
    for message in messages:
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
        if "id" in message and message["id"] not in unanswered:
            answers.append(json.loads(process.stdout.readline()))
    process.stdin.close()
    process.wait(60)
    return answers, process.stderr.read().decode()


HELLO = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
         {"jsonrpc": "2.0", "method": "notifications/initialized"}]


def test_a_list_request_of_another_shape_is_left_to_the_sdk_and_the_server_goes_on(shop, env):
    answers, log = talk(shop, env, [*HELLO, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]},
                                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}], unanswered=(1,))
    assert "internal error" not in log  # the SDK ignores the malformed request; the server goes on
    assert [a.get("id") for a in answers] == [0, 2] and answers[1]["result"]["tools"]
    assert "listed" not in log  # nothing was answered early past the handshake


def test_an_id_answered_early_is_free_again_for_the_sdk(shop, env):
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "listItems", "arguments": {}}}
    answers, _ = talk(shop, env, [*HELLO, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, call])
    assert [a["id"] for a in answers] == [0, 1, 1] and "content" in answers[2]["result"]


def test_the_kept_list_is_per_server_name(shop, env, tmp_path):
    own = lambda: env(XDG_CACHE_HOME=str(tmp_path))  # noqa: E731
    talk(shop, own, [*HELLO, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}], "--name", "custom")
    answers, _ = talk(shop, own, [*HELLO, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])
    assert answers[0]["result"]["serverInfo"]["name"] != "custom"
