"""Walk the schemas an agent meets — parameters, request bodies, responses — in the raw documents, so
every finding has an exact place. A `$ref`'d schema is visited once per role, at its definition."""

from typing import Any, NamedTuple

from workbench.spec import Operation, SourceDocument, Spec, SpecVersion
from workbench.spec.pointer import MISSING, escape, join, lookup, unescape

_COMPOSITIONS = ("allOf", "anyOf", "oneOf")
# The keywords `_push_children` finds subschemas under.
_CHILD_KEYWORDS = frozenset(("properties", "items", "additionalProperties", *_COMPOSITIONS))


class SchemaSite(NamedTuple):
    """One schema node as an agent would meet it. Immutable (every rule shares the cached sites); a named tuple
    rather than a frozen dataclass because a big spec makes thousands and a frozen dataclass's `__init__` costs
    six times as much."""

    operation: Operation  # the first operation that reaches it
    role: str  # "parameter" | "request" | "response"
    document: SourceDocument
    pointer: str  # where the schema is defined ($ref followed); findings about the schema go here
    schema: dict
    name: str | None  # the parameter or property name, when it is one
    description: str | None  # the description a reader sees: use site, then definition
    required: bool
    depth: int  # object/array nesting below the parameter or body root
    via_ref: bool  # reached through a `$ref` (a shared definition)
    recursive: bool  # a `$ref` back to one of its own ancestors
    composition: bool  # a member of allOf/anyOf/oneOf
    in_composition: int  # how many oneOf/anyOf enclose it
    slot: str = "root"  # how its parent holds it: "root", "property", "items", "additional" or "member"


def schema_sites(spec: Spec) -> tuple[SchemaSite, ...]:
    """Every schema node reachable from the operations, in a stable order (cached on the spec)."""
    return _cached(spec)[0]


def input_sites(spec: Spec) -> tuple[SchemaSite, ...]:
    """The named schemas an agent fills in: parameters and request-body properties (not union members); cached
    with the sites, as a dozen rules ask for them."""
    return _cached(spec)[1]


def sites_with(spec: Spec, keyword: str) -> tuple[SchemaSite, ...]:
    """The schema sites whose schema holds `keyword` (`enum`), in `schema_sites`' order: what the rules about that
    keyword read, without each passing over every site (3,000 of EC2's 28,000 hold an enum, which two rules read)."""
    sites = schema_sites(spec)
    key = (id(sites), keyword)
    known = _WITH.get(key)
    if known is not None and known[0] is sites:
        return known[1]
    found = tuple(site for site in sites if keyword in site.schema)
    _WITH[key] = (sites, found)  # (emptied with the sites' cache: a few keywords of one spec at a time)
    return found


_WITH: dict[tuple[int, str], tuple[tuple[SchemaSite, ...], tuple[SchemaSite, ...]]] = {}


def _cached(spec: Spec) -> tuple[tuple[SchemaSite, ...], tuple[SchemaSite, ...]]:
    cached = _CACHE.get(id(spec))
    if cached is not None and cached[0] is spec:
        return cached[1]
    sites: list[SchemaSite] = []
    seen: set[tuple[str, str, str]] = set()
    swagger = spec.version is SpecVersion.SWAGGER_2_0
    holders: dict[tuple[int, str], Any] = {}
    # A parameter or response shared by many operations (a `$ref`'d or path-level one) is walked from its first
    # operation only: walking it again adds nothing, as its root is already seen, and on a thousand-operation
    # spec the repeats were two roots in three.
    walked: set[tuple[int, str]] = set()
    followed: dict[tuple[str, Any], Any] = {}  # see _deref
    for op in spec.operations:
        for param in op.parameters:
            doc, at = param.origin.document, param.origin.pointer
            if (id(doc), at) in walked:
                continue
            walked.add((id(doc), at))
            for raw, pointer in _parameter_roots(_raw(doc, at, holders), at, swagger):
                _walk(spec, op, "parameter", doc, pointer, raw, param.name, param.description, param.required,
                      sites, seen, followed)
        for doc, pointer, raw, name, description, required in _request_roots(spec, op, swagger, holders):
            _walk(spec, op, "request", doc, pointer, raw, name, description, required, sites, seen, followed)
        for response in op.responses:
            doc, at = response.origin.document, response.origin.pointer
            if (id(doc), at) in walked:
                continue
            walked.add((id(doc), at))
            for raw, pointer in _response_roots(_raw(doc, at, holders), at, swagger):
                _walk(spec, op, "response", doc, pointer, raw, None, None, False, sites, seen, followed)
    inputs = tuple(site for site in sites
                   if site.role in ("parameter", "request") and site.name and not site.composition)
    result = (tuple(sites), inputs)
    _CACHE.clear()  # one spec at a time: the GUI re-lints the edited spec, the CLI lints one
    _WITH.clear()  # (and the sites of a keyword: of this spec's sites only)
    _CACHE[id(spec)] = (spec, result)
    return result  # never read back from the cache: a worker linting another spec may have replaced it meanwhile


