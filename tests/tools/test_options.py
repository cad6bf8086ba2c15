"""Config + overrides → the tool-set options, the same for every command and panel."""

from __future__ import annotations

import pytest

from workbench.config import LintConfig, ToolsConfig, WorkbenchConfig
from workbench.spec import SpecError, load_spec
from workbench.tools.human import human_values
from workbench.tools.options import ToolOverrides, build_toolset, toolset_options

TEAM = WorkbenchConfig(LintConfig(thresholds={"tool-budget": 9}),
                       ToolsConfig(vendor="anthropic", strict=True, tags=("orders",), nested=True, flatten_depth=1),
                       "team.yaml")


def test_the_config_holds_where_nothing_overrides_it():
    options = toolset_options(TEAM)
    assert (options.vendor, options.strict, options.nested, options.flatten_depth) == ("anthropic", True, True, 1)
    assert options.scope.tags == ("orders",) and options.scope.budget == 9


def test_what_is_given_wins_even_when_it_turns_a_setting_off():
    options = toolset_options(TEAM, ToolOverrides(vendor="openai", strict=False, tags=(), nested=False, budget=3))
    assert (options.vendor, options.strict, options.nested, options.flatten_depth) == ("openai", False, False, 1)
    assert options.scope.tags == () and options.scope.budget == 3


def test_defaults_without_a_config():
    options = toolset_options(WorkbenchConfig())
    assert options.vendor == "openai" and options.scope.budget == 40 and not options.nested


SPEC = """openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /files:
    post:
      operationId: upload
      parameters:
        - {name: api_key, in: header, required: true, schema: {type: string}}
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object, properties: {file: {type: string, format: binary}, note: {type: string}}}
      responses: {'201': {description: made}}
"""


def test_human_values_from_the_environment_and_files(write):
    spec = load_spec(write("s.yaml", SPEC))
    tool = build_toolset(spec, WorkbenchConfig()).tool("upload")
    assert {b.argument for b in tool.bindings if b.human} == {"api_key", "file"}
    upload = write("photo.png", b"\x89PNG")
    values = human_values(tool, {"file": f"@{upload}"}, {"WORKBENCH_HUMAN_API_KEY": "k-1",
                                                           "WORKBENCH_HUMAN_NOTE": "not a human argument"})
    assert values == {"file": {"filename": "photo.png", "content": b"\x89PNG",
                               "content_type": "application/octet-stream"}, "api_key": "k-1"}
    assert human_values(tool, {"api_key": "given"}, {"WORKBENCH_HUMAN_API_KEY": "env"}) == {"api_key": "given"}
    with pytest.raises(SpecError) as raised:
        human_values(tool, {"file": "@/no/such/file"}, {})
    assert str(raised.value).startswith("/no/such/file: cannot read the upload for 'file'")
