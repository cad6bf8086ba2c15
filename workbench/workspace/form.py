"""The Edit form's values as edits: which `Edit`s turn an operation's (or a schema property's) current values
into the values typed, how an enum or a unit is written, and which finding's fix pre-fills which field. Plain
Python: the form widget (`workbench.gui.editing`) only shows and collects the values."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from workbench.edit import Edit
from workbench.edit.fixes import placed_edit
from workbench.lint import RULES
from workbench.spec import SourceDocument
from workbench.spec.pointer import join, lookup, split

if TYPE_CHECKING:
    from workbench.lint import Finding

FORM_FIELDS = ("summary", "operationId", "description")
PROPERTY_FIELDS = ("propertyDescription", "propertyEnum", "propertyUnit")  # of the schema property shown
# Units the form offers for a number: each is written into the description in words the unit rule reads.
PROPERTY_UNITS = ("seconds", "milliseconds", "minutes", "hours", "days", "bytes", "kilobytes", "megabytes",
                  "cents (minor units of the currency)", "units of the currency", "percent", "meters", "kilograms")

def value_at(document: SourceDocument, pointer: str) -> Any:
    return lookup(document.data, pointer, None)


def form_edits(document: SourceDocument, operation_pointer: str,
               values: dict[str, str]) -> tuple[list[Edit], list[str]]:
    """The edits that turn the operation's current values into `values` (unchanged fields give none), and the
    changes that cannot be made (clearing a field would remove a key: the engine only sets values)."""
    edits: list[Edit] = []
    refused: list[str] = []

    def set_field(pointer: str, new: Any, label: str, after: tuple[str, ...] | None = None) -> None:
        old = value_at(document, pointer)
        if isinstance(new, list):
            old = old if isinstance(old, list) else []
        elif old is None:
            old = ""
        if old == new:
            return
        if not (new.strip() if isinstance(new, str) else new):
            refused.append(f"{label}: clearing a field is not supported (the key would have to be removed)")
        else:
            edits.append(Edit(pointer, new, after=after) if after else placed_edit(pointer, new))

    for key in FORM_FIELDS if operation_pointer else ():  # "": only a schema property is shown
        if key in values:
            set_field(f"{operation_pointer}/{key}", values[key], key)
    parameter = values.get("parameter")
    if parameter:
        set_field(f"{parameter}/description", values.get("parameterDescription", ""), "parameter description",
                  after=("in", "name"))
        set_field(f"{parameter}/schema/enum",
                  parse_enum(values.get("parameterEnum", ""), value_at(document, f"{parameter}/schema")),
                  "parameter enum")
    prop = values.get("property")
    if prop:
        set_field(f"{prop}/description",
                  with_unit(values.get("propertyDescription", ""), values.get("propertyUnit", "")),
                  "property description")
        set_field(f"{prop}/enum", parse_enum(values.get("propertyEnum", ""), value_at(document, prop)),
                  "property enum")
    return edits, refused


def with_unit(description: str, unit: str) -> str:
    """`description` saying its unit: "Time to wait" + "seconds" → "Time to wait (in seconds)." (unchanged when
    no unit is chosen or the description names it already)."""
    unit = unit.strip()
    if not unit or unit.split()[0].lower() in description.lower():
        return description
    text = description.strip().rstrip(".")
    return f"{text} (in {unit})." if text else f"In {unit}."


def parse_enum(text: str, schema: Any = None) -> list[Any]:
    """The enum field: values separated by commas, typed as the schema's `type` says (numbers for an
    integer or number schema, so the enum validates against its own type)."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    kind = schema.get("type") if isinstance(schema, dict) else None
    kinds = set(kind) if isinstance(kind, list) else {kind}
    if kinds & {"integer", "number"}:
        try:
            return [int(item) if "integer" in kinds or item.lstrip("-").isdigit() else float(item) for item in items]
        except ValueError:
            return items  # not numbers after all: written as strings, and the re-check will say so
    if "boolean" in kinds and all(item.lower() in ("true", "false") for item in items):
        return [item.lower() == "true" for item in items]
    return items


# Keywords of a schema whose value is one schema, and those whose value holds schemas by name or by position.
_ONE_SCHEMA = frozenset(("items", "additionalProperties", "not", "contains", "if", "then", "else", "propertyNames",
                         "unevaluatedItems", "unevaluatedProperties", "additionalItems"))
_NAMED_SCHEMAS = frozenset(("properties", "patternProperties", "$defs", "definitions", "dependentSchemas"))
_LISTED_SCHEMAS = frozenset(("allOf", "anyOf", "oneOf", "prefixItems"))


