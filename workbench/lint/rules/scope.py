"""Scope: how many tools an agent is handed, and which should not be."""

from __future__ import annotations

from workbench.lint.registry import Report, rule


@rule("too-many-operations", "warn", "scope", "more operations in the tools scope than the tool budget",
      fix="Scope the tool set in `.workbench.yaml`'s `tools:` section (`tags`, `exclude-tags`, an `operations` "
          "allowlist, `read-only`) until it holds no more tools than the `tool-budget` threshold; OpenAI rejects more "
          "than 128.")
def too_many_operations(spec, context):
    budget = int(context.config.threshold("tool-budget"))
    scope = context.scope
    count = len(scope.operations) if scope is not None else len(spec.operations)
    if count <= budget:
        return
    pointer = "/paths" if spec.root.has("/paths") else ""
    if scope is None:
        said = f"{count} operations, every one a tool (no tools scope given),"
    else:
        said = f"{count} of {len(spec.operations)} operations are in the tools scope ({scope.description}), and"
    yield Report(f"{said} exceed the tool budget of {budget}: narrow the `tools:` scope of .workbench.yaml (tags, "
                 "exclude-tags, an operations allowlist, read-only) — OpenAI rejects more than 128 tools",
                 spec.root, pointer)


@rule("deprecated-operation-exposed", "info", "scope", "deprecated operations would become tools",
      fix="Leave deprecated operations out of the tool set (the default; `include-deprecated: true` in `tools:` "
          "brings them back), or remove them from the spec when they are gone.")
def deprecated_operation_exposed(spec, context):
    for op in spec.operations:
        if op.deprecated:
            yield Report(f"{op.label()} is deprecated; exclude it from tool sets", op.origin.document,
                         op.origin.pointer)
