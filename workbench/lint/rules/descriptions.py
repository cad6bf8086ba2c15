"""Descriptions: the main signal a model uses to pick a tool and fill its arguments."""

from __future__ import annotations

import re
from functools import lru_cache

from workbench import lazy_pattern
from workbench.lint.registry import Report, rule
from workbench.naming import first_words, split_words
from workbench.spec.pointer import join

PLACEHOLDER_PREFIX = "TODO"  # a placeholder someone wrote (or an older version's skeleton fix): not a description


@lru_cache(maxsize=8192)  # a large spec repeats its texts: Kubernetes' 8,800 parameters share a few hundred
def _text(value: str | None) -> str:
    """The text as a reader gets it; a placeholder (the skeleton quick fixes write) counts as no text."""
    text = " ".join((value or "").split())
    return "" if text.startswith(PLACEHOLDER_PREFIX) else text


@rule("operation-description-missing", "error", "descriptions", "an operation has a summary or description",
      fix="Write a `summary` (a short verb phrase: \"List open issues\") and a `description` saying when to "
          "call the operation and what it returns or changes.")
def operation_description_missing(spec, context):
    for op in spec.operations:
        if not _text(op.summary) and not _text(op.description):
            # No fix: only the author knows what it does (a placeholder would read as a description).
            yield Report(f"{op.label()} has no summary and no description: write what it does, when to call it "
                         "and what it returns, or the model cannot tell when to use it",
                         op.origin.document, op.origin.pointer)


@rule("operation-description-thin", "warn", "descriptions", "descriptions shorter than the configured floor",
      fix="Lengthen the `description` past the `description-min-chars` threshold: say what the operation does, "
          "when to use it, and what it returns.")
def operation_description_thin(spec, context):
    floor = int(context.config.threshold("description-min-chars"))
    for op in spec.operations:
        text = _text(op.description) or _text(op.summary)
        if text and len(text) < floor:
            field = "description" if _text(op.description) else "summary"
            yield Report(f"{op.label()} is described in {len(text)} characters ({text!r}); write at least {floor}: "
                         "what it does, when to use it, what it returns", op.origin.document,
                         join(op.origin.pointer, field))


@rule("summary-equals-description", "info", "descriptions", "summary and description are the same text",
      fix="Keep the short phrase in `summary` and give `description` what the summary cannot: when to use it, "
          "what it returns, its side effects.")
def summary_equals_description(spec, context):
    for op in spec.operations:
        if _text(op.summary) and _text(op.summary).rstrip(".").lower() == _text(op.description).rstrip(".").lower():
            yield Report(f"{op.label()}: the description repeats the summary; say more or drop one",
                         op.origin.document, join(op.origin.pointer, "description"))


def parameter_text(spec, param) -> str:
    """The description a reader of the parameter gets: its own, else its schema's (the tool export passes a
    schema-level description to the model just the same)."""
    text = _text(param.description)
    schema = param.schema
    if not text and isinstance(schema, dict):
        if isinstance(schema.get("$ref"), str):
            schema = spec.resolve_schema(schema["$ref"]) or schema
        text = _text(schema.get("description")) if isinstance(schema.get("description"), str) else ""
        items = schema.get("items")
        if not text and isinstance(items, dict) and isinstance(items.get("description"), str):
            text = _text(items["description"])
    return text


