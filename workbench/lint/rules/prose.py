"""Prose that says more than the schema: bounds written only in words, formats the text contradicts, one
description pasted onto different arguments. The model reads the prose; the validator reads the schema."""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache

from workbench import lazy_pattern
from workbench.lint.finding import Fix
from workbench.lint.registry import Report, rule
from workbench.lint.schemas import input_sites, report_pointer, request_schemas, schema_sites, schema_types
from workbench.spec import SpecVersion
from workbench.spec.pointer import join, lookup

# -- bounds-in-prose ---------------------------------------------------------------------------------------

_NUMBER = r"(-?\d[\d,]*(?:\.\d+)?)"
# (pattern, which bound(s), words one of which is in any text it matches, whether they are looked for in the text
# lowered): "<= 1000", "maximum of 100", "at most 50", "up to 100", "between 5 and 600". The words are looked for
# lowered for the patterns that ignore case, and only in an ASCII text: in another, those patterns always run (a
# character such as `ſ` matches `s` there).
_BOUNDS = (
    (lazy_pattern(r"(?:<=|≤|=<)\s*" + _NUMBER), "max", ("<=", "≤", "=<"), False),
    (lazy_pattern(r"(?<![<=])<\s*" + _NUMBER), "max-exclusive", ("<",), False),
    (lazy_pattern(r"(?:>=|≥|=>)\s*" + _NUMBER), "min", (">=", "≥", "=>"), False),
    (lazy_pattern(r"\b(?:maximum|max(?:imum)? value|max\.?|cannot exceed|must not exceed|no more than|not (?:be )?"
                  r"(?:more|greater) than|at most|up to|limit(?:ed)? (?:of|to))\s*(?:of|is|:)?\s*" + _NUMBER, re.I),
     "max", ("max", "exceed", "more than", "greater than", "at most", "up to", "limit"), True),
    (lazy_pattern(r"\b(?:minimum|min(?:imum)? value|min\.?|at least|no (?:less|fewer) than|not (?:be )?(?:less|"
                  r"fewer) than)\s*(?:of|is|:)?\s*" + _NUMBER, re.I), "min",
     ("min", "at least", "less than", "fewer than"), True),
    (lazy_pattern(r"\bbetween\s*" + _NUMBER + r"\s*(?:and|to|-)\s*" + _NUMBER, re.I), "range", ("between",), True),
)
# Every pattern above contains one of these (lower case): plain substring scans, far quicker than a regex over
# the long descriptions of a Kubernetes-sized spec.
_CUES = ("<", ">", "≤", "≥", "max", "minimum", "min ", "min.", "min:", "at most", "at least", "up to", "between",
         "exceed", "more than", "less than", "fewer than", "greater than", "limit")
_DIGIT = lazy_pattern(r"\d")
# The keywords that would carry the bound, by kind of value.
_KEYWORDS = {"number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
             "string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}
# What makes a stated bound redundant for each kind: a declared bound, or a fixed set of values.
_DECLARED = {kind: frozenset((*keywords, "enum", "const")) for kind, keywords in _KEYWORDS.items()}
# A bound on something else than this value ("a page of at most 100 items" on a cursor, "up to 3 retries").
_ABOUT_OTHER = lazy_pattern(r"\b(per (second|minute|hour|day)|requests?|retries|times|calls|rate limit)\b", re.I)


def prose_bounds(text: str) -> list[tuple[str, str]]:
    """The bounds a description states: [(bound kind, the words)], in order. A pattern runs only on a text that
    holds one of its words (each scans the whole text; most cued texts hold the words of one or two)."""
    found = []
    lowered = text.lower() if text.isascii() else None
    for pattern, kind, words, folded in _BOUNDS:
        within = lowered if folded else text
        if within is not None and not any(word in within for word in words):
            continue
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
      "the description states a minimum or maximum the schema does not declare",
      fix="Declare the bounds the prose states: `minimum`/`maximum` for numbers, `minLength`/`maxLength` for "
          "strings, `minItems`/`maxItems` for arrays.")
def bounds_in_prose(spec, context):
    for site in input_sites(spec):
        text = site.description
        if not text:  # (no prose, no bound in it)
            continue
        kind = _kind(site.schema)
        if kind is None or not _DECLARED[kind].isdisjoint(site.schema):
            continue
        words = _bound_words(text, kind)
        if words is None:
            continue
        keywords = " and ".join(f"`{k}`" for k in _KEYWORDS[kind][:2])
        yield Report(f"{site.name!r} states its bounds only in prose ({words!r}): declare them with {keywords} so "
                     "a call outside them is caught before it is sent", site.document, report_pointer(site))


