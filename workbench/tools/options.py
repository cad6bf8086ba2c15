"""The one way a tool set is built from a config: the team's `tools:` section, then what a command line or
a panel overrides. `workbench tools` and `workbench call` build their tools here, and so must every later
consumer (the mock, the round trip, the selection suite, the tool-preview panel), so that all of them see
the same tools with the same argument shapes."""

from typing import TYPE_CHECKING, NamedTuple

from workbench.config import WorkbenchConfig
from workbench.spec import Operation, Spec
from workbench.tools.scope import Scope, select

if TYPE_CHECKING:
    from workbench.tools.convert import ConvertOptions
    from workbench.tools.model import ToolSet

DEFAULT_VENDOR = "openai"


class ToolOverrides(NamedTuple):
    """What the user gave for this run; None = not given (the config's value, else the default, holds)."""

    vendor: str | None = None
    strict: bool | None = None
    tags: tuple[str, ...] | None = None
    exclude_tags: tuple[str, ...] | None = None
    operations: tuple[str, ...] | None = None
    read_only: bool | None = None
    include_deprecated: bool | None = None
    nested: bool | None = None
    flatten_depth: int | None = None
    split_unions: bool | None = None
    json_schema_form: bool | None = None  # not a team setting: a way to look at one vendor's output
    budget: int | None = None  # default: the config's `tool-budget` threshold


def _settings(config: WorkbenchConfig, overrides: ToolOverrides) -> dict:
    """Each setting of the config's `tools:` section, overridden where the run gives it."""
    team = config.tools
    return {name: getattr(overrides, name) if getattr(overrides, name) is not None else getattr(team, name)
            for name in team._fields}


def toolset_scope(config: WorkbenchConfig, overrides: ToolOverrides | None = None) -> Scope:
    """Which operations become tools (the scope of `toolset_options`), without the conversion's other options: what
    the lint's tool count and the score need, with no import of the conversion pipeline."""
    overrides = overrides or ToolOverrides()
    value = _settings(config, overrides)
    budget = overrides.budget if overrides.budget is not None else int(config.lint.threshold("tool-budget"))
    return Scope(tags=value["tags"], exclude_tags=value["exclude_tags"], operations=value["operations"],
                 read_only=value["read_only"], include_deprecated=value["include_deprecated"], budget=budget)


def toolset_options(config: WorkbenchConfig, overrides: ToolOverrides | None = None) -> "ConvertOptions":
    from workbench.tools.convert import ConvertOptions

    overrides = overrides or ToolOverrides()
    value = _settings(config, overrides)
    vendor = value["vendor"] or DEFAULT_VENDOR  # a known one: the config reader and the flags check the name
    return ConvertOptions(vendor=vendor, strict=value["strict"], scope=toolset_scope(config, overrides),
                          nested=value["nested"], flatten_depth=value["flatten_depth"],
                          split_unions=value["split_unions"], json_schema_form=bool(overrides.json_schema_form))


def build_toolset(spec: Spec, config: WorkbenchConfig, overrides: ToolOverrides | None = None) -> "ToolSet":
    from workbench.tools.convert import convert

    return convert(spec, toolset_options(config, overrides))


def scoped_operations(spec: Spec, config: WorkbenchConfig, overrides: ToolOverrides | None = None) -> list[Operation]:
    """The operations that become tools under the config's scope (tags, allowlist, read-only, deprecated and
    hidden ones left out): what the readiness score scores."""
    return select(spec, toolset_scope(config, overrides))[0]
