"""One argument object per operation: path, query, header and cookie parameters and the body's fields,
with a side table (`Binding`) saying where each argument goes on the wire."""

from __future__ import annotations

import copy
import re
from typing import Any

from workbench.spec import Operation, Schema, Spec
from workbench.tools.model import ArgumentShape, Binding
from workbench.wire import text_only_form_field

_LOCATION_ORDER = {"path": 0, "query": 1, "header": 2, "cookie": 3}
_JSON = re.compile(r"^application/(.+\+)?json\b|^application/json")
_MEDIA_PREFERENCE = (lambda m: bool(_JSON.match(m)), lambda m: m == "application/x-www-form-urlencoded",
                     lambda m: m == "multipart/form-data", lambda m: True)


def argument_name(name: str) -> str:
    """A name every vendor accepts for a property: letters, digits and `_`, not starting with a digit."""
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name) or "_"
    return ("_" + cleaned if cleaned[0].isdigit() else cleaned)[:64]


def pick_media_type(content: dict) -> str | None:
    for accept in _MEDIA_PREFERENCE:
        for media in content:
            if accept(media):
                return media
    return None


def build_arguments(spec: Spec, op: Operation,
                    shape: ArgumentShape) -> tuple[Schema, list[Binding], str | None, list[str]]:
    """(parameters schema, bindings, request media type, warnings) for `op`.

    `shape.flatten_depth` lifts nested body objects into flat arguments that many levels down
    (`customer.address.postal_code` → `customer_address_postal_code`; the binding keeps the path so the
    executor rebuilds the object). `shape.body_schema` replaces the body's schema (one variant of a union)."""
    args = _Arguments(shape.nested)
    for param in sorted(op.parameters, key=lambda p: _LOCATION_ORDER.get(p.location, 9)):
        args.add_parameter(spec, param)
    for name in op.colon_parameters():
        args.warnings.append(f"path parameter {name!r} is written :{name} in {op.path}, not {{{name}}}: the "
                             "request goes to the literal path and the argument reaches nothing (the spec "
                             f"would need {{{name}}})")
    media_type = None
    body = op.request_body
    if body is not None and body.content:
        media_type = pick_media_type(body.content)
        schema = shape.body_schema if shape.body_schema is not None else (body.content[media_type].schema or {})
        if media_type == "application/x-www-form-urlencoded":
            schema = args.form_text_fields(spec, schema, body.content[media_type].encoding)
        args.add_body(spec, body, schema, shape.flatten_depth)
    return args.schema(), args.bindings, media_type, args.warnings


