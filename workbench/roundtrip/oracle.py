"""A judge of wire requests that shares none of our code: openapi-core's request unmarshallers, reading the
ORIGINAL document with a plain JSON/YAML parser, and werkzeug parsing the request as a server would.

The serialiser (`wire/`) and the mock's parser use one table; a bug in that table would make them agree
with each other and still be wrong. This judge catches it. It reads OpenAPI 3.0 and 3.1 only: a Swagger 2.0
document must be converted by a converter we did not write (swagger2openapi) and passed as `document`.

openapi-core 0.23.1 is wrong about a few styles (docs/mock-and-roundtrip.md): it cannot decode deepObject
parameters, reads matrix and label path values, exploded form objects and spaceDelimited arrays wrongly,
treats `readOnly` in a parameter's schema as a write error, does not decode a body under `*/*` and leaves
multipart parts undecoded. `LIMITS` lists them; an error about a
parameter the judge cannot read is reported apart (`Verdict.unjudged`), never as a rejection, and every
other error in the same request still counts. A path value holding a slash (sent as %2F) is past WSGI's
routing: such a request is routed by its operation's template, and everything but its path values is judged.
"""

from __future__ import annotations

import base64
import datetime
import functools
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pathable.accessors
import yaml
from jsonschema_path import SchemaPath
from openapi_core import Config, OpenAPI
from openapi_core.casting.schemas.factories import SchemaCastersFactory
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
from openapi_core.unmarshalling.request.unmarshallers import (
    V30RequestBodyUnmarshaller,
    V30RequestParametersUnmarshaller,
    V31RequestBodyUnmarshaller,
    V31RequestParametersUnmarshaller,
)
from openapi_core.validation.request.exceptions import ParameterValidationError
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request as WerkzeugRequest

from workbench.tools.model import Tool

# (location, style, exploded object?) → why the judge cannot read such a parameter
LIMITS: dict[tuple[str, str, bool], str] = {
    ("path", "matrix", False): "openapi-core misreads matrix-style path parameters",
    ("path", "matrix", True): "openapi-core misreads matrix-style path parameters",
    ("path", "label", False): "openapi-core misreads label-style path parameters",
    ("path", "label", True): "openapi-core misreads label-style path parameters",
    ("query", "spaceDelimited", False): "openapi-core misreads spaceDelimited query arrays",
    ("query", "spaceDelimited", True): "openapi-core misreads spaceDelimited query arrays",
    ("query", "deepObject", True): "openapi-core cannot decode deepObject parameters",
    ("query", "deepObject", False): "openapi-core cannot decode deepObject parameters",
    ("query", "form", True): "openapi-core misreads exploded form-style query objects",
}
UNDERSCORE_HEADER = "werkzeug (WSGI) turns an underscore in a header name into a dash, so the judge cannot find it"
IGNORED_HEADER = ("OpenAPI says an Accept, Content-Type or Authorization header parameter is ignored; openapi-core "
                  "still asks for it")
READ_ONLY_PARAMETER = "openapi-core treats readOnly in a parameter's schema as a write error"
FORM_OBJECT = "openapi-core misreads exploded form-style objects in 3.0 form bodies"
WILDCARD_BODY = "openapi-core does not decode a body declared under a wildcard media type (*/*)"
MULTIPART_BODY = ("openapi-core does not decode multipart parts to their schema's types (a number stays text, a "
                  "3.0 binary part stays bytes)")
PATH_SLASH = ("WSGI decodes %2F in the path before routing: with a path value holding a slash, the request is "
              "routed by its template and no path value is judged (the query, headers and body are)")
PATH_NEWLINE = "openapi-core's path templates cannot read a line break or tab in a path value (it is dropped)"
UNTYPED_NULLABLE = "the spec contradicts itself: `nullable: true` without a `type` beside it, which OpenAPI 3.0.3 " \
                   "gives no effect, so the judge refuses the null the spec means to allow"
NULLABLE_ENUM = "the spec contradicts itself: `nullable: true` beside an `enum` that does not list null, which " \
                "OpenAPI 3.0.3 lets refuse the null the spec means to allow"
NULLABLE_3_1 = "the spec contradicts itself: `nullable: true` is OpenAPI 3.0's, which a 3.1 document does not have, " \
               "so the judge refuses the null the spec means to allow"
