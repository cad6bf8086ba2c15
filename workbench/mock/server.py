"""The mock on the wire: HTTP/1.1 over asyncio on 127.0.0.1 (another host only when asked), keep-alive,
HEAD, request bodies up to `MAX_BODY` (413 past it), a deadline for each request head (a client that
dribbles headers is cut off), and a 400 for anything that is not HTTP. It owns the socket, so later it
can also misbehave on purpose. Start it in-process (`MockServer(...).start()`, a thread of its own) or
with `workbench mock`."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from http import HTTPStatus

from workbench.mock.app import Answer, MockApp, problem
from workbench.spec import Spec
from workbench.wire.messages import Request

MAX_HEAD = 64 * 1024  # request line + headers
MAX_BODY = 10 * 1024 * 1024
HEAD_SECONDS = 10.0  # a request head must arrive whole within this
IDLE_SECONDS = 60.0  # a keep-alive connection with nothing to say is closed after this
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_head(head: bytes) -> tuple[str, str, str, list[tuple[str, str]]]:
    """(method, raw path, raw query, headers) of a request head, or BadRequest."""
    line, *lines = head.decode("latin-1").split("\r\n")  # every byte is a latin-1 character
    parts = line.split(" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[2].startswith("HTTP/1."):
        raise BadRequest(400, f"not an HTTP/1.x request line: {line[:80]!r}")
    method, target, _version = parts
    headers = []
    for raw in lines:
        name, colon, value = raw.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest(400, f"malformed header line: {raw[:80]!r}")
        headers.append((name, value.strip()))
    path, _, query = target.partition("?")
    if not path.startswith("/"):
        raise BadRequest(400, f"the request target must be a path: {target[:80]!r}")
    return method.upper(), path, query, headers


def _header(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name), None)


def _chunked(buffer: bytearray) -> tuple[bytes, int] | None:
    """A whole chunked body at the start of `buffer`: (body, bytes used), None while incomplete."""
    body, at = bytearray(), 0
    while True:
        end = buffer.find(b"\r\n", at)
        if end < 0:
            return None
        try:
            size = int(bytes(buffer[at:end]).split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise BadRequest(400, "malformed chunk size") from None
        if size == 0:
            trailer = buffer.find(b"\r\n\r\n", end)
            return (bytes(body), trailer + 4) if trailer >= 0 else None
        if len(body) + size > MAX_BODY:
            raise BadRequest(413, f"the request body is over {MAX_BODY} bytes")
        if len(buffer) < end + 2 + size + 2:
            return None
        body += buffer[end + 2:end + 2 + size]
        at = end + 2 + size + 2


def encode(answer: Answer, *, head_only: bool, keep_alive: bool) -> bytes:
    reason = HTTPStatus(answer.status).phrase if answer.status in HTTPStatus._value2member_map_ else "Status"
    lines = [f"HTTP/1.1 {answer.status} {reason}"]
    lines += [f"{name}: {value}" for name, value in answer.headers]
    lines.append(f"Content-Length: {len(answer.body)}")
    lines.append("Connection: keep-alive" if keep_alive else "Connection: close")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    return head if head_only else head + answer.body


class _Connection(asyncio.Protocol):
    def __init__(self, handle: Callable[[Request], Answer], loop: asyncio.AbstractEventLoop,
                 head_seconds: float = HEAD_SECONDS) -> None:
        self.handle, self.loop, self.head_seconds = handle, loop, head_seconds
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.pending: tuple[str, str, str, list[tuple[str, str]]] | None = None  # a head waiting for its body
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        self._arm(self.head_seconds)

    def connection_lost(self, exc) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.transport = None

    def _arm(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.loop.call_later(seconds, self._close)

    def _close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if not self.buffer and self.pending is None:
            self._arm(self.head_seconds)  # a new request begins: its head has a deadline
        self.buffer += data
        try:
            while self.transport is not None and self._step():
                pass
        except BadRequest as exc:
            self._send(problem(exc.status, "Bad request", str(exc)), head_only=False, keep_alive=False)

    def _step(self) -> bool:
        """Handle one whole request from the buffer; False while more bytes are needed."""
        if self.pending is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > MAX_HEAD:
                    raise BadRequest(431, f"the request head is over {MAX_HEAD} bytes")
                return False
            self.pending = parse_head(bytes(self.buffer[:end]))
            del self.buffer[:end + 4]
        body = self._body(self.pending[3])
        if body is None:
            return False
        method, path, query, headers = self.pending
        self.pending = None
        keep_alive = (_header(headers, "connection") or "").lower() != "close"
        answer = self.handle(Request(method, path, query, tuple(headers), body or None))
        self._send(answer, head_only=method == "HEAD", keep_alive=keep_alive)
        return bool(self.buffer)

    def _body(self, headers: list[tuple[str, str]]) -> bytes | None:
        if (_header(headers, "transfer-encoding") or "").lower() == "chunked":
            found = _chunked(self.buffer)
            if found is None:
                return None
            body, used = found
            del self.buffer[:used]
            return body
        length_text = _header(headers, "content-length") or "0"
        if not length_text.isdigit():
            raise BadRequest(400, f"Content-Length is not a number: {length_text[:40]!r}")
        length = int(length_text)
        if length > MAX_BODY:
            raise BadRequest(413, f"the request body is over {MAX_BODY} bytes")
        if len(self.buffer) < length:
            return None
        body = bytes(self.buffer[:length])
        del self.buffer[:length]
        return body

    def _send(self, answer: Answer, *, head_only: bool, keep_alive: bool) -> None:
        if self.transport is None:
            return
        self.transport.write(encode(answer, head_only=head_only, keep_alive=keep_alive))
        if keep_alive:
            self._arm(IDLE_SECONDS)
        else:
            self.buffer.clear()
            self.transport.close()


class MockServer:
    """The mock for one spec on a socket of its own; `start()` serves from a background thread."""

    def __init__(self, spec: Spec, host: str = "127.0.0.1", port: int = 0, seed: int = 0,
                 head_seconds: float = HEAD_SECONDS) -> None:
        self.app = MockApp(spec, seed)
        self.host, self.port, self.head_seconds = host, port, head_seconds
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The origin it listens on; requests keep the spec's base path (`/v1/…` stays `/v1/…`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._server = await loop.create_server(lambda: _Connection(self.app.handle, loop, self.head_seconds),
                                                self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    def start(self) -> MockServer:
        self._thread = threading.Thread(target=self._run, name="mock-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise self._error
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self.open())
        except BaseException as exc:  # the port is taken, the host unknown: said by start()
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()


def serve(spec: Spec, host: str, port: int, seed: int, ready: Callable[[MockServer], None]) -> None:
    """Serve in this thread until interrupted (Ctrl+C stops it cleanly); `ready` is told once it listens."""
    server = MockServer(spec, host, port, seed)

    async def main() -> None:
        await server.open()
        ready(server)
        async with server._server:
            await server._server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(main())
