"""Swagger 2.0 / OpenAPI 3.0 / 3.1 / 3.2 → the one normalised model (`model.py`).

What changes on the way (everything else is carried over as written):
- schemas: `nullable`/`x-nullable` → a `null` type (or `anyOf [..., {type: null}]`), boolean
  `exclusiveMinimum`/`exclusiveMaximum` → numeric, `type: file` → binary string, Swagger's string
  `discriminator` → an object; `$ref`s rewritten to refs into the model;
- Swagger 2.0: `definitions`/`parameters`/`responses`/`securityDefinitions` → components; body and
  formData parameters → a request body per `consumes` type; `type: file` → binary; `collectionFormat` →
  style/explode; `host`+`basePath`+`schemes` → servers; `produces` → response content maps;
- path-level parameters merge with operation-level ones by (name, in), the operation's winning;
- header parameters named `Accept`, `Content-Type` or `Authorization` are ignored, as OpenAPI 3 says
  (the media types and security schemes own those headers), each reported once as an info problem
  `parameter-ignored`; Swagger 2.0 says nothing of the kind and many 2.0 documents declare `Authorization`
  as a parameter instead of a security definition, so there only `Accept` and `Content-Type` are ignored
  (`consumes` and `produces` own them);
- YAML 1.1 booleans (`yes`, `on`, …) are read as booleans only where OpenAPI means a boolean.
"""

from __future__ import annotations

from _thread import RLock
from typing import Any

from workbench import lazy_pattern
from workbench.spec.errors import Problem, Severity, SpecError
from workbench.spec.model import (
    HTTP_METHODS,
    NO_ENTRIES,
    Components,
    Header,
    MediaType,
    Operation,
    Origin,
    Parameter,
    PathItem,
    RequestBody,
    Response,
    Schema,
    Server,
    ServerVariable,
    Spec,
    SpecVersion,
    Tag,
)
from workbench.spec.pointer import join, lookup
from workbench.spec.refs import RefError, Resolver
from workbench.spec.source import SourceDocument

_OPENAPI_VERSION = lazy_pattern(r"3\.(\d+)(?:\.\d+)?(?:-[0-9A-Za-z.-]+)?\Z")
_MINOR_TO_VERSION = {0: SpecVersion.OPENAPI_3_0, 1: SpecVersion.OPENAPI_3_1, 2: SpecVersion.OPENAPI_3_2}

_TRUE_WORDS = frozenset(("true", "yes", "y", "on"))

_SCHEMA_MAPS = frozenset(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"))
_SCHEMA_ONE = frozenset(("additionalProperties", "items", "not", "contains", "propertyNames", "if", "then",
                         "else", "unevaluatedItems", "unevaluatedProperties", "additionalItems",
                         "contentSchema"))
_SCHEMA_LISTS = frozenset(("allOf", "anyOf", "oneOf", "prefixItems"))
_SCHEMA_FLAGS = ("readOnly", "writeOnly", "deprecated", "uniqueItems")
# The keys `schema` converts rather than copies (a schema with none of them is copied as it is, in C), and those
# `_schema_keywords` rewrites (bar `type`, read on its own).
_SUBSCHEMA_KEYS = _SCHEMA_MAPS | _SCHEMA_ONE | _SCHEMA_LISTS | {"$ref"}
_REWRITTEN_KEYS = frozenset((*_SCHEMA_FLAGS, "exclusiveMinimum", "exclusiveMaximum", "discriminator", "nullable",
                             "x-nullable"))
# Keys that describe a schema rather than constrain it: kept beside an `anyOf` made for nullability.
_ANNOTATIONS = ("title", "description", "default", "example", "examples", "readOnly", "writeOnly",
                "deprecated", "externalDocs", "xml")

# Swagger 2.0 parameter keys that belong to the parameter's schema.
_SWAGGER_SCHEMA_KEYS = ("type", "format", "items", "enum", "default", "maximum", "exclusiveMaximum",
                        "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
                        "minItems", "uniqueItems", "multipleOf", "x-nullable")
# collectionFormat → (style for query/form, style for path/header, explode)
_COLLECTION_FORMATS = {
    "csv": ("form", "simple", False),
    "ssv": ("spaceDelimited", "spaceDelimited", False),
    "pipes": ("pipeDelimited", "pipeDelimited", False),
    # Not an OpenAPI 3 style: the model names it so the serialiser can join with tabs.
    "tsv": ("tabDelimited", "tabDelimited", False),
    "multi": ("form", "form", True),
}
# Header parameters OpenAPI says SHALL be ignored: the media types and the security schemes own them.
IGNORED_HEADERS = frozenset(("accept", "content-type", "authorization"))
_OAUTH2_FLOWS = {"implicit": "implicit", "password": "password", "application": "clientCredentials",
                 "accessCode": "authorizationCode"}


def flag(value: Any) -> bool:
    """A boolean field: True/False, or a YAML 1.1 word (`yes`, `on`) left as a string by the parser."""
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() in _TRUE_WORDS


def _as_map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _extensions(raw: dict) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if isinstance(k, str) and k.startswith("x-")}


