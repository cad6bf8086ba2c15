"""Errors and problems the loader reports: always one line, naming the file and the place."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in the input that does not stop loading (a broken `$ref`, a duplicate key)."""

    code: str
    message: str
    file: str
    pointer: str = ""
    line: int | None = None
    column: int | None = None
    severity: Severity = Severity.WARNING

    def __str__(self) -> str:
        return f"{_place(self.file, self.line, self.column, self.pointer)}: {self.severity.value}: {self.message}"


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
