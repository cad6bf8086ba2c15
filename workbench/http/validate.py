"""Arguments checked against the ORIGINAL operation (not the vendor's rewritten schema), obvious slips
coerced where the schema is unambiguous, and feedback a model can act on (seed 000's strategy)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from workbench.spec import Spec
from workbench.tools.arguments import build_arguments
from workbench.tools.model import Tool
from workbench.tools.passes import PassContext
from workbench.tools.vendors.jsonschema import build as lossless_schema
from workbench.wire.bodies import binary_schema, file_stand_in
from workbench.wire.validate import FORMAT_CHECKER, Violation, describe_error  # place: a pointer into the arguments

MAX_ATTEMPTS = 3


@dataclass
class Checked:
    arguments: dict[str, Any]  # after undoing vendor transformations and coercions
    violations: list[Violation]
    coercions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def original_schema(spec: Spec, tool: Tool) -> dict:
    """The argument schema as the spec states it (lossless: no strict-mode nulls, no dropped keywords).
    The argument object and its groups are closed: every argument the request can carry is listed, so a
    name the tool does not have (a typo, a flat name in a nested layout) is an error the model hears about,
    not a value that silently never reaches the wire."""
    parameters, bindings, _, _ = build_arguments(spec, tool.operation, tool.shape)
    # the full argument set: the human part is merged in before validation, so it is validated too
    schema = lossless_schema(parameters, PassContext(spec), False)
    groups = {b.argument.split(".", 1)[0] for b in bindings if "." in b.argument}
    properties = {name: {**sub, "additionalProperties": False} if name in groups else sub
                  for name, sub in schema.get("properties", {}).items()}
    return {**schema, "properties": properties, "additionalProperties": False}


@dataclass(frozen=True)
class ArgumentContract:
    """A tool's original argument schema and its compiled validator: built once per tool, used per call."""

    schema: dict
    validator: Any  # a jsonschema Draft 2020-12 validator (with format checks) over `schema`


def argument_contract(spec: Spec, tool: Tool) -> ArgumentContract:
    schema = original_schema(spec, tool)
    return ArgumentContract(schema, jsonschema.Draft202012Validator(
        schema, format_checker=FORMAT_CHECKER))


def check(spec: Spec, tool: Tool, arguments: dict[str, Any], contract: ArgumentContract | None = None) -> Checked:
    """`arguments` against the original operation; pass the tool's `contract` to skip rebuilding it."""
    contract = contract or argument_contract(spec, tool)
    schema = contract.schema
    args = _drop_strict_nulls(copy.deepcopy(arguments), schema, schema)
    coercions: list[str] = []
    args = _coerce(args, schema, "", coercions, schema)
    violations = []
    shown = _files_as_text(args, schema, schema)  # validated as text; the files themselves are sent
    for error in sorted(contract.validator.iter_errors(shown), key=lambda e: list(e.absolute_path)):
        path = "/" + "/".join(str(p) for p in error.absolute_path) if error.absolute_path else ""
        violations.append(Violation(path, describe_error(error), error.instance))
    return Checked(args, violations, coercions)


def _drop_strict_nulls(value: Any, schema: Any, root: dict) -> Any:
    """Strict mode made every optional property nullable, at every depth (objects in objects, in arrays):
    a null for a property that is optional and that the spec does not allow to be null means "not given".
    A null the spec allows (`type: [string, "null"]`, 3.0 `nullable`) is a value and stays, as does a null
    for a required property (the validator reports it when the spec does not allow it)."""
    views = schema_views(schema, root, value)
    if isinstance(value, dict):
        out = {}
        for name, item in value.items():
            subs = [view["properties"][name] for view in views if name in (view.get("properties") or {})]
            if item is None and subs and not _required(name, schema, root, value) \
                    and _refuses_null(name, schema, root, value):
                continue
            out[name] = _drop_strict_nulls(item, subs[0], root) if subs else item
        return out
    items = [view["items"] for view in views if isinstance(view.get("items"), dict)]
    if isinstance(value, list) and items:
        return [_drop_strict_nulls(item, items[0], root) for item in value]
    return value


