"""Values an agent must get right: enums hidden in prose, numbers without units, strings without formats,
ids without a source. These are where generated calls validate yet mean the wrong thing."""

import re
from functools import lru_cache
from typing import NamedTuple

from workbench import lazy_pattern
from workbench.lint.finding import Fix
from workbench.lint.registry import Report, rule
from workbench.lint.rules.descriptions import singular
from workbench.lint.schemas import SchemaSite, input_sites, report_pointer, schema_sites, schema_types
from workbench.naming import split_words
from workbench.spec.pointer import join, lookup


def words(name: str) -> list[str]:
    """`unitPriceCents`, `unit_price_cents`, `unit-price-cents` → [unit, price, cents]."""
    return list(_words(name))


@lru_cache(maxsize=8192)  # the same few hundred names come back for every site and rule of a spec
def _words(name: str) -> tuple[str, ...]:
    return tuple(w.lower() for w in split_words(name))


# -- enum-in-prose --------------------------------------------------------------------------------------

# Phrases that introduce a closed list of values. Weaker ones ("set to", "must be", "the value is") read as
# often about bounds, paths or other fields, and cost more false positives than they find.
_TRIGGER = lazy_pattern(r"\b(one of|either|possible values?|allowed values?|valid values?|supported values?|"
                      r"accepted values?|available values?|values (?:are|include|can be)|"
                      r"(?:have|has|takes?|accepts?) (?:the )?values|can be|options are)\b", re.I)
_EXAMPLE_CUE = lazy_pattern(r"\b(e\.g\.|eg\.|for example|for instance|such as|like|example)\s*[:,]?\s*$", re.I)
_QUOTED = lazy_pattern(r"`([^`\s]{1,40})`|\"([^\"\s]{1,40})\"|'([^'\s]{1,40})'")
_BARE_LIST = lazy_pattern(r"(?:one of|either|possible values?|allowed values?|valid values?|supported values?|"
                        r"accepted values?|values? (?:are|is))\s*[:(]?\s*"
                        r"([A-Za-z0-9_.\-]+(?:\s*(?:,|\bor\b|\|)\s*(?:or\s+)?[A-Za-z0-9_.\-]+)+)", re.I)
_PIPES = lazy_pattern(r"(?<![\w|])([A-Za-z0-9_.\-]+(?:\s*\|\s*[A-Za-z0-9_.\-]+)+)(?![\w|])")
# Every _TRIGGER phrase contains one of these (lower case).
_SENTENCE = lazy_pattern(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.;])\s+|\n")
_TRIGGER_WORDS = ("one of", "either", "value", "can be", "options are")
_VALUE_TOKEN = lazy_pattern(r"[A-Za-z0-9][A-Za-z0-9_\-]*\Z")
_NOT_VALUES = frozenset(("and", "or", "the", "a", "an", "of", "to", "is", "be", "null", "none", "default", "etc"))


def prose_enum(description: str) -> list[str]:
    """Allowed values listed in prose ("one of `a`, `b`", "possible values: a, b", "a | b | c"), or []."""
    return prose_values(description)[0]


def prose_values(description: str) -> tuple[list[str], bool]:
    """(values, closed): the values listed in prose, and whether the list is exactly those single tokens —
    nothing left out (a quoted value with a space, a `none` or `default` the list names) — so an enum made
    of them accepts every value the prose allows."""
    values, closed = _prose_values(description)
    return list(values), closed


@lru_cache(maxsize=4096)  # a large spec repeats its descriptions (half of Kubernetes' 3,800 arguments share one)
def _prose_values(description: str) -> tuple[tuple[str, ...], bool]:
    values, closed = _read_prose_values(description)
    return tuple(values), closed


def _read_prose_values(description: str) -> tuple[list[str], bool]:
    lowered = description.lower()
    if "|" not in description and not any(word in lowered for word in _TRIGGER_WORDS):
        return [], False  # the common case, decided by substring scans (the regex is far slower on long texts)
    for sentence in _SENTENCE.split(description):
        if not any(word in sentence.lower() for word in _TRIGGER_WORDS):
            continue
        values, closed = _values_in(sentence)
        if values:
            return values, closed
    pipes = _PIPES.search(description.replace("`", "")) if "|" in description else None
    if pipes:
        values = _dedupe(re.split(r"\s*\|\s*", pipes.group(1)))
        if len(values) >= 2 and not all(v.isdigit() for v in values):
            return values, True
    return [], False


