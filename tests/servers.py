"""A real HTTP server on 127.0.0.1 that records each request exactly as it arrived (request line, headers
in order, body bytes) and answers from a script."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Recorded:
    line: str  # "GET /path?query HTTP/1.1", as sent
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    @property
    def target(self) -> str:
        return self.line.split(" ")[1]


@dataclass
class Reply:
    status: int = 200
    headers: list[tuple[str, str]] = field(default_factory=lambda: [("Content-Type", "application/json")])
    body: bytes = b"{}"
    dribble_s: float = 0.0  # send the body one byte at a time, this long apart


class RecordingServer:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.script: list[Reply] = []  # replies in order; the last one repeats
        self.responder: Callable[[Recorded], Reply] | None = None
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def reply(self, *replies: Reply) -> None:
        self.script = list(replies)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except OSError:
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, rest = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:]]
            length = int(next((v for k, v in headers if k.lower() == "content-length"), "0"))
            while len(rest) < length:
                rest += conn.recv(65536)
            recorded = Recorded(lines[0], headers, rest[:length])
            self.requests.append(recorded)
            reply = self.responder(recorded) if self.responder else (
                self.script.pop(0) if len(self.script) > 1 else (self.script[0] if self.script else Reply()))
            status_line = f"HTTP/1.1 {reply.status} X\r\n"
            head_out = "".join(f"{k}: {v}\r\n" for k, v in reply.headers)
            head_out += f"Content-Length: {len(reply.body)}\r\nConnection: close\r\n\r\n"
            try:
                conn.sendall((status_line + head_out).encode("latin-1"))
                if reply.dribble_s:
                    for byte in reply.body:
                        conn.sendall(bytes([byte]))
                        time.sleep(reply.dribble_s)
                else:
                    conn.sendall(reply.body)
            except OSError:
                pass

    def close(self) -> None:
        self._stop.set()
        self._socket.close()
        self._thread.join(timeout=2)
