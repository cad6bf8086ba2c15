"""Operations → tools for one vendor: scope, names, arguments, description, the vendor's schema passes,
its native shape, and token estimates. One operation failing never sinks the set: it is rejected with
its reason."""

from __future__ import annotations

import re
from functools import partial
from typing import NamedTuple

from workbench.naming import operation_name
from workbench.spec import Operation, Spec
from workbench.tools import tokens
from workbench.tools.arguments import build_arguments, pick_media_type
from workbench.tools.describe import describe
from workbench.tools.human import HumanPredicate, default_human
from workbench.tools.model import ArgumentShape, Rejected, SetWarning, Tool, ToolSet
from workbench.tools.names import assign_names
from workbench.tools.passes import PassContext, def_name
from workbench.tools.scope import Scope, select
from workbench.tools.vendors import VENDORS
from workbench.tools.vendors.base import Vendor


class ConvertOptions(NamedTuple):
    vendor: str = "openai"
    strict: bool = False
    scope: Scope = Scope()
    nested: bool = False  # arguments grouped as {path, query, header, cookie, body} instead of flat
    flatten_depth: int = 0  # lift nested body objects into flat arguments this many levels down
    split_unions: bool = False  # a body that is a oneOf/anyOf becomes one tool per variant
    human: HumanPredicate = default_human  # which arguments a person supplies (never_human: none)
    json_schema_form: bool = False  # the vendor's plain-JSON-Schema flavour (Gemini: `parametersJsonSchema`)


def vendor_for(options: ConvertOptions) -> Vendor:
    if options.vendor not in VENDORS:
        raise ValueError(f"unknown vendor {options.vendor!r} (known: {', '.join(VENDORS)})")
    vendor = VENDORS[options.vendor]
    return vendor.json_schema_form if options.json_schema_form and vendor.json_schema_form else vendor


def spec_sha256(spec: Spec) -> str:
    import hashlib  # OpenSSL's start-up only for a tool set, not for every command that imports the scope

    digest = hashlib.sha256()
    for name in sorted(spec.documents):
        digest.update(name.encode() + b"\0" + spec.documents[name].text.encode() + b"\0")
    return digest.hexdigest()


def convert(spec: Spec, options: ConvertOptions | None = None) -> ToolSet:
    options = options or ConvertOptions()
    vendor = vendor_for(options)
    strict = options.strict and vendor.supports_strict
    operations, rejected = select(spec, options.scope)
    units = [(op, variant) for op in operations for variant in _variants(spec, op, options.split_unions)]
    names, name_notes = assign_names([_variant_operation(op, variant) for op, variant in units],
                                     vendor.name_pattern, vendor.max_name, vendor.name_chars)
    tools: list[Tool] = []
    shared: dict = {}  # components shaped once for the whole set (see PassContext.shared)
    for index, ((op, variant), name) in enumerate(zip(units, names, strict=True)):
        try:
            tool = _convert_one(spec, op, name, vendor, strict, options, variant, shared)
        except Exception as exc:
            rejected.append(Rejected(op.method, op.path, f"conversion failed: {type(exc).__name__}: {exc}"))
            continue
        if index in name_notes:
            tool.warnings.insert(0, name_notes[index])
        tools.append(tool)
    native = [vendor.wrap(tool, strict) for tool in tools]
    warnings = [SetWarning(tool.name, message) for tool in tools for message in tool.warnings]
    warnings += _set_warnings(tools, vendor, options, strict)
    names = [t.name for t in tools]
    toolset = ToolSet(vendor.name, spec_sha256(spec), tools, native, rejected, warnings,
                      partial(tokens.estimate, native, names, vendor.overhead_tokens))
    # counted when first asked for, over the texts the JSON output prints too (each tool serialised once)
    toolset.estimate = partial(tokens.estimate, native, names, vendor.overhead_tokens, toolset.native_json)
    return toolset


