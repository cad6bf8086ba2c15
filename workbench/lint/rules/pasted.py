"""Argument descriptions pasted from another operation: the text names a different operation's verb ("the Rate
Limit resource to fetch" on an update, "the name of the new group to be created" on a PUT), or an argument this
operation does not take but another one does ("This requires `usemarker` to be set"). The model follows the
text: it looks for an argument that is not there, or misreads what the call does."""

from __future__ import annotations

import re

from workbench import lazy_pattern
from workbench.lint.registry import Report, rule
from workbench.lint.schemas import input_sites, report_pointer, schema_sites

# A sentence that names the thing by what is done to it: "The SID of the Rate Limit resource to fetch.", "The
# name of the new group to be created." A noun phrase (it starts with an article or "Unique", holds no comma
# and no "you"), so "… allowing it to be deleted" or "groups you don't want to remove" are not read so.
_ACTED_ON = lazy_pattern(r"^(?:the|a|an|unique|identifier)\b[^,]*\bto (?:be )?(fetch|retrieve|create|delete|remove|"
                       r"update)(?:d|ed)?$", re.I)
_NOT_A_NOUN_PHRASE = lazy_pattern(r"\b(you|your|want|wish|need|if|when|defaults?)\b", re.I)
# The methods whose operations do what the verb says, and the words of the same verb in an operation's path,
# operationId or summary.
_METHODS_FOR = {"fetch": ("get",), "retrieve": ("get",), "create": ("post", "put"), "delete": ("delete",),
                "remove": ("delete",), "update": ("post", "put", "patch")}
_FAMILIES = {"read": ("fetch", "get", "retriev", "read", "list"), "create": ("creat", "add", "new"),
             "delete": ("delet", "remov"), "update": ("updat", "modif", "edit", "chang")}
_FAMILY_OF = {"fetch": "read", "retrieve": "read", "create": "create", "delete": "delete", "remove": "delete",
              "update": "update"}
_SENTENCE_END = lazy_pattern(r"(?<=[.;!?])\s+")
_BACKTICKED = lazy_pattern(r"`([A-Za-z][A-Za-z0-9_]{2,40})`")
# Text that points at another operation on purpose ("the `tool_guid` parameter of operations such as GET …").
_OTHER_OPERATION = lazy_pattern(r"\b(GET|POST|PUT|PATCH|DELETE)\s+/|\boperations?\b|\bendpoints?\b", re.I)


def _own_family(op) -> str | None:
    """The verb the operation names first, in its summary or else its operationId ("Update group" → update)."""
    for text in (op.summary or "", op.operation_id or ""):
        for word in re.findall(r"[a-z]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower())[:2]:
            for family, stems in _FAMILIES.items():
                if any(_verb_form(word, stem) for stem in stems):
                    return family
    return None


def _verb_form(word: str, stem: str) -> bool:
    """`word` is the verb of `stem`: a long stem by prefix ("retrieves"), a short one only with a verb ending, so
    "Address", "News", "Ready" and "Listen" are no add, new, read or list."""
    if len(stem) >= 5:
        return word.startswith(stem)
    if stem == "new":  # an adjective: "New group", never "news"
        return word == stem
    return word in (stem, f"{stem}s", f"{stem}es", f"{stem}ed", f"{stem}ing", f"{stem}{stem[-1]}ed",
                    f"{stem}{stem[-1]}ing")


def foreign_verb(op, text: str) -> str | None:
    """The sentence of `text` ("… resource to fetch", "… to be created") that names the thing by what another
    operation does to it: the operation names a different verb first (its summary or id), or, naming none,
    its method does something else and its path never uses that verb."""
    lowered = text.lower()
    if " to " not in lowered or not any(verb in lowered for verb in _METHODS_FOR):
        return None  # the common case, decided by substring scans before the sentences are split
    own = _own_family(op)
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        sentence = sentence.strip().rstrip(".;!?")
        match = _ACTED_ON.search(sentence)
        if not match or _NOT_A_NOUN_PHRASE.search(sentence) or not match.group(1).islower():
            continue
        verb = match.group(1)
        family = _FAMILY_OF[verb]
        if own is not None:
            foreign = own != family
        else:
            foreign = op.method not in _METHODS_FOR[verb] and not any(
                stem in op.path.lower() for stem in _FAMILIES[family])
        if foreign:
            return sentence
    return None


def _parent_in_path(op, site) -> bool:
    """A path parameter that is not the path's last segment names the parent the operation works under
    (`project_id` of POST /projects/{project_id}/groups): "the project to update" is true of it as well."""
    return site.role == "parameter" and ("{" + str(site.name) + "}") in op.path and \
        not op.path.rstrip("/").endswith("{" + str(site.name) + "}")


def _parameter_names(spec) -> tuple[dict[int, set[str]], dict[str, object]]:
    """Each operation's parameter names, and for each name one operation that takes it."""
    own: dict[int, set[str]] = {}
    taken_by: dict[str, object] = {}
    for op in spec.operations:
        own[id(op)] = {p.name for p in op.parameters}
        for name in own[id(op)]:
            taken_by.setdefault(name, op)
    return own, taken_by


def _property_names(spec) -> set[str]:
    """Every property name of every schema the operations reach (request and response): a backticked name
    that is one of these may be a field of the response or of a nested object, not a missing argument."""
    return {site.name for site in schema_sites(spec) if site.name and site.slot == "property"}


@rule("description-from-another-operation", "warn", "descriptions",
      "an argument's description was written for another operation (its verb or the arguments it names)",
      fix="Rewrite the description for this operation: say what the value is here, and drop sentences naming "
          "arguments it does not take.")
def description_from_another_operation(spec, context):
    names = None
    for site in input_sites(spec):
        if site.depth > 1 or site.slot not in ("root", "property") or not site.description:
            continue
        op = site.operation
        verb = None if _parent_in_path(op, site) else foreign_verb(op, site.description)
        if verb:
            done = _ACTED_ON.search(verb).group(1)
            yield Report(f"{site.name!r} is described as {verb!r}, but {op.label()} does not {done}: the "
                         f"text was written for another operation; say what {site.name!r} is in this one",
                         site.document, report_pointer(site))
            continue
        if "`" not in site.description or _OTHER_OPERATION.search(site.description):
            continue
        enum_values = {str(v) for v in site.schema.get("enum") or () if isinstance(v, str)}
        items = site.schema.get("items")
        if isinstance(items, dict):
            enum_values |= {str(v) for v in items.get("enum") or () if isinstance(v, str)}
        if names is None:
            names = (*_parameter_names(spec), _property_names(spec))
        own, taken_by, properties = names
        for token in dict.fromkeys(_BACKTICKED.findall(site.description)):
            other = taken_by.get(token)
            if other is None or token in own[id(op)] or token in properties or token == site.name \
                    or token in enum_values:
                continue
            yield Report(f"{site.name!r}'s description names `{token}`, an argument {op.label()} does not take "
                         f"(it is one of {other.operation_id or other.label()}'s): the text was pasted from another "
                         "operation; describe the arguments this one has", site.document, report_pointer(site))
            break
