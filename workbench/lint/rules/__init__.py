"""Every rule module; importing this package registers them all (one rule per function)."""

from workbench.lint.rules import (
    descriptions,
    examples,
    naming,
    parameters,
    pasted,
    prose,
    responses,
    safety,
    schemas,
    scope,
    similarity,
    structure,
    values,
)

__all__ = ["descriptions", "examples", "naming", "parameters", "pasted", "prose", "responses", "safety", "schemas",
           "scope", "similarity", "structure", "values"]