_ANY_QUOTED = lazy_pattern(r"`([^`]{1,60})`|\"([^\"]{1,60})\"|'([^']{1,60})'")


def _values_in(sentence: str) -> tuple[list[str], bool]:
    for trigger in _TRIGGER.finditer(sentence):
        word = trigger.group().lower()
        tail = sentence[trigger.start():]
        if word == "can be" and not re.match(r"\s*:?\s*(one of\s*:?\s*)?[`'\"]", tail[len(word):]):
            continue  # "can be set to empty if …", "can be used to …": not a list of values
        if word == "either" and not re.search(r"(\b(be|is|are|to|set|of)\s+|^\W*|:\s*)$", sentence[: trigger.start()]):
            continue  # "has either `marketing` or `BoxWorks` within its text": an example, not this field's values
        if _EXAMPLE_CUE.search(sentence[: trigger.start()]) or re.search(r"\b(e\.g\.|for example|such as)", tail, re.I):
            continue
        values = _dedupe([next(g for g in m.groups() if g) for m in _QUOTED.finditer(tail)])
        closed = len(values) == len(_dedupe([next(g for g in m.groups() if g) for m in _ANY_QUOTED.finditer(tail)]))
        if len(values) < 2:
            bare = _BARE_LIST.search(tail)
            listed = _dedupe(re.split(r"\s*(?:,|\bor\b|\|)\s*(?:or\s+)?", bare.group(1))) if bare else []
            values = [v.strip(".") for v in listed if v.strip(".") and v.lower().strip(".") not in _NOT_VALUES]
            closed = all(v.lower().strip(".") in ("and", "or") or v.strip(".") in values for v in listed if v)
        if any(not _VALUE_TOKEN.match(v) for v in values):
            continue  # paths (`.status`), hosts, quantities (`4Gi`…): prose about something else
        if len(values) >= 2:
            return values, closed
    return [], False


