"""OpenAPI's integer formats are checked where arguments and requests are checked (one format checker)."""

from __future__ import annotations

from workbench.http.validate import check
from workbench.spec import load_spec
from workbench.tools.convert import ConvertOptions, convert

SPEC = """openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: timeout, in: header, schema: {type: integer, format: int32}}
        - {name: offset, in: query, schema: {type: integer, format: int64}}
      responses: {'200': {description: ok}}
"""


def test_int32_and_int64_bounds_are_checked(write) -> None:
    spec = load_spec(write("s.yaml", SPEC))
    tool = convert(spec, ConvertOptions(vendor="openai", strict=True)).tool("listThings")
    assert not check(spec, tool, {"timeout": 2**31 - 1, "offset": -(2**63)}).violations
    refused = check(spec, tool, {"timeout": -2403493211, "offset": 2**63})
    assert [(v.place, v.expected) for v in refused.violations] == [("/offset", "format \"int64\""),
                                                                   ("/timeout", "format \"int32\"")]
    assert not check(spec, tool, {"timeout": None, "offset": None}).violations  # strict: null means not given
