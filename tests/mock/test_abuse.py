"""Load and abuse on loopback, bounded in count and time, against `workbench mock` in a process of its own:
many keep-alive clients at once, slow-loris clients, garbage, oversized heads and bodies, a client that
pipelines 2,000 requests. The mock answers what it can, cuts off what it must, keeps answering valid requests
meanwhile, and once the clients are gone holds no connection and little more memory than before."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from tests.catalogue import MOCK_PETS as SPEC
from workbench.mock.server import HEAD_SECONDS, MAX_BODY, MAX_HEAD

CLIENTS, REQUESTS = 32, 25  # keep-alive clients at once, requests each
SLOW, GARBAGE, HUGE, OVERSIZED = 40, 20, 10, 10


def _reply(sock: socket.socket, limit: int = 65536) -> bytes:
    chunks = []
    try:
        while sum(map(len, chunks)) < limit:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except (ConnectionResetError, TimeoutError):
        pass
    return b"".join(chunks)


class Mock:
    """`workbench mock SPEC --port 0`, its address and what the system says of the process."""

    def __init__(self, spec_path: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "workbench", "mock", str(spec_path), "--port", "0"],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.url = self.process.stdout.readline().strip().removeprefix("listening on ")
        where = urlsplit(self.url)
        self.host, self.port = where.hostname, where.port

    def sockets(self) -> int:
        """The server's open sockets now. An fd listed and closed before it is read (the server closing a
        connection, or a file, meanwhile) was not open: it is not counted."""
        count = 0
        for fd in Path(f"/proc/{self.process.pid}/fd").iterdir():
            try:
                count += os.readlink(fd).startswith("socket:")
            except FileNotFoundError:
                continue
        return count

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])

    def stop(self) -> str:
        self.process.send_signal(signal.SIGINT)
        _out, err = self.process.communicate(timeout=10)
        return err


def _connect(server: Mock) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=15)


def keep_alive_client(server: Mock) -> list[int]:
    with httpx.Client(base_url=server.url + "/v1", timeout=15) as http:
        return [http.get("/pets" if i % 2 else "/pets/mine").status_code for i in range(REQUESTS)]


def slow_loris(server: Mock) -> float:
    """One byte of a head every 0.1 s: the seconds until the mock closes the connection."""
    began = time.monotonic()
    with _connect(server) as sock:
        try:
            for byte in b"GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
                sock.sendall(bytes([byte]))
                time.sleep(0.1)
                if time.monotonic() - began > HEAD_SECONDS + 5:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        _reply(sock)
    return time.monotonic() - began


def garbage(server: Mock) -> bytes:
    with _connect(server) as sock:
        sock.sendall(os.urandom(2048) + b"\r\n\r\n")
        return _reply(sock)[:12]


def huge_head(server: Mock) -> bytes:
    with _connect(server) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(b"GET /v1/pets HTTP/1.1\r\n" + b"X-Big: " + b"b" * (MAX_HEAD + 1000))
        return _reply(sock)[:12]


def oversized_body(server: Mock) -> bytes:
    with _connect(server) as sock:
        sock.sendall(f"POST /v1/pets HTTP/1.1\r\nContent-Length: {MAX_BODY * 4}\r\n\r\n".encode() + b"x" * 1000)
        return _reply(sock)[:12]


def pipeliner(server: Mock) -> int:
    """2,000 requests in one go, read only after they are all sent: every one is answered, in order."""
    with _connect(server) as sock:
        sock.sendall(b"GET /v1/pets/mine HTTP/1.1\r\nHost: x\r\n\r\n" * 1999
                     + b"GET /v1/pets/mine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return _reply(sock, limit=10**8).count(b"HTTP/1.1 200 OK")


def probe(server: Mock) -> float:
    """The seconds one valid request takes on a connection of its own (a raw socket: what is timed is the
    mock, not a client's start-up in this busy process)."""
    start = time.monotonic()
    with _connect(server) as sock:
        sock.sendall(b"GET /v1/pets/mine HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _reply(sock).startswith(b"HTTP/1.1 200 OK")
    return time.monotonic() - start


def test_under_load_and_abuse_the_mock_keeps_answering_valid_requests_and_holds_nothing_after(write):
    server = Mock(write("pets.yaml", SPEC))
    try:
        assert httpx.get(server.url + "/v1/pets", timeout=5).status_code == 200
        idle_sockets, rss_before = server.sockets(), server.rss_kib()
        with ThreadPoolExecutor(max_workers=128) as pool:
            began = time.monotonic()
            slow = [pool.submit(slow_loris, server) for _ in range(SLOW)]
            bad = ([pool.submit(garbage, server) for _ in range(GARBAGE)]
                   + [pool.submit(huge_head, server) for _ in range(HUGE)]
                   + [pool.submit(oversized_body, server) for _ in range(OVERSIZED)])
            piped = pool.submit(pipeliner, server)
            load = [pool.submit(keep_alive_client, server) for _ in range(CLIENTS)]
            waits = []  # meanwhile, one more client is answered promptly, again and again
            while not all(f.done() for f in slow + load) and time.monotonic() - began < 60:
                waits.append(probe(server))
                time.sleep(0.05)
            statuses = [status for f in load for status in f.result(timeout=60)]
            cut_after = [f.result(timeout=60) for f in slow]
            refused = [f.result(timeout=60) for f in bad]
            answered_in_order = piped.result(timeout=60)
        assert time.monotonic() - began < 60
        assert statuses == [200] * (CLIENTS * REQUESTS)
        assert len(waits) > 10 and max(waits) < 3.0 and sorted(waits)[len(waits) // 2] < 0.3, waits
        assert max(cut_after) < HEAD_SECONDS + 3, max(cut_after)  # cut off at the head deadline
        assert refused[:GARBAGE] == [b"HTTP/1.1 400"] * GARBAGE
        assert refused[GARBAGE:GARBAGE + HUGE] == [b"HTTP/1.1 431"] * HUGE
        assert refused[GARBAGE + HUGE:] == [b"HTTP/1.1 413"] * OVERSIZED
        assert answered_in_order == 2000
        # afterwards: the next normal request; no connection held; memory about where it was
        assert httpx.get(server.url + "/v1/pets", timeout=5).status_code == 200
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and server.sockets() > idle_sockets:
            time.sleep(0.1)
        assert server.sockets() <= idle_sockets
        assert server.rss_kib() - rss_before < 30 * 1024, (rss_before, server.rss_kib())
    finally:
        err = server.stop()
    assert server.process.returncode == 0 and "Traceback" not in err, err