def _dedupe(values: list[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        if value and value not in out:
            out.append(value)
    return out


def _sibling_names(site: SchemaSite) -> set[str]:
    """The property names of the object that holds `site` (and the site's own name)."""
    names = {site.name} if site.name else set()
    parent_at = site.pointer.rsplit("/properties/", 1)[0] if "/properties/" in site.pointer else None
    if parent_at is not None:
        parent = lookup(site.document.data, parent_at, None)
        if isinstance(parent, dict) and isinstance(parent.get("properties"), dict):
            names.update(parent["properties"])
    return names


def _typed(values: list[str], types: frozenset[str]) -> list | None:
    if types & {"integer", "number"} and not types & {"string"}:
        try:
            return [int(v) if "integer" in types else float(v) for v in values]
        except ValueError:
            return None  # prose names words for a number: not a list of its values
    return values


# Arguments whose value is text in a language of its own (a search query, a filter, an RRULE): values named in
# their description are examples of that language, not a closed list.
_FREE_TEXT_NAMES = frozenset(("q", "query", "search", "filter", "filters", "expression", "expr", "rrule",
                              "recurrence", "rule", "text", "prompt", "template", "sql", "cql", "jql", "selector"))
# "1 to 36000", "between 5 and 600", "from 0 through 9": a range, not two allowed values.
_RANGE_TEXT = lazy_pattern(r"\b(between\s+`?-?\d[\w.]*`?\s+and\s+`?-?\d|from\s+`?-?\d[\w.]*`?\s+(to|through)\s+`?-?\d|"
                         r"`?-?\d[\w.]*`?\s*(to|through|thru|-|–|\.\.)\s*`?-?\d|range|minimum|maximum|at (most|least))",
                         re.I)
# A list said to be open ("such as", "etc.", "including"), or a value that is a list itself ("comma-separated").
_OPEN_LIST = lazy_pattern(r"\b(etc\b|and (so on|more)|among others|including|such as|e\.g\.|for example|"
                        r"or (any|another|other))|\.\.\.|…", re.I)
_COMMA_LIST = lazy_pattern(r"\b(comma[- ]?(separated|delimited|list)|separated by commas?|list of|multiple values?|"
                         r"one or more|any combination)\b", re.I)


def free_text(site: SchemaSite) -> bool:
    return bool(site.name) and bool(set(words(site.name)) & _FREE_TEXT_NAMES)


@rule("enum-in-prose", "warn", "parameters",
      "the description lists the allowed values but the schema declares no enum",
      fix="Declare the values the prose lists as an `enum` (a list parameter: `type: array` with `items: {enum: "
          "[...]}`); the quick fix is offered only for a closed list of single tokens.")
def enum_in_prose(spec, context):
    for site in input_sites(spec):
        if not site.description:  # (no prose, no values named in it)
            continue
        schema = site.schema
        types = schema_types(schema)
        if "enum" in schema or "const" in schema or types & {"boolean", "object"}:
            continue
        if free_text(site) or "format" in schema or "pattern" in schema:
            continue  # a query language, an encoded value: the prose names examples or parts of it
        if "array" in types:
            items = schema.get("items")
            if not isinstance(items, dict) or "enum" in items or "$ref" in items:
                continue
            target, enum_in, types = items, ("items", "enum"), schema_types(items)
        else:
            target, enum_in = schema, ("enum",)  # joined to the pointer only for a fix: most sites have none
        if any(k in target for k in ("$ref", "allOf", "anyOf", "oneOf")):
            continue
        values, closed = prose_values(site.description)
        if not values or _RANGE_TEXT.search(site.description) or _OPEN_LIST.search(site.description):
            continue
        if {v.lower() for v in values} & {n.lower() for n in _sibling_names(site)}:
            continue  # "one of `server_url`, `connector_id` must be provided": about fields, not values
        typed = _typed(values, types)
        if not typed:
            continue
        shown = ", ".join(str(v) for v in typed)
        if "array" not in schema_types(schema) and _COMMA_LIST.search(site.description):
            # The value is a list of these: an enum on the string would reject "a,b". No fix: the shape changes.
            yield Report(f"{site.name!r} takes a list of values named in prose ({shown}) as one string: declare "
                         "it `type: array` with `items: {enum: [...]}` (style: form, explode: false)",
                         site.document, report_pointer(site))
            continue
        # A fix only when it cannot change what the API accepts: a closed list of single tokens.
        yield Report(f"{site.name!r} lists its allowed values in prose ({shown}) but declares no enum: declare "
                     f"`enum: [{shown}]`" + (" so the model cannot invent others" if closed else
                                            ", with every value the prose allows"),
                     site.document, report_pointer(site),
                     Fix(join(site.pointer, *enum_in), typed, f"declare enum: [{shown}]") if closed else None)


# Enum values that explain themselves: words a reader knows (`open`, `closed`), protocol and algorithm names
# (`HTTP`, `sha256`), verdicts (`PASS`, `FAIL`). A code needs explaining when it is not made of such words.
_KNOWN_CODES = frozenset((
    "http", "https", "ftp", "sftp", "ssh", "tcp", "udp", "grpc", "ws", "wss", "smtp", "dns", "tls", "ssl", "json",
    "xml", "csv", "yaml", "html", "pdf", "png", "jpeg", "jpg", "gif", "svg", "mp3", "mp4", "wav", "txt", "md",
    "sha1", "sha256", "sha384", "sha512", "md5", "rsa", "ecdsa", "hmac", "aes", "get", "post", "put", "patch",
    "delete", "head", "asc", "desc", "utc", "gmt", "ipv4", "ipv6", "api", "url", "uri", "id", "ids", "sms", "mms",
    "usd", "eur", "gbp", "ok", "key1", "key2", "v1", "v2", "v3"))


def self_explaining(values: list) -> bool:
    """Every value is an English word (or words joined by _ or -), a known code, or a number."""
    for value in values:
        if value is None or isinstance(value, (bool, int, float)):
            continue
        parts = [w.lower() for w in split_words(str(value))]
        if not parts or not all(w in _KNOWN_CODES or (w.isalpha() and len(w) > 2) or w.isdigit() for w in parts):
            return False
    return True


@rule("enum-values-unexplained", "hint", "parameters", "an enum whose values are explained nowhere",
      fix="Say in the description what each enum value means.")
def enum_values_unexplained(spec, context):
    for site in input_sites(spec):
        enum = site.schema.get("enum")
        if not isinstance(enum, list) or len([v for v in enum if v is not None]) < 2:
            continue
        if (site.description and site.description.strip()) or self_explaining(enum):
            continue
        shown = ", ".join(str(v) for v in enum[:6]) + (", …" if len(enum) > 6 else "")
        yield Report(f"{site.name!r} is one of {shown}, codes whose meaning is written nowhere: say in its "
                     "description what each value does", site.document, report_pointer(site))


# -- numeric-unit-missing --------------------------------------------------------------------------------

# Quantities whose unit changes the meaning of a number that validates either way.
_QUANTITY = frozenset((
    "timeout", "duration", "interval", "ttl", "delay", "age", "period", "expiry", "expiration", "lifetime",
    "retention", "wait", "elapsed", "latency", "backoff", "cooldown", "size", "amount", "price", "cost", "fee",
    "balance", "weight", "height", "width", "depth", "distance", "radius", "speed", "budget", "salary", "tax",
    "discount", "temperature", "capacity", "quota", "bandwidth", "memory", "storage", "frequency"))
# A description that places the number on a scale of its own needs no unit ("between 0 and 2", "a multiple of
# the original speed", "relative weight in the ranking").
_DIMENSIONLESS_TEXT = lazy_pattern(r"\b(between -?\d|in the range|range of|multiple of|multiplier|factor|ratio|scale|"
                                 r"score|probability|fraction|coefficient|relative|normali[sz]ed|ranking|rank|"
                                 r"priority|affinity|sampling|percentile|weighting)\b", re.I)
# `page_size`, `batch_size`: counts, not measures.
_COUNT_QUALIFIERS = frozenset(("page", "batch", "chunk", "sample", "max", "min", "pool", "queue", "team", "group",
                               "window", "font", "step", "heap"))
_LIMIT_QUALIFIERS = frozenset(("time", "size", "memory", "storage", "bandwidth", "spending", "spend", "budget"))
_UNIT_WORDS = frozenset((
    "ms", "msec", "msecs", "millis", "millisecond", "milliseconds", "us", "micros", "microseconds", "ns",
    "nanoseconds", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "h", "hr", "hrs",
    "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years", "b", "byte", "bytes", "kb",
    "mb", "gb", "tb", "kib", "mib", "gib", "tib", "kilobytes", "megabytes", "gigabytes", "bits", "kbps", "mbps",
    "cents", "cent", "pennies", "micros", "usd", "eur", "gbp", "jpy", "currency", "pct", "percent", "percentage",
    "ratio", "fraction", "g", "grams", "gram", "kg", "kgs", "lb", "lbs", "oz", "mm", "cm", "m", "km", "meters",
    "metres", "miles", "mi", "ft", "feet", "inches", "in", "px", "pixels", "pt", "celsius", "fahrenheit", "kelvin",
    "epoch", "unix", "hz", "count", "num", "number", "items", "points", "minor"))
_UNIT_TEXT = lazy_pattern(
    r"(\b(ms|msec|milli-?seconds?|micro-?seconds?|nano-?seconds?|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|"
    r"weeks?|months?|years?|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?|bits?|[KMGT]i?B|cents?|"
    r"minor units?|currency|dollars?|euros?|pounds?|yen|USD|EUR|GBP|ISO[ -]?4217|percent(age)?|per ?cent|grams?|"
    r"kilograms?|kg|lbs?|ounces?|oz|millimet(er|re)s?|centimet(er|re)s?|met(er|re)s?|kilomet(er|re)s?|km|miles?|"
    r"inches|feet|pixels?|px|points?|degrees?|celsius|fahrenheit|kelvin|ISO[ -]?8601|RFC ?3339|epoch|unix time|"
    r"Hz|hertz|count of|number of)\b|%|\b\d+\s?(ms|s|m|h|d)\b)", re.I)
_NUMERIC = frozenset(("integer", "number"))
_SELF_DESCRIBING_FORMATS = frozenset(("duration", "date-time", "date", "time", "unix-time", "timestamp"))


@lru_cache(maxsize=4096)  # an inline-schema spec repeats a field's description wherever the field is
def _unit_or_scale_in(text: str) -> bool:
    """Whether the description names a unit or places the number on a scale of its own."""
    return bool(_UNIT_TEXT.search(text) or _DIMENSIONLESS_TEXT.search(text))


def is_quantity(name: str) -> bool:
    parts = words(name)
    if not parts or _UNIT_WORDS & set(parts):
        return False
    last = parts[-1]
    if last == "limit":
        return len(parts) > 1 and parts[-2] in _LIMIT_QUALIFIERS
    if last in _QUANTITY:
        return not (last == "size" and len(parts) > 1 and parts[-2] in _COUNT_QUALIFIERS)
    return False


@rule("numeric-unit-missing", "warn", "parameters",
      "a number named like a quantity states no unit in its name, description or format",
      fix="Name the unit in the description (\"in seconds\", \"in cents, in the account's currency\") or in the "
          "name (`timeout_ms`).")
def numeric_unit_missing(spec, context):
    # Every role: a result in milliseconds read as seconds misleads the next call just as much.
    for site in schema_sites(spec):
        if not site.name or site.composition:
            continue
        kind = site.schema.get("type")
        if isinstance(kind, str) and kind not in _NUMERIC:
            continue  # most sites: one type, not a number (decided without building the set of types)
        if not schema_types(site.schema) & _NUMERIC or not is_quantity(site.name):
            continue
        if str(site.schema.get("format", "")).lower() in _SELF_DESCRIBING_FORMATS:
            continue
        if site.description and _unit_or_scale_in(site.description):
            continue
        bounds = (site.schema.get("minimum"), site.schema.get("maximum"))
        if all(isinstance(b, (int, float)) for b in bounds) and bounds[1] <= 100:
            continue  # a bounded small scale (0–1, 1–100): a score or a weight, not a measure
        if unit_sibling(site):
            continue  # `threshold_time_amount` beside `threshold_time_unit`: the unit travels with it
        yield Report(f"{site.name!r} is a quantity with no unit in its name, description or format: say which "
                     f"({_unit_question(site.name)}) in the description, or put it in the name", site.document,
                     report_pointer(site))


_MONEY = frozenset(("amount", "price", "cost", "fee", "balance", "budget", "salary", "tax", "discount"))


def unit_sibling(site: SchemaSite) -> bool:
    """A sibling property names the unit: `unit`, `<prefix>_unit` sharing this name's words, or for money a
    `currency`."""
    own = words(site.name or "")
    unit_words = {"unit", "units", "timeunit"} | ({"currency"} if own and own[-1] in _MONEY else set())
    for name in _sibling_names(site) - {site.name}:
        parts = words(name)
        if parts and parts[-1] in unit_words and set(parts[:-1]) <= set(own):
            return True
    return False


def _unit_question(name: str) -> str:
    last = words(name)[-1]
    if last in _MONEY:
        return "cents or whole units, and which currency"
    if last in ("size", "memory", "storage", "capacity", "quota", "bandwidth"):
        return "bytes, KB or MB"
    if last in ("weight", "height", "width", "depth", "distance", "radius", "speed", "temperature"):
        return "which unit of measure"
    return "seconds, milliseconds or minutes"


# -- string-format-missing -------------------------------------------------------------------------------

_FORMAT_BY_WORD = {"email": "email", "url": "uri", "uri": "uri", "href": "uri", "uuid": "uuid", "guid": "uuid",
                   "date": "date", "datetime": "date-time", "timestamp": "date-time"}
_FORMAT_TEXT = lazy_pattern(r"\b(ISO[ -]?8601|RFC ?3339|RFC ?5322|RFC ?3986|YYYY|format|UUID|e-?mail address|URL of|"
                          r"https?://)", re.I)


def expected_format(name: str) -> str | None:
    parts = words(name)
    if not parts:
        return None
    last = parts[-1]
    if last in _FORMAT_BY_WORD:
        return _FORMAT_BY_WORD[last]
    if last == "at" and len(parts) > 1 and parts[-2] not in ("look", "point", "where"):
        return "date-time"  # created_at, updatedAt
    if last == "time" and len(parts) > 1:
        return "date-time"
    if last in ("since", "until") and len(parts) == 1:
        return "date-time"
    if last in ("after", "before", "since", "until") and len(parts) > 1 and parts[-2].endswith("ed"):
        return "date-time"  # placedAfter, updated_since
    return None


# Formats a description requires by name, that no keyword declares: (the words, what it is, the keyword to
# declare, and a fix when the keyword cannot reject a value the prose allows — `format: uri` accepts every URL),
# after words one of which every match holds in lower case: an ASCII text with none of them is not searched (a
# thousand of Kubernetes' descriptions hold a link, and the patterns are slow on long texts).
_REQUIRED_IN_PROSE = (
    (("164",), lazy_pattern(r"\bE\.?164\b"), "an E.164 phone number", "`pattern: '^\\+[1-9]\\d{1,14}$'`", None),
    (("start", "begin"), lazy_pattern(r"\b(?:must|should|has to)\s+(?:start|begin)\s+with\s+[`'\"]{0,2}https?://",
                                    re.I), "a URL", "`format: uri`", "uri"),
    ((" valid ur", "formed ur", "qualified ur"),
     lazy_pattern(r"\b(?:must|should) be a (?:valid|well-formed|fully qualified) (?:URL|URI)\b", re.I), "a URL",
     "`format: uri`", "uri"),
)
# Texts that allow more than the named format (a phone number "or a WhatsApp address", "or an email").
_OTHER_FORMS = lazy_pattern(r"\b(or an? (e-?mail|address|short ?code|channel|sid|identity)|whatsapp:|messenger:|"
                          r"e-?mail|prefix|E\.?164 or \w+)\b", re.I)


def format_required_in_prose(text: str) -> tuple[str, str, str | None, str] | None:
    """(what the value must be, the keyword to declare, a safe `format` fix or None, the words) when a
    description requires a named format, or None."""
    lowered = text.lower()
    if "164" not in text and "://" not in text and " valid ur" not in lowered and "formed ur" not in lowered \
            and "qualified ur" not in lowered:
        return None  # the common case, decided by substring scans before the patterns run
    ascii_text = text.isascii()
    for needed, pattern, what, keyword, fix in _REQUIRED_IN_PROSE:
        if ascii_text and not any(word in lowered for word in needed):
            continue
        match = pattern.search(text)
        if match and not _OTHER_FORMS.search(text):
            return what, keyword, fix, match.group(0)
    return None


@rule("string-format-missing", "info", "parameters",
      "a string named like a date, time, email, URI or UUID has no format or pattern",
      fix="Declare the `format` (`date-time`, `date`, `email`, `uri`, `uuid`) or a `pattern` on the string.")
def string_format_missing(spec, context):
    for site in input_sites(spec):
        schema = site.schema
        if schema_types(schema) != {"string"} or any(k in schema for k in ("format", "pattern", "enum", "const")):
            continue
        required = format_required_in_prose(site.description) if site.description else None
        if required is not None:
            what, keyword, fix, said = required
            yield Report(f"{site.name!r} must be {what} ({said!r}), said only in prose: declare {keyword} so a "
                         "malformed value is caught before it is sent", site.document, report_pointer(site),
                         Fix(join(site.pointer, "format"), fix, f"set format: {fix}") if fix else None)
            continue
        expected = expected_format(site.name)
        if expected is None or (site.description and _FORMAT_TEXT.search(site.description)):
            continue
        yield Report(f"{site.name!r} looks like a {expected} but is a free string: declare `format: {expected}` "
                     "(or a pattern)", site.document, report_pointer(site),
                     Fix(join(site.pointer, "format"), expected, f"set format: {expected}"))


# -- id-param-no-source ----------------------------------------------------------------------------------

_SOURCE_TEXT = lazy_pattern(r"\b(from|returned|returns?|obtain\w*|retriev\w*|see|given by|found in|provided by|"
                          r"listed|lists?|comes? from|get it|use the|which you can|response|operation|endpoint|call)\b|"
                          r"\b(GET|POST)\s+/|`\w+`", re.I)


@lru_cache(maxsize=4096)  # a big spec gives many of its id parameters the same description
def _names_a_source(text: str) -> bool:
    """Whether the description says where the value comes from (an operation, a response, a list)."""
    return _SOURCE_TEXT.search(text) is not None


def _shape(segments: list[str]) -> tuple[str, ...]:
    return tuple("{}" if seg.startswith("{") else seg for seg in segments)


def _collection_gets(spec) -> tuple[dict, dict]:
    """GET operations on collection paths (ending in a static segment): by path shape, and by the singular
    of their last segment (`/files` → file)."""
    by_shape, by_noun = {}, {}
    for op in spec.operations:
        segments = [seg for seg in op.path.split("/") if seg]
        if op.method != "get" or not segments or segments[-1].startswith("{"):
            continue
        by_shape.setdefault(_shape(segments), op)
        noun = "".join(singular(w) for w in words(segments[-1]))
        if noun and noun != "".join(words(segments[-1])):  # a plural: a collection, not `/app`
            by_noun.setdefault(noun, []).append(op)
    return by_shape, by_noun


# Nouns that name many kinds of thing (a secret's public key, an SSH key, a deploy key): the list of the same
# noun elsewhere is as likely the wrong source as the right one.
_GENERIC_NOUNS = frozenset(("key", "external", "object", "item", "resource", "entity", "parent", "target"))


def _static(path: str) -> list[str]:
    return [seg for seg in path.split("/") if seg and not seg.startswith("{")]


def _near(op, source) -> bool:
    """A source worth naming for a body id: a top-level collection (GET /models), or one under the same first
    segment as the operation (/orgs/{org}/teams for POST /orgs/{org}/repos), not a list from another corner, nor
    what the item written to already holds (GET /repos/{owner}/{repo}/teams for a transfer of that repo)."""
    mine, theirs = _static(op.path), _static(source.path)
    item = op.path[: op.path.rindex("}") + 1] if "}" in op.path else None
    if item and source.path.startswith(item + "/"):
        return False
    return len(theirs) == 1 or bool(mine and theirs and mine[0] == theirs[0])


def _qualified_kind(op, noun: str) -> str | None:
    """A path segment that names the id's kind more closely than its noun (`external-groups` for a `group_id`)."""
    for segment in _static(op.path):
        parts = words(segment)
        if len(parts) > 1 and singular(parts[-1]) == noun:
            return segment
    return None


def id_source(spec, op, param, index) -> object | None:
    """The operation that provides the id: the list GET on the collection path just before a path parameter
    (`/users/{user_id}` ← GET /users), or for a query parameter the shortest list GET of its noun."""
    by_shape, by_noun = index
    segments = [seg for seg in op.path.split("/") if seg]
    template = "{" + param.name + "}"
    if param.location == "path" and template in segments:
        at = segments.index(template)
        source = by_shape.get(_shape(segments[:at]))
        if source is not None and source is not op:
            return source
    noun = "".join(singular(w) for w in words(param.name)[:-1])
    candidates = [c for c in by_noun.get(noun, []) if c is not op]
    if param.location == "body":  # only a list near the operation: a body id names no path to follow
        kind = _qualified_kind(op, noun)
        candidates = [c for c in candidates if _near(op, c) and (kind is None or _static(c.path)[-1:] == [kind])]
    return min(candidates, key=lambda c: (len(c.path), c.path)) if candidates else None


def _source_advice(parts: list[str], source) -> str:
    name = source.operation_id or source.label()
    return (f"name the operation that returns it, e.g. \"the {' '.join(parts[:-1]) or 'item'}'s id, as returned by "
            f"{name} ({source.method.upper()} {source.path})\"")


class _BodyArgument(NamedTuple):
    """A request-body property as a tool argument, shaped like a parameter where a rule reads both."""

    name: str
    location: str = "body"


@rule("id-param-no-source", "info", "parameters", "an id parameter never says which operation yields it",
      fix="Say in the parameter's description which operation returns the id (\"the `id` returned by "
          "listUsers\").")
def id_param_no_source(spec, context):
    index = None
    for op in spec.operations:
        for param in op.parameters:
            parts = words(param.name) if param.location in ("path", "query") else ()
            if not parts or parts[-1] not in ("id", "ids"):
                continue
            if param.description and _names_a_source(param.description):
                continue
            index = _collection_gets(spec) if index is None else index
            source = id_source(spec, op, param, index)
            if source is not None:
                advice = _source_advice(parts, source)
            else:
                advice = "no list operation on its collection path returns it, so say which operation does"
            yield Report(f"{param.location} parameter {param.name!r} does not say where its value comes from: "
                         f"{advice}", param.origin.document, param.origin.pointer)
    # Ids among a request body's arguments (`role_id`, `model_ids`): reported when a list operation of their
    # noun exists to name, so the message says what to write.
    for site in input_sites(spec):
        if site.role != "request" or site.slot != "property" or site.depth > 1:
            continue
        parts = words(site.name)
        if len(parts) < 2 or parts[-1] not in ("id", "ids") or site.schema.get("readOnly") is True:
            continue
        if site.description and _names_a_source(site.description):
            continue
        if "".join(parts[:-1]) in _GENERIC_NOUNS:
            continue
        index = _collection_gets(spec) if index is None else index
        source = id_source(spec, site.operation, _BodyArgument(site.name), index)
        if source is not None:
            yield Report(f"body property {site.name!r} does not say where its value comes from: "
                         f"{_source_advice(parts, source)}", site.document, report_pointer(site))


# -- magic-header-unpinned -------------------------------------------------------------------------------

# "must be `2022-11-28`", "Set to application/json", "The value is always `assistants=v2`": one fixed value. A bare
# value counts only when it cannot be an ordinary word (a digit, `/`, `=` or `.` in it).
_QUOTED_VALUE = r"(?:`([^`\s]{1,80})`|\"([^\"\s]{1,80})\"|'([^'\s]{1,80})')"
_BARE_VALUE = r"([A-Za-z0-9][\w.+/=;:-]*[\w/=+])"
_FIXED_CUE = (r"\b(?:must (?:be|equal|contain)|should be|(?:is )?(?:always|only)|"
              r"set (?:it |this |this header |the header |the value )?to|use|equal to|fixed (?:value|to)|"
              r"the (?:only )?(?:supported |accepted |allowed )?value (?:is|must be))\b")
_FIXED = lazy_pattern(_FIXED_CUE + r"\s*:?\s*(?:the (?:value|string)\s+)?(?:" + _QUOTED_VALUE + "|" + _BARE_VALUE + ")",
                    re.I)
_OPEN_TEXT = lazy_pattern(r"\b(e\.g\.|for example|such as|one of|either|or later|or newer|defaults? to|if you|when you|"
                        r"unless|otherwise|latest|supported versions|any of)\b", re.I)
# A template to fill in ("`shared_link=[link]&…`", "`Bearer <TOKEN>`"), or text describing a format: not one value.
_PLACEHOLDER = lazy_pattern(r"[\[\]<>{}]|\.\.\.|…|\bformat\b", re.I)
_CREDENTIAL = lazy_pattern(r"(key|token|secret|auth|signature|password|cookie|session|credential|bearer|nonce|digest|"
                         r"idempotency|request-?id|trace|correlation)", re.I)


def fixed_value(description: str, example) -> str | None:
    """The one value a header's description (or its example, when the description names the same one) fixes."""
    if not description or _OPEN_TEXT.search(description):
        return None
    quoted = {next(g for g in m.groups() if g) for m in re.finditer(_QUOTED_VALUE, description)}
    for match in _FIXED.finditer(description):
        value = next(g for g in match.groups() if g)
        bare = match.group(4) is not None
        if bare and not re.search(r"[\d/=.]", value):
            continue  # "Always send it": an ordinary word after the cue, not a value; a later cue may name one
        value = value.rstrip(".,;:") if bare else value
        return value if quoted <= {value} and not _PLACEHOLDER.search(value) else None
    if len(quoted) == 1 and isinstance(example, str) and example in quoted and not _PLACEHOLDER.search(example):
        return example  # "The API version, `2022-11-28`." with that example: the only value it names
    return None


@rule("magic-header-unpinned", "warn", "parameters",
      "a required header whose description fixes one value is typed as a free string",
      fix="Pin the header's one value in its schema: `enum: [value]` (or `const: value` in OpenAPI 3.1), so the "
          "tool's schema carries it instead of leaving the model to copy it out of the prose.")
def magic_header_unpinned(spec, context):
    for op in spec.operations:
        for param in op.parameters:
            if param.location != "header" or not param.required or _CREDENTIAL.search(param.name):
                continue  # Accept/Content-Type (and OpenAPI 3's Authorization) never reach here: the loader drops them
            schema = param.schema or {}
            if "$ref" in schema:
                schema = spec.resolve_schema(schema["$ref"]) or schema
            if schema_types(schema) - {"string"} or any(k in schema for k in ("enum", "const", "default", "$ref")):
                continue
            example = param.example if param.example is not None else schema.get("example")
            value = fixed_value(param.description or schema.get("description") or "", example)
            if value is None:
                continue
            const = "`const`" if spec.version.value >= "3.1" else "a one-value enum"
            yield Report(f"header {param.name!r} is required and its description fixes its value ({value!r}), but "
                         f"it is a free string: pin it with `enum: [{value!r}]` ({const}) so the tool's schema carries "
                         "the value instead of leaving the model to guess it", param.origin.document,
                         param.origin.pointer)
