"""The normalised model: one OpenAPI-3.1-like shape for Swagger 2.0, OpenAPI 3.0, 3.1 and 3.2.

Objects are immutable. Every one keeps its `origin`: the file and JSON pointer it was read from (for a
`$ref`'d component: where the component is defined, so a finding in it is reported once). Schemas are
plain JSON Schema 2020-12 dicts with `$ref`s rewritten to refs into this model (`#/components/...`, or
`other.yaml#/...` relative to the root document for multi-file specs).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from workbench import Frozen

if TYPE_CHECKING:
    from workbench.spec.errors import Problem
    from workbench.spec.source import Location, SourceDocument

Schema = dict[str, Any]

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SAFE_METHODS = frozenset(("get", "head", "options", "trace"))


# The default of every map of the records below that has no entries: one object shared by all of them (a named
# tuple's default is one value), so it is never written to; nothing writes into a loaded model's maps.
NO_ENTRIES: dict[Any, Any] = {}


class SpecVersion(StrEnum):
    SWAGGER_2_0 = "2.0"
    OPENAPI_3_0 = "3.0"
    OPENAPI_3_1 = "3.1"
    OPENAPI_3_2 = "3.2"


class Origin(NamedTuple):
    """The file and JSON pointer a model object was read from."""

    document: SourceDocument
    pointer: str

    def locate(self) -> Location:
        return self.document.locate(self.pointer)

    def __str__(self) -> str:
        return f"{self.document.name}#{self.pointer}"


class ServerVariable(NamedTuple):
    """A substitution variable of a server URL template."""

    default: str
    enum: tuple[str, ...] = ()
    description: str | None = None


class Server(NamedTuple):
    """A server the API is reached at (its URL may be a template over `variables`)."""

    url: str
    description: str | None = None
    variables: dict[str, ServerVariable] = NO_ENTRIES


class Tag(NamedTuple):
    """A declared tag: a group of operations, with its description."""

    name: str
    description: str | None = None


class MediaType(NamedTuple):
    """A body in one media type: its schema, examples and (for form bodies) per-property encoding."""

    schema: Schema | None
    example: Any = None
    examples: dict[str, Any] = NO_ENTRIES
    # per-property serialisation of form bodies: {property: {"contentType", "style", "explode", ...}}
    encoding: dict[str, dict[str, Any]] = NO_ENTRIES


class Parameter(NamedTuple):
    """A path, query, header or cookie parameter, in OpenAPI 3 terms whatever the source version."""

    name: str
    location: str  # "path" | "query" | "header" | "cookie"
    origin: Origin
    required: bool = False
    description: str | None = None
    schema: Schema | None = None
    content: dict[str, MediaType] = NO_ENTRIES  # the `content` form instead of `schema`
    style: str = "simple"
    explode: bool = False
    allow_reserved: bool = False
    allow_empty_value: bool = False
    deprecated: bool = False
    example: Any = None
    examples: dict[str, Any] = NO_ENTRIES
    extensions: dict[str, Any] = NO_ENTRIES

    @property
    def key(self) -> tuple[str, str]:
        """Parameters are identified by (name, in); header names are case-insensitive."""
        return (self.name.lower() if self.location == "header" else self.name, self.location)


class RequestBody(NamedTuple):
    """An operation's request body, by media type."""

    origin: Origin
    content: dict[str, MediaType]
    required: bool = False
    description: str | None = None
    extensions: dict[str, Any] = NO_ENTRIES


class Header(NamedTuple):
    """A response header."""

    name: str
    origin: Origin
    schema: Schema | None = None
    description: str | None = None
    required: bool = False


class Response(NamedTuple):
    """One response of an operation, by status code (or range, or `default`)."""

    status: str  # "200", "4XX", "default"
    origin: Origin
    description: str | None = None
    content: dict[str, MediaType] = NO_ENTRIES
    headers: tuple[Header, ...] = ()
    extensions: dict[str, Any] = NO_ENTRIES


class Operation(NamedTuple):
    """One HTTP method on one path (or a webhook): what becomes a tool."""

    method: str  # lower case
    path: str  # the path template, or the webhook's name
    origin: Origin
    operation_id: str | None = None
    summary: str | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    deprecated: bool = False
    parameters: tuple[Parameter, ...] = ()
    request_body: RequestBody | None = None
    responses: tuple[Response, ...] = ()
    security: tuple[dict[str, tuple[str, ...]], ...] | None = None  # None: the spec-wide default applies
    servers: tuple[Server, ...] = ()  # operation/path-level overrides; empty: the spec's servers
    extensions: dict[str, Any] = NO_ENTRIES
    webhook: bool = False

    def label(self) -> str:
        return f"{self.method.upper()} {self.path}"

    def colon_parameters(self) -> tuple[str, ...]:
        """Path parameters written as `:name` segments (`/orgs/:orgId`) instead of `{name}`: not template
        variables in OpenAPI, so a request goes to the literal `:orgId` and the argument reaches nothing."""
        segments = {segment[1:] for segment in self.path.split("/") if segment.startswith(":")}
        return tuple(p.name for p in self.parameters
                     if p.location == "path" and p.name in segments and f"{{{p.name}}}" not in self.path)


