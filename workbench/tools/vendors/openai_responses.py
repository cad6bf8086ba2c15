"""OpenAI Responses API: the same schemas as Chat Completions, in the flat tool shape."""

from __future__ import annotations

from workbench.tools.model import Tool
from workbench.tools.vendors import openai
from workbench.tools.vendors.base import Vendor


def wrap(tool: Tool, is_strict: bool) -> dict:
    # `strict` is a required field of the Responses API's function tool (true or false, never absent).
    return {"type": "function", "name": tool.name, "description": tool.description, "parameters": tool.parameters,
            "strict": is_strict}


VENDOR = Vendor("openai-responses", "A-Za-z0-9_-", 64, openai.build, wrap, max_tools=128, supports_strict=True)