def detect_version(document: SourceDocument) -> tuple[SpecVersion, str]:
    data = document.data
    if not isinstance(data, dict):
        kind = {list: "a list", str: "a single string"}.get(type(data), type(data).__name__)
        raise SpecError(f"not an API description: the top level is {kind}, not a mapping", document.name,
                        code="not-a-spec")
    if "swagger" in data:
        declared = _declared(document, "swagger")
        if declared != "2.0":
            raise SpecError(f"unsupported Swagger version {declared!r} (supported: Swagger 2.0, OpenAPI 3.0, "
                            "3.1, 3.2)", document.name, pointer="/swagger", code="unsupported-version",
                            **_line_col(document, "/swagger"))
        return SpecVersion.SWAGGER_2_0, declared
    if "openapi" in data:
        declared = _declared(document, "openapi")
        match = _OPENAPI_VERSION.match(declared)
        version = _MINOR_TO_VERSION.get(int(match.group(1))) if match else None
        if version is None:
            raise SpecError(f"unsupported OpenAPI version {declared!r} (supported: Swagger 2.0, OpenAPI 3.0, "
                            "3.1, 3.2)", document.name, pointer="/openapi", code="unsupported-version",
                            **_line_col(document, "/openapi"))
        return version, declared
    raise SpecError("not an API description: no top-level 'openapi' or 'swagger' field", document.name,
                    code="not-a-spec")


def _declared(document: SourceDocument, key: str) -> str:
    value = document.data[key]
    if isinstance(value, str):
        return value
    # `openapi: 3.0` written unquoted reads as a number; the text as written is what was declared.
    written = document.source_text(f"/{key}")
    return written.strip().strip("'\"") if written else str(value)


def _line_col(document: SourceDocument, pointer: str) -> dict[str, int]:
    where = document.locate(pointer)
    return {"line": where.start.line, "column": where.start.column}


