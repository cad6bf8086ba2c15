"""Schemas an agent fills in: typed, described, consistent, and shaped so every vendor can carry them."""

from __future__ import annotations

import re
from itertools import repeat

from workbench import lazy_pattern
from workbench.lint.registry import Report, rule
from workbench.lint.schemas import report_pointer, schema_sites, schema_types, sites_with
from workbench.naming import split_words
from workbench.spec.pointer import lookup

_TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}
_TYPE_NAMES = frozenset(_TYPE_CHECKS)
_STRING = frozenset(("string",))
_TYPED_BY = ("type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not", "properties", "items",
             "additionalProperties", "patternProperties")
MAX_TOOL_DEPTH = 8
# "JSON represents any valid JSON value", "represents JSONSchemaProps or a boolean": untyped on purpose.
_ANY_VALUE = lazy_pattern(r"\bany (valid )?(JSON )?(value|type)\b|\bcan either be\b|\brepresents \S+ or (a|an)\b", re.I)


# Property names that say all a model needs (a person's name, an email, a JSON Schema keyword): asking for a
# description of them is noise.
_SELF_EXPLAINING = frozenset((
    "id", "name", "username", "firstname", "lastname", "givenname", "familyname", "fullname", "middlename",
    "displayname", "email", "password", "phone", "title", "message", "code", "description", "url", "city",
    "country", "street", "zip", "postcode", "postalcode", "state", "address", "company", "website",
    "$ref", "$schema", "definitions", "dependencies", "exclusivemaximum", "exclusiveminimum", "maximum", "minimum",
    "maxitems", "minitems", "maxlength", "minlength", "maxproperties", "minproperties", "multipleof", "pattern",
    "patternproperties", "properties", "required", "type", "uniqueitems", "additionalitems", "additionalproperties",
    "allof", "anyof", "oneof", "not", "items", "enum", "format", "default", "example", "nullable", "readonly",
    "externaldocs"))


def described(spec, site) -> bool:
    """A reader finds a description for it: its own, or one every member of its anyOf/oneOf carries (or the
    schema a member refers to), or none is needed: a single allowed value (`const`, a one-value enum), a name
    that says it all."""
    if site.description and site.description.strip():
        return True
    if site.name.replace("_", "").replace("-", "").lower() in _SELF_EXPLAINING:
        return True
    schema = site.schema
    enum = schema.get("enum")
    if "const" in schema or (isinstance(enum, list) and len(enum) == 1):
        return True
    items = schema.get("items")
    if isinstance(items, dict):
        items = spec.deref(items, site.document, site.pointer)[0]
        text = items.get("description") if isinstance(items, dict) else None
        if isinstance(text, str) and text.strip():
            return True  # an array described by its items
    for keyword in ("anyOf", "oneOf", "allOf"):
        members = schema.get(keyword)
        if not isinstance(members, list):
            continue
        texts = [text for text in (_member_text(spec, site, member) for member in members) if text is not None]
        if texts and (all(texts) if keyword != "allOf" else any(texts)):
            return True
    return False


def _member_text(spec, site, member) -> str | None:
    """A union member's description ("" if none), or its schema's; None for a `{type: null}` member: in
    `anyOf: [X, {type: null}]`, X's description is the one a reader sees."""
    text = None
    if isinstance(member, dict):
        target = spec.deref(member, site.document, site.pointer)[0]
        if isinstance(target, dict):
            if schema_types(target) == _NULL_ONLY:
                return None
            text = member.get("description") or target.get("description")
        else:
            text = member.get("description")
    return text if isinstance(text, str) and text.strip() else ""


_NULL_ONLY = frozenset(("null",))


def _is_property(site) -> bool:
    """A request-body property in its own right: array `items` and `additionalProperties` values are part of
    the property that holds them (reported there, once, if at all)."""
    return site.role == "request" and bool(site.name) and site.slot == "property"


@rule("property-description-missing", "warn", "descriptions", "request-body properties are described",
      fix="Give the request-body property a `description` (beside its `$ref` in 3.1, or on the referenced "
          "schema) saying what it takes.")