def _variants(spec: Spec, op: Operation, split: bool) -> list[tuple[str, dict] | None]:
    """[None] (the operation as it is), or one (label, schema) per member of a body union."""
    if not split or op.request_body is None or not op.request_body.content:
        return [None]
    media = pick_media_type(op.request_body.content)
    schema = op.request_body.content[media].schema if media else None
    top = spec.resolve_schema(schema["$ref"]) if isinstance(schema, dict) and "$ref" in schema else schema
    members = (top or {}).get("oneOf") or (top or {}).get("anyOf") if isinstance(top, dict) else None
    if not isinstance(members, list) or len(members) < 2:
        return [None]
    labels = []
    for i, member in enumerate(members):
        ref = member.get("$ref", "") if isinstance(member, dict) else ""
        title = member.get("title") if isinstance(member, dict) else None
        label = def_name(ref) if ref else (title or f"variant{i + 1}")
        labels.append(re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_") or f"variant{i + 1}")
    return [(label, member) for label, member in zip(labels, members, strict=True)]


def _variant_operation(op: Operation, variant: tuple[str, dict] | None) -> Operation:
    """The operation as naming sees it: a variant's tool is `<operationId>_<Variant>`."""
    if variant is None:
        return op
    base = op.operation_id or operation_name(op)
    return op._replace(operation_id=f"{base}_{variant[0]}")


def _convert_one(spec: Spec, op: Operation, name: str, vendor: Vendor, strict: bool,
                 options: ConvertOptions, variant: tuple[str, dict] | None, shared: dict) -> Tool:
    shape = ArgumentShape(options.nested, options.flatten_depth, variant[1] if variant else None)
    parameters, bindings, media_type, warnings = build_arguments(spec, op, shape)
    parameters, bindings = _split_human(spec, parameters, bindings, options.human)
    context = PassContext(spec, shared=shared)
    schema = vendor.build(parameters, context, strict)
    description, description_warnings = describe(op)
    if variant is not None:
        description = f"{description}\n\nThis tool sends the {variant[0]} variant of the request body."
    tool = Tool(name, description, schema, op, bindings, media_type,
                [*warnings, *description_warnings, *context.warnings], shape=shape)
    if vendor.finish is not None:
        vendor.finish(tool, spec, shared)
    return tool


def _split_human(spec: Spec, parameters: dict, bindings: list, is_human: HumanPredicate) -> tuple[dict, list]:
    """Take the human part out of what the model sees; the bindings keep it (marked) for the merge step."""
    props = parameters.get("properties", {})
    human = set()
    for binding in bindings:
        if "." in binding.argument:
            continue  # nested style: groups are judged as a whole by the model
        schema = props.get(binding.argument)
        if isinstance(schema, dict) and "$ref" in schema:
            schema = {**(spec.resolve_schema(schema["$ref"]) or {}), **schema}
        if is_human(binding.name, schema):
            human.add(binding.argument)
    if not human:
        return parameters, bindings
    model_part = {**parameters, "properties": {k: v for k, v in props.items() if k not in human}}
    if "required" in parameters:
        model_part["required"] = [r for r in parameters["required"] if r not in human]
        if not model_part["required"]:
            del model_part["required"]
    return model_part, [b._replace(human=b.argument in human) for b in bindings]


def _set_warnings(tools: list[Tool], vendor: Vendor, options: ConvertOptions, strict: bool) -> list[SetWarning]:
    messages = []
    if len(tools) > options.scope.budget:
        messages.append(f"{len(tools)} tools exceed the budget of {options.scope.budget}: "
                        "scope by tag or allowlist (selection accuracy falls with many tools)")
    if vendor.max_tools and len(tools) > vendor.max_tools:
        messages.append(f"{vendor.name} accepts at most {vendor.max_tools} tools per request")
    if vendor.set_checks is not None:
        messages += vendor.set_checks(tools, strict)
    return [SetWarning("", message) for message in messages]
