"""Naming: an operation's id becomes the tool's name, the first thing a model reads."""

from __future__ import annotations

from collections import defaultdict

from workbench.lint.finding import Fix
from workbench.lint.registry import Report, rule
from workbench.naming import derive_operation_id, is_reserved_word, is_valid_tool_name, sanitize_tool_name
from workbench.spec.pointer import join


@rule("operation-id-missing", "error", "naming", "every operation needs an operationId")
def operation_id_missing(spec, context):
    taken = {op.operation_id for op in spec.operations if op.operation_id}
    for op in spec.operations:
        if op.operation_id:
            continue
        proposal = base = derive_operation_id(op.method, op.path)
        n = 2
        while proposal in taken:
            proposal, n = f"{base}{n}", n + 1
        taken.add(proposal)
        yield Report(f"{op.label()} has no operationId; the tool name would be generated and unstable "
                     f"(suggested: {proposal})", op.origin.document, op.origin.pointer,
                     Fix(join(op.origin.pointer, "operationId"), proposal, f"set operationId to {proposal}"))


@rule("operation-id-duplicate", "error", "naming", "operationIds are unique")
def operation_id_duplicate(spec, context):
    by_id = defaultdict(list)
    for op in spec.operations:
        if op.operation_id:
            by_id[op.operation_id].append(op)
    for op_id, ops in by_id.items():
        for op in ops[1:]:
            yield Report(f"operationId {op_id!r} is also used by {ops[0].label()}; one tool would shadow the "
                         "other", op.origin.document, join(op.origin.pointer, "operationId"))


@rule("operation-id-tool-name-invalid", "error", "naming",
      "operationId must match ^[a-zA-Z0-9_-]{1,64}$ and not start with a digit")
def operation_id_tool_name_invalid(spec, context):
    for op in spec.operations:
        op_id = op.operation_id
        if op_id and not is_valid_tool_name(op_id):
            proposal = sanitize_tool_name(op_id)
            why = "is longer than 64 characters" if len(op_id) > 64 else (
                "starts with a digit" if op_id[0].isdigit() else "has characters other than letters, digits, _ and -")
            yield Report(f"operationId {op_id!r} {why}: OpenAI, Anthropic and Gemini reject the whole tool list "
                         f"(suggested: {proposal})", op.origin.document, join(op.origin.pointer, "operationId"),
                         Fix(join(op.origin.pointer, "operationId"), proposal, f"rename to {proposal}"))


@rule("operation-id-reserved-word", "info", "naming", "operationId is a Python or JavaScript keyword")
def operation_id_reserved_word(spec, context):
    for op in spec.operations:
        if op.operation_id and is_reserved_word(op.operation_id):
            yield Report(f"operationId {op.operation_id!r} is a reserved word in Python or JavaScript; generated "
                         "wrappers break", op.origin.document, join(op.origin.pointer, "operationId"))
