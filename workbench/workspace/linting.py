"""The lint as every command and the window run it: the spec's config, the tool count over the config's `tools:`
scope, the readiness score over the same scope.

Kept apart from `loading` (the window's load with located entries) so that `workbench lint` imports only this:
no edit session, no mock, no vendor modules beyond the scope's.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.config import Known, WorkbenchConfig, config_for
from workbench.lint import RULES, LintResult, lint
from workbench.lint.engine import ToolScope
from workbench.spec import Spec
from workbench.tools.options import ToolOverrides, scoped_operations, toolset_scope
from workbench.tools.scope import describe

if TYPE_CHECKING:
    from workbench.lint.score import Score


@cache
def known_names() -> Known:
    """What a config may name: the rules, the vendors, the mock's faults (read only when a config file exists)."""
    from workbench.mock.faults import FAULTS
    from workbench.tools.vendors import VENDORS

    return Known(rules=RULES, vendors=tuple(VENDORS), faults=FAULTS)


def spec_config(spec_path: str | Path, explicit: str | Path | None = None) -> WorkbenchConfig:
    """The config a spec is checked and converted with — `--config FILE`, else `.workbench.yaml` beside the
    spec, else the defaults — read the same way by every command and the window."""
    return config_for(spec_path, known_names(), explicit)


def scored(result: LintResult, config: WorkbenchConfig, overrides: ToolOverrides | None = None) -> Score:
    """The readiness score over the operations that become tools under the config's scope (and `overrides`):
    what `workbench score`, `lint` and the window show."""
    from workbench.lint.score import score

    return score(result, scoped_operations(result.spec, config, overrides) if result.spec is not None else None)


def lint_in_scope(spec: Spec, config: WorkbenchConfig, overrides: ToolOverrides | None = None,
                  parallel: bool = False) -> LintResult:
    """Lint `spec` with the config's rules, the tool count taken over the operations in the config's `tools:`
    scope (and `overrides`): what `workbench lint`, `score` and the window report. `parallel`: see `lint`."""
    tool_scope = ToolScope(tuple(scoped_operations(spec, config, overrides)),
                           describe(toolset_scope(config, overrides)))
    return lint(spec, config.lint, tool_scope, parallel=parallel)
