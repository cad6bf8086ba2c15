"""Operations → tools for LLM vendors: one pipeline of schema passes, one small module per vendor."""

from workbench.tools.convert import ConvertOptions, convert, spec_sha256
from workbench.tools.model import Binding, Tool, ToolSet
from workbench.tools.scope import Scope
from workbench.tools.vendors import VENDORS

__all__ = ["VENDORS", "Binding", "ConvertOptions", "Scope", "Tool", "ToolSet", "convert", "spec_sha256"]