def property_description_missing(spec, context):
    properties = [s for s in schema_sites(spec) if _is_property(s)]
    if not properties:
        return
    verdicts = [described(spec, s) for s in properties]
    coverage = round(100 * sum(verdicts) / len(properties))
    # One finding per object that holds undescribed properties, naming them: one place to write them all.
    holders: dict[tuple[str, str], list] = {}
    for site, ok in zip(properties, verdicts, strict=True):
        if not ok:
            holder = site.pointer.rsplit("/properties/", 1)[0] if "/properties/" in site.pointer else site.pointer
            holders.setdefault((site.document.name, holder), []).append(site)
    for (_, holder), sites in holders.items():
        names = [s.name for s in sites]
        shown = ", ".join(repr(n) for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        what = f"request property {shown} has" if len(names) == 1 else f"{len(names)} request properties ({shown}) have"
        each = "it takes" if len(names) == 1 else "each takes"
        yield Report(f"{what} no description ({coverage}% of request-body properties are described): say what "
                     f"value {each}, or the model guesses", sites[0].document,
                     holder if len(names) > 1 else sites[0].pointer)


@rule("schema-type-missing", "warn", "parameters", "parameters and request properties have a type",
      fix="Declare a `type` (or `enum`, `const`, or a composition) on the parameter or property schema.")
def schema_type_missing(spec, context):
    for site in schema_sites(spec):
        if (site.role in ("parameter", "request") and site.name and not site.composition
                and not any(key in site.schema for key in _TYPED_BY)
                and not _ANY_VALUE.search(f"{site.description or ''} {site.schema.get('description') or ''}")):
            yield Report(f"{site.name!r} has no type, enum or composition: the model may send anything",
                         site.document, report_pointer(site))


def _sibling_properties(spec, site) -> set[str]:
    """The properties the other members of the allOf that holds `site` define (an allOf member may require
    what a sibling declares)."""
    holder_at, _, _ = site.pointer.rpartition("/")
    keyword = holder_at.rsplit("/", 1)[-1]
    members = lookup(site.document.data, holder_at, None) if keyword == "allOf" else None
    names: set[str] = set()
    for i, member in enumerate(members if isinstance(members, list) else []):
        target = spec.deref(member, site.document, f"{holder_at}/{i}")[0]
        if isinstance(target, dict):
            names.update(target.get("properties") or {})
            names.update(_sibling_nested(spec, target, site.document))
    return names


def _sibling_nested(spec, schema: dict, document) -> set[str]:
    """Properties a member brings through its own allOf."""
    names: set[str] = set()
    for member in schema.get("allOf") or []:
        target = spec.deref(member, document, "")[0]
        if isinstance(target, dict):
            names.update(target.get("properties") or {})
    return names


@rule("required-undefined", "error", "parameters", "`required` names only defined properties",
      fix="Define every property that `required` names under `properties`, or remove the name from `required`.")
def required_undefined(spec, context):
    for site in schema_sites(spec):
        schema = site.schema
        required = schema.get("required")
        properties = schema.get("properties")
        if not isinstance(required, list) or not isinstance(properties, dict):
            continue
        if any(k in schema for k in ("allOf", "anyOf", "oneOf", "patternProperties")) or isinstance(
                schema.get("additionalProperties"), dict):
            continue  # the property may be defined by a member or a pattern
        defined = set(properties) | (_sibling_properties(spec, site) if site.slot == "member" else set())
        for i, name in enumerate(required):
            if isinstance(name, str) and name not in defined:
                yield Report(f"{name!r} is required but not defined in `properties`: the model must send a field "
                             "it cannot see", site.document, f"{site.pointer}/required/{i}")


@rule("required-missing", "hint", "parameters", "request objects say which properties are required",
      fix="List the properties a call must send under the object's `required`.")
def required_missing(spec, context):
    for site in schema_sites(spec):
        schema = site.schema
        if site.role != "request" or site.composition or not isinstance(schema.get("properties"), dict):
            continue
        if _all_optional_by_nature(site.operation):
            continue  # a partial update or a search: every field optional is the right answer
        if schema["properties"] and "required" not in schema:
            yield Report("this request object has properties but no `required` list: if some must be sent, list "
                         "them under `required`; if none must, `required: []` says so", site.document, site.pointer)


_SEARCH_WORDS = frozenset(("search", "query", "filter", "find", "lookup"))


def _all_optional_by_nature(op) -> bool:
    """A PATCH (a partial update), or a search: its path ends in `search`/`query`…, or its operationId starts so."""
    last = [s for s in op.path.split("/") if s and not s.startswith("{")][-1:]
    named = {w.lower() for w in split_words(last[0])} if last else set()
    first = split_words(op.operation_id or "")[:1]
    return op.method == "patch" or bool((named | {w.lower() for w in first}) & _SEARCH_WORDS)


@rule("typed-enum", "warn", "parameters", "enum values match the declared type",
      fix="Make the enum values match the declared `type` (quote numbers on a string enum), or correct the "
          "type.")
def typed_enum(spec, context):
    for site in sites_with(spec, "enum"):
        enum = site.schema.get("enum")
        if not isinstance(enum, list):
            continue
        types = schema_types(site.schema)
        if not types or not types <= _TYPE_NAMES:
            continue
        if types == _STRING and all(map(isinstance, enum, repeat(str))):
            continue  # the common case, a string enum of strings, checked without a call per value
        for i, value in enumerate(enum):
            if value is None and (site.schema.get("nullable") is True or "null" in types):
                continue
            if not any(_TYPE_CHECKS[t](value) for t in types):
                yield Report(f"enum value {value!r} is not of type {'/'.join(sorted(types))}", site.document,
                             f"{site.pointer}/enum/{i}")


@rule("duplicated-enum", "warn", "parameters", "enum values are not repeated",
      fix="Remove the repeated values from the `enum`.")
def duplicated_enum(spec, context):
    for site in sites_with(spec, "enum"):
        enum = site.schema.get("enum")
        if not isinstance(enum, list):
            continue
        for i in repeated_values(enum):
            yield Report(f"enum value {enum[i]!r} is listed twice", site.document, f"{site.pointer}/enum/{i}")


_HASHED = (str, int, bool, type(None))  # equal only when their (type, value) keys are: no NaN among them


def repeated_values(values: list) -> list[int]:
    """The indices of the values equal to an earlier one of the same type. Values of the types in `_HASHED` are
    looked up in a set (EC2's enums of 700 instance types took half a second compared pairwise); any other value
    makes the list compared pairwise."""
    if all(type(value) in _HASHED for value in values):
        keys = [(type(value), value) for value in values]
        seen: set = set()
        repeats = []
        for i, key in enumerate(keys):
            if key in seen:
                repeats.append(i)
            seen.add(key)
        return repeats
    earlier: list = []
    repeats = []
    for i, value in enumerate(values):
        if any(value == s and type(value) is type(s) for s in earlier):
            repeats.append(i)
        earlier.append(value)
    return repeats


@rule("schema-unfriendly-for-tools", "warn", "parameters",
      "request schemas a vendor drops or mangles: deep, recursive, nested unions, free-form objects",
      fix="Flatten the request schema where you can: name free-form objects' properties, replace recursive "
          "`$ref`s and nested oneOf/anyOf with plain objects, keep nesting shallow.")
def schema_unfriendly_for_tools(spec, context):
    for site in schema_sites(spec):
        if site.role not in ("parameter", "request"):
            continue
        schema = site.schema
        if site.recursive:
            yield Report(f"{site.name or 'this schema'!r} refers back to itself: vendors without $ref support cut it "
                         "at a fixed depth", site.document, site.pointer)
        elif site.depth == MAX_TOOL_DEPTH + 1:
            yield Report(f"nested {site.depth} levels deep (over {MAX_TOOL_DEPTH}): flatten it or split the tool",
                         site.document, site.pointer)
        elif site.in_composition and any(k in schema for k in ("oneOf", "anyOf")):
            yield Report("a oneOf/anyOf inside another: most vendors cannot express nested unions", site.document,
                         site.pointer)
        elif (schema_types(schema) == {"object"} and not any(k in schema for k in (
                "properties", "patternProperties", "allOf", "anyOf", "oneOf", "$ref"))
              and schema.get("additionalProperties") in (None, True, {})):
            yield Report(f"{site.name or 'this object'!r} is a free-form object: the model gets no shape to fill "
                         "(strict modes reject it)", site.document, site.pointer)


# Fields the server fills in: an agent asked to send them invents a value.
_SERVER_ASSIGNED = frozenset(("id", "uuid", "createdat", "created", "creationdate", "creationtime", "updatedat",
                              "modifiedat", "lastmodified", "updated", "modified"))


def _creates(op) -> bool:
    """A POST to a collection (`/pets`, `/users/{id}/keys`): it makes a new item, whose id the server picks. A
    POST to an action (`/barriers/change_status`) may well take the id of what it acts on."""
    segments = [s for s in op.path.split("/") if s]
    return op.method == "post" and bool(segments) and not segments[-1].startswith("{") \
        and segments[-1].lower().endswith("s") and "_" not in segments[-1]


@rule("server-field-required", "warn", "parameters",
      "a create request requires a field the server assigns (`id`, `created_at`)",
      fix="Mark the server-assigned field `readOnly: true`, or take it out of the create request's `required`.")
def server_field_required(spec, context):
    for site in schema_sites(spec):
        if site.role != "request" or site.slot != "property" or site.depth != 1 or not site.required:
            continue
        if not _creates(site.operation) or site.schema.get("readOnly") is True:
            continue
        if site.name.replace("_", "").replace("-", "").lower() in _SERVER_ASSIGNED:
            yield Report(f"{site.operation.label()} requires {site.name!r}, which the server assigns: drop it from "
                         "this request's `required` (or mark it `readOnly: true`), or the model invents one",
                         site.document, site.pointer)
