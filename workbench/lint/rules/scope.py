"""Scope: how many tools an agent is handed, and which should not be."""

from __future__ import annotations

from workbench.lint.registry import Report, rule


@rule("too-many-operations", "warn", "scope", "more operations than the tool budget")
def too_many_operations(spec, context):
    budget = int(context.config.threshold("tool-budget"))
    count = len(spec.operations)
    if count > budget:
        pointer = "/paths" if spec.root.has("/paths") else ""
        yield Report(f"{count} operations exceed the tool budget of {budget}: scope the tool set by tag or "
                     "allowlist (OpenAI rejects more than 128 tools)", spec.root, pointer)


@rule("deprecated-operation-exposed", "info", "scope", "deprecated operations would become tools")
def deprecated_operation_exposed(spec, context):
    for op in spec.operations:
        if op.deprecated:
            yield Report(f"{op.label()} is deprecated; exclude it from tool sets", op.origin.document,
                         op.origin.pointer)