_CACHE: dict[int, tuple[Spec, tuple[tuple[SchemaSite, ...], tuple[SchemaSite, ...]]]] = {}


def _raw(document: SourceDocument, pointer: str, holders: dict[tuple[int, str], Any]) -> Any:
    """The raw node at `pointer`, its parent looked up once for all its children (an operation's parameters and
    responses share theirs: a third of the walk of a thousand-operation spec went to looking them up anew), and
    that parent found the same way, from its own (an operation's from its path item's, shared by its methods)."""
    if not pointer:
        return document.data
    parent, _, last = pointer.rpartition("/")
    key = (id(document), parent)
    holder = holders.get(key, MISSING)
    if holder is MISSING:
        holder = holders[key] = _raw(document, parent, holders)
    if isinstance(holder, dict):
        return holder.get(unescape(last))
    if isinstance(holder, list) and last.isdigit() and (last == "0" or not last.startswith("0")) \
            and int(last) < len(holder):
        return holder[int(last)]
    return None


def _content_roots(raw: dict, at: str) -> list[tuple[Any, str]]:
    """The schema of each media type under `content` (OpenAPI 3), with its pointer."""
    content = raw.get("content")
    return [(m.get("schema"), join(at, "content", media, "schema"))
            for media, m in content.items() if isinstance(m, dict)] if isinstance(content, dict) else []


def _parameter_roots(raw_param: Any, at: str, swagger: bool) -> list[tuple[Any, str]]:
    """A parameter's schemas: in Swagger 2.0 the parameter is its own schema."""
    if not isinstance(raw_param, dict):
        return []
    if swagger:
        return [(raw_param, at)]
    return [(raw_param.get("schema"), f"{at}/schema"), *_content_roots(raw_param, at)]


def _response_roots(raw_response: Any, at: str, swagger: bool) -> list[tuple[Any, str]]:
    if not isinstance(raw_response, dict):
        return []
    if swagger:
        return [(raw_response.get("schema"), f"{at}/schema")]
    return _content_roots(raw_response, at)


def _request_roots(spec: Spec, op: Operation, swagger: bool, holders: dict[tuple[int, str], Any] | None = None,
                   ) -> list[tuple[SourceDocument, str, Any, str | None, Any, bool]]:
    """The request's schemas as (document, pointer, schema, name, description, required): a Swagger 2.0
    form is one per formData parameter, a body parameter its `schema`, an OpenAPI 3 body one per media type.
    `holders`: `_raw`'s parents already looked up."""
    if op.request_body is None:
        return []
    doc, at = op.request_body.origin.document, op.request_body.origin.pointer
    raw_body = _raw(doc, at, {} if holders is None else holders)
    if not isinstance(raw_body, dict):
        return []
    if swagger and raw_body.get("in") == "formData":
        return [(param_doc, pointer, raw, raw.get("name"), raw.get("description"), bool(raw.get("required")))
                for param_doc, pointer, raw in _swagger_form_params(spec, op)]
    if swagger:
        return [(doc, f"{at}/schema", raw_body.get("schema"), None, raw_body.get("description"), True)]
    return [(doc, pointer, raw, None, raw_body.get("description"), True)
            for raw, pointer in _content_roots(raw_body, at)]


def request_schemas(spec: Spec, op: Operation) -> list[tuple[SourceDocument, str, dict]]:
    """The operation's own request-body schemas as (document, pointer, schema), `$ref`s followed: unlike
    `schema_sites`, which records a shared schema under the first operation that reaches it, each operation's."""
    found = []
    for doc, pointer, raw, _name, _description, _required in _request_roots(spec, op,
                                                                             spec.version is SpecVersion.SWAGGER_2_0):
        if isinstance(raw, dict):
            target, tdoc, tat = spec.deref(raw, doc, pointer)
            if isinstance(target, dict):
                found.append((tdoc, tat, target))
    return found


def _swagger_form_params(spec: Spec, op: Operation) -> list[tuple[SourceDocument, str, dict]]:
    found = []
    item_at = op.origin.pointer.rsplit("/", 1)[0]
    for holder in (item_at, op.origin.pointer):
        raw_list = lookup(op.origin.document.data, join(holder, "parameters"), None)
        for i, raw in enumerate(raw_list if isinstance(raw_list, list) else []):
            value, doc, pointer = spec.deref(raw, op.origin.document, f"{holder}/parameters/{i}")
            if isinstance(value, dict) and value.get("in") == "formData":
                found.append((doc, pointer, value))
    return found