class _Arguments:
    """The argument object being built: flat (one namespace, clashes renamed by location) or nested (one
    group per location)."""

    def __init__(self, nested: bool) -> None:
        self.nested = nested
        self.properties: dict[str, Schema] = {}
        self.required: list[str] = []
        self.bindings: list[Binding] = []
        self.warnings: list[str] = []
        self.groups: dict[str, tuple[dict[str, Schema], list[str]]] = {}
        self.taken: set[str] = set()

    def add(self, arg: str, schema: Schema, binding: Binding, group: str) -> None:
        if self.nested:
            props, req = self.groups.setdefault(group, ({}, []))
            props[arg] = schema
            if binding.required:
                req.append(arg)
            self.bindings.append(Binding(f"{group}.{arg}", binding.location, binding.name, binding.body_path,
                                         binding.required))
            return
        self.properties[arg] = schema
        if binding.required:
            self.required.append(arg)
        self.bindings.append(binding)

    def name(self, wanted: str, location: str, what: str) -> str:
        """The argument's name for `wanted`; a rename in the flat style is reported as `what` + the name."""
        arg = _unique(argument_name(wanted), location, self.taken, self.nested)
        if arg != wanted and not self.nested:
            self.warnings.append(f"{what} is the argument {arg!r}")
        return arg

    def add_parameter(self, spec: Spec, param) -> None:
        arg = self.name(param.name, param.location, f"{param.location} parameter {param.name!r}")
        self.add(arg, _parameter_schema(spec, param), Binding(arg, param.location, param.name, required=param.required),
                 param.location)
        if _empty_in_enum(spec, param):
            self.warnings.append(f"{param.location} parameter {param.name!r} lists \"\" among its values, which "
                                 "it cannot take (no `allowEmptyValue: true`): the tool leaves \"\" out")
        nested_shape = _nested_shape(spec, param)
        if nested_shape:
            self.warnings.append(f"{param.location} parameter {param.name!r} is {nested_shape}: the "
                                 f"{param.style!r} style has no form for it, so a call that passes it fails before "
                                 "it is sent (the spec would need `content: application/json` on the parameter)")

    def add_body(self, spec: Spec, body, schema: Schema, flatten_depth: int) -> None:
        resolved = _resolved(spec, schema)
        if not _opens(resolved, body.required):
            self.add_whole_body(body, schema)
            return
        body_required = set(resolved.get("required") or []) if body.required else set()
        if resolved.get("additionalProperties") not in (None, False):
            self.warnings.append("the body also accepts properties beyond those listed; only the listed ones are "
                                 "arguments")
        fields = _body_fields(spec, resolved, (), body_required, flatten_depth if not self.nested else 0)
        for path, sub, is_required in fields:
            arg = self.name("_".join(path), "body", f"body field {'.'.join(path)!r}")
            self.add(arg, sub, Binding(arg, "body-field", path[-1], path, is_required), "body")

    def form_text_fields(self, spec: Spec, schema: Schema, encoding: Any) -> Schema:
        """A form body's fields that it can carry only as text (`wire.text_only_form_field`: those without a
        type), and the untyped items of its array fields, asked for as strings."""
        resolved = _resolved(spec, schema)
        props = resolved.get("properties") if isinstance(resolved, dict) else None
        if not isinstance(props, dict):
            return schema
        encoding = encoding if isinstance(encoding, dict) else {}
        changed: dict[str, Schema] = {}
        for name, sub in props.items():
            enc = encoding.get(name)
            if text_only_form_field(sub, enc):
                changed[name] = {**sub, "type": "string"}
            elif isinstance(sub, dict) and sub.get("type") == "array" and text_only_form_field(
                    sub.get("items"), enc):
                changed[name] = {**sub, "items": {**sub["items"], "type": "string"}}
        for name, sub in changed.items():
            self.warnings.append(f"form field {name!r}{' (its items)' if 'items' in sub else ''} has no type: a form "
                                 "body carries it only as text, so the tool asks for a string")
        return {**resolved, "properties": {**props, **changed}} if changed else schema

    def add_whole_body(self, body, schema: Schema) -> None:
        described = dict(schema)
        if body.description and "description" not in described:
            described["description"] = body.description
        if not self.nested:
            arg = _unique("body", "body", self.taken, self.nested)
            self.add(arg, described, Binding(arg, "body", "body", required=body.required), "body")
            return
        self.properties["body"] = described
        if body.required:
            self.required.append("body")
        self.bindings.append(Binding("body", "body", "body", required=body.required))

    def schema(self) -> Schema:
        for group, (props, req) in self.groups.items():
            group_schema: Schema = {"type": "object", "properties": props}
            if req:
                group_schema["required"] = req
                self.required.append(group)  # a group is required only when something in it is
            self.properties[group] = group_schema
        parameters: Schema = {"type": "object", "properties": self.properties}
        if self.required:
            parameters["required"] = self.required
        return parameters


def _body_fields(spec: Spec, schema: Schema, prefix: tuple[str, ...], required: set[str],
                 depth: int) -> list[tuple[tuple[str, ...], Schema, bool]]:
    """(path, schema, required) of the body's fields, objects opened up to `depth` levels below the top."""
    fields = []
    for prop, sub in schema.get("properties", {}).items():
        if isinstance(sub, dict) and sub.get("readOnly") is True:
            continue  # set by the server: never asked of the model
        path = (*prefix, prop)
        inner = _resolved(spec, sub) if isinstance(sub, dict) else {}
        if depth > 0 and _opens(inner, prop in required) and inner["properties"]:
            # a field inside is required only when its parent object is
            inner_required = set(inner.get("required") or []) if prop in required else set()
            fields += _body_fields(spec, inner, path, inner_required, depth - 1)
        else:
            fields.append((path, copy.deepcopy(sub) if isinstance(sub, dict) else {}, prop in required))
    return fields


def _opens(schema: Any, required: bool) -> bool:
    """Whether an object (the body, or an object inside it) can become flat arguments, one per property.
    Flat arguments say only "this field is required" or not, so an optional object whose own required
    fields are asked of the caller stays one argument: its schema keeps "once given, give these too"."""
    if not (isinstance(schema, dict) and isinstance(schema.get("properties"), dict)
            and not any(k in schema for k in ("oneOf", "anyOf", "allOf"))):
        return False
    return required or not _asked_required(schema)