@lru_cache(maxsize=4096)  # a large spec repeats its descriptions: each text and kind is read once
def _bound_words(text: str, kind: str) -> str | None:
    """The words of the first bound the prose states for a value of `kind`, or None."""
    lowered = text.lower()
    if not any(cue in lowered for cue in _CUES) or not _DIGIT.search(text):
        return None  # the common case, decided by quick scans before the bound patterns run
    if kind == "string" and not re.search(r"\b(characters?|chars?|length|long)\b", text, re.I):
        return None  # "up to 100" on a string is about something else unless it counts characters
    if kind == "array" and not re.search(r"\b(items?|values?|entries|elements|ids|up to|at most|maximum)\b",
                                          text, re.I):
        return None
    if _ABOUT_OTHER.search(text):
        return None
    bounds = prose_bounds(text)
    return bounds[0][1].rstrip(",.;:") if bounds else None


# -- format-contradicts-prose --------------------------------------------------------------------------------

_DATE_ONLY = lazy_pattern(r"\b(YYYY-MM-DD|yyyy-mm-dd|YYYYMMDD)\b(?![T ]?\s*(hh|HH|\d))")
_DATE_TIME = lazy_pattern(r"(YYYY-MM-DD[T ]hh|YYYY-MM-DD[T ]HH|\bdate[- ]?time\b|\btimestamp\b|RFC ?3339|"
                        r"ISO[ -]?8601 (date[- ]?time|timestamp))", re.I)
_EPOCH = lazy_pattern(r"\b(unix|epoch|seconds since)\b", re.I)


def format_contradiction(schema: dict, text: str) -> str | None:
    """What the prose says the value is, when the declared type or format says otherwise."""
    fmt = str(schema.get("format", "")).lower()
    types = schema_types(schema)
    if fmt == "date-time" and _DATE_ONLY.search(text) and not _DATE_TIME.search(text):
        return "a date (YYYY-MM-DD) but the format is `date-time`: declare `format: date`"
    if fmt == "date" and _DATE_TIME.search(text):
        return "a date-time but the format is `date`: declare `format: date-time`"
    if types & {"integer", "number"} and (_DATE_ONLY.search(text) or re.search(r"ISO[ -]?8601", text)) \
            and not _EPOCH.search(text):  # the epoch looked for only in the few texts naming a date
        return "a formatted date but the type is a number: declare `type: string` with its format"
    if types == {"string"} and fmt in ("", "int32", "int64") and re.search(
            r"^(the )?(number|count|total) of\b", text.strip(), re.I) and "enum" not in schema:
        return "a count but the type is string: declare `type: integer`"
    return None


@rule("format-contradicts-prose", "warn", "parameters", "the declared type or format contradicts the description",
      fix="Make the type or `format` say what the description says (`format: date` for YYYY-MM-DD, `type: "
          "integer` for a count), or correct the description.")
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
      "one operation's different arguments carry the same description",
      fix="Give each argument its own description saying what it takes; the same text on two arguments leaves "
          "the model unable to tell them apart.")
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


# -- conditional-requirement-in-prose ------------------------------------------------------------------------

# "required unless `email`", "either `metadata_template` or `fields` must be provided", "at least one of `a`, `b`
# is required", "Required when `factor_type` is `push`": requirements between fields that only prose states.
_UNLESS = lazy_pattern(r"\brequired unless (?:you (?:provide|specify|set|pass|use|give) )?(?P<clause>[^.;\n]{1,100})",
                     re.I)
_EITHER = lazy_pattern(r"\beither (?P<clause>[^.;\n]{1,120}?\bor\b[^.;\n]{1,80}?),?\s*(?:must|should|has to|have to|"
                     r"needs? to) be (?:specified|provided|set|given|supplied|included|present|passed)", re.I)
_EITHER_VERB = lazy_pattern(r"\b(?:must|should|need to|have to) (?:provide|specify|set|pass|include|supply) either "
                          r"(?P<clause>[^.;\n]{1,120}?\bor\b[^.;,\n]{1,60})", re.I)