def _walk(spec: Spec, op: Operation, role: str, document: SourceDocument, pointer: str, raw: Any,
          name: str | None, description: str | None, required: bool, sites: list[SchemaSite],
          seen: set[tuple[str, str, str]], followed: dict) -> None:
    if not isinstance(raw, dict):  # no schema there (most roots are a response without one, or a `$ref`)
        return
    # (document, pointer, raw, name, use-site description, required, depth, via_ref, ancestors, composition,
    #  enclosing unions, slot)
    stack = [(document, pointer, raw, name, description, required, 0, False, (), False, 0, "root")]
    while stack:
        doc, at, node, nm, use_description, req, depth, via_ref, ancestors, composition, unions, slot = stack.pop()
        if not isinstance(node, dict):
            continue
        if "$ref" in node:
            target, tdoc, tat = _deref(spec, node, doc, at, followed)
            if target is not node:
                via_ref = True
                if not use_description:
                    use_description = node.get("description")  # 3.1 allows a description beside $ref
            if not isinstance(target, dict):
                continue
        else:
            target, tdoc, tat = node, doc, at
        key = (tdoc.name, tat, role)
        if key in seen:
            # Only a place already seen can be one of its own ancestors (each was recorded when it was visited), so
            # the ancestors are searched only for the places seen before, most of them skipped here.
            recursive = key[:2] in ancestors
            if not recursive:
                continue
        else:
            recursive = False
            seen.add(key)
        text = use_description if isinstance(use_description, str) and use_description.strip() else target.get(
            "description")
        sites.append(_new_site(SchemaSite, (op, role, tdoc, tat, target, nm, text if isinstance(text, str) else None,
                                            req, depth, via_ref, recursive, composition, unions, slot)))
        if not recursive and not _CHILD_KEYWORDS.isdisjoint(target):  # most schemas are leaves: no call for them
            _push_children(stack, tdoc, tat, target, nm, req, depth, via_ref, (*ancestors, key[:2]), unions)


# A site made from its fourteen fields as a tuple, without the generated `__new__`'s call (28,000 sites of EC2).
_new_site = tuple.__new__


def _deref(spec: Spec, node: dict, document: SourceDocument, pointer: str,
           followed: dict[tuple[str, Any], Any]) -> tuple[Any, SourceDocument, str]:
    """`spec.deref(node, document, pointer)`, remembered by (document, `$ref`) in `followed` for the walk: a big
    spec repeats the same few hundred refs thousands of times, and the lookup here is a third of `deref`'s cost."""
    ref = node["$ref"]
    if not isinstance(ref, str):
        return node, document, pointer
    key = (document.name, ref)
    known = followed.get(key)
    if known is None:
        found = spec.deref(node, document, pointer)
        known = followed[key] = found if found[0] is not node else False  # False: a broken ref
    return (node, document, pointer) if known is False else known


def _push_children(stack: list[tuple], doc: SourceDocument, at: str, target: dict, name: str | None,
                   required: bool, depth: int, via_ref: bool, here: tuple, unions: int) -> None:
    """Put `_walk`'s stack entries for a schema's subschemas on `stack`, the first to visit on top."""
    children = []
    properties = target.get("properties")
    if isinstance(properties, dict):
        required_names = target.get("required")
        if not isinstance(required_names, list):
            required_names = ()
        below = f"{at}/properties/"
        for prop, sub in properties.items():
            segment = prop if isinstance(prop, str) and "~" not in prop and "/" not in prop else escape(str(prop))
            children.append((doc, below + segment, sub, prop, None, prop in required_names, depth + 1,
                             via_ref, here, False, unions, "property"))
    items = target.get("items")
    if isinstance(items, dict):
        children.append((doc, f"{at}/items", items, name, None, False, depth + 1, via_ref, here, False, unions,
                         "items"))
    additional = target.get("additionalProperties")
    if isinstance(additional, dict):
        children.append((doc, f"{at}/additionalProperties", additional, None, None, False, depth + 1, via_ref,
                         here, False, unions, "additional"))
    for keyword in _COMPOSITIONS:
        members = target.get(keyword)
        if isinstance(members, list):
            inner = unions + (keyword != "allOf")
            for i, sub in enumerate(members):
                children.append((doc, f"{at}/{keyword}/{i}", sub, name, None, required, depth, via_ref, here, True,
                                 inner, "member"))
    children.reverse()
    stack += children


def schema_types(schema: dict) -> frozenset[str]:
    """The types a schema declares (a 3.1 type list or a single type)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        # the rules ask this some thirty thousand times of a big spec: a single type's set is made once
        known = _SINGLE_TYPES.get(kind)
        return known if known is not None else frozenset((kind,))
    return frozenset(k for k in kind if isinstance(k, str)) if isinstance(kind, list) else _NO_TYPES


_SINGLE_TYPES = {kind: frozenset((kind,)) for kind in ("string", "integer", "number", "boolean", "object", "array",
                                                        "null")}
_NO_TYPES: frozenset[str] = frozenset()


def report_pointer(site: SchemaSite) -> str:
    """Parameter findings point at the parameter, not at its `schema` child."""
    if site.role == "parameter" and site.depth == 0 and not site.via_ref and site.pointer.endswith("/schema"):
        return site.pointer[: -len("/schema")]
    return site.pointer