def _asked_required(schema: Schema) -> list[str]:
    """The required properties the caller supplies (readOnly ones are the server's)."""
    props = schema.get("properties") or {}
    return [name for name in schema.get("required") or []
            if not (isinstance(props.get(name), dict) and props[name].get("readOnly") is True)]


def _parameter_schema(spec: Spec, param) -> Schema:
    schema = param.schema
    if schema is None and param.content:
        media = next(iter(param.content.values()))
        schema = media.schema
    schema = copy.deepcopy(schema) if isinstance(schema, dict) else {}
    if _must_not_be_empty(spec, param):
        schema["minLength"] = 1
    elif _empty_in_enum(spec, param):  # beside a $ref too: both hold, so "" is out either way
        schema["enum"] = [value for value in _resolved(spec, schema)["enum"] if value != ""]
    if _required_list(spec, param):
        schema["minItems"] = 1  # an empty list sends nothing (RFC 6570): a required one would be missing
    if param.description:
        schema["description"] = param.description
    if param.deprecated:
        schema["deprecated"] = True
    return schema


def _required_list(spec: Spec, param) -> bool:
    """A required array parameter: on the wire an empty list is no parameter at all."""
    schema = _resolved(spec, param.schema)
    if not param.required or param.content or not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    is_array = kind == "array" or (isinstance(kind, list) and "array" in kind)
    return is_array and not (isinstance(schema.get("minItems"), int) and schema["minItems"] >= 1)


def _non_empty_string(spec: Spec, param) -> Schema | None:
    """The (resolved) string schema of a parameter that takes no empty value: a query parameter without
    `allowEmptyValue: true` (false by default), or a path parameter (`/pets/{id}` with "" is `/pets/`,
    another route); None for any other."""
    if param.content or not (param.location == "path" or (param.location == "query" and not param.allow_empty_value)):
        return None
    schema = _resolved(spec, param.schema)
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    return schema if kind == "string" or (isinstance(kind, list) and "string" in kind) else None


def _must_not_be_empty(spec: Spec, param) -> bool:
    """A parameter that takes no empty value says so with `minLength: 1`, unless a longer minLength, an
    enum, a const or a pattern already settles it."""
    schema = _non_empty_string(spec, param)
    if schema is None:
        return False
    settled = any(k in schema for k in ("enum", "const", "pattern"))
    return not settled and not (isinstance(schema.get("minLength"), int) and schema["minLength"] >= 1)


def _empty_in_enum(spec: Spec, param) -> bool:
    """A parameter that takes no empty value whose enum lists "" (GitHub's `per`: "", day, week): the spec
    contradicts itself, and the tool offers the other values."""
    schema = _non_empty_string(spec, param)
    return schema is not None and isinstance(schema.get("enum"), list) and "" in schema["enum"]


def _nested_shape(spec: Spec, param) -> str | None:
    """What a styled (not `content`) parameter holds that no style can write, e.g. "an array of objects"."""
    if param.content or param.schema is None:
        return None  # `content` parameters are JSON-encoded whole
    schema = _resolved(spec, param.schema)
    if not isinstance(schema, dict):
        return None
    if _is_container(schema, "array"):
        items = _resolved(spec, schema.get("items"))
        for kind in ("object", "array"):
            if isinstance(items, dict) and _is_container(items, kind):
                return f"an array of {kind}s"
    elif _is_container(schema, "object") and param.style != "deepObject":  # deepObject nests brackets
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        for name, sub in properties.items():
            sub = _resolved(spec, sub)
            if isinstance(sub, dict) and (_is_container(sub, "object") or _is_container(sub, "array")):
                return f"an object whose {name!r} is nested"
    return None


def _is_container(schema: dict, kind: str) -> bool:
    declared = schema.get("type")
    types = set(declared) if isinstance(declared, list) else {declared}
    if kind in types:
        return True
    return declared is None and ("properties" in schema if kind == "object" else "items" in schema)


def _resolved(spec: Spec, schema: Any) -> Any:
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 32:
        target = spec.resolve_schema(schema["$ref"])
        if target is None:
            return schema
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
        seen += 1
    return schema


def _unique(name: str, location: str, taken: set[str], nested: bool) -> str:
    """Flat arguments share one namespace: a clash (a query `id` and a body `id`) is renamed by location."""
    if nested:
        return name
    candidate = name if name not in taken else f"{location.replace('-', '_')}_{name}"
    n = 2
    while candidate in taken:
        candidate, n = f"{location}_{name}_{n}", n + 1
    taken.add(candidate)
    return candidate
