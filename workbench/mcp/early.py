"""A fast start over stdio: a desktop client gives up on a server that does not answer soon, and importing the
SDK alone takes over a second. So the handshake-era `initialize` and the first `tools/list` are answered
here, from the JSON lines on the pipe, before the SDK is imported; then the SDK takes the connection over as
if it had read every line itself: the lines already read are replayed to it, and its own answers to the
requests answered here are dropped (they are the same answers: the same negotiation, the same list).

Anything else first (a 2026-era client's `server/discover`, a ping, a line that is not JSON) goes to the SDK
at once, unanswered here."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, BinaryIO

# The SDK's handshake revisions (mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS; a test holds them equal) and
# those whose tool objects carry what we list (annotations from 2025-03-26, outputSchema from 2025-06-18).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
ANSWERED_VERSIONS = ("2025-06-18", "2025-11-25")
CAPABILITIES = {"tools": {"listChanged": False}}


@dataclass
class Head:
    """What the early exchange leaves to the SDK: the lines it read, and the ids it answered."""

    replay: list[bytes] = field(default_factory=list)
    answered: set[Any] = field(default_factory=set)  # replayed requests whose SDK answers are to be dropped
    closed: bool = False  # the client hung up during the exchange
    listed: bool = False  # the first tools/list was answered here


def negotiated(requested: Any) -> str:
    """The SDK's rule: the client's revision when it is a handshake one, else the latest."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def initialize_result(requested: Any, name: str, version: str, instructions: str | None = None) -> dict:
    result: dict[str, Any] = {"protocolVersion": negotiated(requested), "capabilities": CAPABILITIES,
                              "serverInfo": {"name": name, "version": version}}
    if instructions:
        result["instructions"] = instructions
    return result


def early_exchange(wire_in: BinaryIO, wire_out: BinaryIO, tools: Callable[[], list[dict]], name: str,
                   version: str) -> Head:
    """Read and answer `initialize` and the first `tools/list`, then stop; `tools` is called for the list
    (the tool set may be built only then, while the client waits for the list rather than the handshake)."""
    head = Head()
    version_agreed: str | None = None
    while True:
        line = wire_in.readline()
        if not line:
            head.closed = True
            return head
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        method = message.get("method") if isinstance(message, dict) else None
        if method in ("initialize", "tools/list") and not _answerable(message):
            head.replay.append(line)  # an id or params of another shape: the SDK says what is wrong with it
            return head
        if method == "initialize" and version_agreed is None:
            params = message.get("params") or {}
            agreed = negotiated(params.get("protocolVersion"))
            if agreed not in ANSWERED_VERSIONS:
                head.replay.append(line)
                return head
            version_agreed = agreed
            _send(wire_out, message["id"], initialize_result(agreed, name, version))
            head.answered.add(message["id"])
            head.replay.append(line)
        elif method == "notifications/initialized" and version_agreed is not None:
            head.replay.append(line)
        elif method == "tools/list" and version_agreed is not None and not (message.get("params") or {}).get("cursor"):
            _send(wire_out, message["id"], {"tools": tools()})
            head.listed = True
            return head  # not replayed: the SDK never sees it, never answers it, and its id is free again
        else:
            head.replay.append(line)
            return head


def _answerable(message: dict) -> bool:
    """A request this exchange may answer: an id that is a string or an integer (what FilteredOutput can
    match), params absent or an object."""
    request_id = message.get("id")
    params = message.get("params")
    return (isinstance(request_id, str | int) and not isinstance(request_id, bool)
            and (params is None or isinstance(params, dict)))


def _send(wire_out: BinaryIO, request_id: Any, result: dict) -> None:
    wire_out.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, ensure_ascii=False,
                              separators=(",", ":")).encode("utf-8") + b"\n")
    wire_out.flush()


class ReplayedInput:
    """The SDK's stdin: the lines the early exchange read, then the rest of the pipe."""

    def __init__(self, head: Head, wire_in: BinaryIO) -> None:
        import anyio

        self.lines = [line.decode("utf-8", errors="replace") for line in head.replay]
        self.closed = head.closed
        self.rest = anyio.wrap_file(io.TextIOWrapper(wire_in, encoding="utf-8", errors="replace"))

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        for line in self.lines:
            yield line
        if self.closed:
            return
        async for line in self.rest:
            yield line


class FilteredOutput:
    """The SDK's stdout: its answers to the requests answered early are dropped, the rest passes."""

    def __init__(self, head: Head, wire_out: BinaryIO) -> None:
        import anyio

        self.answered = set(head.answered)
        self.out = anyio.wrap_file(io.TextIOWrapper(wire_out, encoding="utf-8", write_through=True))

    async def write(self, text: str) -> None:
        if self.answered:
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            answer_to = message.get("id") if isinstance(message, dict) and "method" not in message else None
            if isinstance(answer_to, str | int) and answer_to in self.answered:
                self.answered.discard(answer_to)
                return
        await self.out.write(text)

    async def flush(self) -> None:
        await self.out.flush()


def take_wire() -> tuple[BinaryIO, BinaryIO]:
    """The pipe's two ends on descriptors of our own; fd 0 then reads the null device and fd 1 writes to
    stderr, so that nothing printed by accident corrupts the protocol."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    return wire_in, wire_out
