"""A lint finding: which rule, how severe (`Severity` is the loader's, shared), what to write, and exactly where."""

from typing import Any, NamedTuple

from workbench import Frozen
from workbench.spec import Location, Severity, SourceDocument


class Fix(NamedTuple):
    """A suggested fix as data: set `value` at `pointer` (relative to the finding's document)."""

    pointer: str
    value: Any
    title: str


class Finding(Frozen):
    """One problem a rule found: at a JSON pointer of a document, with a severity and maybe a fix. Two are equal
    when all but their documents are."""

    __slots__ = ("document", "fix", "message", "pointer", "rule", "severity")

    rule: str
    severity: Severity
    message: str
    document: SourceDocument
    pointer: str
    fix: Fix | None

    def __init__(self, rule: str, severity: Severity, message: str, document: SourceDocument, pointer: str,
                 fix: Fix | None = None) -> None:
        set_attribute = object.__setattr__
        set_attribute(self, "rule", rule)
        set_attribute(self, "severity", severity)
        set_attribute(self, "message", message)
        set_attribute(self, "document", document)
        set_attribute(self, "pointer", pointer)
        set_attribute(self, "fix", fix)

    def _compared(self) -> tuple:
        return (self.rule, self.severity, self.message, self.pointer, self.fix)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:  # what a failing assertion shows: the fields that tell findings apart
        return (f"Finding({self.rule!r}, {self.severity!r}, {self.message!r}, <{self.document.name}>, "
                f"{self.pointer!r}, {self.fix!r})")

    @property
    def file(self) -> str:
        return self.document.name

    def locate(self) -> Location:
        return self.document.locate(self.pointer)
