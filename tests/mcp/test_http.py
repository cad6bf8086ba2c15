"""The server over streamable HTTP: bound to 127.0.0.1, and the transport's own credentials stay with it."""

from __future__ import annotations

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.servers import Reply

SESSION_S = 60


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # the handshake era, and the 2026 era's own HTTP entry
def test_the_mcp_authorization_never_reaches_the_api(shop, http_server, env, server, mode):
    def answer(request):
        if request.line.startswith("DELETE"):
            return Reply(204, [], b"")
        return Reply(200, [("Content-Type", "application/json")], b'{"id": 7, "name": "lamp"}')

    server.responder = answer
    served = http_server(str(shop), "--base-url", server.url, env=env(WORKBENCH_AUTH_BEARER="api-token"))
    assert served.url.startswith("http://127.0.0.1:") and served.url.endswith("/mcp")
    seen = {}

    async def confirm(context, params):
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def session() -> None:
        with anyio.fail_after(SESSION_S):
            headers = {"Authorization": "Bearer mcp-transport-secret", "X-Forwarded-For": "10.0.0.1"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
                    Client(streamable_http_client(served.url, http_client=http), mode=mode,
                           elicitation_callback=confirm) as client:
                seen["tools"] = [t.name for t in (await client.list_tools()).tools]
                seen["read"] = await client.call_tool("getItem", {"id": 7})
                seen["delete"] = await client.call_tool("deleteItem", {"id": 7})  # confirmed by the user

    anyio.run(session)
    assert "getItem" in seen["tools"]
    assert not seen["read"].is_error and seen["read"].structured_content == {"id": 7, "name": "lamp"}
    assert not seen["delete"].is_error, seen["delete"].content[0].text
    assert [r.line.split()[0] for r in server.requests] == ["GET", "DELETE"]
    for request in server.requests:
        assert request.header("Authorization") == "Bearer api-token"  # the spec's scheme, from the environment
        assert all("mcp-transport-secret" not in value for _, value in request.headers)
        assert request.header("X-Forwarded-For") is None


def test_http_without_a_secret_sends_no_authorization(shop, http_server, server):
    server.reply(Reply(401, [("Content-Type", "application/json")], b'{"message": "no"}'))
    served = http_server(str(shop), "--base-url", server.url)
    seen = {}

    async def session() -> None:
        with anyio.fail_after(SESSION_S):
            headers = {"Authorization": "Bearer mcp-transport-secret"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
                    Client(streamable_http_client(served.url, http_client=http)) as client:
                seen["read"] = await client.call_tool("getItem", {"id": 7})

    anyio.run(session)
    assert seen["read"].is_error and "HTTP 401" in seen["read"].content[0].text
    assert server.requests[0].header("Authorization") is None
