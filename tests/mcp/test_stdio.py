"""The server over stdio, as a desktop client spawns it, driven by the SDK's own client."""

from __future__ import annotations

import json

import anyio
import mcp_types as types
import pytest
from mcp import Client

from tests.servers import Reply

SESSION_S = 60


def run(session) -> None:
    async def bounded() -> None:
        with anyio.fail_after(SESSION_S):
            await session()

    anyio.run(bounded)


def text(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_lists_annotated_tools_and_calls_the_mock(shop, stdio):
    seen = {}

    async def session() -> None:
        async with Client(stdio(str(shop), "--mock")) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            seen["tools"] = tools
            seen["read"] = await client.call_tool("getItem", {"id": 7})
            seen["invalid"] = await client.call_tool("listItems", {"limit": 1000})
            seen["trial"] = await client.call_tool("deleteItem", {"id": 7})  # the mock: a safe trial

    run(session)
    tools = seen["tools"]
    assert set(tools) == {"listItems", "createItem", "getItem", "deleteItem", "setPassword"}
    assert tools["getItem"].annotations.read_only_hint is True
    assert tools["deleteItem"].annotations.destructive_hint is True
    assert tools["deleteItem"].annotations.read_only_hint is False
    assert tools["createItem"].annotations.idempotent_hint is False
    assert tools["getItem"].output_schema["type"] == "object"
    assert "password" not in json.dumps(tools["setPassword"].input_schema)  # a human-side value: not the model's
    read = seen["read"]
    assert not read.is_error and read.structured_content == {"id": 7, "name": "lamp"}  # the spec's example
    invalid = seen["invalid"]
    assert invalid.is_error and "maximum 100" in text(invalid) and "1000" in text(invalid)
    assert not seen["trial"].is_error and "HTTP 204" in text(seen["trial"])


def test_a_destructive_call_is_refused_when_the_client_cannot_ask(shop, stdio, server):
    server.reply(Reply(204, [], b""))
    seen = {}

    async def session() -> None:
        async with Client(stdio(str(shop), "--base-url", server.url), mode="legacy") as client:
            seen["delete"] = await client.call_tool("deleteItem", {"id": 7})
            seen["read"] = await client.call_tool("getItem", {"id": 7})

    run(session)
    assert seen["delete"].is_error and "not approved" in text(seen["delete"])
    assert "--allow-writes" in text(seen["delete"])
    assert [r.line.split()[:2] for r in server.requests] == [["GET", "/items/7"]]  # the DELETE never left


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # handshake era: elicitation requests; 2026 era: a retry
def test_the_user_confirms_a_destructive_call_and_gives_the_password(shop, stdio, env, server, mode):
    server.reply(Reply(204, [], b""))
    asked: list[types.ElicitRequestParams] = []
    answers = {"confirm": True}

    async def elicit(context, params):
        asked.append(params)
        if "password" in params.requested_schema["properties"]:
            return types.ElicitResult(action="accept", content={"password": "correct horse"})
        return types.ElicitResult(action="accept", content=dict(answers))

    seen = {}

    async def session() -> None:
        params = stdio(str(shop), "--base-url", server.url, env=env(WORKBENCH_AUTH_BEARER="api-token"))
        async with Client(params, mode=mode, elicitation_callback=elicit) as client:
            seen["delete"] = await client.call_tool("deleteItem", {"id": 7})
            answers["confirm"] = False
            seen["declined"] = await client.call_tool("deleteItem", {"id": 8})
            seen["password"] = await client.call_tool("setPassword", {})

    run(session)
    assert not seen["delete"].is_error, text(seen["delete"])
    assert seen["declined"].is_error and "did not confirm" in text(seen["declined"])
    assert not seen["password"].is_error, text(seen["password"])
    assert [r.line.split()[:2] for r in server.requests] == [["DELETE", "/items/7"], ["PUT", "/account/password"]]
    assert "DELETE /items/{id}" in asked[0].message
    assert json.loads(server.requests[1].body) == {"password": "correct horse"}
    assert "correct horse" not in text(seen["password"])
    assert all(r.header("Authorization") == "Bearer api-token" for r in server.requests)


def test_a_missing_human_value_is_a_tool_error_that_says_how_to_give_it(shop, stdio, server):
    seen = {}

    async def session() -> None:
        async with Client(stdio(str(shop), "--base-url", server.url), mode="legacy") as client:
            seen["password"] = await client.call_tool("setPassword", {})

    run(session)
    assert seen["password"].is_error and "WORKBENCH_HUMAN_PASSWORD" in text(seen["password"])
    assert server.requests == []


def test_dynamic_mode_serves_three_tools_over_the_whole_set(shop, stdio):
    seen = {}

    async def session() -> None:
        async with Client(stdio(str(shop), "--mock", "--dynamic")) as client:
            seen["tools"] = (await client.list_tools()).tools
            seen["search"] = await client.call_tool("search_operations", {"query": "remove an item", "top": 2})
            seen["describe"] = await client.call_tool("describe_operation", {"name": "listItems"})
            seen["call"] = await client.call_tool("call_operation", {"name": "getItem", "arguments": {"id": 7}})
            seen["invalid"] = await client.call_tool("call_operation",
                                                     {"name": "listItems", "arguments": {"limit": 0}})
            seen["unknown"] = await client.call_tool("describe_operation", {"name": "nope"})

    run(session)
    assert [t.name for t in seen["tools"]] == ["search_operations", "describe_operation", "call_operation"]
    found = text(seen["search"]).splitlines()
    assert found[0].startswith("deleteItem: ") and len([line for line in found if ": " in line]) == 2
    described = json.loads(text(seen["describe"]))
    assert described["inputSchema"]["properties"]["limit"]["maximum"] == 100
    assert described["annotations"]["readOnlyHint"] is True
    assert not seen["call"].is_error and '"lamp"' in text(seen["call"])
    assert seen["invalid"].is_error and "minimum 1" in text(seen["invalid"])
    assert seen["unknown"].is_error
