"""A lint finding: which rule, how severe (`Severity` is the loader's, shared), what to write, and exactly where."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from workbench.spec import Location, Severity, SourceDocument


class Fix(NamedTuple):
    """A suggested fix as data: set `value` at `pointer` (relative to the finding's document)."""

    pointer: str
    value: Any
    title: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem a rule found: at a JSON pointer of a document, with a severity and maybe a fix."""

    rule: str
    severity: Severity
    message: str
    document: SourceDocument = field(repr=False, compare=False)
    pointer: str
    fix: Fix | None = None

    @property
    def file(self) -> str:
        return self.document.name

    def locate(self) -> Location:
        return self.document.locate(self.pointer)