REQUIRED_UNDEFINED = "the spec contradicts itself: it requires a property that its schema does not define, so no " \
                     "tool call can carry it"
BODY = "<body>"  # the key of a limit on the whole request body
PATH = "<path>"  # the key of a limit on every path parameter
RESOLVED_CACHE = 4096  # resolved places kept per operation's judge (an operation reads a few hundred)

# Formats whose unmarshalled value is compared as a Python object; any other format is read as the string it
# is (openapi-core raises FormatterNotFoundError on formats it does not know: "uri", "iso-country-code").
UNMARSHALLED_FORMATS = {"date", "date-time", "uuid", "byte", "binary"}
_DEFAULT_STYLE = {"query": "form", "cookie": "form", "path": "simple", "header": "simple"}


class _NoTimestamps(yaml.SafeLoader):
    """YAML 1.2-like: dates stay strings, as JSON would have them."""


_NoTimestamps.yaml_implicit_resolvers = {
    key: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_document(path: Path) -> dict:
    text = path.read_text(encoding="utf-8-sig")
    return json.loads(text) if text.lstrip().startswith("{") else yaml.load(text, Loader=_NoTimestamps)


def _with_server(document: dict, base_url: str) -> dict:
    """The document with every `servers` replaced by the one base URL the requests go to."""
    document = {**document, "servers": [{"url": base_url}]}
    paths = {}
    for key, item in (document.get("paths") or {}).items():
        if isinstance(item, dict):
            item = {k: ({kk: vv for kk, vv in v.items() if kk != "servers"} if isinstance(v, dict) else v)
                    for k, v in item.items() if k != "servers"}
        paths[key] = item
    document["paths"] = paths
    return document


def _formats(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["format"]} if isinstance(node.get("format"), str) else set()
        return found.union(*(_formats(v) for v in node.values()))
    return set().union(*(_formats(v) for v in node)) if isinstance(node, list) else set()


def _media_types(document: dict) -> set[str]:
    found: set[str] = set()
    for item in (document.get("paths") or {}).values():
        for operation in (item.values() if isinstance(item, dict) else ()):
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if isinstance(body, dict) and isinstance(body.get("content"), dict):
                found.update(body["content"])
    for body in ((document.get("components") or {}).get("requestBodies") or {}).values():
        if isinstance(body, dict) and isinstance(body.get("content"), dict):
            found.update(body["content"])
    return found


def _is_json(media: str) -> bool:
    essence = media.split(";", 1)[0].strip().lower()
    return essence != "application/json" and (essence.endswith("+json") or essence == "text/json")


@dataclass
class Verdict:
    errors: list[str]  # the judge's errors, verbatim (with their causes)
    parameters: Any = None  # what the judge decoded: .path, .query, .header, .cookie
    body: Any = None
    unjudged: dict[str, str] = field(default_factory=dict)  # parameter / field → why it was not judged
    body_judged: bool = True
    form_declared: frozenset[str] | None = None  # a form body's declared properties (the judge reads no others)
    limits: dict[str, str] = field(default_factory=dict)  # the operation's parameters the judge cannot read
    path_judged: bool = True  # False: routed by the template (a path value held a slash), no path value read

    @property
    def accepted(self) -> bool:
        return not self.errors


class Oracle:
    """Built once per document; `judge` is called per request."""

    def __init__(self, document: dict, base_url: str, base_uri: str = "") -> None:
        """`base_uri`: where the document lives (a `file:` URI), for its references to other files."""
        self.base_url = base_url.rstrip("/")
        self.base_uri = base_uri
        document = _with_server(document, self.base_url)
        self.document = document
        self.v30 = str(document.get("openapi", "")).startswith("3.0")
        self._as_text = {name: str for name in _formats(document) - UNMARSHALLED_FORMATS}
        # openapi-core decodes application/json only; "+json" media types are JSON too (RFC 6839)
        self._as_json = {media: json.loads for media in _media_types(document) if _is_json(media)}
        self._judges: dict[str, tuple[Any, Any]] = {}
        self._resolver = _Resolver(document)

    def judge(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes,
              template: str) -> Verdict:
        """One request as it went on the wire (`target`: the request line's path and query) for the operation
        at `template` (the spec's path key)."""
        prefix = urlsplit(self.base_url).path
        path, _, query = target.partition("?")
        # WSGI decodes %2F before routing, so such a path finds no operation: the request is routed by the
        # operation's template instead (its path values stood in and not judged) and the rest of it — query,
        # headers, body — is judged as it was sent
        routed = "%2f" in path.lower()
        if routed:
            path = prefix + _stand_in_route(template)
        environ = EnvironBuilder(method=method.upper(), base_url=self.base_url, path=path.removeprefix(prefix),
                                 query_string=query, headers=headers, data=body or b"").get_environ()
        request = WerkzeugOpenAPIRequest(WerkzeugRequest(environ))
        limits = self._resolver.limits(template, method.lower())
        judge_parameters, judge_body = self._judge_for(template)
        parameters = judge_parameters.unmarshal(request)
        decoded_body = judge_body.unmarshal(WerkzeugOpenAPIRequest(WerkzeugRequest(environ)))
        errors, unjudged, body_judged = [], {}, BODY not in limits
        if BODY in limits:
            unjudged[BODY] = limits[BODY]
        if routed:
            unjudged[PATH] = PATH_SLASH
        for error in [*parameters.errors, *decoded_body.errors]:
            names = _about(error)
            if routed and isinstance(error, ParameterValidationError) and error.location == "path":
                continue  # about a stand-in value
            if BODY in limits and not isinstance(error, ParameterValidationError):
                unjudged[BODY] = limits[BODY]
                body_judged = False
            elif names and all(n in limits for n in names):
                unjudged.update({n: limits[n] for n in names})
                body_judged = body_judged and isinstance(error, ParameterValidationError)
            else:
                errors.append(self._untyped_nullable(error, template, method, headers)
                              or self._required_undefined(error, template, method, headers) or describe(error))
        return Verdict(errors, parameters.parameters, decoded_body.body, unjudged, body_judged,
                       self._resolver.form_properties(template, method.lower()), limits, path_judged=not routed)


    def _untyped_nullable(self, error: Exception, template: str, method: str,
                          headers: list[tuple[str, str]]) -> str | None:
        """A body error whose every cause is a null the spec means but the letter of its OpenAPI version refuses:
        - 3.0: refused by a schema that says `nullable: true` with no `type` beside it, or by a member of its
          allOf/anyOf/oneOf (GitHub's `metadata` values: `nullable` next to an anyOf of typed members; Box's
          `shared_link`: next to an allOf of an object), where 3.0.3 gives `nullable` no effect;
        - 3.0: refused by the `enum` of a `nullable: true` schema that does not list null (Box's
          `signature_color`), which 3.0.3 keeps ("other constraints retain their defined behavior, and may
          disallow null");
        - 3.1: refused by a schema (or a member of one) that says `nullable: true`, a 3.0 keyword 3.1 does not
          have (the OpenAI description, which also gives `default: null` that the judge fills in and refuses).
        Said as the spec's contradiction, with the pointers; None for any other error."""
        if isinstance(error, ParameterValidationError):
            return None
        causes = _schema_errors(error)
        media = next((v for k, v in headers if k.lower() == "content-type"), "").split(";")[0].strip()
        saying = [self._nullable_node(template, method.lower(), media, e) if e.instance is None else None
                  for e in causes]
        if not causes or not all(saying):
            return None
        said = []
        for reason, hint in ((UNTYPED_NULLABLE, "give it a `type`, or each member its own `nullable: true`"),
                             (NULLABLE_ENUM, "list null in the enum"),
                             (NULLABLE_3_1, 'write `type: [..., "null"]` instead')):
            places = sorted({f"null at {place} against {where}" for why, where, place in saying if why == reason})
            said += [f"{reason}: {'; '.join(places)} ({hint})"] if places else []
        return "; ".join(said)

    def _nullable_node(self, template: str, method: str, media: str, cause: Any) -> tuple[str, str, str] | None:
        """(why, the pointer of the schema that says `nullable: true`, the null's place) for a refused null: the
        schema that refused it (by its `enum` in 3.0), or says it without a `type` (any `nullable` in 3.1), or
        the one whose allOf/anyOf/oneOf member refused it; None when none does."""
        path = list(cause.absolute_schema_path)[:-1]  # the schema, not its keyword
        node, where = self._resolver.walk(template, method, media, path)
        place = json_pointer(cause.absolute_path)
        if node != cause.schema:  # a default the judge filled in is checked on its own: find its property
            node, where, name = self._resolver.body_property(template, method, media, cause.schema)
            path, place = [], f"{json_pointer([name])} (its `default`, which the judge fills in)"
        if self.v30 and cause.validator == "enum" and isinstance(node, dict) and node.get("nullable") is True \
                and None not in (node.get("enum") or []):
            return NULLABLE_ENUM, where, place
        while True:
            if isinstance(node, dict) and node.get("nullable") is True and not (self.v30 and "type" in node):
                return (UNTYPED_NULLABLE if self.v30 else NULLABLE_3_1), where, place
            if len(path) < 2 or path[-2] not in ("allOf", "anyOf", "oneOf") or not isinstance(path[-1], int):
                return None
            path = path[:-2]
            node, where = self._resolver.walk(template, method, media, path)

    def _required_undefined(self, error: Exception, template: str, method: str,
                            headers: list[tuple[str, str]]) -> str | None:
        """A body error whose every cause is a required name that the schema does not define as a property (the
        example's `required: [shipping_address]` beside `shippingAddress`): the tool offers only the defined
        properties, so the spec refuses every call. Said as the spec's contradiction, with the pointers; None for
        any other error."""
        if isinstance(error, ParameterValidationError):
            return None
        causes = _schema_errors(error)
        undefined = [(e, [n for n in e.validator_value if isinstance(e.instance, dict) and n not in e.instance
                          and n not in (e.schema.get("properties") or {})])
                     for e in causes if e.validator == "required" and isinstance(e.schema, dict)]
        if not causes or len(undefined) != len(causes) or not all(names for _, names in undefined):
            return None
        media = next((v for k, v in headers if k.lower() == "content-type"), "").split(";")[0].strip()
        places = sorted({f"{', '.join(map(repr, names))} required at "
                         f"{self._resolver.pointer(template, method.lower(), media, list(e.absolute_schema_path))}"
                         for e, names in undefined})
        return f"{REQUIRED_UNDEFINED}: {'; '.join(places)} (define it, or take it out of `required`)"

    def _judge_for(self, template: str) -> tuple[Any, Any]:
        """openapi-core's unmarshallers over the document with only the operation's own path item: the request
        is judged against the operation it was made for (and openapi-core does not walk every path of a large
        document per request: 25 ms a request on the GitHub description)."""
        if template not in self._judges:
            item = (self.document.get("paths") or {}).get(template, {})
            document = {**self.document, "paths": {_path_key(template): item}}
            # Not checked by openapi-spec-validator: it refuses whole real documents for a duplicate `required`
            # entry somewhere (openai-openapi.yaml), and checking the document is the linter's job.
            # jsonschema-path resolves every step of every path again unless it may keep what it resolved
            # (openapi-core walks the operation's parameters anew for each request: most of the judge's time)
            path = SchemaPath.from_dict(document, base_uri=self.base_uri, resolved_cache_maxsize=RESOLVED_CACHE)
            app = OpenAPI(path, config=Config(spec_validator_cls=None))
            parameters_cls = V30RequestParametersUnmarshaller if self.v30 else V31RequestParametersUnmarshaller
            body_cls = V30RequestBodyUnmarshaller if self.v30 else V31RequestBodyUnmarshaller
            parameters = parameters_cls(app.spec, extra_format_unmarshallers=self._as_text,
                                        format_validators=format_validators(parameters_cls),
                                        schema_casters_factory=casters(parameters_cls))
            body = body_cls(app.spec, extra_format_unmarshallers=self._as_text,
                            extra_media_type_deserializers=self._as_json, format_validators=format_validators(body_cls),
                            schema_casters_factory=casters(body_cls))
            self._judges[template] = (parameters, body)
        return self._judges[template]


def _path_key(template: str) -> str:
    """The path as it is sent: a fragment or query some specs write into path keys
    (`/files/{id}#get_shared_link`) is not."""
    return template.split("#", 1)[0].split("?", 1)[0] or "/"


def _stand_in_route(template: str) -> str:
    """A path that the operation's template matches, each of its values a stand-in."""
    return re.sub(r"\{[^}/]*\}", "stand-in", _path_key(template))


class _Subscriptable(type):
    """pathable's `Subscriptable` protocol as the isinstance check it is (`__contains__`, `__getitem__` and
    `__len__` there and not None), without typing's runtime protocol machinery: jsonschema-path asks it at every
    step into the document, about 30 times a request, at tens of microseconds each (a tenth of the judge)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return all(getattr(instance, name, None) is not None for name in ("__contains__", "__getitem__", "__len__"))


pathable.accessors.Subscriptable = _Subscriptable("Subscriptable", (), {})


_FORMAT_VALIDATORS: dict[type, dict[str, Callable[[Any], bool]]] = {}


def format_validators(unmarshaller_cls: type) -> dict[str, Callable[[Any], bool]]:
    """The format checks an openapi-core unmarshaller class uses, given to it explicitly: without them it
    deep-copies its format checker for every schema of every request (a tenth of the judge's time); given,
    they go into a fresh checker. The same checks: an exception a check declares reads as "not that format",
    as the checker reads it."""
    if unmarshaller_cls not in _FORMAT_VALIDATORS:
        checker = unmarshaller_cls.schema_unmarshallers_factory.schema_validators_factory.format_checker
        _FORMAT_VALIDATORS[unmarshaller_cls] = {name: _declared(check, raises)
                                                for name, (check, raises) in checker.checkers.items()}
    return _FORMAT_VALIDATORS[unmarshaller_cls]


class _Casters(SchemaCastersFactory):
    """The casters an unmarshaller reads parameters with (their schema's type, a oneOf's member) with the format
    checks given, as `format_validators` gives them: left to itself it deep-copies its format checker for every
    parameter of every request."""

    def __init__(self, unmarshaller_cls: type) -> None:
        base = unmarshaller_cls.schema_casters_factory
        super().__init__(base.schema_validators_factory, base.types_caster)
        self.checks = format_validators(unmarshaller_cls)

    def create(self, spec: Any, schema: Any, format_validators: Any = None, extra_format_validators: Any = None) -> Any:
        return super().create(spec, schema, self.checks if format_validators is None else format_validators,
                              extra_format_validators)


@functools.cache
def casters(unmarshaller_cls: type) -> _Casters:
    """One `_Casters` per unmarshaller class, for the run."""
    return _Casters(unmarshaller_cls)


def _declared(check: Callable[[Any], Any], raises: Any) -> Callable[[Any], bool]:
    def conforms(instance: Any) -> bool:
        try:
            return bool(check(instance))
        except raises:
            return False
    return conforms


class _Resolver:
    """Reads the styles of an operation's parameters from the raw document (its own walk, not ours)."""

    def __init__(self, document: dict) -> None:
        self.document = document

    def deref(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            target: Any = self.document
            for part in node["$ref"][2:].split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, dict) \
                    else {}
            node, seen = target, seen + 1
            if seen > 32:
                return {}
        return node if isinstance(node, dict) else {}

    def pointer(self, template: str, method: str, media: str, schema_path: list[Any]) -> str:
        """The JSON pointer in the document of the schema at `schema_path` under the operation's request body
        in `media`, each `$ref` on the way followed (so it names the component that says it)."""
        return self.walk(template, method, media, schema_path)[1]

    def walk(self, template: str, method: str, media: str, schema_path: list[Any]) -> tuple[Any, str]:
        """(the schema at `schema_path` under the operation's request body in `media`, its `pointer`)."""
        node: Any = self.document
        where: list[Any] = []
        for part in ["paths", template, method, "requestBody", "content", media, "schema", *schema_path]:
            node = node.get(part) if isinstance(node, dict) else node[part] \
                if isinstance(node, list) and isinstance(part, int) and part < len(node) else None
            where.append(part)
            if isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
                where = [p.replace("~1", "/").replace("~0", "~") for p in node["$ref"][2:].split("/")]
                node = self.deref(node)
        return node, "#" + json_pointer(where)

    def body_property(self, template: str, method: str, media: str, schema: Any) -> tuple[Any, str, str]:
        """(the schema, its pointer, the name) of the request body's property (allOf members' too) whose schema
        is `schema`; (None, the body's pointer, "") when none is."""
        body, where = self.walk(template, method, media, [])
        for prefix, member in [([], body), *((["allOf", i], self.deref(m)) for i, m in
                                             enumerate((body or {}).get("allOf") or []))]:
            for name, sub in ((member or {}).get("properties") or {}).items():
                if self.deref(sub) == schema:
                    return *self.walk(template, method, media, [*prefix, "properties", name]), name
        return None, where, ""

    def form_properties(self, template: str, method: str) -> frozenset[str] | None:
        """The top-level properties a form body's schema declares (allOf members merged), or None."""
        operation = self.deref(self.deref((self.document.get("paths") or {}).get(template)).get(method))
        content = self.deref(operation.get("requestBody")).get("content") or {}
        media = content.get("application/x-www-form-urlencoded")
        if not isinstance(media, dict):
            return None
        schema = self.deref(media.get("schema"))
        names = set(schema.get("properties") or {})
        for member in schema.get("allOf") or []:
            names |= set(self.deref(member).get("properties") or {})
        return frozenset(names)

    def limits(self, template: str, method: str) -> dict[str, str]:
        item = self.deref((self.document.get("paths") or {}).get(template))
        operation = self.deref(item.get(method))
        out: dict[str, str] = {}
        for raw in [*(item.get("parameters") or []), *(operation.get("parameters") or [])]:
            parameter = self.deref(raw)
            location, name = parameter.get("in"), parameter.get("name")
            schema = self.deref(parameter.get("schema"))
            style = parameter.get("style", _DEFAULT_STYLE.get(location, "simple"))
            explode = parameter.get("explode", style == "form")
            is_object = schema.get("type") == "object" or "properties" in schema
            reason = LIMITS.get((location, style, bool(explode) and is_object))
            if schema.get("readOnly"):
                reason = READ_ONLY_PARAMETER
            if location == "header" and isinstance(name, str):
                if name.lower() in ("accept", "content-type", "authorization"):
                    reason = IGNORED_HEADER
                elif "_" in name:
                    reason = UNDERSCORE_HEADER
            if reason and isinstance(name, str):
                out[name] = reason
        body = self.deref(operation.get("requestBody"))
        if any("*" in media for media in body.get("content") or {}):
            out[BODY] = WILDCARD_BODY
        elif any(media.lower().startswith("multipart/") for media in body.get("content") or {}):
            out[BODY] = MULTIPART_BODY
        form = self.deref(((body.get("content") or {}).get("application/x-www-form-urlencoded") or {}).get("schema"))
        for name, sub in (form.get("properties") or {}).items():
            sub = self.deref(sub)
            if sub.get("type") == "object" or "properties" in sub:
                out[name] = FORM_OBJECT
        return out


def describe(error: Exception) -> str:
    """The judge's error with its causes and jsonschema messages, verbatim."""
    parts = [f"{type(error).__name__}: {error}"]
    cause = error.__cause__
    while cause is not None:
        detail = [e.message for e in getattr(cause, "schema_errors", ())]
        parts.append(f"{type(cause).__name__}: {cause}" + (f" {detail}" if detail else ""))
        cause = cause.__cause__
    return " <- ".join(parts)


def json_pointer(parts: Any) -> str:
    """RFC 6901, with control characters written as JSON escapes (a line break stays on its line)."""
    text = "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _schema_errors(error: Exception) -> list[Any]:
    """The jsonschema errors under an openapi-core error (along its chain of causes)."""
    found = []
    cause = error.__cause__
    while cause is not None:
        found += getattr(cause, "schema_errors", [])
        cause = cause.__cause__
    return found


def _about(error: Exception) -> set[str]:
    """The parameters or top-level body properties an error is about (empty when it cannot be told)."""
    if isinstance(error, ParameterValidationError):
        return {error.name}
    names: set[str] = set()
    for e in _schema_errors(error):
        missing = re.match(r"'(.*)' is a required property", e.message) if e.validator == "required" else None
        if missing:
            names.add(missing.group(1))
        elif e.absolute_path:
            names.add(str(e.absolute_path[0]))
        else:
            return set()
    return names


def same(sent: Any, decoded: Any, absent_ok: bool = False) -> bool:
    """`decoded` (the judge's unmarshalled value) means `sent`: formats come back as Python objects, and
    properties a server fills from `default` are extra. With `absent_ok` (a form body, which cannot carry
    them), a property sent as null, {} or [] may be absent."""
    if isinstance(decoded, uuid.UUID):
        return isinstance(sent, str) and _parses(lambda: uuid.UUID(sent) == decoded)
    if isinstance(decoded, datetime.datetime):
        return isinstance(sent, str) and _parses(lambda: datetime.datetime.fromisoformat(sent) == decoded)
    if isinstance(decoded, datetime.date):
        return isinstance(sent, str) and _parses(lambda: datetime.date.fromisoformat(sent) == decoded)
    if isinstance(decoded, bytes):
        return isinstance(sent, str | bytes) and decoded in (
            sent if isinstance(sent, bytes) else sent.encode(), _b64(sent))
    if isinstance(sent, dict):
        return isinstance(decoded, dict) and all(
            same(v, decoded[k], absent_ok) if k in decoded else absent_ok and v in (None, {}, [])
            for k, v in sent.items())
    if isinstance(sent, list):
        return isinstance(decoded, list) and len(sent) == len(decoded) and all(
            same(a, b, absent_ok) for a, b in zip(sent, decoded, strict=True))
    if absent_ok and isinstance(decoded, str) and isinstance(sent, bool | int | float):
        # a form field without a type is read as the text it is on the wire
        return decoded in (json.dumps(sent), str(sent), repr(sent))
    if isinstance(sent, bool) or isinstance(decoded, bool):
        return sent is decoded
    if isinstance(sent, int | float) and isinstance(decoded, int | float):
        return sent == decoded  # 1 and 1.0 are the same JSON number
    return type(sent) is type(decoded) and sent == decoded


def mismatches(tool: Tool, arguments: dict, verdict: Verdict) -> list[str]:
    """Every argument the judge decoded to something other than what was sent (`arguments`: as validated,
    with the human part), except those it could not judge."""
    out = []
    sent_body: Any = {}
    for binding in tool.bindings:
        if binding.argument not in arguments or binding.name in verdict.unjudged:
            continue
        if binding.location == "path" and not verdict.path_judged:
            continue  # the judge read stand-ins for the path values
        if binding.location not in ("body", "body-field") and binding.name in verdict.limits:
            verdict.unjudged[binding.name] = verdict.limits[binding.name]  # not compared: the judge cannot read it
            continue
        value = arguments[binding.argument]
        if binding.location == "body":
            sent_body = value
        elif binding.location == "body-field":
            node = sent_body
            for key in binding.body_path[:-1]:
                node = node.setdefault(key, {})
            node[binding.body_path[-1]] = value
        else:
            out += _parameter_mismatch(binding, value, verdict)
    return out + _body_mismatch(tool, sent_body, verdict)


def _parameter_mismatch(binding: Any, value: Any, verdict: Verdict) -> list[str]:
    if binding.location == "path" and isinstance(value, str) and any(c in value for c in "\n\r\t"):
        verdict.unjudged[binding.name] = PATH_NEWLINE
        return []
    if verdict.parameters is None:
        return []
    decoded = getattr(verdict.parameters, binding.location).get(binding.name, "<absent>")
    undefined = value is None or (isinstance(value, list | dict) and all(
        item is None for item in (value.values() if isinstance(value, dict) else value)))
    if undefined and decoded == "<absent>":
        return []  # an empty list or map is undefined in RFC 6570, a parameter cannot carry null: not sent
    if same(value, decoded):
        return []
    return [f"{binding.location} {binding.name}: sent {value!r}, the server read {decoded!r}"]


def _body_mismatch(tool: Tool, sent_body: Any, verdict: Verdict) -> list[str]:
    json_body = (tool.media_type or "").split(";")[0].strip().lower().endswith(("/json", "+json"))
    if (sent_body in ("", b"") and verdict.body is None) or not verdict.body_judged:
        return []  # an empty body is no body
    decoded_body = {} if verdict.body is None and not json_body and isinstance(sent_body, dict) else verdict.body
    if verdict.form_declared is not None and isinstance(sent_body, dict):
        # the judge reads only the properties a form body declares: an undeclared one (the spec's own example
        # has some) is not compared
        sent_body = {k: v for k, v in sent_body.items() if k in verdict.form_declared}
    if sent_body == {} or same(sent_body, decoded_body, absent_ok=not json_body):
        return []
    return [f"body: sent {sent_body!r}, the server read {verdict.body!r}"]


def _parses(test) -> bool:
    try:
        return bool(test())
    except ValueError:
        return False


def _b64(value: Any) -> bytes | None:
    try:
        return base64.b64decode(value + "==") if isinstance(value, str) else None
    except ValueError:
        return None
