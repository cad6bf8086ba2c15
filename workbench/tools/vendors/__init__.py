"""One small module per vendor. Adding a vendor: a module with a `VENDOR` and a line here."""

from workbench.tools.vendors import anthropic, gemini, jsonschema, mcp, openai, openai_responses
from workbench.tools.vendors.base import Vendor

VENDORS: dict[str, Vendor] = {
    "openai": openai.VENDOR,
    "openai-responses": openai_responses.VENDOR,
    "anthropic": anthropic.VENDOR,
    "gemini": gemini.VENDOR,
    "mcp": mcp.VENDOR,
    "jsonschema": jsonschema.VENDOR,
}

__all__ = ["VENDORS", "Vendor"]
