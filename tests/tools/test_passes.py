"""Schema passes on small inline specs: the allOf merge."""

from __future__ import annotations

import pytest

from workbench.spec import load_spec
from workbench.tools import ConvertOptions, convert

READ_ONLY_IN_ONE_MEMBER = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things:
    post:
      operationId: addThing
      requestBody:
        required: true
        content:
          application/json:
            schema:
              allOf:
                - $ref: '#/components/schemas/Base'
                - properties: {id: {type: string}, type: {type: string}}
                  required: [id, type]
      responses: {'200': {description: ok}}
components:
  schemas:
    Base:
      type: object
      properties:
        id: {type: string, readOnly: true}
        type: {type: string, readOnly: true}
        created: {type: string, readOnly: true}
        name: {type: string}
"""


@pytest.mark.parametrize("vendor", ["openai", "anthropic", "gemini", "mcp"])
def test_allof_keeps_a_property_read_only_only_if_every_member_defining_it_says_so(write, vendor):
    """Base marks id and type readOnly; the second member asks for both: they stay required arguments.
    `created` is readOnly wherever it is defined: it is not asked for."""
    spec = load_spec(write("s.yaml", READ_ONLY_IN_ONE_MEMBER))
    tool = convert(spec, ConvertOptions(vendor=vendor)).tool("addThing")
    body = tool.parameters["properties"]["body"]
    assert "allOf" not in body
    assert set(body["properties"]) == {"id", "type", "name"}
    assert sorted(body["required"]) == ["id", "type"]
