"""Agent Spec Workbench: make an OpenAPI document trustworthy as a set of tools for language-model agents."""

__version__ = "0.1.0"
