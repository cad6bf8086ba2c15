"""The mock on the wire: HTTP/1.1 over asyncio on 127.0.0.1 (another host only when asked), keep-alive,
HEAD, request bodies up to `MAX_BODY` (413 past it), a deadline for each request head (a client that
dribbles headers is cut off), and a 400 for anything that is not HTTP. It owns the socket, so later it
can also misbehave on purpose. Start it in-process (`MockServer(...).start()`, a thread of its own) or
with `workbench mock`."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
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
HANG_SECONDS = 300.0  # `fault=hang` holds the connection this long at most, then closes it
DRIBBLE_SECONDS = 0.05  # `fault=dribble`: one byte this often
PIPELINE_BATCH = 64  # pipelined requests answered in one go before the other connections get a turn
BACKLOG = 1024  # connections waiting to be accepted (asyncio's default, 100, drops a burst of clients for seconds)


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


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Status"


# How a message is framed is the server's to say: a spec that declares these as response headers (GitHub's
# `POST /markdown` has `Content-Length: 279`) describes the real service's framing, not the mock's.
FRAMING = frozenset({"content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer"})


def _head_lines(answer: Answer) -> list[str]:
    """The status line and the answer's headers, without any that frame the message."""
    return [f"HTTP/1.1 {answer.status} {_reason(answer.status)}",
            *(f"{name}: {value}" for name, value in answer.headers if name.lower() not in FRAMING)]


def encode(answer: Answer, *, head_only: bool, keep_alive: bool) -> bytes:
    """The answer on the wire: Content-Length is the body's length in bytes, said once."""
    lines = _head_lines(answer)
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
        self.paused = False  # an answer is still being sent (delayed, dribbled, hung): the next one waits
        self.write_paused = False  # the client reads slower than we answer: no more answers until it catches up
        self.reading_paused = False
        self.draining = False

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
        self._drain()

    def pause_writing(self) -> None:
        self.write_paused = True

    def resume_writing(self) -> None:
        self.write_paused = False
        self._drain()

    def _drain(self) -> None:
        """Answer the whole requests in the buffer, a batch at a time (a loop, never a recursion: a client may
        pipeline thousands), while nothing holds the answers back."""
        if self.draining:
            return  # an answer sent from inside the loop below: the loop goes on with the next request
        self.draining = True
        try:
            for _ in range(PIPELINE_BATCH):
                if self.transport is None or self.paused or self.write_paused or not self._step():
                    break
            else:
                self.loop.call_soon(self._drain)  # more pipelined: the other connections first
        except BadRequest as exc:
            self._send(problem(exc.status, "Bad request", str(exc)), head_only=False, keep_alive=False)
        finally:
            self.draining = False
            self._flow()

    def _flow(self) -> None:
        """Stop reading while answers are held back and a request is already waiting (the buffer stays
        bounded), and read again once they flow."""
        if self.transport is None:
            return
        held = self.paused or self.write_paused
        if held and not self.reading_paused and len(self.buffer) > MAX_HEAD:
            self.transport.pause_reading()
            self.reading_paused = True
        elif not held and self.reading_paused:
            self.transport.resume_reading()
            self.reading_paused = False

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
        if answer.delay_s > 0:
            self.paused = True
            self.loop.call_later(answer.delay_s, self._deliver, answer, head_only, keep_alive)
        else:
            self._deliver(answer, head_only, keep_alive)

    def _deliver(self, answer: Answer, head_only: bool, keep_alive: bool) -> None:
        self.paused = False
        if self.transport is None:
            return
        if answer.fault is not None:
            FAULT_WRITERS[answer.fault](self, answer, head_only)
            return
        self.transport.write(encode(answer, head_only=head_only, keep_alive=keep_alive))
        self._after(keep_alive)

    def _after(self, keep_alive: bool) -> None:
        """An answer is out: wait for the next request, or close."""
        if self.transport is None:
            return
        if keep_alive:
            self._arm(IDLE_SECONDS)
            if self.buffer:
                self._drain()  # requests that were pipelined behind it
        else:
            self.buffer.clear()
            self.transport.close()

    # -- faults, on purpose ------------------------------------------------------------------------------------

    def _reset(self, _answer: Answer, _head_only: bool) -> None:
        sock = self.transport.get_extra_info("socket")
        if sock is not None:  # linger 0: the close sends RST instead of FIN
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def _empty(self, _answer: Answer, _head_only: bool) -> None:
        self.transport.close()

    def _garbage(self, _answer: Answer, _head_only: bool) -> None:
        self.transport.write(b"\x00\xff\xfe garbage, not HTTP \x1b[0m\r\n\r\n")
        self.transport.close()

    def _hang(self, _answer: Answer, _head_only: bool) -> None:
        self.paused = True  # never answers; the connection goes after HANG_SECONDS
        self._arm(HANG_SECONDS)

    def _truncate(self, answer: Answer, head_only: bool) -> None:
        wire = encode(answer, head_only=False, keep_alive=False)
        cut = len(wire) - max(1, len(answer.body) // 2) if answer.body else len(wire) // 2
        self.transport.write(wire[:cut])
        self.transport.close()

    def _malformed_chunk(self, answer: Answer, _head_only: bool) -> None:
        head = [*_head_lines(answer), "Transfer-Encoding: chunked", "Connection: close"]
        self.transport.write(("\r\n".join(head) + "\r\n\r\nzz\r\nnot a chunk size\r\n").encode("latin-1"))
        self.transport.close()

    def _dribble(self, answer: Answer, head_only: bool) -> None:
        wire = encode(answer, head_only=head_only, keep_alive=True)
        self.paused = True

        def one(at: int) -> None:
            if self.transport is None:
                return
            self.transport.write(wire[at:at + 1])
            self._arm(IDLE_SECONDS)
            if at + 1 < len(wire):
                self.loop.call_later(DRIBBLE_SECONDS, one, at + 1)
            else:
                self.paused = False
                self._after(True)

        one(0)


FAULT_WRITERS: dict[str, Callable[[_Connection, Answer, bool], None]] = {
    "reset": _Connection._reset, "empty": _Connection._empty, "garbage": _Connection._garbage,
    "hang": _Connection._hang, "truncate": _Connection._truncate, "malformed-chunk": _Connection._malformed_chunk,
    "dribble": _Connection._dribble,
}


class MockServer:
    """The mock for one spec on a socket of its own; `start()` serves from a background thread."""

    def __init__(self, spec: Spec, host: str = "127.0.0.1", port: int = 0, seed: int = 0,
                 head_seconds: float = HEAD_SECONDS, app: MockApp | None = None) -> None:
        self.app = app or MockApp(spec, seed)
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
                                                self.host, self.port, reuse_address=True, backlog=BACKLOG)
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


def serve(app: MockApp, host: str, port: int, ready: Callable[[MockServer], None]) -> None:
    """Serve `app` in this thread until interrupted (Ctrl+C stops it cleanly); `ready` is told once it listens."""
    server = MockServer(app.spec, host, port, app=app)

    async def main() -> None:
        await server.open()
        ready(server)
        async with server._server:
            await server._server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(main())