_ONE_OF = lazy_pattern(r"\b(?P<how>at least|exactly|only)?\s*one of (?P<clause>[^.;\n]{1,150}?),?\s*(?:is|are|must be|"
                     r"has to be|should be|needs to be|have to be) (?:required|specified|provided|set|given|supplied|"
                     r"present|non-empty)(?P<tail>\s*:\s*[^.;\n]{1,150})?", re.I)
_WHEN = lazy_pattern(r"\brequired (?:only )?(?:if|when) (?P<clause>[^.;\n]{1,120})", re.I)
_CONDITION_CUES = ("required", "either", "one of")
_SELF = lazy_pattern(r"\bthis (?:parameter|field|property|value|argument|attribute)\b", re.I)
_TOKEN = lazy_pattern(r"`([^`\s]{1,60})`|\"([^\"\s]{1,60})\"|\b([A-Za-z_][\w.\-]*[\w])\b")
_EXPRESSED = ("anyOf", "oneOf", "if", "dependentRequired", "dependencies", "not")


@lru_cache(maxsize=1 << 14)  # each request object's field names, keyed again for every text about the object
def _key(name: str) -> str:
    return re.sub(r"[_\-.\s]", "", name).lower()


def _named(clause: str, arguments: dict[str, str], own: str | None) -> list[str]:
    """The arguments a clause names, in order: a quoted name matching one (`factor_type` names FactorType), a bare
    word equal to one, or "this parameter" for `own`."""
    found: list[str] = []
    if own and _SELF.search(clause):
        found.append(own)
    for match in _TOKEN.finditer(clause):
        quoted = match.group(1) or match.group(2)
        name = arguments.get(_key(quoted)) if quoted else (match.group(3) if match.group(3) in arguments.values()
                                                            else None)
        if name and name not in found:
            found.append(name)
    return found


def _condition_value(clause: str, name: str, schema: dict) -> tuple[str, object] | None:
    """("present", None) for "if you provide `sha`", ("value", v) for "when `factor_type` is `push`", else None."""
    at = next((m for m in _TOKEN.finditer(clause) if _key(next(g for g in m.groups() if g)) == _key(name)), None)
    after = clause[at.end():] if at else ""
    quoted = re.match(r"\s*(?:is|=|==|equals|of|is set to|is equal to|has the value)\s+(?:set to\s+)?"
                      r"(?:`([^`]+)`|\"([^\"]+)\"|'([^']+)'|([\w.\-]+))", after, re.I)
    if quoted:
        value = next(g for g in quoted.groups() if g is not None)
        bare = quoted.group(4) is not None
        if value.lower() in ("set", "provided", "specified", "present", "given", "supplied", "used", "not", "empty",
                             "null", "a", "an", "the", "any"):
            return ("present", None) if value.lower() in ("set", "provided", "specified", "present", "given",
                                                          "supplied", "used") else None
        types = schema_types(schema)
        if value.lower() in ("true", "false") and "boolean" in types:
            return "value", value.lower() == "true"
        if types & {"integer", "number"}:
            return ("value", int(value)) if value.isdigit() else None
        enum = schema.get("enum")
        if bare and not (isinstance(enum, list) and value in enum):
            return None  # "when the state is dismissed": a bare word is a value only when the enum lists it
        return "value", value
    if re.search(r"\b(?:you )?(?:provide|specify|set|pass|include|supply|send)s?\b", clause[: at.start()] if at else "",
                 re.I):
        return "present", None
    return None


def _conditions(text: str, arguments: dict[str, str], own: str | None, schemas: dict[str, dict]):
    """(kind, names, condition) for each requirement the text states between `arguments`:
    ("anyOf" | "oneOf", [names], None) or ("when", [required, condition name], ("present"|"value", value))."""
    lowered = text.lower()
    if not any(cue in lowered for cue in _CONDITION_CUES):
        return
    # Each pattern scans the whole text, unless its words are missing from it (most texts say only "required"); an
    # ASCII text is lowered as the patterns ignore case, so a text whose words are missing has no match.
    words = lowered if text.isascii() else None
    if _may_hold(words, _UNLESS_WORDS):
        for match in _scan(_UNLESS, text):
            names = _named(match.group("clause"), arguments, own)
            if own and names and own not in names:
                yield "anyOf", [own, *names[:2]], None
    yield from _alternatives(text, arguments, own, words)
    if own and _may_hold(words, _WHEN_WORDS):
        yield from _when(text, arguments, own, schemas)


