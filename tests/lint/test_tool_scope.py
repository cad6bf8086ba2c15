"""`too-many-operations` counts the tools an agent is handed: the operations in the config's `tools:` scope (tags,
exclude-tags, the allowlist, read-only, deprecated), as `workbench tools` and the score select them."""

from __future__ import annotations

import subprocess
import sys

from tests.catalogue import HEAD, op
from workbench.config import LintConfig, ToolsConfig, WorkbenchConfig
from workbench.lint import lint
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides
from workbench.workspace.loading import lint_in_scope

# Six operations: four tagged `issues`, two tagged `admin` (one of those deprecated).
SIX = "".join(op(f"/issues/{i}", op_id=f"findIssue{'ABCD'[i]}").replace("tags: [things]", "tags: [issues]")
              for i in range(4))
SIX += op("/admin/a", op_id="findAdminA").replace("tags: [things]", "tags: [admin]")
SIX += op("/admin/b", op_id="findAdminB", extra="      deprecated: true\n").replace("tags: [things]", "tags: [admin]")


def config(budget: int, **tools) -> WorkbenchConfig:
    return WorkbenchConfig(LintConfig(thresholds={**LintConfig().thresholds, "tool-budget": budget}),
                           ToolsConfig(**tools))


def messages(spec, cfg: WorkbenchConfig, overrides: ToolOverrides | None = None) -> list[str]:
    return [f.message for f in lint_in_scope(spec, cfg, overrides).findings if f.rule == "too-many-operations"]


def test_the_count_is_the_tools_in_scope_and_names_the_scope(write):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + SIX))
    [message] = messages(spec, config(3, tags=("issues",)))
    assert message.startswith("4 of 6 operations are in the tools scope (tags: issues; deprecated left out), and "
                              "exceed the tool budget of 3")
    assert messages(spec, config(4, tags=("issues",))) == []  # four tools: within the budget
    assert messages(spec, config(1, tags=("admin",))) == []  # the deprecated one is no tool: one in scope


def test_deprecated_and_excluded_operations_are_not_counted(write):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + SIX))
    [message] = messages(spec, config(4))  # every operation but the deprecated one: five
    assert message.startswith("5 of 6 operations are in the tools scope (no tags or allowlist: every operation; "
                              "deprecated left out)")
    [included] = messages(spec, config(4, include_deprecated=True))
    assert included.startswith("6 of 6 operations")
    assert messages(spec, config(4, exclude_tags=("admin",))) == []


def test_command_line_overrides_count_like_the_config(write):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + SIX))
    assert messages(spec, config(3), ToolOverrides(tags=("admin",))) == []
    assert len(messages(spec, config(3), ToolOverrides(tags=("issues",)))) == 1


def test_without_a_scope_every_operation_counts(write):
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + SIX))
    cfg = config(5)
    [finding] = [f for f in lint(spec, cfg.lint).findings if f.rule == "too-many-operations"]
    assert finding.message.startswith("6 operations, every one a tool (no tools scope given), exceed the tool budget")


def test_workbench_lint_reads_the_scope_from_the_config_beside_the_spec(write):
    path = write("api/s.yaml", HEAD + "paths:\n" + SIX)
    write("api/.workbench.yaml", "thresholds: {tool-budget: 3}\ntools: {tags: [issues]}\n")

    def lint_text() -> str:
        return subprocess.run([sys.executable, "-m", "workbench", "lint", str(path), "--fail-severity", "warn"],
                              capture_output=True, text=True, timeout=60, check=False).stdout

    assert "4 of 6 operations are in the tools scope (tags: issues; deprecated left out)" in lint_text()
    write("api/.workbench.yaml", "thresholds: {tool-budget: 3}\ntools: {tags: [admin]}\n")
    assert "too-many-operations" not in lint_text()
