"""Argument lists: accuracy falls as they grow."""

from __future__ import annotations

from workbench.lint.registry import Report, rule


def body_schema(spec, op) -> tuple[dict | None, bool]:
    """The request body's schema as the tool takes it (its first media type, a top-level `$ref` followed), and
    whether the operation has a body at all. As written where it is (`MediaType.written`: its top level is what
    normalising leaves as it was), else (a Swagger 2.0 form) the one made of the form's fields."""
    body = op.request_body
    if body is None:
        return None, False
    for media in body.content.values():
        if media.written is not None:
            schema = spec.deref(media.written[0], media.written[1], "")[0]
            return (schema if isinstance(schema, dict) else None), True
        schema = media.schema
        if isinstance(schema, dict) and "$ref" in schema:
            schema = spec.resolve_schema(schema["$ref"]) or schema
        return (schema if isinstance(schema, dict) else None), schema is not None
    return None, False


def arguments(spec, op) -> tuple[int, int]:
    """(all, required) arguments the tool would have: parameters plus top-level body properties."""
    total = len(op.parameters)
    required = sum(1 for p in op.parameters if p.required)
    schema, present = body_schema(spec, op)
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        total += len(schema["properties"])
        if op.request_body.required and isinstance(schema.get("required"), list):
            required += len(schema["required"])
    elif present:
        total += 1
        required += 1 if op.request_body.required else 0
    return total, required


@rule("too-many-parameters", "warn", "parameters", "more arguments (or required arguments) than the thresholds",
      fix="Split the operation, or group related arguments into one object property, so it stays under the "
          "`max-parameters` and `max-required-parameters` thresholds.")
def too_many_parameters(spec, context):
    most = int(context.config.threshold("max-parameters"))
    most_required = int(context.config.threshold("max-required-parameters"))
    for op in spec.operations:
        total, required = arguments(spec, op)
        if total > most or required > most_required:
            yield Report(f"{op.label()} takes {total} arguments ({required} required; thresholds {most} and "
                         f"{most_required}): accuracy falls with long argument lists — split it or group "
                         "arguments", op.origin.document, op.origin.pointer)