# The words without which a pattern cannot match (in a lowered ASCII text).
_UNLESS_WORDS = ("required unless",)
_EITHER_WORDS = ("either",)
_ONE_OF_WORDS = ("one of",)
_WHEN_WORDS = ("required if", "required when", "required only")


@lru_cache(maxsize=1 << 12)
def _scan(pattern: re.Pattern, text: str) -> tuple[re.Match, ...]:
    """`pattern`'s matches in `text`, found once per text: a big spec repeats a description in many places (Zoom: 295
    places, 106 texts), and each place's fields are looked for in the same matches."""
    return tuple(pattern.finditer(text))


def _may_hold(words: str | None, needed: tuple[str, ...]) -> bool:
    """Whether a pattern that needs one of `needed` can match the text lowered as `words` (None: not known)."""
    return words is None or any(word in words for word in needed)


def _alternatives(text: str, arguments: dict[str, str], own: str | None, words: str | None = None):
    """"either A or B must be given" (one of them; "but not both": exactly one), "at least one of A, B is required".
    `words`: the text lowered when it is ASCII (patterns whose words it lacks are not run), else None."""
    for pattern in (_EITHER, _EITHER_VERB) if _may_hold(words, _EITHER_WORDS) else ():
        for match in _scan(pattern, text):
            names = _named(match.group("clause"), arguments, own)
            if len(names) >= 2:
                rest = text[match.end(): match.end() + 40].lower()
                yield ("oneOf" if "not both" in rest or "only one" in rest else "anyOf"), names, None
    for match in _scan(_ONE_OF, text) if _may_hold(words, _ONE_OF_WORDS) else ():
        names = _named(match.group("clause") + (match.group("tail") or ""), arguments, None)
        if len(names) >= 2:
            how = (match.group("how") or "").lower()
            yield ("oneOf" if how in ("exactly", "only") else "anyOf"), names, None


def _when(text: str, arguments: dict[str, str], own: str, schemas: dict[str, dict]):
    """"Required when `factor_type` is `push`", "Required if you provide `completed_at`"."""
    for match in _scan(_WHEN, text):
        clause = re.split(r"\bunless\b|\band must\b|\bbut\b", match.group("clause"), maxsplit=1)[0]
        names = [n for n in _named(clause, arguments, None) if n != own]
        if not names:
            continue
        condition = _condition_value(clause, names[0], schemas.get(names[0], {}))
        if condition is not None:
            yield "when", [own, names[0], *names[1:]], condition


def _yaml_value(value: object) -> str:
    return "true" if value is True else "false" if value is False else str(value)


def _what_to_write(kind: str, names: list[str], condition, version) -> str:
    if kind in ("anyOf", "oneOf"):
        return f"`{kind}: [" + ", ".join(f"{{required: [{n}]}}" for n in names) + "]`"
    required, name = names[0], names[1]
    presence, value = condition
    if version in (SpecVersion.OPENAPI_3_1, SpecVersion.OPENAPI_3_2):
        if presence == "present":
            return f"`dependentRequired: {{{name}: [{required}]}}`"
        return (f"`if: {{properties: {{{name}: {{const: {_yaml_value(value)}}}}}, required: [{name}]}}, "
                f"then: {{required: [{required}]}}`")
    if presence == "present":
        return f"`anyOf: [{{not: {{required: [{name}]}}}}, {{required: [{required}]}}]`"
    return (f"`anyOf: [{{not: {{properties: {{{name}: {{enum: [{_yaml_value(value)}]}}}}, required: [{name}]}}}}, "
            f"{{required: [{required}]}}]`")


def _expressed(document, pointer: str, schema: dict) -> bool:
    """The object (or the allOf it is a member of) already states requirements between its fields."""
    holders = [schema]
    if re.search(r"/allOf/\d+$", pointer):
        holder = lookup(document.data, pointer.rsplit("/allOf/", 1)[0], None)
        holders.append(holder if isinstance(holder, dict) else {})
    for holder in holders:
        if any(k in holder for k in _EXPRESSED):
            return True
        if any(isinstance(m, dict) and ("required" in m or any(k in m for k in _EXPRESSED))
               for m in holder.get("allOf") or () if isinstance(holder.get("allOf"), list)):
            return True
    return False


def _resolved(spec, document, node) -> dict:
    target = spec.deref(node, document, "")[0] if isinstance(node, dict) else None
    return target if isinstance(target, dict) else {}


