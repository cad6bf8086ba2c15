"""Responses: what the model learns after a call, and how it repairs a bad one."""

from __future__ import annotations

from workbench.lint.registry import Report, rule
from workbench.spec.pointer import join


def _where(op):
    pointer = join(op.origin.pointer, "responses")
    return pointer if op.origin.document.has(pointer) else op.origin.pointer


@rule("success-response-missing", "warn", "responses", "a 2xx or 3xx response is defined")
def success_response_missing(spec, context):
    for op in spec.operations:
        if not any(r.status[:1] in "23" for r in op.responses):
            yield Report(f"{op.label()} defines no 2xx/3xx response: success is undefined", op.origin.document,
                         _where(op))


@rule("error-responses-missing", "warn", "responses", "a 4xx or default response is defined")
def error_responses_missing(spec, context):
    for op in spec.operations:
        if not any(r.status[:1] == "4" or r.status == "default" for r in op.responses):
            yield Report(f"{op.label()} defines no 4xx or default response: the agent cannot repair a bad call",
                         op.origin.document, _where(op))


@rule("default-only-responses", "info", "responses", "responses are not only `default`")
def default_only_responses(spec, context):
    for op in spec.operations:
        if op.responses and all(r.status == "default" for r in op.responses):
            yield Report(f"{op.label()} has only a `default` response", op.origin.document, _where(op))
