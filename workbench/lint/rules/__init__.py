"""Every rule module; importing this package registers them all (one rule per function)."""

from workbench.lint.rules import descriptions, naming, responses, safety, scope, structure

__all__ = ["descriptions", "naming", "responses", "safety", "scope", "structure"]
