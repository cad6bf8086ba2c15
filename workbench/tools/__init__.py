"""Operations → tools for LLM vendors: one pipeline of schema passes, one small module per vendor.

The names below are imported from their modules when first used (as `workbench.workspace` does): the lint, which
needs only the tool scope (`scope.py`, `options.py`), does not import the pipeline, its passes and every vendor.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

from workbench import lazy_exports

if TYPE_CHECKING:
    from workbench.tools.convert import ConvertOptions, convert, spec_sha256
    from workbench.tools.model import Binding, Tool, ToolSet
    from workbench.tools.scope import Scope
    from workbench.tools.vendors import VENDORS

__all__ = ["VENDORS", "Binding", "ConvertOptions", "Scope", "Tool", "ToolSet", "convert", "spec_sha256"]
_HOMES = {"VENDORS": "vendors", "Binding": "model", "ConvertOptions": "convert", "Scope": "scope", "Tool": "model",
          "ToolSet": "model", "spec_sha256": "convert"}


__getattr__ = lazy_exports(__name__, _HOMES)


class _Package(types.ModuleType):
    """The package's `convert` is the function, as it has always been, also once the submodule of that name is
    imported (the import system would name the module there)."""

    @property
    def convert(self):
        assigned = self.__dict__.get("_assigned_convert")
        return assigned if assigned is not None else importlib.import_module(f"{__name__}.convert").convert

    @convert.setter
    def convert(self, value) -> None:
        if isinstance(value, types.ModuleType):
            return  # the import system recording the submodule: `workbench.tools.convert` stays the function
        self.__dict__["_assigned_convert"] = value  # anything else assigned is kept, as for any module attribute

    @convert.deleter
    def convert(self) -> None:
        self.__dict__.pop("_assigned_convert", None)


sys.modules[__name__].__class__ = _Package
