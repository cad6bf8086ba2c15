"""Prose that says more than the schema: bounds written only in words, formats the text contradicts, one
description pasted onto different arguments. The model reads the prose; the validator reads the schema."""

from __future__ import annotations

import re
from collections import defaultdict

from workbench.lint.registry import Report, rule
from workbench.lint.schemas import input_sites, report_pointer, schema_types

# -- bounds-in-prose ---------------------------------------------------------------------------------------

_NUMBER = r"(-?\d[\d,]*(?:\.\d+)?)"
# (pattern, which bound(s)): "<= 1000", "maximum of 100", "at most 50", "up to 100", "between 5 and 600".
_BOUNDS = (
    (re.compile(r"(?:<=|≤|=<)\s*" + _NUMBER), "max"),
    (re.compile(r"(?<![<=])<\s*" + _NUMBER), "max-exclusive"),
    (re.compile(r"(?:>=|≥|=>)\s*" + _NUMBER), "min"),
    (re.compile(r"\b(?:maximum|max(?:imum)? value|max\.?|cannot exceed|must not exceed|no more than|not (?:be )?"
                r"(?:more|greater) than|at most|up to|limit(?:ed)? (?:of|to))\s*(?:of|is|:)?\s*" + _NUMBER, re.I),
     "max"),
    (re.compile(r"\b(?:minimum|min(?:imum)? value|min\.?|at least|no (?:less|fewer) than|not (?:be )?(?:less|"
                r"fewer) than)\s*(?:of|is|:)?\s*" + _NUMBER, re.I), "min"),
    (re.compile(r"\bbetween\s*" + _NUMBER + r"\s*(?:and|to|-)\s*" + _NUMBER, re.I), "range"),
)
# Every pattern above contains one of these (lower case): plain substring scans, far quicker than a regex over
# the long descriptions of a Kubernetes-sized spec.
_CUES = ("<", ">", "≤", "≥", "max", "minimum", "min ", "min.", "min:", "at most", "at least", "up to", "between",
         "exceed", "more than", "less than", "fewer than", "greater than", "limit")
_DIGIT = re.compile(r"\d")
# The keywords that would carry the bound, by kind of value.
_KEYWORDS = {"number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
             "string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}
# A bound on something else than this value ("a page of at most 100 items" on a cursor, "up to 3 retries").
_ABOUT_OTHER = re.compile(r"\b(per (second|minute|hour|day)|requests?|retries|times|calls|rate limit)\b", re.I)


def prose_bounds(text: str) -> list[tuple[str, str]]:
    """The bounds a description states: [(bound kind, the words)], in order."""
    found = []
    for pattern, kind in _BOUNDS:
        for match in pattern.finditer(text):
            found.append((kind, match.group(0).strip()))
    return found


def _kind(schema: dict) -> str | None:
    types = schema_types(schema)
    if types & {"integer", "number"}:
        return "number"
    if "array" in types:
        return "array"
    if "string" in types and not ({"integer", "number"} & types):
        return "string"
    return None


@rule("bounds-in-prose", "warn", "parameters",
      "the description states a minimum or maximum the schema does not declare")
def bounds_in_prose(spec, context):
    for site in input_sites(spec):
        kind = _kind(site.schema)
        text = site.description or ""
        if kind is None or any(k in site.schema for k in _KEYWORDS[kind]) or "enum" in site.schema \
                or "const" in site.schema:
            continue
        lowered = text.lower()
        if not any(cue in lowered for cue in _CUES) or not _DIGIT.search(text):
            continue  # the common case, decided by quick scans before the bound patterns run
        if kind == "string" and not re.search(r"\b(characters?|chars?|length|long)\b", text, re.I):
            continue  # "up to 100" on a string is about something else unless it counts characters
        if kind == "array" and not re.search(r"\b(items?|values?|entries|elements|ids|up to|at most|maximum)\b",
                                              text, re.I):
            continue
        if _ABOUT_OTHER.search(text):
            continue
        bounds = prose_bounds(text)
        if not bounds:
            continue
        words = bounds[0][1].rstrip(",.;:")
        keywords = " and ".join(f"`{k}`" for k in _KEYWORDS[kind][:2])
        yield Report(f"{site.name!r} states its bounds only in prose ({words!r}): declare them with {keywords} so "
                     "a call outside them is caught before it is sent", site.document, report_pointer(site))


# -- format-contradicts-prose --------------------------------------------------------------------------------

_DATE_ONLY = re.compile(r"\b(YYYY-MM-DD|yyyy-mm-dd|YYYYMMDD)\b(?![T ]?\s*(hh|HH|\d))")
_DATE_TIME = re.compile(r"(YYYY-MM-DD[T ]hh|YYYY-MM-DD[T ]HH|\bdate[- ]?time\b|\btimestamp\b|RFC ?3339|"
                        r"ISO[ -]?8601 (date[- ]?time|timestamp))", re.I)
_EPOCH = re.compile(r"\b(unix|epoch|seconds since)\b", re.I)


def format_contradiction(schema: dict, text: str) -> str | None:
    """What the prose says the value is, when the declared type or format says otherwise."""
    fmt = str(schema.get("format", "")).lower()
    types = schema_types(schema)
    if fmt == "date-time" and _DATE_ONLY.search(text) and not _DATE_TIME.search(text):
        return "a date (YYYY-MM-DD) but the format is `date-time`: declare `format: date`"
    if fmt == "date" and _DATE_TIME.search(text):
        return "a date-time but the format is `date`: declare `format: date-time`"
    if types & {"integer", "number"} and not _EPOCH.search(text) and (_DATE_ONLY.search(text) or re.search(
            r"ISO[ -]?8601", text)):
        return "a formatted date but the type is a number: declare `type: string` with its format"
    if types == {"string"} and fmt in ("", "int32", "int64") and re.search(
            r"^(the )?(number|count|total) of\b", text.strip(), re.I) and "enum" not in schema:
        return "a count but the type is string: declare `type: integer`"
    return None


@rule("format-contradicts-prose", "warn", "parameters", "the declared type or format contradicts the description")
def format_contradicts_prose(spec, context):
    for site in input_sites(spec):
        if not site.description:
            continue
        problem = format_contradiction(site.schema, site.description)
        if problem:
            yield Report(f"{site.name!r} is described as {problem}", site.document, report_pointer(site))


# -- description-copy-pasted ---------------------------------------------------------------------------------

_MIN_COPIED = 20  # shorter texts ("The ID.") are as likely the same by chance as pasted


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


@rule("description-copy-pasted", "warn", "descriptions",
      "one operation's different arguments carry the same description")
def description_copy_pasted(spec, context):
    by_operation: dict[int, list] = defaultdict(list)
    for site in input_sites(spec):
        if site.depth <= 1 and site.slot in ("root", "property") and site.description:
            by_operation[id(site.operation)].append(site)
    for sites in by_operation.values():
        groups: dict[str, list] = defaultdict(list)
        for site in sites:
            text = _normal(site.description)
            if len(text) >= _MIN_COPIED:
                groups[text].append(site)
        for group in groups.values():
            names = list(dict.fromkeys(s.name for s in group))
            if len(names) < 2:
                continue
            first = group[0]
            for site in group[1:]:
                if site.name == first.name:
                    continue
                yield Report(f"{site.name!r} has the same description as {first.name!r} ({first.description[:60]!r}"
                             f"{'…' if len(first.description) > 60 else ''}): say what {site.name!r} itself takes, "
                             "or the model cannot tell the two apart", site.document, report_pointer(site))
