"""Agent Spec Workbench: make an OpenAPI document trustworthy as a set of tools for language-model agents."""

import importlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def lazy_exports(package: str, homes: dict[str, str]):
    """A package's module `__getattr__` that imports each name it exports from its module (`homes`: name → module
    of the package) when first asked for, so that importing one module of the package does not import them all."""

    def __getattr__(name: str):
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def cache_folder(name: str) -> Path:
    """Where the workbench keeps what it can rebuild (`name`: one kind of thing), in the user's cache folder:
    $XDG_CACHE_HOME, else ~/.cache; never in a project."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agent-spec-workbench" / name