class Normalizer:
    def __init__(self, root: SourceDocument, resolver: Resolver, version: SpecVersion) -> None:
        self.root = root
        self.resolver = resolver
        self.version = version
        self.swagger = version is SpecVersion.SWAGGER_2_0
        self.legacy = version in (SpecVersion.SWAGGER_2_0, SpecVersion.OPENAPI_3_0)
        self.problems: list[Problem] = []
        self._schemas: dict[int, tuple[dict, Schema]] = {}
        # A parameter read once per place it is defined: path-level and `$ref`'d parameters are shared by many
        # operations (Kubernetes: 8,170 uses of far fewer definitions).
        # Keyed by the raw object too: a 3.1 path item `$ref` merges its referrer's own parameters under the
        # target's pointer, so one pointer can hold different parameters (the raw object is kept alive with it).
        self._parameters_read: dict[tuple[int, int, str], tuple[dict, Parameter | RequestBodyPart | None]] = {}
        self._ref_queue: list[tuple[str, Any, SourceDocument]] = []
        self.ref_targets: dict[str, Schema] = {}
        # The request and response bodies whose schema is normalised when first read (`Later`), and the lock they
        # are read under once the spec is loaded (the window reads it from more than one thread).
        self.later: list[MediaType] = []
        self.lock = RLock()
        data = root.data
        self.consumes = [c for c in _as_list(data.get("consumes")) if isinstance(c, str)] or ["application/json"]
        self.produces = [c for c in _as_list(data.get("produces")) if isinstance(c, str)] or ["application/json"]

    # -- schemas -----------------------------------------------------------------------------------

    def schema(self, raw: Any, document: SourceDocument) -> Schema | None:
        if raw is None:
            return None
        if not isinstance(raw, dict):
            return raw  # boolean schemas (3.1) pass through; anything else is a lint matter
        memo = self._schemas.get(id(raw))
        if memo is not None:
            return memo[1]
        out: Schema = {}
        # Before recursing, so a YAML-aliased subtree is converted once. The raw dict is kept alive in the
        # memo: a freed temporary's id could otherwise be reused by the next one and hit a wrong entry.
        self._schemas[id(raw)] = (raw, out)
        if raw.keys().isdisjoint(_SUBSCHEMA_KEYS):  # a leaf: most schemas of a big spec
            out.update(raw)
            self._schema_keywords(out)
            return out
        for key, value in raw.items():
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {name: self.schema(sub, document) for name, sub in value.items()}
            elif key in _SCHEMA_ONE and isinstance(value, dict):
                out[key] = self.schema(value, document)
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.schema(sub, document) for sub in value]
            elif key == "items" and isinstance(value, list):  # draft-4 tuple form
                out["prefixItems"] = [self.schema(sub, document) for sub in value]
            elif key == "$ref" and isinstance(value, str):
                out[key] = self.schema_ref(value, document)
            else:
                out[key] = value
        self._schema_keywords(out)
        return out

    def _schema_keywords(self, out: Schema) -> None:
        """In place, once its subschemas are converted: flags to booleans, 2.0/3.0 forms to 3.1 (`nullable`
        becomes a `null` type)."""
        if out.keys().isdisjoint(_REWRITTEN_KEYS):  # then only a 2.0 `file` type can change
            if self.legacy and out.get("type") == "file":
                out["type"] = "string"
                out["format"] = "binary"
            return
        for key in _SCHEMA_FLAGS:
            if key in out and not isinstance(out[key], bool):
                out[key] = flag(out[key])
        if self.legacy:
            self._legacy_schema(out)
        nullable = out.pop("nullable", None)
        x_nullable = out.pop("x-nullable", None) if self.legacy else None
        if flag(nullable) or flag(x_nullable):
            replaced = _make_nullable(out)
            if replaced is not out:
                out.clear()
                out.update(replaced)

    def _legacy_schema(self, out: Schema) -> None:
        for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            value = out.get(exclusive)
            if exclusive in out and (isinstance(value, bool) or not isinstance(value, (int, float))):
                out.pop(exclusive)
                if flag(value) and bound in out:
                    out[exclusive] = out.pop(bound)
        if out.get("type") == "file":
            out["type"] = "string"
            out["format"] = "binary"
        if isinstance(out.get("discriminator"), str):
            out["discriminator"] = {"propertyName": out["discriminator"]}

    def schema_ref(self, ref: str, document: SourceDocument) -> str:
        """Rewrite a schema `$ref` to a ref into the model and queue its target for normalisation."""
        if document is self.root and ref.startswith("#"):
            canonical = ref
            if self.swagger and ref.startswith("#/definitions/"):
                canonical = "#/components/schemas/" + ref[len("#/definitions/"):]
            if canonical not in self.ref_targets:
                self.ref_targets[canonical] = {}  # placeholder until the queue runs
                self._ref_queue.append((ref, canonical, document))
            return canonical
        try:
            target = self.resolver.follow(ref, document)
        except RefError:  # reported once by the resolver's full check; the ref stays as written
            return ref
        canonical = self.resolver.canonical(target.document, target.pointer)
        if canonical not in self.ref_targets:
            self.ref_targets[canonical] = {}
            self._ref_queue.append((ref, canonical, document))
        return canonical

    def drain_refs(self) -> None:
        """Normalise every schema that a `$ref` points at (a queue, so recursive schemas stay cycles)."""
        while self._ref_queue:
            ref, canonical, document = self._ref_queue.pop()
            try:
                target = self.resolver.follow(ref, document)
            except RefError:
                self.ref_targets.pop(canonical, None)
                continue
            self.ref_targets[canonical] = self.schema(target.value, target.document)

    # -- the document ------------------------------------------------------------------------------

    def spec(self, spec_version: str) -> Spec:
        data = self.root.data
        doc = self.root
        components = self._components()
        servers = self._servers(data) if not self.swagger else self._swagger_servers(data)
        paths = tuple(self._path_items(_as_map(data.get("paths")), "/paths", webhook=False))
        webhooks = tuple(self._path_items(_as_map(data.get("webhooks")), "/webhooks", webhook=True))
        self.drain_refs()
        self._parameters_read.clear()  # (the normalizer lives on while a body's schema is not read yet)
        tags = tuple(Tag(str(t["name"]), _text(t.get("description")))
                     for t in _as_list(data.get("tags")) if isinstance(t, dict) and "name" in t)
        return Spec(
            root=doc,
            documents={d.name: d for d in self.resolver.documents.values()},
            version=self.version,
            spec_version=spec_version,
            info=_as_map(data.get("info")),
            servers=servers,
            tags=tags,
            paths=paths,
            webhooks=webhooks,
            components=components,
            security=_security(data.get("security")) or (),
            extensions=_extensions(data),
            problems=(),
            ref_targets=self.ref_targets,
            later=self.later,
        )

    def _components(self) -> Components:
        data, doc = self.root.data, self.root
        if self.swagger:
            schemas_at, params_at, responses_at = "/definitions", "/parameters", "/responses"
            schemes_raw = _as_map(data.get("securityDefinitions"))
            bodies: dict[str, RequestBody] = {}
        else:
            comps = _as_map(data.get("components"))
            schemas_at, params_at, responses_at = ("/components/schemas", "/components/parameters",
                                                   "/components/responses")
            schemes_raw = _as_map(comps.get("securitySchemes"))
            bodies = {}
            for name, raw in _as_map(comps.get("requestBodies")).items():
                body = self._request_body(raw, doc, join("/components/requestBodies", name))
                if body is not None:
                    bodies[name] = body
        schemas = {name: self.schema(raw, doc) for name, raw in _as_map(lookup(data, schemas_at, None)).items()}
        parameters: dict[str, Parameter] = {}
        for name, raw in _as_map(lookup(data, params_at, None)).items():
            param = self._parameter(raw, doc, join(params_at, name))
            if isinstance(param, Parameter):
                parameters[name] = param
        responses = {}
        for name, raw in _as_map(lookup(data, responses_at, None)).items():
            response = self._response(name, raw, doc, join(responses_at, name), self.produces)
            if response is not None:
                responses[name] = response
        schemes = {}
        for name, raw in schemes_raw.items():
            scheme = self._deref(raw, doc, join("/securityDefinitions" if self.swagger else
                                                "/components/securitySchemes", name))
            if scheme is not None:
                schemes[name] = _swagger_security_scheme(scheme[0]) if self.swagger else dict(scheme[0])
        return Components(schemas, parameters, bodies, responses, schemes)

    def _deref(self, raw: Any, document: SourceDocument, pointer: str) -> tuple[dict, SourceDocument, str] | None:
        """Follow a `$ref` object to what it names; (value, document, pointer) of the definition."""
        if not isinstance(raw, dict):
            return None
        ref = raw.get("$ref")
        if not isinstance(ref, str):
            return raw, document, pointer
        target = self.resolver.resolve(ref, document, pointer)
        if target is None or not isinstance(target.value, dict):
            return None
        return target.value, target.document, target.pointer

    @staticmethod
    def _servers(raw_holder: dict) -> tuple[Server, ...]:
        servers = []
        for raw in _as_list(raw_holder.get("servers")):
            if not isinstance(raw, dict) or "url" not in raw:
                continue
            variables = {}
            for name, var in _as_map(raw.get("variables")).items():
                if isinstance(var, dict):
                    variables[name] = ServerVariable(str(var.get("default", "")),
                                                     tuple(str(v) for v in _as_list(var.get("enum"))),
                                                     _text(var.get("description")))
            servers.append(Server(str(raw["url"]), _text(raw.get("description")), variables))
        return tuple(servers)

    def _swagger_servers(self, data: dict) -> tuple[Server, ...]:
        host = data.get("host")
        base_path = str(data.get("basePath") or "")
        if not isinstance(host, str) or not host:
            return (Server(base_path or "/"),)
        schemes = [s for s in _as_list(data.get("schemes")) if isinstance(s, str)] or ["https"]
        return tuple(Server(f"{scheme}://{host}{base_path}") for scheme in schemes)

    def _path_items(self, raw_paths: dict, at: str, *, webhook: bool) -> list[PathItem]:
        items = []
        for path, raw in raw_paths.items():
            if not isinstance(path, str) or path.startswith("x-"):
                continue
            pointer = join(at, path)
            found = self._deref(raw, self.root, pointer)
            if found is None:
                continue
            item, document, item_pointer = found
            if isinstance(raw, dict) and "$ref" in raw and len(raw) > 1:  # 3.1: siblings override
                item = {**item, **{k: v for k, v in raw.items() if k != "$ref"}}
            path_params = self._parameters(item.get("parameters"), document, join(item_pointer, "parameters"))
            path_servers = self._servers(item)
            operations = []
            for method in HTTP_METHODS:
                raw_op = item.get(method)
                if isinstance(raw_op, dict):
                    operations.append(self._operation(method, path, raw_op, document, join(item_pointer, method),
                                                      path_params, path_servers, item, webhook=webhook))
            for method in ("query", "additionalOperations"):
                if method in item and self.version is SpecVersion.OPENAPI_3_2:
                    self.problems.append(Problem("unsupported-feature", f"OpenAPI 3.2 `{method}` is not "
                                                 "read yet; those operations are left out", document.name,
                                                 join(item_pointer, method)))
            origin = Origin(document, item_pointer)
            items.append(PathItem(path, origin, tuple(operations), _extensions(item)))
        return items

    def _parameters(self, raw_list: Any, document: SourceDocument, pointer: str) -> list[Parameter | RequestBodyPart]:
        params: list[Parameter | RequestBodyPart] = []
        for i, raw in enumerate(_as_list(raw_list)):
            param = self._parameter(raw, document, f"{pointer}/{i}")
            if param is not None:
                params.append(param)
        return params

    def _parameter(self, raw: Any, document: SourceDocument, pointer: str) -> Parameter | RequestBodyPart | None:
        found = self._deref(raw, document, pointer)
        if found is None:
            return None
        key = (id(found[0]), id(found[1]), found[2])
        if key not in self._parameters_read:
            self._parameters_read[key] = (found[0], self._read_parameter(*found))
        return self._parameters_read[key][1]

    def _read_parameter(self, raw: dict, document: SourceDocument, pointer: str) -> Parameter | RequestBodyPart | None:
        name, location = raw.get("name"), raw.get("in")
        if not isinstance(name, str) or not isinstance(location, str):
            return None
        if location == "header" and name.lower() in IGNORED_HEADERS and not (self.swagger and
                                                                           name.lower() == "authorization"):
            self.problems.append(Problem("parameter-ignored", f"header parameter {name!r} is ignored: OpenAPI "
                                         "leaves that header to the media types and security schemes",
                                         document.name, pointer, severity=Severity.INFO))
            return None
        origin = Origin(document, pointer)
        if self.swagger and location in ("body", "formData"):
            return RequestBodyPart(location, name, raw, origin)
        if self.swagger:
            schema = self.schema({k: raw[k] for k in _SWAGGER_SCHEMA_KEYS if k in raw}, document)
            fmt = raw.get("collectionFormat", "csv") if raw.get("type") == "array" else None
            query_style, path_style, explode = _COLLECTION_FORMATS.get(fmt or "csv", _COLLECTION_FORMATS["csv"])
            style = query_style if location in ("query", "formData") else path_style
            content: dict[str, MediaType] = {}
            if fmt is None:
                style, explode = ("form", True) if location in ("query", "cookie") else ("simple", False)
        else:
            schema = self.schema(raw.get("schema"), document)
            content = self._content(raw.get("content"), document, join(pointer, "content"))
            style = raw.get("style") or ("form" if location in ("query", "cookie") else "simple")
            explode = flag(raw["explode"]) if "explode" in raw else style == "form"
        return Parameter(
            name=name,
            location=location,
            origin=origin,
            required=True if location == "path" else flag(raw.get("required")),
            description=_text(raw.get("description")),
            schema=schema,
            content=content,
            style=str(style),
            explode=explode,
            allow_reserved=flag(raw.get("allowReserved")),
            allow_empty_value=flag(raw.get("allowEmptyValue")),
            deprecated=flag(raw.get("deprecated")),
            example=raw.get("example"),
            examples=_as_map(raw.get("examples")),
            extensions=_extensions(raw),
        )

    def _operation(self, method: str, path: str, raw: dict, document: SourceDocument, pointer: str,
                   path_params: list, path_servers: tuple[Server, ...], item: dict, *, webhook: bool) -> Operation:
        merged: dict[tuple[str, str], Parameter | RequestBodyPart] = {}
        for param in [*path_params, *self._parameters(raw.get("parameters"), document, join(pointer, "parameters"))]:
            merged[param.key] = param  # the operation's own definition wins over the path item's
        parameters = tuple(p for p in merged.values() if isinstance(p, Parameter))
        parts = [p for p in merged.values() if isinstance(p, RequestBodyPart)]
        if self.swagger:
            consumes = [c for c in _as_list(raw.get("consumes")) if isinstance(c, str)] or self.consumes
            produces = [c for c in _as_list(raw.get("produces")) if isinstance(c, str)] or self.produces
            body = self._swagger_body(parts, consumes) if parts else None
        else:
            produces = self.produces
            body = self._request_body(raw.get("requestBody"), document, join(pointer, "requestBody"))
        responses = []
        for status, raw_response in _as_map(raw.get("responses")).items():
            if isinstance(status, str) and status.startswith("x-"):
                continue
            response = self._response(str(status), raw_response, document,
                                      join(pointer, "responses", str(status)), produces)
            if response is not None:
                responses.append(response)
        servers = self._servers(raw) or path_servers
        summary = raw.get("summary", item.get("summary"))
        description = raw.get("description", item.get("description"))
        return Operation(
            method=method,
            path=path,
            origin=Origin(document, pointer),
            operation_id=_text(raw.get("operationId")),
            summary=_text(summary),
            description=_text(description),
            tags=tuple(str(t) for t in _as_list(raw.get("tags"))),
            deprecated=flag(raw.get("deprecated")),
            parameters=parameters,
            request_body=body,
            responses=tuple(responses),
            security=_security(raw.get("security")),
            servers=servers,
            extensions=_extensions(raw),
            webhook=webhook,
        )

    def _swagger_body(self, parts: list[RequestBodyPart], consumes: list[str]) -> RequestBody | None:
        body_params = [p for p in parts if p.location == "body"]
        if body_params:
            part = body_params[0]
            schema = part.raw.get("schema")
            content = {media: MediaType(None) if schema is None else self._later(schema, part.origin.document)
                       for media in consumes}
            return RequestBody(part.origin, content, flag(part.raw.get("required")),
                               _text(part.raw.get("description")), _extensions(part.raw))
        properties: dict[str, Schema] = {}
        required: list[str] = []
        encoding: dict[str, dict[str, Any]] = {}
        has_file = False
        for part in parts:
            raw = part.raw
            has_file = has_file or raw.get("type") == "file"
            prop = self.schema({k: raw[k] for k in _SWAGGER_SCHEMA_KEYS if k in raw}, part.origin.document)
            if raw.get("description") is not None and prop is not None:
                prop = {**prop, "description": _text(raw["description"])}
            properties[part.name] = prop or {}
            if flag(raw.get("required")):
                required.append(part.name)
            fmt = raw.get("collectionFormat")
            if raw.get("type") == "array" and fmt in _COLLECTION_FORMATS:
                style, _, explode = _COLLECTION_FORMATS[fmt]
                encoding[part.name] = {"style": style, "explode": explode}
        form_types = [c for c in consumes if c in ("multipart/form-data", "application/x-www-form-urlencoded")]
        if has_file and "multipart/form-data" not in form_types:
            form_types = ["multipart/form-data"]
        media = form_types[0] if form_types else "application/x-www-form-urlencoded"
        schema: Schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return RequestBody(parts[0].origin, {media: MediaType(schema, encoding=encoding)}, bool(required))

    def _request_body(self, raw: Any, document: SourceDocument, pointer: str) -> RequestBody | None:
        found = self._deref(raw, document, pointer)
        if found is None:
            return None
        raw, document, pointer = found
        return RequestBody(Origin(document, pointer), self._content(raw.get("content"), document,
                                                                    join(pointer, "content"), later=True),
                           flag(raw.get("required")), _text(raw.get("description")), _extensions(raw))

    def _content(self, raw: Any, document: SourceDocument, pointer: str, *,
                 later: bool = False) -> dict[str, MediaType]:
        content = {}
        for media, spec in _as_map(raw).items():
            if isinstance(spec, dict):
                schema = spec.get("schema")
                content[str(media)] = (
                    self._later(schema, document, spec.get("example"), _as_map(spec.get("examples")),
                                _as_map(spec.get("encoding"))) if later and schema is not None else
                    MediaType(self.schema(schema, document), spec.get("example"), _as_map(spec.get("examples")),
                              _as_map(spec.get("encoding"))))
        return content

    def _later(self, raw: Any, document: SourceDocument, example: Any = None, examples: dict[str, Any] = NO_ENTRIES,
               encoding: dict[str, dict[str, Any]] = NO_ENTRIES) -> MediaType:
        """A media type whose schema (`raw`, not None) is normalised when first read: a request body's or a
        response's."""
        media = MediaType(None, example, examples, encoding, later=Later(self, raw, document), written=(raw, document))
        self.later.append(media)
        return media

    def _response(self, status: str, raw: Any, document: SourceDocument, pointer: str,
                  produces: list[str]) -> Response | None:
        found = self._deref(raw, document, pointer)
        if found is None:
            return None
        raw, document, pointer = found
        headers = []
        for name, raw_header in _as_map(raw.get("headers")).items():
            header_at = join(pointer, "headers", name)
            header = self._deref(raw_header, document, header_at)
            if header is None:
                continue
            value, header_doc, header_pointer = header
            schema_raw = value.get("schema") if not self.swagger else {
                k: value[k] for k in _SWAGGER_SCHEMA_KEYS if k in value}
            headers.append(Header(str(name), Origin(header_doc, header_pointer),
                                  self.schema(schema_raw, header_doc), _text(value.get("description")),
                                  flag(value.get("required"))))
        if self.swagger:
            schema = raw.get("schema")
            examples = _as_map(raw.get("examples"))
            if schema is None and not examples:
                content = {}
            elif examples:
                content = {media: MediaType(None, examples.get(media)) if schema is None else
                           self._later(schema, document, examples.get(media)) for media in produces}
            else:  # one (immutable) media type for all that the operation produces: Kubernetes' five per response
                content = dict.fromkeys(produces, self._later(schema, document))
        else:
            content = self._content(raw.get("content"), document, join(pointer, "content"), later=True)
        return Response(status, Origin(document, pointer), _text(raw.get("description")), content,
                        tuple(headers), _extensions(raw))


