"""Responses: what the model learns after a call, and how it repairs a bad one."""

from __future__ import annotations

import functools

from workbench.lint.registry import Report, rule
from workbench.naming import split_words
from workbench.spec.pointer import join


def _where(op):
    pointer = join(op.origin.pointer, "responses")
    return pointer if op.origin.document.has(pointer) else op.origin.pointer


@rule("success-response-missing", "warn", "responses", "a 2xx or 3xx response is defined",
      fix="Declare the success response (`200`, `201`, `204` or the right 3xx) with its description and, when "
          "it has a body, its schema.")
def success_response_missing(spec, context):
    for op in spec.operations:
        if not any(r.status[:1] in "23" for r in op.responses):
            yield Report(f"{op.label()} defines no 2xx/3xx response: success is undefined", op.origin.document,
                         _where(op))


@rule("error-responses-missing", "warn", "responses", "a 4xx or default response is defined",
      fix="Declare the 4xx responses the API returns (at least `400` and `404`, or a `default`), with an error "
          "schema.")
def error_responses_missing(spec, context):
    for op in spec.operations:
        if not any(r.status[:1] == "4" or r.status == "default" for r in op.responses):
            yield Report(f"{op.label()} defines no 4xx or default response: the agent cannot repair a bad call",
                         op.origin.document, _where(op))


@rule("default-only-responses", "info", "responses", "responses are not only `default`",
      fix="Declare the success status explicitly (`200`/`201`) and the main 4xx statuses beside `default`.")
def default_only_responses(spec, context):
    for op in spec.operations:
        if op.responses and all(r.status == "default" for r in op.responses):
            yield Report(f"{op.label()} has only a `default` response", op.origin.document, _where(op))


def _has_schema(response) -> bool:
    return any(media.has_schema for media in response.content.values())


def _item_action(op) -> bool:
    """POST /calls/{id}/hangup, /orders/{id}/cancel: a verb applied to one item (not a collection like /forks)."""
    segments = [s for s in op.path.split("/") if s]
    return (op.method == "post" and len(segments) >= 2 and segments[-2].startswith("{")
            and not segments[-1].startswith("{") and not segments[-1].endswith("s"))


@rule("success-response-schema-missing", "warn", "responses", "2xx responses (other than 204) have a schema",
      fix="Give the 2xx response a `content` entry with a schema of the returned body (or make it `204` when "
          "nothing comes back).")
def success_response_schema_missing(spec, context):
    for op in spec.operations:
        if op.method == "head":
            continue
        for response in op.responses:
            if response.status.startswith("2") and response.status not in ("204", "205") and not _has_schema(response):
                if op.method == "delete" or response.status == "202" or _item_action(op):
                    continue  # a deletion, an accepted job, an action on one item: the status is the result
                yield Report(f"{op.label()}: response {response.status} has no schema: the model cannot plan its "
                             "next call from the result", response.origin.document, response.origin.pointer)


# Not signed in, not allowed, not found, wrong method or media type, too many requests, a server fault: the
# status alone says what to do next; a body schema would add little.
_SELF_EXPLAINING_STATUS = frozenset(("401", "403", "404", "405", "406", "415", "429", "500", "502", "503", "504"))
_STRUCTURED = ("application/problem+json", "application/json", "+json", "application/xml", "+xml")


@rule("error-schema-unstructured", "info", "responses", "error responses have a schema (or problem+json)",
      fix="Give error responses a schema (a shared `Error` object, or `application/problem+json`) so the error "
          "can be read and the call repaired.")
def error_schema_unstructured(spec, context):
    for op in spec.operations:
        for response in op.responses:
            if not (response.status[:1] in "45" or response.status == "default"):
                continue
            if _has_schema(response) or any(m.endswith(_STRUCTURED) for m in response.content):
                continue
            if response.status in _SELF_EXPLAINING_STATUS:
                continue  # not signed in, not allowed, wrong method or media type: the status says what to fix
            yield Report(f"error response {response.status} has no schema: the agent cannot parse what went wrong",
                         response.origin.document, response.origin.pointer)


_PAGING = frozenset(("limit", "page", "per_page", "perpage", "page_size", "pagesize", "cursor", "offset", "after",
                     "before", "starting_after", "ending_before", "next", "page_token", "pagetoken", "max_results",
                     "maxresults", "top", "skip", "continue", "marker", "start", "count", "size", "first", "last"))


