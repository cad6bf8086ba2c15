"""Errors and problems the loader reports: always one line, naming the file and the place."""

from enum import IntEnum
from typing import NamedTuple


class Severity(IntEnum):
    """How severe a loading problem or a lint finding is. Ordered so that `a >= b` means "at least as severe";
    `off` disables a lint rule."""

    OFF = 0
    HINT = 1
    INFO = 2
    WARN = 3
    ERROR = 4

    @classmethod
    def parse(cls, text: str) -> "Severity":
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
        if self is Severity.OFF:  # (not a dict of members per call: hashing a member is a Python call)
            raise KeyError(self)
        return 4 - self


_WORDS = {Severity.WARN: "warning"}  # how a one-line problem message names a severity, where not its label


class Problem(NamedTuple):
    """Something wrong in the input that does not stop loading (a broken `$ref`, a duplicate key)."""

    code: str
    message: str
    file: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None
    severity: Severity = Severity.WARN

    def __str__(self) -> str:
        word = _WORDS.get(self.severity, self.severity.label)
        return f"{_place(self.file, self.line, self.column, self.pointer)}: {word}: {self.message}"


class SpecError(Exception):
    """The input cannot be used at all. `str()` is the one-line message shown to the user."""

    def __init__(
        self,
        message: str,
        file: str,
        *,
        line: int | None = None,
        column: int | None = None,
        pointer: str = "",
        code: str = "spec-unusable",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.pointer = pointer
        self.code = code

    def __str__(self) -> str:
        return f"{_place(self.file, self.line, self.column, self.pointer)}: {self.message}"


def _place(file: str, line: int | None, column: int | None, pointer: str) -> str:
    place = file
    if line is not None:
        place += f":{line}"
        if column is not None:
            place += f":{column}"
    if pointer:
        place += f" (#{pointer})"
    return place
