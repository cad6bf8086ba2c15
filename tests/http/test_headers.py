"""Header and cookie values a request cannot carry (non-ASCII, CR/LF) are feedback or a clear error, never an
exception out of `Executor.call`; what can be carried still goes on the wire."""

from __future__ import annotations

import pytest

from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, convert

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
    jar: {type: apiKey, in: cookie, name: sid}
paths:
  /notes:
    get:
      operationId: listNotes
      parameters:
        - {name: X-Label, in: header, schema: {type: string}}
        - {name: X-Tags, in: header, schema: {type: array, items: {type: string}}}
        - {name: theme, in: cookie, schema: {type: string}}
      responses: {'200': {description: ok}}
  /keyed:
    get:
      operationId: keyed
      security: [{key: []}]
      responses: {'200': {description: ok}}
  /jarred:
    get:
      operationId: jarred
      security: [{jar: []}]
      responses: {'200': {description: ok}}
"""


@pytest.fixture
def run(write, server):
    spec = load_spec(write("headers.yaml", SPEC))
    return lambda **options: Executor(spec, convert(spec, ConvertOptions(**options)), CallOptions(base_url=server.url))


@pytest.mark.parametrize("arguments, argument", [
    ({"X_Label": "café"}, "X_Label"),
    ({"X_Label": "a\r\nX-Injected: 1"}, "X_Label"),
    ({"X_Label": "line\nbreak"}, "X_Label"),
    ({"X_Tags": ["ok", "naïve"]}, "X_Tags"),
])
def test_a_header_value_the_wire_cannot_carry_is_feedback_naming_the_argument(run, server, arguments, argument):
    result = run().call(ToolCall("listNotes", arguments))
    assert result.status is None and result.feedback is not None and server.requests == []
    (violation,) = result.feedback.violations
    assert violation.place == f"/{argument}" and "header" in violation.expected
    assert f'"{argument}"' in result.feedback.text and "❌" in result.feedback.text


def test_the_nested_layout_names_the_argument_in_its_group(run, server):
    result = run(nested=True).call(ToolCall("listNotes", {"header": {"X_Label": "café"}}))
    assert [v.place for v in result.feedback.violations] == ["/header/X_Label"] and server.requests == []


def test_a_cookie_parameter_is_percent_encoded_and_plain_headers_still_go(run, server):
    result = run().call(ToolCall("listNotes", {"X_Label": "plain text", "theme": "café; x=1"}))
    assert result.status == 200, result.error
    (request,) = server.requests
    assert request.header("X-Label") == "plain text" and request.header("Cookie") == "theme=caf%C3%A9%3B%20x%3D1"


@pytest.mark.parametrize("tool, secret", [("keyed", "clé"), ("keyed", "k\r\nX-Injected: 1"), ("jarred", "jéton")])
def test_a_credential_the_wire_cannot_carry_is_an_error_not_an_exception(run, server, monkeypatch, tool, secret):
    monkeypatch.setenv("WORKBENCH_AUTH_KEY", secret)
    monkeypatch.setenv("WORKBENCH_AUTH_JAR", secret)
    result = run().call(ToolCall(tool, {}))
    assert result.status is None and server.requests == []
    assert "credential" in result.error and secret not in result.error and secret not in str(result.to_json())