# Object envelopes whose array property is the page of results.
_PAGE_KEYS = frozenset(("data", "items", "results", "entries", "records", "values", "list", "elements", "nodes",
                        "edges", "collection", "objects", "hits", "rows"))


# Envelope properties that say "this is one page of several".
_PAGING_MARKERS = frozenset(("has_more", "hasmore", "next", "next_cursor", "nextcursor", "cursor", "next_page",
                             "nextpage", "page", "total", "total_count", "totalcount", "count", "links", "_links",
                             "pagination", "paging", "meta", "next_page_token", "nextpagetoken", "next_token",
                             "continuation", "continuation_token", "offset", "limit", "last_id", "first_id"))


@functools.lru_cache(maxsize=16384)
def _key(name: str) -> str:  # cached: property names repeat across responses (34,000 calls on Kubernetes)
    return "_".join(split_words(name)).lower()


def returns_list(spec, op) -> bool:
    """Does a 2xx response carry a list (an array, or a page envelope)? Asked by several rules, so the
    answers for the spec being linted are kept."""
    if _LIST_ANSWERS.get("spec") is not spec:
        _LIST_ANSWERS.clear()
        _ENVELOPES.clear()
        _LIST_ANSWERS["spec"] = spec
    return _kept(_LIST_ANSWERS, op, lambda: _returns_list(spec, op))


_LIST_ANSWERS: dict = {}  # id(op) -> (op, returns a list), and "spec" -> the spec they are of
_ENVELOPES: dict = {}  # id(properties) -> (properties, says it is a page)


def _kept(answers: dict, of: object, answer) -> bool:
    """`answer()` for `of`, computed once per object while the spec is linted (kept by identity: model objects
    compare by value, and an id is only unique while its object lives, hence the object kept beside it)."""
    known = answers.get(id(of))
    if known is None or known[0] is not of:
        known = answers[id(of)] = (of, answer())
    return known[1]


def _page_envelope(properties: dict) -> bool:
    """Whether an object's properties say it is one page of several (a 2xx schema is shared by many operations:
    Kubernetes' 1,123 operations answer with a few hundred)."""
    return _kept(_ENVELOPES, properties,
                 lambda: not _PAGING_MARKERS.isdisjoint({_key(name) for name in properties}))


def _returns_list(spec, op) -> bool:
    resource = op.path.rstrip("/").rsplit("/", 1)[-1].lower().replace("-", "_")
    for response in op.responses:
        if not response.status.startswith("2"):
            continue
        previous = None
        for media in response.content.values():  # each schema as written (`MediaType.written`)
            written = media.written
            if written is None or written[0] is previous:
                continue  # none, or the same again: a Swagger 2.0 response has one schema for every type produced
            previous = written[0]
            if _is_page(spec, written[0], written[1], resource):
                return True
    return False


def _array(schema) -> bool:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def _is_page(spec, schema, document, resource: str) -> bool:
    """An array, or a page envelope holding the list (under a paging key or the resource's name) as an array (a
    nullable one too)."""
    schema, document, _ = spec.deref(schema, document, "")
    if not isinstance(schema, dict):
        return False
    if _array(schema):
        return True
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not _page_envelope(properties):
        return False  # an object that merely holds an array (an order's line items) is not a page
    for name, prop in properties.items():
        if str(name).lower() not in _PAGE_KEYS and str(name).lower() != resource:
            continue
        if _array(spec.deref(prop, document, "")[0]):
            return True
    return False


@rule("pagination-undocumented", "hint", "responses",
      "list operations have documented limit/cursor/page parameters",
      fix="Declare the list operation's paging parameters (`limit`/`page_size`, `cursor`/`page`/`offset`) and "
          "describe how to get the next page.")
def pagination_undocumented(spec, context):
    for op in spec.operations:
        if op.method != "get" or op.path.rstrip("/").endswith("}") or not returns_list(spec, op):
            continue
        paging = [p for p in op.parameters if p.location == "query" and p.name.lower().replace("-", "_") in _PAGING]
        if not paging:
            yield Report(f"{op.label()} returns a list but takes no limit/cursor/page parameter: the agent pulls "
                         "everything or stops at page 1", op.origin.document, op.origin.pointer)
        else:
            for param in paging:
                if not (param.description and param.description.strip()):
                    yield Report(f"paging parameter {param.name!r} of {op.label()} is not described",
                                 param.origin.document, param.origin.pointer)
