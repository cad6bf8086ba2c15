"""A real HTTP server on 127.0.0.1 that records each request exactly as it arrived (request line, headers
in order, body bytes) and answers from a script; a scripted model behind an OpenAI-compatible API; and an
in-memory stand-in for the OS keyring."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import keyring.backend


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


# -- a scripted model behind an OpenAI-compatible API ----------------------------------------------------


@dataclass
class ModelRequest:
    """One request the scripted model received."""

    path: str  # "/v1/chat/completions" or "/v1/responses"
    headers: dict[str, str]  # names in lower case
    body: dict
    raw: bytes
    at: float  # time.monotonic() when it arrived

    @property
    def api(self) -> str:
        return "responses" if self.path.endswith("/responses") else "chat"

    @property
    def messages(self) -> list[dict]:
        value = self.body.get("messages" if self.api == "chat" else "input") or []
        return [{"role": "user", "content": value}] if isinstance(value, str) else list(value)

    @property
    def prompt(self) -> str:
        return next((str(m.get("content", "")) for m in reversed(self.messages) if m.get("role") == "user"), "")

    @property
    def offered(self) -> list[str]:
        tools = self.body.get("tools") or []
        return [(t.get("function") or {}).get("name", "") if self.api == "chat" else t.get("name", "") for t in tools]


@dataclass
class ModelReply:
    """What the scripted model answers. `calls`: (name, arguments) pairs, arguments a dict (sent as JSON) or a
    string (sent as it is: malformed JSON on purpose). A status other than 200 sends an error body."""

    calls: tuple[tuple[str, dict | str], ...] = ()
    text: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # on top of the server's fixed latency: longer than the client's timeout forces one
    usage: tuple[int, int] = (20, 5)  # input, output tokens
    raw: bytes | None = None  # sent as the body instead of a well-formed answer (garbage with a 200)


def call(name: str, arguments: dict | str | None = None, **more: dict | str) -> ModelReply:
    """One tool call (`call("get_pet", {"id": 1})`), or several (`call("a", {}, b={})`): parallel calls."""
    return ModelReply(calls=((name, {} if arguments is None else arguments), *more.items()))


def _words(text: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", spaced.lower())}


def keyword_policy(request: ModelRequest) -> ModelReply:
    """Pick the offered tool whose name shares most words with the prompt (the first on a tie); no tool
    when none shares a word. Deterministic, so a bench measures the runner, not the model."""
    prompt = _words(request.prompt)
    best, score = None, 0
    for name in request.offered:
        shared = len(_words(name) & prompt)
        if shared > score:
            best, score = name, shared
    return call(best) if best else ModelReply(text="None of these tools fits.")


class ScriptedModelServer:
    """An OpenAI-compatible endpoint on 127.0.0.1 in a thread: POST /v1/chat/completions and /v1/responses,
    answered by `script(request) -> ModelReply` after a fixed `latency`. Every request is recorded."""

    def __init__(self, script: Callable[[ModelRequest], ModelReply] | None = None, *, latency: float = 0.0) -> None:
        import http.server

        self.script = script or keyword_policy
        self.latency = latency
        self.requests: list[ModelRequest] = []
        self._lock = threading.Lock()
        self._counter = 0
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            wbufsize = -1  # headers and body in one write: no delayed-ACK stall between them
            disable_nagle_algorithm = True

            def do_POST(self) -> None:
                owner._answer(self)

            def log_message(self, *args: object) -> None:
                pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False

            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that timed out and hung up

        self._server = Server(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def sequence(self, *replies: ModelReply) -> None:
        """Answer with these in order, whatever is asked; the last one repeats."""
        queue = list(replies)

        def script(request: ModelRequest) -> ModelReply:
            with self._lock:
                return queue.pop(0) if len(queue) > 1 else queue[0]

        self.script = script

    def received(self, path_suffix: str = "") -> list[ModelRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith(path_suffix)]

    def _answer(self, handler: object) -> None:
        import http.server

        assert isinstance(handler, http.server.BaseHTTPRequestHandler)
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        request = ModelRequest(handler.path, {k.lower(): v for k, v in handler.headers.items()}, body, raw,
                               time.monotonic())
        with self._lock:
            self.requests.append(request)
            self._counter += 1
            number = self._counter
        if handler.path not in ("/v1/chat/completions", "/v1/responses"):
            reply = ModelReply(status=404, text=f"no route {handler.path}")
        else:
            reply = self.script(request)
        time.sleep(self.latency + reply.delay)
        payload = reply.raw if reply.raw is not None else json.dumps(_model_body(request, reply, number)).encode()
        try:
            handler.send_response(reply.status)
            for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except OSError:
            pass

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)

    def __enter__(self) -> ScriptedModelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _model_body(request: ModelRequest, reply: ModelReply, number: int) -> dict:
    if reply.status != 200:
        return {"error": {"message": reply.text or f"scripted {reply.status}", "type": "scripted", "code": None}}
    arguments = [(name, args if isinstance(args, str) else json.dumps(args)) for name, args in reply.calls]
    model = request.body.get("model", "scripted")
    if request.api == "chat":
        message: dict = {"role": "assistant", "content": reply.text}
        if arguments:
            message["tool_calls"] = [{"id": f"call_{number}_{i}", "type": "function",
                                      "function": {"name": name, "arguments": args}}
                                     for i, (name, args) in enumerate(arguments)]
        return {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": 1700000000, "model": model,
                "choices": [{"index": 0, "finish_reason": "tool_calls" if arguments else "stop", "message": message}],
                "usage": {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                          "total_tokens": sum(reply.usage)}}
    output: list[dict] = [{"type": "function_call", "id": f"fc_{number}_{i}", "call_id": f"call_{number}_{i}",
                           "name": name, "arguments": args, "status": "completed"}
                          for i, (name, args) in enumerate(arguments)]
    if reply.text is not None:
        output.append({"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
    return {"id": f"resp_{number}", "object": "response", "created_at": 1700000000, "model": model,
            "status": "completed", "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": [], "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1],
                                   "total_tokens": sum(reply.usage)}}


class MemoryKeyring(keyring.backend.KeyringBackend):
    """The OS keyring's stand-in for a test (`keyring.set_keyring(MemoryKeyring())`): secrets in memory only."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)