class PathItem(NamedTuple):
    """A path template and the operations on it."""

    path: str
    origin: Origin
    operations: tuple[Operation, ...]
    extensions: dict[str, Any] = NO_ENTRIES


class Components(NamedTuple):
    """The reusable definitions the model's `$ref`s point into."""

    schemas: dict[str, Schema] = NO_ENTRIES
    parameters: dict[str, Parameter] = NO_ENTRIES
    request_bodies: dict[str, RequestBody] = NO_ENTRIES
    responses: dict[str, Response] = NO_ENTRIES
    security_schemes: dict[str, dict[str, Any]] = NO_ENTRIES


class Spec(Frozen):
    """A loaded, normalised API description."""

    __slots__ = ("_operations", "components", "documents", "extensions", "info", "paths", "problems", "ref_targets",
                 "resolver", "root", "security", "servers", "spec_version", "tags", "version", "webhooks")

    root: SourceDocument
    documents: dict[str, SourceDocument]  # every file read, by name (the root included)
    version: SpecVersion
    spec_version: str  # as declared: "2.0", "3.0.3", "3.1.0"
    info: dict[str, Any]
    servers: tuple[Server, ...]
    tags: tuple[Tag, ...]
    paths: tuple[PathItem, ...]
    webhooks: tuple[PathItem, ...]
    components: Components
    security: tuple[dict[str, tuple[str, ...]], ...]
    extensions: dict[str, Any]
    problems: tuple[Problem, ...]  # everything wrong that did not stop loading
    ref_targets: dict[str, Schema]  # model $ref → schema
    resolver: Any  # refs.Resolver, for raw-document walks
    # `operations`, gathered once: the lint asks for them dozens of times, and a big spec has a thousand
    _operations: tuple[Operation, ...]

    def __init__(self, root: SourceDocument, documents: dict[str, SourceDocument], version: SpecVersion,
                 spec_version: str, info: dict[str, Any], servers: tuple[Server, ...], tags: tuple[Tag, ...],
                 paths: tuple[PathItem, ...], webhooks: tuple[PathItem, ...], components: Components,
                 security: tuple[dict[str, tuple[str, ...]], ...], extensions: dict[str, Any],
                 problems: tuple[Problem, ...], ref_targets: dict[str, Schema] | None = None,
                 resolver: Any = None) -> None:
        for name, value in (("root", root), ("documents", documents), ("version", version),
                            ("spec_version", spec_version), ("info", info), ("servers", servers), ("tags", tags),
                            ("paths", paths), ("webhooks", webhooks), ("components", components),
                            ("security", security), ("extensions", extensions), ("problems", problems),
                            ("ref_targets", {} if ref_targets is None else ref_targets), ("resolver", resolver),
                            ("_operations", tuple(op for item in paths for op in item.operations))):
            object.__setattr__(self, name, value)

    def _replace(self, **changes: Any) -> Spec:
        """A copy with these attributes changed (as a named tuple's `_replace`); its operations gathered anew."""
        fields = {name: getattr(self, name) for name in _SPEC_FIELDS}
        fields.update(changes)
        return Spec(**fields)

    @property
    def operations(self) -> tuple[Operation, ...]:
        """Path operations (webhooks are kept apart: see `webhook_operations`)."""
        return self._operations

    @property
    def webhook_operations(self) -> tuple[Operation, ...]:
        return tuple(op for item in self.webhooks for op in item.operations)

    def tag_names(self) -> list[str]:
        """Declared tags in order, then tags used by operations but never declared, in order of use."""
        names = [tag.name for tag in self.tags]
        seen = set(names)
        for op in self.operations:
            for name in op.tags:
                if name not in seen:
                    seen.add(name)
                    names.append(name)
        return names

    def deref(self, value: Any, document: SourceDocument, pointer: str) -> tuple[Any, SourceDocument, str]:
        """Follow a raw `$ref` object to its definition: (value, document, pointer) of what it names, or
        the input unchanged when it is not a ref or the ref is broken (broken refs are already problems)."""
        if isinstance(value, dict) and self.resolver is not None:
            ref = value.get("$ref")
            if isinstance(ref, str):
                target = self.resolver.target(ref, document)
                if target is not None:
                    return target.value, target.document, target.pointer
        return value, document, pointer

    def resolve_schema(self, ref: str) -> Schema | None:
        """The normalised schema that a model `$ref` names (`#/components/schemas/X`, `other.yaml#/X`)."""
        return self.ref_targets.get(ref)


_SPEC_FIELDS = tuple(name for name in Spec.__slots__ if name != "_operations")  # what `Spec(...)` takes
