"""Descriptions: the main signal a model uses to pick a tool and fill its arguments."""

from __future__ import annotations

from workbench.lint.finding import Fix
from workbench.lint.registry import Report, rule
from workbench.spec.pointer import join

SKELETON = "TODO: say what this does, when to use it, what it returns and any side effects."


def _text(value: str | None) -> str:
    return " ".join((value or "").split())


@rule("operation-description-missing", "error", "descriptions", "an operation has a summary or description")
def operation_description_missing(spec, context):
    for op in spec.operations:
        if not _text(op.summary) and not _text(op.description):
            yield Report(f"{op.label()} has no summary and no description: the model cannot tell when to call it",
                         op.origin.document, op.origin.pointer,
                         Fix(join(op.origin.pointer, "description"), SKELETON, "add a description skeleton"))


@rule("operation-description-thin", "warn", "descriptions", "descriptions shorter than the configured floor")
def operation_description_thin(spec, context):
    floor = int(context.config.threshold("description-min-chars"))
    for op in spec.operations:
        text = _text(op.description) or _text(op.summary)
        if text and len(text) < floor:
            field = "description" if _text(op.description) else "summary"
            yield Report(f"{op.label()} is described in {len(text)} characters ({text!r}); write at least {floor}: "
                         "what it does, when to use it, what it returns", op.origin.document,
                         join(op.origin.pointer, field))


@rule("summary-equals-description", "info", "descriptions", "summary and description are the same text")
def summary_equals_description(spec, context):
    for op in spec.operations:
        if _text(op.summary) and _text(op.summary).rstrip(".").lower() == _text(op.description).rstrip(".").lower():
            yield Report(f"{op.label()}: the description repeats the summary; say more or drop one",
                         op.origin.document, join(op.origin.pointer, "description"))


@rule("parameter-description-missing", "warn", "descriptions", "path/query/header/cookie parameters are described")
def parameter_description_missing(spec, context):
    for op in spec.operations:
        for param in op.parameters:
            if not _text(param.description):
                yield Report(f"{param.location} parameter {param.name!r} has no description: the model guesses "
                             "its value", param.origin.document, param.origin.pointer)
