"""The Tools panel's Qt-free part: the set it shows is the one builder's, the changes an edit makes are named,
and the config's `tools:` section is written back without touching anything else of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.config import ToolsConfig, WorkbenchConfig
from workbench.spec import SpecError, load_spec
from workbench.tools.options import ToolOverrides, build_toolset
from workbench.workspace.loading import spec_config
from workbench.workspace.toolpreview import (
    VENDOR_CHOICES,
    build_preview,
    changes_between,
    choice_index,
    compare_vendors,
    export_text,
    limit_state,
    operation_key,
    side_by_side,
    with_choice,
    write_tools_section,
)

SPEC = """openapi: 3.0.3
info: {title: Pets, version: "1"}
paths:
  /pets:
    get:
      operationId: listPets
      tags: [pets]
      summary: List the pets
      description: Lists every pet in the shop, newest first, a page at a time.
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
      responses: {"200": {description: ok}}
    post:
      operationId: addPet
      tags: [admin]
      summary: Add a pet
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {name: {type: string, minLength: 1}}, required: [name]}
      responses: {"201": {description: created}}
"""


def spec_file(tmp_path: Path, text: str = SPEC) -> Path:
    path = tmp_path / "pets.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_preview_is_the_one_builders_set_with_tokens(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    settings = ToolsConfig(vendor="anthropic", tags=("pets",))
    preview = build_preview(spec, WorkbenchConfig(), settings)
    expected = build_toolset(spec, WorkbenchConfig(tools=settings), ToolOverrides())
    assert [r.name for r in preview.rows] == [t.name for t in expected.tools] == ["listPets"]
    assert preview.rows[0].tokens == expected.tokens.per_tool["listPets"] > 0
    assert export_text(preview.toolset) == export_text(expected)


def test_an_edit_is_said_as_renamed_tokens_and_description(tmp_path):
    path = spec_file(tmp_path)
    before = build_toolset(load_spec(path), WorkbenchConfig())
    edited = SPEC.replace("operationId: listPets", "operationId: listAllPets").replace(
        "newest first, a page at a time.", "newest first, a page at a time; each with its name, age and owner.")
    after = build_toolset(load_spec(path, text=edited), WorkbenchConfig())
    kinds = {(c.name, c.kind) for c in changes_between(before, after)}
    assert kinds == {("listAllPets", "renamed"), ("listAllPets", "tokens"), ("listAllPets", "description")}
    tokens = next(c for c in changes_between(before, after) if c.kind == "tokens")
    assert tokens.token_delta > 0 and "tokens up" in tokens.text
    removed = build_toolset(load_spec(path, text=SPEC.replace("    post:", "    x-post:")), WorkbenchConfig())
    assert [(c.name, c.kind) for c in changes_between(before, removed)] == [("addPet", "removed")]
    assert changes_between(None, after) == []


def test_a_new_config_is_created_beside_the_spec_and_read_back(tmp_path):
    path = spec_file(tmp_path)
    settings = ToolsConfig(vendor="openai", strict=True, tags=("pets", "admin"), flatten_depth=2)
    written = write_tools_section(path, None, ToolsConfig(), settings)
    assert written == tmp_path / ".workbench.yaml"
    assert spec_config(path).tools == settings


def test_an_existing_config_changes_only_the_values_that_changed(tmp_path):
    path = spec_file(tmp_path)
    config = tmp_path / ".workbench.yaml"
    original = ("# shared with the team\nthresholds:\n  tool-budget: 30  # our client\n"
                "tools:\n  vendor: gemini   # what we ship\n  tags: [pets]\n")
    config.write_text(original, encoding="utf-8")
    before = spec_config(path).tools
    write_tools_section(path, config, before, ToolsConfig(vendor="gemini", tags=("pets", "admin"), nested=True))
    text = config.read_text(encoding="utf-8")
    assert text.startswith("# shared with the team\nthresholds:\n  tool-budget: 30  # our client\n")
    assert "vendor: gemini   # what we ship" in text
    assert spec_config(path).tools == ToolsConfig(vendor="gemini", tags=("pets", "admin"), nested=True)
    assert spec_config(path).lint.threshold("tool-budget") == 30


def test_a_config_without_a_tools_section_gets_one(tmp_path):
    path = spec_file(tmp_path)
    config = tmp_path / ".workbench.yaml"
    config.write_text("rules:\n  enum-in-prose: off  # noisy here\n", encoding="utf-8")
    write_tools_section(path, config, ToolsConfig(), ToolsConfig(vendor="mcp", read_only=True))
    assert config.read_text(encoding="utf-8").startswith("rules:\n  enum-in-prose: off  # noisy here\n")
    assert spec_config(path).tools == ToolsConfig(vendor="mcp", read_only=True)


def test_an_unparseable_config_is_one_line_error(tmp_path):
    path = spec_file(tmp_path)
    config = tmp_path / ".workbench.yaml"
    config.write_text("tools: [unclosed\n", encoding="utf-8")
    with pytest.raises(SpecError):
        write_tools_section(path, config, ToolsConfig(), ToolsConfig(vendor="mcp"))
    assert config.read_text(encoding="utf-8") == "tools: [unclosed\n"


def test_the_vendor_choices_round_trip_through_the_config():
    for n, choice in enumerate(VENDOR_CHOICES):
        assert choice_index(with_choice(ToolsConfig(), choice), choice.json_schema_form) == n
    assert VENDOR_CHOICES[choice_index(ToolsConfig(vendor="anthropic", strict=True))].label == "Anthropic strict"
    assert VENDOR_CHOICES[choice_index(ToolsConfig(vendor="mcp", strict=True))].label == "MCP"  # no strict mode
    assert VENDOR_CHOICES[choice_index(ToolsConfig(vendor="gemini"), True)].label == "Gemini JSON Schema"


@pytest.mark.parametrize(("count", "level"), [(12, "ok"), (40, "ok"), (41, "amber"), (128, "amber"), (129, "red")])
def test_the_limit_bar_turns_amber_over_a_clients_cap_and_red_over_openais(count, level):
    state = limit_state(count, 1000)
    assert state.level == level and state.text.startswith(f"{count} tools")
    assert ("Cursor 40" in state.text) == (count > 40) and state.maximum == max(128, count)


def test_side_by_side_marks_the_lines_that_differ_not_the_indentation(tmp_path):
    spec = load_spec(spec_file(tmp_path))
    tool = build_toolset(spec, WorkbenchConfig()).tools[0]
    sides = compare_vendors(spec, WorkbenchConfig(), ToolsConfig(), operation_key(tool), VENDOR_CHOICES[0],
                            next(c for c in VENDOR_CHOICES if c.label == "Gemini"))
    left, right = sides.left.splitlines(), sides.right.splitlines()
    assert '"name": "listPets",' in [line.strip() for line in right]
    name_line = next(i for i, line in enumerate(right) if '"name": "listPets"' in line)
    assert name_line not in sides.right_changed  # the same member, one level less deep
    assert any('"type": "function"' in left[i] for i in sides.left_changed)
    same = side_by_side("{\n  \"a\": 1\n}", "{\n    \"a\": 1\n}")
    assert not same.left_changed and not same.right_changed
