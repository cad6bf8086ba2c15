"""A lint finding: which rule, how severe, what to write, and exactly where."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from workbench.spec import Location, SourceDocument


class Severity(IntEnum):
    """Ordered so that `a >= b` means "at least as severe"; `off` disables a rule."""

    OFF = 0
    HINT = 1
    INFO = 2
    WARN = 3
    ERROR = 4

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (use off, hint, info, warn or error)") from None

    @property
    def label(self) -> str:
        return self.name.lower()

    @property
    def spectral(self) -> int:
        """Spectral's numbering: 0 error, 1 warn, 2 info, 3 hint."""
        return {Severity.ERROR: 0, Severity.WARN: 1, Severity.INFO: 2, Severity.HINT: 3}[self]


@dataclass(frozen=True, slots=True)
class Fix:
    """A suggested fix as data: set `value` at `pointer` (relative to the finding's document)."""

    pointer: str
    value: Any
    title: str


@dataclass(frozen=True, slots=True)
class Finding:
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
