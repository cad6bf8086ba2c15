"""What conversion produces: tools, where each argument goes on the wire, and what was lost."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, NamedTuple

from workbench.spec import Operation, Schema

# Compact JSON by the standard library's C encoder, non-ASCII as is: the text a tool's tokens are counted over.
compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


class Binding(NamedTuple):
    """Where one tool argument goes in the HTTP request (the executor reads this; nothing is guessed)."""

    argument: str  # the argument's name in the tool schema
    location: str  # "path" | "query" | "header" | "cookie" | "body" (the whole body) | "body-field"
    name: str  # the wire name: parameter name, or the body property's name
    body_path: tuple[str, ...] = ()  # for "body-field": where in the body object (one key unless flattened)
    required: bool = False
    human: bool = False  # supplied by a person or the harness (secrets, files), never shown to the model


class ArgumentShape(NamedTuple):
    """How a tool's arguments are laid out (the conversion options that decide it), so the executor can
    rebuild the same layout losslessly to validate against the spec itself."""

    nested: bool = False  # grouped as {path, query, header, cookie, body} instead of flat
    flatten_depth: int = 0  # nested body objects lifted into flat arguments this many levels down
    body_schema: Schema | None = None  # replaces the body's schema (one variant of a union)


_NO_SHAPE = ArgumentShape()  # a tool's default shape: one object, as a named tuple is never changed


class Tool:
    __slots__ = ("annotations", "bindings", "description", "media_type", "name", "operation", "output_schema",
                 "parameters", "shape", "warnings")

    name: str
    description: str
    parameters: Schema  # the argument object's JSON Schema, after the vendor's passes
    operation: Operation
    bindings: list[Binding]
    media_type: str | None  # the request body's content type
    warnings: list[str]
    annotations: dict[str, Any]  # MCP-style hints, from the method table
    output_schema: Schema | None
    shape: ArgumentShape

    def __init__(self, name: str, description: str, parameters: Schema, operation: Operation,
                 bindings: list[Binding], media_type: str | None = None, warnings: list[str] | None = None,
                 annotations: dict[str, Any] | None = None, output_schema: Schema | None = None,
                 shape: ArgumentShape | None = None) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters
        self.operation = operation
        self.bindings = bindings
        self.media_type = media_type
        self.warnings = [] if warnings is None else warnings
        self.annotations = {} if annotations is None else annotations
        self.output_schema = output_schema
        self.shape = _NO_SHAPE if shape is None else shape


class Rejected(NamedTuple):
    """An operation left out of the set (out of scope, hidden, or its conversion failed), with why."""

    method: str  # "" for an allowlisted operationId that is not in the spec
    path: str
    reason: str

    def to_json(self) -> dict:
        return {"method": self.method, "path": self.path, "reason": self.reason}


class SetWarning(NamedTuple):
    """What a conversion lost or risks, for one tool (`tool`) or for the whole set (`tool == ""`)."""

    tool: str
    message: str

    def to_json(self) -> dict:
        return {"tool": self.tool, "message": self.message}


class TokenEstimate(NamedTuple):
    total: int  # every tool plus the vendor's fixed overhead
    per_tool: dict[str, int]
    overhead: int  # what the vendor adds once per request with tools
    method: str  # how it was counted (the tokenizer, or the fallback)


class ToolSet:
    __slots__ = ("__weakref__", "_native_json", "estimate", "native", "rejected", "spec_sha256", "tools", "vendor",
                 "warnings")

    vendor: str
    spec_sha256: str
    tools: list[Tool]
    native: list[dict]  # the vendor's own tool objects, ready to send
    rejected: list[Rejected]
    warnings: list[SetWarning]
    # the estimate, or how to make it: the tokenizer's tables take seconds to load, and a command that sends
    # no tools anywhere (a selection run offline, a round trip) should not wait for them
    estimate: TokenEstimate | Callable[[], TokenEstimate]
    _native_json: list[str] | None

    def __init__(self, vendor: str, spec_sha256: str, tools: list[Tool], native: list[dict], rejected: list[Rejected],
                 warnings: list[SetWarning], estimate: TokenEstimate | Callable[[], TokenEstimate]) -> None:
        self.vendor = vendor
        self.spec_sha256 = spec_sha256
        self.tools = tools
        self.native = native
        self.rejected = rejected
        self.warnings = warnings
        self.estimate = estimate
        self._native_json = None

    def native_json(self) -> list[str]:
        """Each native tool as compact JSON, serialised once: the token estimate counts these texts and
        `json_text` prints them (4 MB specs make 17 MB of tools; serialising them twice cost a second)."""
        if self._native_json is None or len(self._native_json) != len(self.native):
            self._native_json = [compact_json(tool) for tool in self.native]
        return self._native_json

    @property
    def tokens(self) -> TokenEstimate:
        return self.count_tokens()

    def estimate_with(self, counter: Any) -> None:
        """Have the estimate, when first asked for, made by `counter` (a `tools.tokens.CountingProcess`)."""
        if callable(self.estimate):
            self.estimate = partial(self.estimate, counter=counter)

    def count_tokens(self, counter: Any = None) -> TokenEstimate:
        """The estimate, made now if it has not been. `counter`: a `tools.tokens.CountingProcess` to count in (the
        command line's)."""
        if callable(self.estimate):  # (no counter given: the one `estimate_with` gave, if any)
            self.estimate = self.estimate(counter=counter) if counter is not None else self.estimate()
        return self.estimate

    def mapping(self) -> dict[str, dict]:
        return {t.name: {"method": t.operation.method, "path": t.operation.path,
                         "operationId": t.operation.operation_id} for t in self.tools}

    def to_json(self) -> dict:
        return {**self._without_tokens(), "tokens": self._tokens_json()}

    def _without_tokens(self) -> dict:
        return {"vendor": self.vendor, "spec_sha256": self.spec_sha256, "tools": self.native,
                "mapping": self.mapping(), "rejected": [r.to_json() for r in self.rejected],
                "warnings": [w.to_json() for w in self.warnings]}

    def _tokens_json(self) -> dict:
        return {"total": self.tokens.total, "per_tool": self.tokens.per_tool}

    def json_text(self) -> str:
        """`to_json()` as text indented by 2 like `json.dumps(..., indent=2)`, except that each tool is one line:
        its compact JSON, the very text its tokens were counted over (see `json_pieces`)."""
        return "".join(self.json_pieces())

    def json_pieces(self) -> Iterator[str]:
        """`json_text` in pieces, to be written as they come: the tools of a 4 MB spec are 17 MB of text, and
        joining them into one string (then encoding it) held several copies at once. The indenting encoder
        is pure Python (0.6 s for those 17 MB); the compact one is C and has run already for the counts. The token
        estimate comes last and is made last: a process counting them (`tools.tokens.CountingProcess`) meanwhile."""
        document = {**self._without_tokens(), "tokens": None}
        yield "{\n"
        for position, (key, value) in enumerate(document.items()):
            if key == "tokens":
                value = self._tokens_json()
            yield (",\n  " if position else "  ") + json.dumps(key) + ": "
            if key == "tools" and value:
                texts = self.native_json()
                yield "[\n"
                for index, text in enumerate(texts):
                    yield f"    {text}{',' if index < len(texts) - 1 else ''}\n"
                yield "  ]"
            else:  # raw newlines in indented JSON are all indentation (those in strings are escaped)
                yield json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        yield "\n}"

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)
