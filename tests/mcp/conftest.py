"""The MCP server as a client meets it: `workbench serve-mcp` spawned as a real subprocess (this checkout's
code), driven by the SDK's own client over stdio or HTTP, each session bounded in time."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHOP = Path(__file__).with_name("shop.yaml")  # a small API: reads, a create, a delete, a password change
SESSION_S = 60  # the most one test's session may take (a slow, shared machine included)


_CACHE: list[Path] = []  # the session's cache folder (XDG_CACHE_HOME), never the user's


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WORKBENCH_AUTH_", "WORKBENCH_HUMAN_"))}
    env.update({"PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1", "XDG_CACHE_HOME": str(_CACHE[0])}, **extra)
    return env


def stdio_params(*args: str, env: dict[str, str] | None = None):
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=["-m", "workbench", "serve-mcp", *args],
                                 env=env or server_env(), cwd=str(REPO))


@pytest.fixture(scope="session", autouse=True)
def cache_home(tmp_path_factory) -> Path:
    _CACHE[:] = [tmp_path_factory.mktemp("xdg-cache")]
    return _CACHE[0]


class HttpServer:
    """`serve-mcp --transport http` on a free port; `url` once it says where it listens."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "workbench", "serve-mcp", *args, "--transport", "http", "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or server_env(), cwd=str(REPO))
        deadline = time.monotonic() + SESSION_S
        line = ""
        while time.monotonic() < deadline and not line.startswith("listening on "):
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.process.stderr.read()}")
        assert line.startswith("listening on "), line
        self.url = line.split()[-1]

    def stop(self) -> str:
        self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err


@pytest.fixture
def http_server():
    started: list[HttpServer] = []

    def start(*args: str, env: dict[str, str] | None = None) -> HttpServer:
        started.append(HttpServer(*args, env=env))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def shop() -> Path:
    return SHOP


@pytest.fixture
def stdio():
    """`stdio(*args, env=...)`: how the SDK's client spawns `workbench serve-mcp *args`."""
    return stdio_params


@pytest.fixture
def env():
    """`env(**extra)`: the server's environment, free of this machine's credentials."""
    return server_env