def schema_views(schema: Any, root: dict, value: Any = None) -> list[dict]:
    """The schema and the members of its allOf/anyOf/oneOf, refs followed: every place that can declare a
    property (and whether it is required) or the items. With an object `value`, only the anyOf/oneOf members
    it can be (see `_fitting`): a user message's optional `name` is not required because a function message
    requires it."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return []
    views = [schema]
    for key in ("allOf", "anyOf", "oneOf"):
        members = schema.get(key) or ()
        for member in members if key == "allOf" else _fitting(members, value, root):
            views += schema_views(member, root, value)
    return views


def _fitting(members: Any, value: Any, root: dict) -> list:
    """The union members an object value can be: those whose `const`/`enum` properties agree with the value's
    (OpenAI's chat messages by `role`); all of them when none or every one does."""
    members = list(members or ())
    if not isinstance(value, dict):
        return members
    fitting = [m for m in members if not _conflicts(value, m, root)]
    return fitting or members


def _conflicts(value: dict, member: Any, root: dict) -> bool:
    for view in schema_views(member, root):
        for name, sub in (view.get("properties") or {}).items():
            given = value.get(name)
            sub = _resolve(sub, root)
            if given is None or not isinstance(sub, dict):
                continue
            if ("const" in sub and given != sub["const"]) or (
                    isinstance(sub.get("enum"), list) and given not in sub["enum"]):
                return True
    return False


def _required(name: str, schema: Any, root: dict, value: Any = None) -> bool:
    """Whether property `name` must be given whatever the value is: the schema or an allOf member requires it,
    or every anyOf/oneOf member the value can be does (see `_fitting`). A oneOf that only says which of two
    properties is required (`category` or `categorySlug`) does not make either one required."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return False
    if name in (schema.get("required") or ()):
        return True
    if any(_required(name, member, root, value) for member in schema.get("allOf") or ()):
        return True
    return any(members and all(_required(name, m, root, value) for m in members)
               for members in (_fitting(schema.get("anyOf"), value, root), _fitting(schema.get("oneOf"), value, root)))


def _refuses_null(name: str, schema: Any, root: dict, value: Any = None) -> bool:
    """Whether the schema as a whole refuses a null for property `name`: its own declaration does, or an allOf
    member does (every member must accept), or every anyOf/oneOf member that declares it does. OpenAI's
    chat request declares `top_logprobs` in two allOf members, one nullable and one not: null is refused."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return False
    own = (schema.get("properties") or {}).get(name)
    if own is not None and not _allows_null(own, root):
        return True
    if any(_refuses_null(name, member, root, value) for member in schema.get("allOf") or ()):
        return True
    unions = [_resolve(m, root) for m in (*_fitting(schema.get("anyOf"), value, root),
                                          *_fitting(schema.get("oneOf"), value, root))]
    declaring = [m for m in unions if isinstance(m, dict) and _declares(name, m, root)]
    return bool(declaring) and all(_refuses_null(name, member, root, value) for member in declaring)


def _declares(name: str, schema: dict, root: dict) -> bool:
    return any(name in (view.get("properties") or {}) for view in schema_views(schema, root))


def _allows_null(schema: Any, root: dict) -> bool:
    """Whether the spec's own schema accepts null (before any strict pass made it nullable)."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return schema is not False
    if "enum" in schema and None not in (schema["enum"] or ()):
        return False
    if "const" in schema:
        return schema["const"] is None
    kind = schema.get("type")
    if kind is not None and kind != "null" and not (isinstance(kind, list) and "null" in kind):
        return False
    if not all(_allows_null(member, root) for member in schema.get("allOf") or ()):
        return False
    unions = [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
    return not unions or any(_allows_null(member, root) for member in unions)


def _files_as_text(value: Any, schema: Any, root: dict) -> Any:
    """A file (bytes, or `{filename, content, content_type}` as human_values reads an `@path`) where the
    spec has a binary string, at any depth, with its stand-in text: what the tool schema asks for there is
    a string, and JSON Schema has no bytes. Elsewhere a file is the wrong value and is reported."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return value
    if binary_schema(schema):
        return file_stand_in(value)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        return {k: _files_as_text(v, props.get(k), root) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_files_as_text(v, schema["items"], root) for v in value]
    return value


def _resolve(schema: Any, root: dict) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#/$defs/"):
        schema = root.get("$defs", {}).get(schema["$ref"][len("#/$defs/"):], {})
    return schema


def _coerce(value: Any, schema: Any, path: str, notes: list[str], root: dict) -> Any:
    """"42" → 42 where the schema says integer (and only then), "true" → true, a JSON string holding the
    object or array the schema wants → that object or array. Each coercion is reported."""
    schema = _resolve(schema, root)
    if not isinstance(schema, dict):
        return value
    kind = schema.get("type")
    kinds = {kind} if isinstance(kind, str) else set(kind or [])
    if isinstance(value, str) and "string" not in kinds and kinds:
        text = value.strip()
        converted: Any = _NO
        if "integer" in kinds and _is_int(text):
            converted = int(text)
        elif "number" in kinds and _is_number(text):
            converted = float(text) if any(c in text for c in ".eE") else int(text)
        elif "boolean" in kinds and text.lower() in ("true", "false"):
            converted = text.lower() == "true"
        elif kinds & {"object", "array"} and text[:1] in "[{":
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = _NO
            if (isinstance(parsed, dict) and "object" in kinds) or (isinstance(parsed, list) and "array" in kinds):
                converted = parsed
        if converted is not _NO:
            notes.append(f"{path or '/'}: read {value!r} as {json.dumps(converted)}")
            value = converted
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _coerce(v, props.get(k, {}), f"{path}/{k}", notes, root) for k, v in value.items()}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_coerce(v, schema["items"], f"{path}/{i}", notes, root) for i, v in enumerate(value)]
    return value