def schema_pointer(pointer: str) -> str | None:
    """The schema node a pointer is at or inside — a component schema, a property, array `items`, an `anyOf`
    member … (`…/properties/b/description` → `…/properties/b`) — or None: not in a schema, or at a parameter's own
    `schema` (the form edits that as the parameter)."""
    tokens = split(pointer)
    at: int | None = None  # the end of the schema node reached so far
    parameter_schema: int | None = None  # the end of a parameter's own `schema`
    i = 0
    if tokens[:2] == ["components", "schemas"] and len(tokens) > 2:
        at = i = 3
    elif tokens[:1] == ["definitions"] and len(tokens) > 1:
        at = i = 2
    elif "schema" not in tokens and "properties" in tokens[1:-1]:
        at = i = tokens.index("properties", 1)  # a schema file's own map (`pet.yaml#/Pet/properties/name`)
    while i < len(tokens):
        token = tokens[i]
        if at is None:
            if token == "schema":
                at = i + 1
                parameter_schema = at if i >= 2 and tokens[i - 2] == "parameters" else None
            i += 1
        elif i + 1 < len(tokens) and (token in _NAMED_SCHEMAS or ((token in _LISTED_SCHEMAS or token == "items")
                                      and tokens[i + 1].isdigit())):
            at = i = i + 2  # a named member, or one by position (`items` as a list: a tuple, OpenAPI 3.0 / draft 4)
        elif token in _ONE_SCHEMA:
            at = i = i + 1
        else:
            break  # a keyword's value (a description, an enum, an example): the node is the schema holding it
    if at is None or at == parameter_schema:
        return None
    return join("", *tokens[:at])


def schema_members(document: SourceDocument, pointer: str) -> list[tuple[str, str, bool]]:
    """(pointer, name, described) of the schema node and of its own properties: what the form's property list
    offers, the node first (its name ""). A property that is a `$ref` counts as described (by its target)."""
    node = value_at(document, pointer)
    properties = node.get("properties") if isinstance(node, dict) else None
    text = node.get("description") if isinstance(node, dict) else None
    members = [(pointer, "", isinstance(text, str) and bool(text.strip()))]
    for name, value in properties.items() if isinstance(properties, dict) else ():
        text = value.get("description") if isinstance(value, dict) else None
        described = (isinstance(text, str) and bool(text.strip())) or (isinstance(value, dict) and "$ref" in value)
        members.append((join(pointer, "properties", str(name)), str(name), described))
    return members


def schema_heading(document_name: str, pointer: str, users: int, file_label: str = "") -> str:
    """The form's heading for a schema node no single operation owns: which schema, and how many operations an
    edit of it reaches."""
    tokens = split(pointer)
    name = tokens[2] if tokens[:2] == ["components", "schemas"] and len(tokens) > 2 else \
        tokens[1] if tokens[:1] == ["definitions"] and len(tokens) > 1 else pointer or document_name
    reach = "used by no operation" if users == 0 else "used by 1 operation" if users == 1 else \
        f"used by {users} operations"
    return f"Schema {name} ({reach})" + (f"  ({file_label})" if file_label else "")


# Rules whose fix is a description (what the form writes): the descriptions category, and the rules that ask for
# a unit, an explanation of enum values or of a paging parameter in the description.
DESCRIPTION_RULES = frozenset((*(rule.id for rule in RULES.values() if rule.category == "descriptions"),
                               "numeric-unit-missing", "enum-values-unexplained", "pagination-undocumented"))


def form_target(finding: Finding, operation: object | None) -> str | None:
    """What the form edits for a finding: "operation" (with the schema node or parameter inside it), "schema"
    (a schema node no operation owns), or None (no form target). `operation` is the operation it is inside."""
    if schema_pointer(finding.pointer) is not None:
        return "schema" if operation is None else "operation"
    return "operation" if operation is not None else None


def untargeted(findings: Iterable[Finding], operation_of: Callable[[Finding], object | None]) -> list[Finding]:
    """The description findings (`DESCRIPTION_RULES`) that have no form target: dead ends in the window."""
    return [finding for finding in findings
            if finding.rule in DESCRIPTION_RULES and form_target(finding, operation_of(finding)) is None]


def format_enum(values: Any) -> str:
    return ", ".join(str(value) for value in values) if isinstance(values, list) else ""


def inline_parameters(document: SourceDocument, operation_pointer: str) -> list[tuple[str, str]]:
    """(pointer, label) of the operation's parameters written in place (a `$ref`'d one is edited where it is)."""
    found = []
    parameters = value_at(document, f"{operation_pointer}/parameters")
    for number, parameter in enumerate(parameters if isinstance(parameters, list) else []):
        if isinstance(parameter, dict) and "$ref" not in parameter:
            found.append((f"{operation_pointer}/parameters/{number}",
                          f"{parameter.get('name', '?')} ({parameter.get('in', '?')})"))
    return found


def suggestion_for(finding: Finding, operation_pointer: str) -> tuple[str, str, str] | None:
    """The finding's fix as (field, value, title) when it sets one of the form's fields of that operation or of
    the schema property the finding is about."""
    fix = finding.fix
    if fix is None:
        return None
    prop = schema_pointer(finding.pointer)
    if prop is not None and fix.pointer == f"{prop}/enum" and isinstance(fix.value, list):
        return "propertyEnum", format_enum(fix.value), fix.title
    if prop is not None and fix.pointer == f"{prop}/description" and isinstance(fix.value, str):
        return "propertyDescription", fix.value, fix.title
    if fix.pointer.startswith(f"{operation_pointer}/parameters/") and fix.pointer.endswith("/schema/enum") \
            and isinstance(fix.value, list):
        return "parameterEnum", format_enum(fix.value), fix.title
    if not isinstance(fix.value, str):
        return None
    for key in FORM_FIELDS:
        if fix.pointer == f"{operation_pointer}/{key}":
            return key, fix.value, fix.title
    return None