class Later:
    """A body's schema as written, normalised (and the schemas it refers to) when `MediaType.schema` is first read,
    under the normalizer's lock."""

    __slots__ = ("document", "normalizer", "raw")

    def __init__(self, normalizer: Normalizer, raw: Any, document: SourceDocument) -> None:
        self.normalizer, self.raw, self.document = normalizer, raw, document

    def __call__(self) -> Schema | None:
        normalizer = self.normalizer
        with normalizer.lock:
            schema = normalizer.schema(self.raw, self.document)
            normalizer.drain_refs()
        return schema


class RequestBodyPart:
    """A Swagger 2.0 `body` or `formData` parameter, on its way to becoming (part of) a request body."""

    __slots__ = ("location", "name", "origin", "raw")

    def __init__(self, location: str, name: str, raw: dict, origin: Origin) -> None:
        self.location, self.name, self.raw, self.origin = location, name, raw, origin

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.location)


def _make_nullable(schema: Schema) -> Schema:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list):
        if "null" not in kind:
            schema["type"] = [*kind, "null"]
    elif any(k in schema for k in ("$ref", "allOf", "anyOf", "oneOf")):
        annotations = {k: schema[k] for k in _ANNOTATIONS if k in schema}
        inner = {k: v for k, v in schema.items() if k not in annotations}
        return {**annotations, "anyOf": [inner, {"type": "null"}]}
    else:
        return schema  # untyped already admits null
    enum = schema.get("enum")
    if isinstance(enum, list) and None not in enum:
        schema["enum"] = [*enum, None]
    return schema


def _security(raw: Any) -> tuple[dict[str, tuple[str, ...]], ...] | None:
    if not isinstance(raw, list):
        return None
    return tuple({str(name): tuple(str(s) for s in _as_list(scopes)) for name, scopes in req.items()}
                 for req in raw if isinstance(req, dict))


def _swagger_security_scheme(raw: dict) -> dict[str, Any]:
    kind = raw.get("type")
    extras = {k: v for k, v in raw.items() if k == "description" or k.startswith("x-")}
    if kind == "basic":
        return {"type": "http", "scheme": "basic", **extras}
    if kind == "oauth2":
        flow = _OAUTH2_FLOWS.get(str(raw.get("flow")), str(raw.get("flow")))
        details = {k: raw[k] for k in ("authorizationUrl", "tokenUrl") if k in raw}
        details["scopes"] = _as_map(raw.get("scopes"))
        return {"type": "oauth2", "flows": {flow: details}, **extras}
    return dict(raw)

