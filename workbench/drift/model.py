"""What a drift check finds: one `Change` per difference between two tool sets, each saying whether it breaks
an agent built against the old set, why, and where it sits in both versions."""

from __future__ import annotations

from typing import NamedTuple

from workbench.spec.source import SourceDocument


class Where(NamedTuple):
    """A place in one version: the file, the JSON pointer, and the line and column when the file has it."""

    file: str
    pointer: str
    line: int = 0  # 1-based; 0: unknown
    column: int = 0

    @classmethod
    def of(cls, document: SourceDocument, pointer: str) -> Where:
        """The node at `pointer`, or its nearest existing ancestor (that pointer is given, so it always exists)."""
        while pointer and not document.has(pointer):
            pointer = pointer.rsplit("/", 1)[0]
        where = document.locate(pointer)
        start = where.key_start or where.start
        return cls(document.name, pointer, start.line, start.column)

    def __str__(self) -> str:
        place = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        return f"{place}#{self.pointer}"

    def to_json(self) -> dict:
        return {"file": self.file, "pointer": self.pointer, "line": self.line, "column": self.column}


class Change(NamedTuple):
    kind: str  # "tool-removed", "argument-added", "enum-narrowed", … (see `KINDS`)
    tool: str  # the tool's name in the old set (the new one for an added tool)
    argument: str  # the argument's path, dotted ("address.city", "tags[]"); "" for the tool itself
    breaking: bool  # an old call is now rejected or means something else, or the old list misses a required one
    reason: str  # one line a reviewer can act on
    old: Where | None = None
    new: Where | None = None
    similarity: float | None = None  # description changes: how alike the two texts are (0..1)

    def to_json(self) -> dict:
        item = {"kind": self.kind, "tool": self.tool, "argument": self.argument, "breaking": self.breaking,
                "reason": self.reason, "old": self.old.to_json() if self.old else None,
                "new": self.new.to_json() if self.new else None}
        if self.similarity is not None:
            item["similarity"] = round(self.similarity, 3)
        return item


class DriftReport:
    __slots__ = ("changes", "new", "new_file", "new_tools", "old", "old_tools", "vendor")

    old: str  # how each side was named on the command line
    new: str
    vendor: str
    old_tools: int
    new_tools: int
    changes: list[Change]
    new_file: str  # the new version's root file (SARIF annotates it)

    def __init__(self, old: str, new: str, vendor: str, old_tools: int, new_tools: int,
                 changes: list[Change] | None = None, new_file: str = "") -> None:
        self.old = old
        self.new = new
        self.vendor = vendor
        self.old_tools = old_tools
        self.new_tools = new_tools
        self.changes = [] if changes is None else changes
        self.new_file = new_file

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaking]

    @property
    def safe(self) -> list[Change]:
        return [c for c in self.changes if not c.breaking]

    def to_json(self) -> dict:
        return {"old": self.old, "new": self.new, "vendor": self.vendor,
                "tools": {"old": self.old_tools, "new": self.new_tools},
                "breaking": len(self.breaking), "changes": [c.to_json() for c in self.changes]}


# Every kind a change can have, with what it is about (the SARIF rules and the docs list these).
KINDS = {
    "tool-added": "a tool the new version adds",
    "tool-removed": "a tool the new version no longer has",
    "tool-renamed": "the same operation under another tool name",
    "tool-moved": "the same tool on another method or path",
    "argument-added": "an argument the new version adds",
    "argument-removed": "an argument the new version no longer takes",
    "argument-renamed": "the same argument under another name",
    "argument-moved": "an argument sent to another place on the wire",
    "required-added": "an argument that became required",
    "required-removed": "an argument that became optional",
    "type-changed": "an argument's type changed",
    "format-changed": "an argument's format changed",
    "enum-narrowed": "allowed values removed",
    "enum-widened": "allowed values added",
    "constraint-tightened": "a bound, length, pattern or closure that accepts less",
    "constraint-loosened": "a bound, length, pattern or closure that accepts more",
    "variant-removed": "a oneOf/anyOf variant removed (or an allOf part added)",
    "variant-added": "a oneOf/anyOf variant added (or an allOf part removed)",
    "default-changed": "the value an omitted argument takes",
    "description-changed": "a tool's or an argument's description",
    "safety-changed": "the destructive or approval marking",
    "response-changed": "the shape of the successful response",
    "auth-changed": "the security the operation requires",
}