_NO = object()


def _is_int(text: str) -> bool:
    return text.lstrip("+-").isdigit() and len(text) < 40


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.lower() not in ("nan", "inf", "-inf", "+inf", "infinity")


# -- feedback ---------------------------------------------------------------------------------------------

@dataclass
class Feedback:
    """What goes back to the model after a failed call: the arguments with each faulty value annotated,
    one instruction, and (from the second failure on) what was wrong before."""

    tool: str
    text: str
    violations: list[Violation]
    attempt: int


def feedback(tool_name: str, arguments: dict, violations: list[Violation], history: list[list[Violation]]) -> Feedback:
    lines = _annotated(arguments, {v.place: v for v in violations})
    text = (f"The call to `{tool_name}` was not sent: its arguments do not match the tool's schema. Each ❌ marks "
            "a value to fix (path, what was expected, what was given). Call the tool again with corrected "
            "arguments.\n\n" + "\n".join(lines))
    missing = [v for v in violations if v.place == "" or v.place not in _paths(arguments)]
    if missing:
        text += "\n" + "\n".join(f"// ❌ {v.place or '(arguments)'}: expected {v.expected}" for v in missing)
    if history:
        earlier = [f"- attempt {i + 1}: " + "; ".join(f"{v.place or '/'} expected {v.expected}" for v in past)
                   for i, past in enumerate(history)]
        text += "\n\nEarlier attempts failed too:\n" + "\n".join(earlier)
    return Feedback(tool_name, text, violations, len(history) + 1)


def unknown_tool(name: str, valid: list[str]) -> str:
    if not valid:
        return f"There is no tool named `{name}`, and this tool set has no tools."
    return f"There is no tool named `{name}`. Valid tools: {', '.join(sorted(valid))}. Call one of them."


def _paths(value: Any, prefix: str = "") -> set[str]:
    found = {prefix} if prefix else set()
    if isinstance(value, dict):
        for key, sub in value.items():
            found |= _paths(sub, f"{prefix}/{key}")
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            found |= _paths(sub, f"{prefix}/{i}")
    return found


def _annotated(value: Any, marks: dict[str, Violation], path: str = "", indent: int = 0, key: str = "") -> list[str]:
    pad = "  " * indent
    label = f"{json.dumps(key, ensure_ascii=False)}: " if key else ""
    mark = marks.get(path)
    note = (f"  // ❌ [{{path: {json.dumps(path or '/')}, expected: {json.dumps(mark.expected)}, "
            f"given: {json.dumps(mark.given, ensure_ascii=False, default=str)}}}]") if mark and path else ""
    if isinstance(value, dict) and value:
        lines = [f"{pad}{label}{{"]
        items = list(value.items())
        for i, (k, v) in enumerate(items):
            sub = _annotated(v, marks, f"{path}/{k}", indent + 1, str(k))
            if i < len(items) - 1:
                sub[-1] = _comma(sub[-1])
            lines += sub
        return [*lines, f"{pad}}}{note}"]
    if isinstance(value, list) and value:
        lines = [f"{pad}{label}["]
        for i, v in enumerate(value):
            sub = _annotated(v, marks, f"{path}/{i}", indent + 1)
            if i < len(value) - 1:
                sub[-1] = _comma(sub[-1])
            lines += sub
        return [*lines, f"{pad}]{note}"]
    return [f"{pad}{label}{json.dumps(value, ensure_ascii=False, default=str)}{note}"]


def _comma(line: str) -> str:
    if "  // ❌" in line:
        head, tail = line.split("  // ❌", 1)
        return f"{head},  // ❌{tail}"
    return line + ","
