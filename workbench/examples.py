"""The example specs bundled with the package."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

EXAMPLE_SPEC = "shop-api.yaml"
CLEAN_EXAMPLE_SPEC = "shop-api.clean.yaml"


def example_path(name: str = EXAMPLE_SPEC) -> Path:
    """A real file path to a bundled example (installed packages keep resources as files)."""
    with as_file(files("workbench.resources") / "examples" / name) as path:
        return Path(path)


EXAMPLE_SUITE = "shop-api.suite.yaml"  # the selection suite for EXAMPLE_SPEC


def example_suite_path(name: str = EXAMPLE_SUITE) -> Path:
    """A bundled selection suite (its `spec:` names the bundled example)."""
    with as_file(files("workbench.resources") / "suites" / name) as path:
        return Path(path)
