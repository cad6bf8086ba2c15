"""The service on the wire, with the official `mcp` SDK's low-level server (our tools come with their JSON
Schemas ready, so nothing is derived from Python signatures): stdio, or streamable HTTP on 127.0.0.1.

Both protocol eras the SDK serves are handled: a handshake-era client (2025-11-25 and before) is asked
through `elicitation/create` requests during the call; a 2026-era client receives an `InputRequiredResult`
and retries the call with the user's answers. The SDK is imported only here, when serving."""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.to_thread

from workbench import __version__
from workbench.mcp.early import FilteredOutput, Head, ReplayedInput
from workbench.mcp.service import Asker, Outcome, Question, Service


class NeedInput(Exception):
    """A 2026-era call that needs the user's answers first (a signal, not a failure: the client asks and
    calls again)."""

    def __init__(self, questions: Mapping[str, Question]) -> None:
        super().__init__(", ".join(questions))
        self.questions = dict(questions)


def can_elicit(ctx: Any) -> bool:
    """Whether the client declared form elicitation (an empty `elicitation` capability means form)."""
    capabilities = ctx.session.client_capabilities
    elicitation = getattr(capabilities, "elicitation", None)
    if elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None


class HandshakeAsker(Asker):
    """Asks with `elicitation/create` requests on the call's own channel, one question after another,
    from the worker thread the call runs in."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.can_ask = can_elicit(ctx)

    def ask(self, questions: Mapping[str, Question]) -> dict[str, dict | None]:
        answers: dict[str, dict | None] = dict.fromkeys(questions)
        if not self.can_ask:
            return answers
        for key, question in questions.items():
            result = anyio.from_thread.run(self.ctx.session.elicit_form, question.message, question.schema,
                                           self.ctx.request_id)
            if result.action != "accept":
                break  # declined or cancelled: the rest is not asked
            answers[key] = dict(result.content or {})
        return answers


class RetryAsker(Asker):
    """2026-era: the answers come with the retried call (`inputResponses`); until they do, the questions
    go back to the client as one round of input requests."""

    def __init__(self, ctx: Any, responses: Mapping[str, Any] | None) -> None:
        self.can_ask = can_elicit(ctx)
        self.responses = dict(responses or {})

    def ask(self, questions: Mapping[str, Question]) -> dict[str, dict | None]:
        if not self.can_ask:
            return dict.fromkeys(questions)
        if not all(key in self.responses for key in questions):
            raise NeedInput(questions)
        answers: dict[str, dict | None] = {}
        for key in questions:
            response = self.responses[key]
            accepted = getattr(response, "action", None) == "accept"
            answers[key] = dict(getattr(response, "content", None) or {}) if accepted else None
        return answers


def result_of(outcome: Outcome) -> dict:
    result: dict[str, Any] = {"content": [{"type": "text", "text": outcome.text}], "isError": outcome.is_error}
    if outcome.structured is not None and isinstance(outcome.structured, dict):
        result["structuredContent"] = outcome.structured
    return result


def input_required(questions: Mapping[str, Question]) -> dict:
    return {"resultType": "input_required", "inputRequests": {
        key: {"method": "elicitation/create", "params": {"mode": "form", "message": q.message,
                                                          "requestedSchema": q.schema}}
        for key, q in questions.items()}}


def build_server(service: Service, name: str, instructions: str | None = None) -> Any:
    """The SDK server: tools/list from the tool set built once, tools/call through the service on a worker
    thread (the executor is synchronous; the event loop keeps serving other requests)."""
    from mcp.server.caching import CacheHint
    from mcp.server.lowlevel import Server
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    def complete(ctx: Any, result: dict) -> dict:  # 2026-era results name their kind
        return {**result, "resultType": "complete"} if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else result

    async def list_tools(ctx: Any, params: Any) -> dict:
        return complete(ctx, {"tools": service.listed()})

    async def call_tool(ctx: Any, params: Any) -> dict:
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        asker = RetryAsker(ctx, params.input_responses) if modern else HandshakeAsker(ctx)
        try:
            outcome = await anyio.to_thread.run_sync(service.call, params.name, params.arguments, asker)
        except NeedInput as need:
            return input_required(need.questions)
        except Exception as exc:  # never a protocol error for the model: say what broke
            outcome = Outcome(f"The call could not be made: {type(exc).__name__}: {exc}", is_error=True)
        return complete(ctx, result_of(outcome))

    # a 2026-era client may cache tools/list: the list is fixed while the server runs, but a restart may
    # change it, so it is never fresh for long and never shared across users
    hints = {"tools/list": CacheHint(ttl_ms=0, scope="private")}
    return Server(name, version=__version__, instructions=instructions, cache_hints=hints,
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(server: Any, head: Head | None = None, wire: tuple[BinaryIO, BinaryIO] | None = None) -> None:
    """Serve over the process's stdin and stdout, or, after an early exchange (`head`), over the pipe's
    private descriptors `wire` (stdin and stdout themselves then point at the null device and stderr)."""
    from mcp.server.stdio import stdio_server

    streams = {} if head is None or wire is None else {
        "stdin": ReplayedInput(head, wire[0]), "stdout": FilteredOutput(head, wire[1])}

    async def main() -> None:
        async with stdio_server(**streams) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before serving so that port 0 is known before the first request."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve_http(server: Any, sock: socket.socket, host: str, ready: Callable[[str], None] | None = None) -> None:
    """Streamable HTTP at /mcp. The SDK's DNS-rebinding protection is on for a local address."""
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    http = uvicorn.Server(config)
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    url = f"http://{shown}:{bound[1]}/mcp"

    async def main() -> None:
        async def announce() -> None:
            while not http.started:
                await anyio.sleep(0.01)
            if ready is not None:
                ready(url)

        async with anyio.create_task_group() as group:
            group.start_soon(announce)
            await http.serve(sockets=[sock])
            group.cancel_scope.cancel()

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(main)
    print("workbench: the MCP server stopped", file=sys.stderr)
