"""Naming: an operation's id becomes the tool's name, the first thing a model reads."""

from __future__ import annotations

import re
from collections import defaultdict

from workbench.lint.finding import Fix
from workbench.lint.registry import Report, rule
from workbench.naming import (
    VERBS,
    is_reserved_word,
    is_valid_tool_name,
    last_segment,
    operation_name,
    sanitize_tool_name,
    split_words,
    with_suffix,
)
from workbench.spec.pointer import join


@rule("operation-id-missing", "error", "naming", "every operation needs an operationId",
      fix="Add an `operationId`: a unique verb-first name such as `listIssues` (`workbench fix` derives one "
          "from the summary or method and path).")
def operation_id_missing(spec, context):
    taken = {op.operation_id for op in spec.operations if op.operation_id}
    for op in spec.operations:
        if op.operation_id:
            continue
        proposal = base = operation_name(op)
        n = 2
        while proposal in taken:
            proposal, n = with_suffix(base, str(n)), n + 1
        taken.add(proposal)
        yield Report(f"{op.label()} has no operationId; the tool name would be generated and unstable "
                     f"(suggested: {proposal})", op.origin.document, op.origin.pointer,
                     Fix(join(op.origin.pointer, "operationId"), proposal, f"set operationId to {proposal}"))


@rule("operation-id-duplicate", "error", "naming", "operationIds are unique",
      fix="Rename one of the operations so every `operationId` is unique; update any Link Objects that name it.")
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
      "operationId must match ^[a-zA-Z0-9_-]{1,64}$ and not start with a digit",
      fix="Rename the `operationId` to letters, digits, `_` and `-` only, at most 64 characters, not starting "
          "with a digit (`repos/get` → `reposGet`); `workbench fix` offers the rename.")
def operation_id_tool_name_invalid(spec, context):
    taken = {op.operation_id for op in spec.operations if op.operation_id}
    for op in spec.operations:
        op_id = op.operation_id
        if op_id and not is_valid_tool_name(op_id):
            proposal = base = sanitize_tool_name(op_id)
            n = 2
            while proposal in taken:
                proposal, n = with_suffix(base, f"_{n}"), n + 1
            taken.add(proposal)
            why = "is longer than 64 characters" if len(op_id) > 64 else (
                "starts with a digit" if op_id[0].isdigit() else "has characters other than letters, digits, _ and -")
            yield Report(f"operationId {op_id!r} {why}: OpenAI, Anthropic and Gemini reject the whole tool list "
                         f"(suggested: {proposal})", op.origin.document, join(op.origin.pointer, "operationId"),
                         Fix(join(op.origin.pointer, "operationId"), proposal, f"rename to {proposal}"))


@rule("operation-id-reserved-word", "info", "naming", "operationId is a Python or JavaScript keyword",
      fix="Rename the `operationId` so it is not a Python or JavaScript keyword (`delete` → `deleteItem`).")
def operation_id_reserved_word(spec, context):
    for op in spec.operations:
        if op.operation_id and is_reserved_word(op.operation_id):
            yield Report(f"operationId {op.operation_id!r} is a reserved word in Python or JavaScript; generated "
                         "wrappers break", op.origin.document, join(op.origin.pointer, "operationId"))


_HASHLIKE = r"(?i)^(?:[0-9a-f]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"
_MASHUP_METHOD = r"(?i)(^|[_\-.])(get|put|post|delete|patch|head|options)$"


def _first_word(op_id: str) -> str:
    parts = split_words(last_segment(op_id))
    return parts[0].lower() if parts else ""


def _has_verb(op_id: str) -> bool:
    """A verb where conventions put one: first in the name (`getPet`), after a resource prefix
    (Azure's `StorageAccounts_Create`, `Paging_getSinglePages`), or as the namespace (`search/code`)."""
    segments = [s for s in re.split(r"[/.:]", op_id) if s]
    last = segments[-1] if segments else op_id
    words = [w.lower() for w in split_words(last)]
    candidates = words[:1]
    if "_" in last:
        candidates += [w.lower() for w in split_words(last.split("_", 1)[1])][:1]
    if len(segments) > 1:
        candidates += [w.lower() for w in split_words(segments[-2])][-1:]
    if words[:1] == ["re"]:
        candidates += words[1:2]
    if any(c in VERBS for c in candidates):
        return True
    # `Getorganizationspendlimit`: a verb of three letters or more run together with at least three more is still
    # a verb (its prefixes looked up, not each verb tried as one).
    first = words[0] if words else ""
    return any(first[:end] in VERBS for end in range(3, len(first) - 2))


@rule("operation-id-opaque", "hint", "naming", "operationIds that tell the model nothing: no verb, hashes, op1",
      fix="Rename the `operationId` to a verb and the thing it acts on (`getInvoice`, `listOrders`) instead of "
          "a hash, a number or a path mash-up.")
def operation_id_opaque(spec, context):
    for op in spec.operations:
        op_id = op.operation_id
        if not op_id:
            continue
        last = last_segment(op_id)
        if re.match(_HASHLIKE, last):
            why = "looks like a hash"
        elif re.fullmatch(r"(?i)(op|operation|fn|func|endpoint|api|method|call|action)[_\-]?\d*", last):
            why = "is a placeholder"
        elif re.search(_MASHUP_METHOD, last) and len(re.findall(r"[_\-.]", last)) >= 2:
            why = "is a path mash-up with the method at the end"
        elif not _has_verb(op_id):
            why = f"does not start with a verb ({_first_word(op_id)!r})"
        else:
            continue
        suggestion = operation_name(op)
        yield Report(f"operationId {op_id!r} {why}: the model reads the name first (suggested: {suggestion})",
                     op.origin.document, join(op.origin.pointer, "operationId"),
                     Fix(join(op.origin.pointer, "operationId"), suggestion, f"rename to {suggestion}"))


_READ_SYNONYMS = ("get", "fetch", "retrieve", "read")


def _style(op_id: str) -> str:
    last = last_segment(op_id)
    if "_" in last:
        return "snake_case"
    if "-" in last:
        return "kebab-case"
    if last[:1].isupper():
        return "PascalCase"
    return "camelCase" if any(c.isupper() for c in last) else "lowercase"


@rule("operation-id-inconsistent-style", "hint", "naming",
      "operationIds mix casing styles or synonyms for reading (get/fetch/retrieve/read)",
      fix="Pick one casing (camelCase or snake_case) and one verb per kind of action (`get` for reading one, "
          "`list` for many) across the operationIds.")
def operation_id_inconsistent_style(spec, context):
    ids = [op for op in spec.operations if op.operation_id]
    if len(ids) < 3:
        return
    # one-word ids fit every casing style; only the read verbs have competing synonyms
    yield from _minority(ids, _style, lambda s: s != "lowercase", "is {group} while most are {main}")
    yield from _minority(ids, _first_word, lambda w: w in _READ_SYNONYMS,
                         "reads with {group!r} while most use {main!r}")


def _minority(operations, classify, counts, message: str):
    """Report the operations whose class (casing style, read verb) is not the most common one."""
    groups = defaultdict(list)
    for op in operations:
        group = classify(op.operation_id)
        if counts(group):
            groups[group].append(op)
    if len(groups) < 2:
        return
    main = max(groups, key=lambda g: len(groups[g]))
    for group, ops in groups.items():
        if group != main:
            for op in ops:
                yield Report(f"operationId {op.operation_id!r} " + message.format(group=group, main=main),
                             op.origin.document, join(op.origin.pointer, "operationId"))