def _description(spec, document, node) -> str | None:
    """A property's description: beside its `$ref`, else at the definition."""
    if not isinstance(node, dict):
        return None
    text = node.get("description")
    if not text and "$ref" in node:
        text = _resolved(spec, document, node).get("description")
    return text if isinstance(text, str) else None


def _body_object(spec, op) -> tuple | None:
    """The operation's first request-body object with properties, as (document, pointer, schema): its own, also
    when another operation shares the schema."""
    return next(((doc, pointer, schema) for doc, pointer, schema in request_schemas(spec, op)
                 if isinstance(schema.get("properties"), dict)), None)


@rule("conditional-requirement-in-prose", "warn", "parameters",
      "the prose says which fields are required together (one of, unless, when) but the schema does not",
      fix="Write the requirement into the object that holds the fields: `anyOf` (or `oneOf` for \"but not both\") "
          "of `{required: [...]}` members; for \"required when X is V\", `if`/`then` (OpenAPI 3.1) or an `anyOf` "
          "with `not` (3.0). Swagger 2.0 cannot express it.")
def conditional_requirement_in_prose(spec, context):
    if spec.version is SpecVersion.SWAGGER_2_0:
        return  # no anyOf, oneOf, not or if/then: the requirement cannot be written in the schema
    for text, own, document, pointer, schema in _requirement_places(spec):
        properties = schema["properties"]
        arguments = {_key(name): name for name in properties}
        schemas = {name: _resolved(spec, document, sub) for name, sub in properties.items()}
        always = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
        for kind, names, condition in _conditions(text, arguments, own, schemas):
            if (kind != "when" and always & set(names)) or (kind == "when" and names[0] in always):
                continue  # one of them is required anyway, or the field is: nothing conditional is left
            if _expressed(document, pointer, schema):
                break
            if kind != "when":
                names = sorted(dict.fromkeys(names), key=list(properties).index)
            said = (f"one of {', '.join(names)} is required" if kind == "anyOf" else
                    f"exactly one of {', '.join(names)} is required" if kind == "oneOf" else
                    f"{names[0]} is required when {names[1]} is "
                    + ("given" if condition[0] == "present" else _yaml_value(condition[1])))
            yield Report(f"the prose says {said}, but the schema does not: write "
                         f"{_what_to_write(kind, names, condition, spec.version)} so a call without it is caught "
                         "before it is sent", document, pointer)


def _cued(text: str | None) -> bool:
    """Could the text state a requirement (the quick scan before any pattern runs)?"""
    if not text:
        return False
    lowered = text.lower()  # once, not once per cue
    return any(cue in lowered for cue in _CONDITION_CUES)


def _request_objects(spec):
    """The request-body object schemas with properties (each once, at its definition)."""
    for site in schema_sites(spec):
        if site.role == "request" and not site.composition and isinstance(site.schema.get("properties"), dict):
            yield site


def _requirement_places(spec) -> list[tuple]:
    """(text, the field it describes or None, document, object pointer, object schema) for every request object:
    its own description, each property's, and the operation's and request body's descriptions for the body."""
    places: list[tuple] = []
    for site in _request_objects(spec):
        if _cued(site.description):
            places.append((site.description, None, site.document, site.pointer, site.schema))
        for name, sub in site.schema["properties"].items():
            text = _description(spec, site.document, sub)
            if _cued(text):
                places.append((text, name, site.document, site.pointer, site.schema))
    for op in spec.operations:
        texts = [t for t in (op.description, op.request_body.description if op.request_body else None) if t]
        if texts and _cued(" ".join(texts)):
            body = _body_object(spec, op)
            if body is not None:
                places.extend((text, None, *body) for text in texts)
    return places


# -- obsolete-argument-exposed -------------------------------------------------------------------------------

