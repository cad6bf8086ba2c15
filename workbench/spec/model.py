"""The normalised model: one OpenAPI-3.1-like shape for Swagger 2.0, OpenAPI 3.0, 3.1 and 3.2.

Objects are immutable. Every one keeps its `origin`: the file and JSON pointer it was read from (for a
`$ref`'d component: where the component is defined, so a finding in it is reported once). Schemas are
plain JSON Schema 2020-12 dicts with `$ref`s rewritten to refs into this model (`#/components/...`, or
`other.yaml#/...` relative to the root document for multi-file specs).
"""

from enum import StrEnum
from typing import Any, NamedTuple

from workbench import Frozen
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


class MediaType(Frozen):
    """A body in one media type: its schema, examples and (for form bodies) per-property encoding.

    A request body's or response's schema is normalised when first read (`later`: a callable that returns it, see
    `normalize.Later`): the lint reads them as written (`written`), and they were the most of a big spec's
    normalisation. Compares by value, as the named tuple it replaced."""

    __slots__ = ("_later", "_schema", "encoding", "example", "examples", "written")

    _schema: Schema | None
    _later: Any  # None once the schema is known
    # (schema as written, its document) of one normalised when first read, else None; what the lint reads instead
    written: tuple[Any, SourceDocument] | None
    example: Any
    examples: dict[str, Any]
    # per-property serialisation of form bodies: {property: {"contentType", "style", "explode", ...}}
    encoding: dict[str, dict[str, Any]]

    def __init__(self, schema: Schema | None = None, example: Any = None, examples: dict[str, Any] = NO_ENTRIES,
                 encoding: dict[str, dict[str, Any]] = NO_ENTRIES, *, later: Any = None,
                 written: tuple[Any, SourceDocument] | None = None) -> None:
        for name, value in (("_schema", schema), ("_later", later), ("example", example), ("examples", examples),
                            ("encoding", encoding), ("written", written)):
            object.__setattr__(self, name, value)

    @property
    def schema(self) -> Schema | None:
        later = self._later
        if later is None:
            return self._schema
        schema = later()
        object.__setattr__(self, "_schema", schema)
        object.__setattr__(self, "_later", None)
        return schema

    @property
    def has_schema(self) -> bool:
        """Whether it has a schema, without normalising one that is not read yet."""
        return self._later is not None or self._schema is not None

    def _fields(self) -> tuple:
        return (self.schema, self.example, self.examples, self.encoding)

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, MediaType) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  (holds dicts, as the named tuple did)

    def __reduce__(self) -> tuple:  # a copy or a pickle: with its schema, normalised, and as written
        return (_media_type, (self._fields(), self.written))

    def __repr__(self) -> str:
        return (f"MediaType(schema={self.schema!r}, example={self.example!r}, examples={self.examples!r}, "
                f"encoding={self.encoding!r})")


def _media_type(fields: tuple, written: tuple[Any, SourceDocument] | None) -> MediaType:
    return MediaType(*fields, written=written)


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

    __slots__ = ("_later", "_operations", "_targets", "components", "documents", "extensions", "info", "paths",
                 "problems", "resolver", "root", "security", "servers", "spec_version", "tags", "version", "webhooks")

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
    resolver: Any  # refs.Resolver, for raw-document walks
    # `operations`, gathered once: the lint asks for them dozens of times, and a big spec has a thousand
    _operations: tuple[Operation, ...]
    _targets: dict[str, Schema]  # model $ref → schema, of every schema normalised so far (see `ref_targets`)
    _later: list[MediaType]  # the media types whose schema is normalised when first read, until all of them are

    def __init__(self, root: SourceDocument, documents: dict[str, SourceDocument], version: SpecVersion,
                 spec_version: str, info: dict[str, Any], servers: tuple[Server, ...], tags: tuple[Tag, ...],
                 paths: tuple[PathItem, ...], webhooks: tuple[PathItem, ...], components: Components,
                 security: tuple[dict[str, tuple[str, ...]], ...], extensions: dict[str, Any],
                 problems: tuple[Problem, ...], ref_targets: dict[str, Schema] | None = None,
                 resolver: Any = None, later: list[MediaType] | None = None) -> None:
        for name, value in (("root", root), ("documents", documents), ("version", version),
                            ("spec_version", spec_version), ("info", info), ("servers", servers), ("tags", tags),
                            ("paths", paths), ("webhooks", webhooks), ("components", components),
                            ("security", security), ("extensions", extensions), ("problems", problems),
                            ("_targets", {} if ref_targets is None else ref_targets), ("resolver", resolver),
                            ("_later", [] if later is None else later),
                            ("_operations", tuple(op for item in paths for op in item.operations))):
            object.__setattr__(self, name, value)

    def _replace(self, **changes: Any) -> "Spec":
        """A copy with these attributes changed (as a named tuple's `_replace`); its operations gathered anew."""
        fields = {name: getattr(self, name) for name in _SPEC_FIELDS}
        fields.update(ref_targets=self._targets, later=self._later)
        fields.update(changes)
        return Spec(**fields)

    @property
    def ref_targets(self) -> dict[str, Schema]:
        """Every model `$ref` → the normalised schema it names (the schemas still to be normalised are, first)."""
        self._normalise_all()
        return self._targets

    def _normalise_all(self) -> None:
        if self._later:
            for media in list(self._later):  # (emptied once all are done: a thread that finds it empty may rely on it)
                media.schema  # noqa: B018 - read for its effect: normalised, and its refs with it
            self._later.clear()

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
        target = self._targets.get(ref)
        if target is None and self._later:  # a ref that only a schema not normalised yet makes
            self._normalise_all()
            target = self._targets.get(ref)
        return target


_SPEC_FIELDS = tuple(name for name in Spec.__slots__ if not name.startswith("_"))  # what `Spec(...)` takes besides
