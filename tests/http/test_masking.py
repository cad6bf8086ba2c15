"""A credential the server echoes back (in an error body, a response header) is masked wherever a result is
shown: `workbench call` in both formats, and the text fed back to a model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.servers import Recorded, Reply

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
components:
  securitySchemes:
    token: {type: http, scheme: bearer}
security: [{token: []}]
paths:
  /me:
    get: {operationId: whoAmI, responses: {'200': {description: ok}}}
"""
SECRET = "tok-9f8e7d6c5b4a"


def echo(request: Recorded) -> Reply:
    """An API that repeats the credential it was given, as careless error handlers do."""
    authorization = request.header("Authorization") or ""
    body = json.dumps({"error": "invalid token", "detail": f"rejected {authorization}",
                       "seen": [authorization.removeprefix("Bearer ")]}).encode()
    return Reply(401, [("Content-Type", "application/json"), ("X-Echo-Authorization", authorization),
                       ("Location", f"/login?token={SECRET}")], body)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_an_echoed_secret_is_masked_in_every_format(write, server, fmt):
    server.responder = echo
    path = write("echo.yaml", SPEC)
    run = subprocess.run([sys.executable, "-m", "workbench", "call", str(path), "whoAmI", "--base-url", server.url,
                          "--format", fmt], capture_output=True, text=True, timeout=60, check=False,
                         env={"WORKBENCH_AUTH_TOKEN": SECRET, "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert server.requests[0].header("Authorization") == f"Bearer {SECRET}"  # it did go, and came back
    assert SECRET not in run.stdout and "********" in run.stdout
    if fmt == "json":
        out = json.loads(run.stdout)
        assert out["status"] == 401 and out["headers"]["x-echo-authorization"] == "Bearer ********"
        assert out["body"] == {"error": "invalid token", "detail": "rejected Bearer ********", "seen": ["********"]}
    else:
        assert run.stdout.startswith("HTTP 401") and "location: /login?token=********" in run.stdout


def test_a_trimmed_body_never_shows_part_of_a_secret(write, server, monkeypatch):
    from workbench.http.calls import ToolCall
    from workbench.http.executor import CallOptions, Executor
    from workbench.spec import load_spec
    from workbench.tools import convert

    monkeypatch.setenv("WORKBENCH_AUTH_TOKEN", SECRET)
    server.reply(Reply(400, [("Content-Type", "text/plain")], b"x" * 95 + SECRET.encode()))
    spec = load_spec(write("echo.yaml", SPEC))
    result = Executor(spec, convert(spec), CallOptions(base_url=server.url)).call(ToolCall("whoAmI", {}))
    assert result.status == 400
    assert SECRET[:5] not in result.to_text(budget=100)


def test_a_url_as_shown_has_no_credentials():
    from workbench.http.auth import url_host, url_without_credentials

    assert url_without_credentials("http://user:s3cret@api.example.invalid:8443/v1?key=abc") == \
        "http://api.example.invalid:8443/v1"
    assert url_host("http://user:s3cret@api.example.invalid:8443/v1") == "api.example.invalid:8443"
    assert url_host("http://[::1]:9/v1") == "[::1]:9"
    assert url_without_credentials("http://host:port-is-not-a-number/") is None
    assert url_host("not a url") is None