# The argument itself is obsolete: a leading "Deprecated" label (`**Deprecated**`, `Deprecated:`), "this parameter is
# deprecated / no longer used / ignored", "reserved for future use", "do not use this field", "internal use only".
# Not: "replaces the deprecated X parameter", "`number` is deprecated" (a value), "ignored if Y is set" (a condition).
_SUBJECT = r"(?:this|the) (?:parameter|field|property|value|argument|attribute|option|setting|flag)"
_OBSOLETE = lazy_pattern(
    r"(?:^|(?<=[.!]\s)|(?<=\n))\W{0,3}(?:deprecated|obsolete)\b(?!\s+(?:and|or)\b)(?:\W{0,3}\s*(?::|\.|$|in favou?r of|"
    r"since|as of|please|use|-|–))"
    r"|\b" + _SUBJECT + r" (?:is|has been|was) (?:now |currently )?(?:deprecated|obsolete|unused|no longer (?:used|"
    r"supported|in use|honou?red|functional|has any effect)|(?:always )?ignored(?=\s*[.;]|\s*$)|reserved)\b"
    r"|\b" + _SUBJECT + r" (?:will be|is being) (?:removed|deprecated)\b"
    r"|\b(?:is |are )?reserved for (?:future|internal) use\b|\bfor internal use only\b|\binternal use only\b"
    r"|\bdo not use this (?:parameter|field|property|value|argument)\b"
    r"|\*\*deprecated\*\*", re.I | re.M)
_OBSOLETE_CUES = ("deprecated", "obsolete", "no longer", "ignored", "reserved", "internal use", "do not use", "unused")
_OBSOLETE_CUE = lazy_pattern("|".join(_OBSOLETE_CUES), re.I)
_CONDITIONAL = lazy_pattern(r"\b(if|when|unless|except|while|whenever|once)\b", re.I)


def _near_cues(text: str):
    """`_OBSOLETE`'s matches, searched only around its cue words (long texts hold few of them)."""
    searched = 0
    for cue in _OBSOLETE_CUE.finditer(text):
        start = max(cue.start() - 90, searched)
        for match in _OBSOLETE.finditer(text, start, min(cue.end() + 60, len(text))):
            searched = max(searched, match.end())
            yield match


@lru_cache(maxsize=2048)
def obsolete_words(text: str) -> str | None:
    """The words saying that the argument described by `text` is obsolete, or None (cached: Kubernetes repeats its
    shared parameters' long descriptions on every operation)."""
    lowered = text.lower()
    if not any(cue in lowered for cue in _OBSOLETE_CUES):
        return None
    for match in _near_cues(text):
        words = re.split(r"\s*[*.:\n–-]+\s*", match.group(0).strip(" *.:\n–-"))[0]
        if "ignored" in words.lower():
            start = max(text.rfind(". ", 0, match.start()), text.rfind("\n\n", 0, match.start())) + 1
            end = text.find(".", match.end())
            if _CONDITIONAL.search(text[start: end if end >= 0 else len(text)]):
                continue  # "ignored if the cloud provider does not support it": conditional, not obsolete
        return words
    return None


@rule("obsolete-argument-exposed", "warn", "parameters",
      "an argument whose description says it is deprecated, obsolete or reserved is not marked deprecated",
      fix="Mark the parameter or property `deprecated: true` (a request-body field the server sets: `readOnly: "
          "true`), so the tool schema flags it; if nothing should send it, remove it from the request.")
def obsolete_argument_exposed(spec, context):
    swagger = spec.version is SpecVersion.SWAGGER_2_0
    advice = ("Swagger 2.0 has no `deprecated` for it: the model is handed it as a live argument (OpenAPI 3 marks "
              "it `deprecated: true`)" if swagger else "mark it `deprecated: true` so the tool schema flags it")
    for op in spec.operations:
        for param in op.parameters:
            words = obsolete_words(param.description or "") if not param.deprecated else None
            if words:
                pointer = param.origin.pointer
                yield Report(f"{param.location} parameter {param.name!r} is described as obsolete ({words!r}) but is "
                             f"not marked deprecated: {advice}", param.origin.document, pointer,
                             None if swagger else Fix(join(pointer, "deprecated"), True, "mark it deprecated: true"))
    for site in _request_objects(spec):
        for name, node in site.schema["properties"].items():
            target = _resolved(spec, site.document, node)
            if not isinstance(node, dict) or any(n.get("deprecated") is True or n.get("readOnly") is True
                                                 for n in (node, target)):
                continue
            words = obsolete_words(_description(spec, site.document, node) or "")
            if not words:
                continue
            pointer = join(site.pointer, "properties", name)
            # beside a `$ref`, `deprecated` counts from OpenAPI 3.1 on (3.0 ignores a $ref's siblings): no fix there
            fixable = not swagger and ("$ref" not in node or spec.version.value >= "3.1")
            yield Report(f"body field {name!r} is described as obsolete ({words!r}) but is not marked "
                         f"deprecated: {advice}", site.document, pointer,
                         Fix(join(pointer, "deprecated"), True, "mark it deprecated: true") if fixable else None)
