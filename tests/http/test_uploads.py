"""File uploads as the tool schema has them: a `format: binary` field is a string to the model, and the
person's side (human_values: `@path`) gives `{filename, content, content_type}` or bytes. The validator
accepts each, and the request carries a multipart file part (file name, content type) or raw bytes."""

from __future__ import annotations

from email.parser import BytesParser

import pytest

from workbench.http.calls import ToolCall
from workbench.http.executor import CallOptions, Executor
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, convert
from workbench.tools.human import human_values, never_human
from workbench.wire.messages import Request
from workbench.wire.validate import check_request

SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /upload:
    post:
      operationId: upload
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [file]
              properties:
                file: {type: string, format: binary}
                pics: {type: array, items: {type: string, format: binary}}
                title: {type: string}
            encoding:
              pics: {contentType: image/png}
      responses: {'200': {description: ok}}
  /blobs/{name}:
    put:
      operationId: putBlob
      parameters: [{name: name, in: path, required: true, schema: {type: string}}]
      requestBody:
        required: true
        content:
          application/octet-stream:
            schema: {type: string, format: binary}
      responses: {'200': {description: ok}}
"""


def parts(body: bytes, content_type: str) -> list[tuple[dict, bytes]]:
    message = BytesParser().parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    return [(dict(part.items()), part.get_payload(decode=True)) for part in message.get_payload()]


def sent_is_valid(spec, server, operation_id: str) -> None:
    recorded = server.requests[-1]
    op = next(op for op in spec.operations if op.operation_id == operation_id)
    request = Request.from_url(recorded.line.split(" ")[0], recorded.target, recorded.headers, recorded.body)
    assert check_request(spec, op, request) == []


@pytest.fixture
def spec(write):
    return load_spec(write("uploads.yaml", SPEC))


def test_a_file_from_the_human_side_is_a_multipart_file_part(spec, server, write):
    toolset = convert(spec)
    assert set(toolset.tool("upload").parameters["properties"]) == {"title"}  # files come from a person
    photo = write("photo.png", b"\x89PNG\r\n\x1a\n\x00")
    human = human_values(toolset.tool("upload"), {"file": f"@{photo}", "pics": [b"\x89P1", b"\x89P2"]}, {})
    result = Executor(spec, toolset, CallOptions(base_url=server.url, human=human)).call(
        ToolCall("upload", {"title": "holiday"}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    recorded = server.requests[0]
    (file, pic1, pic2, title) = parts(recorded.body, recorded.header("Content-Type"))
    assert file[0]["Content-Disposition"] == 'form-data; name="file"; filename="photo.png"'
    assert file[0]["Content-Type"] == "application/octet-stream" and file[1] == b"\x89PNG\r\n\x1a\n\x00"
    assert 'filename="pics"' in pic1[0]["Content-Disposition"] and pic1[0]["Content-Type"] == "image/png"
    assert (pic1[1], pic2[1]) == (b"\x89P1", b"\x89P2")
    assert title[0]["Content-Disposition"] == 'form-data; name="title"' and title[1] == b"holiday"
    sent_is_valid(spec, server, "upload")


def test_a_binary_field_the_model_fills_is_sent_as_a_file_part(spec, server):
    toolset = convert(spec, ConvertOptions(human=never_human))
    assert toolset.tool("upload").parameters["properties"]["file"] == {"type": "string", "format": "binary"}
    result = Executor(spec, toolset, CallOptions(base_url=server.url)).call(
        ToolCall("upload", {"file": "hello, world"}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    recorded = server.requests[0]
    ((head, content),) = parts(recorded.body, recorded.header("Content-Type"))
    assert head["Content-Disposition"] == 'form-data; name="file"; filename="file"'
    assert head["Content-Type"] == "application/octet-stream" and content == b"hello, world"
    sent_is_valid(spec, server, "upload")


BLOB = b"\x00\x01raw\xff"


@pytest.mark.parametrize("given", [BLOB, "@file"])
def test_an_octet_stream_body_is_sent_as_raw_bytes(spec, server, write, given):
    toolset = convert(spec)
    if given == "@file":
        given = f"@{write('blob.bin', BLOB)}"
    human = human_values(toolset.tool("putBlob"), {"body": given}, {})
    result = Executor(spec, toolset, CallOptions(base_url=server.url, human=human, mock=True)).call(
        ToolCall("putBlob", {"name": "b1"}))
    assert result.status == 200, result.feedback.text if result.feedback else result.error
    recorded = server.requests[0]
    assert recorded.body == BLOB and recorded.header("Content-Type") == "application/octet-stream"
    sent_is_valid(spec, server, "putBlob")


def test_a_file_where_the_spec_wants_text_is_still_feedback(spec, server):
    toolset = convert(spec, ConvertOptions(human=never_human))
    result = Executor(spec, toolset, CallOptions(base_url=server.url)).call(ToolCall("upload", {
        "file": "x", "title": {"filename": "a.txt", "content": b"a", "content_type": "text/plain"}}))
    assert result.status is None and [v.place for v in result.feedback.violations] == ["/title"]