def singular(word: str) -> str:
    """`files` → file, `policies` → policy, `addresses` → address (lower-case words)."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("ses", "s"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + replacement
    return word


_IDENTIFIER_WORDS = frozenset(("id", "ids", "name", "slug", "key", "number", "uuid", "sid", "code"))


def explained_by_path(op, name: str) -> bool:
    """`/labels/{name}`, `/files/{file_id}`, `/organizations/{organization_id}`: a path parameter that is the id
    or name of the item of the collection just before it says what it is by where it stands."""
    segments = [s for s in op.path.split("/") if s]
    template = "{" + name + "}"
    if template not in segments:
        return False
    at = segments.index(template)
    if at == 0 or segments[at - 1].startswith("{"):
        return False
    collection = {singular(w.lower()) for w in split_words(segments[at - 1])}
    rest = [singular(w.lower()) for w in split_words(name) if w.lower() not in _IDENTIFIER_WORDS]
    named = [w for w in split_words(name) if w.lower() in _IDENTIFIER_WORDS]
    return bool(named or rest) and all(w in collection for w in rest)


@rule("parameter-description-missing", "warn", "descriptions", "path/query/header/cookie parameters are described",
      fix="Give the parameter a `description` (on the parameter or its schema) saying what value it takes and "
          "where that value comes from.")
def parameter_description_missing(spec, context):
    # A parameter shared by many operations (a `$ref`'d or path-level one: one object) is read once: described,
    # or reported once (its report is the same from each; EC2 shares its few thousand among 10,692 uses).
    described: set[int] = set()
    reported: set[int] = set()
    for op in spec.operations:
        for param in op.parameters:
            if id(param) in described or id(param) in reported:
                continue
            if parameter_text(spec, param):
                described.add(id(param))
                continue
            if param.location == "path" and explained_by_path(op, param.name):  # (this operation's path)
                continue
            reported.add(id(param))
            yield Report(f"{param.location} parameter {param.name!r} has no description: say what value it takes "
                         "and where to get it", param.origin.document, param.origin.pointer)


# Words that add nothing beyond the method, the path and the id.
_FILLER = frozenset((
    "a", "an", "the", "by", "for", "of", "to", "in", "on", "with", "from", "and", "or", "its", "it", "this", "that",
    "given", "specific", "specified", "single", "one", "all", "id", "ids", "identifier", "details", "detail", "info",
    "information", "data", "object", "objects", "resource", "resources", "record", "records", "item", "items",
    "new", "existing", "endpoint", "operation", "api", "request", "method", "call", "using", "via", "based",
    "get", "gets", "getting", "retrieve", "retrieves", "fetch", "fetches", "return", "returns", "read", "reads",
    "list", "lists", "listing", "show", "shows", "create", "creates", "add", "adds", "update", "updates",
    "modify", "modifies", "edit", "edits", "replace", "replaces", "delete", "deletes", "remove", "removes",
    "put", "post", "patch", "head", "options", "trace", "s"))


def _vocabulary(op) -> set[str]:
    words: set[str] = set()
    for text in (op.path, op.operation_id or "", op.method):
        for word in split_words(text):
            low = word.lower()
            words.update((low, low.rstrip("s"), low + "s", low + "es"))
    return words


def restates_signature(op, text: str) -> bool:
    words = first_words(text, 13)  # one more than a restatement has: a long description is not split whole
    if not words or len(words) > 12:
        return False
    tokens = [t.lower() for t in words]
    vocabulary = _vocabulary(op)
    return all(t in vocabulary or t in _FILLER for t in tokens)


@rule("operation-description-restates-signature", "warn", "descriptions",
      "the text only restates the method, path or operationId",
      fix="Replace the text that repeats the method, path or operationId with what the operation does, when to "
          "use it and what it returns.")
def operation_description_restates_signature(spec, context):
    floor = int(context.config.threshold("description-min-chars"))
    for op in spec.operations:
        field = "description" if _text(op.description) else "summary"
        text = _text(op.description) or _text(op.summary)
        if len(text) >= floor and restates_signature(op, text):  # under the floor it is already "thin"
            yield Report(f"{op.label()}: {text!r} only restates the method and path; say what it does for the "
                         "caller, when to use it and what it returns", op.origin.document,
                         join(op.origin.pointer, field))


# A hint of when to call it, what comes back, or what it changes.
_WHEN_TO_USE = lazy_pattern(
    r"\b(use (this|it|when|to|for|if)|when(ever)? you|if you|in order to|instead|rather than|returns?|returning|"
    r"responds?|result(s|ing)?|side[- ]effects?|useful|helps?|lets? you|allows? you|so that|before|after|"
    r"only if|requires?|must|needed|call (this|it)|you can|this will|will (return|create|delete|update|send)|"
    r"yields?|gives?|provides?|produces?|outputs?)\b", re.I)


@rule("operation-description-no-when-to-use", "hint", "descriptions",
      "no hint of when to use it, what it returns or what it changes",
      fix="Add a sentence on when to call it (\"Use this to …\") and what it returns or changes.")
def operation_description_no_when_to_use(spec, context):
    floor = int(context.config.threshold("description-min-chars"))
    for op in spec.operations:
        text = f"{_text(op.summary)} {_text(op.description)}".strip()
        # Only substantive texts: a missing, thin or restating one is reported by its own rule already.
        main = _text(op.description) or _text(op.summary)
        if len(main) >= floor and not _WHEN_TO_USE.search(text) and not restates_signature(op, main):
            field = "description" if _text(op.description) else "summary"
            yield Report(f"{op.label()} says what it is but not when to call it, what it returns or what it "
                         "changes", op.origin.document, join(op.origin.pointer, field))
