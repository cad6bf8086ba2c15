"""`$ref` resolution across one or several files.

Refs are resolved against the document they appear in. Refs to other files load those files lazily
(once). Remote refs (`http://`, `https://`) and refs that leave the root document's folder tree are
refused — never fetched, never read — unless the user allows them. A ref that points at another ref is
followed; a chain that comes back to itself is reported, never followed forever. Recursive *schemas*
are not chains: their `$ref`s stay refs in the model, so cycles are kept as cycles.
"""

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

from workbench import lazy_pattern
from workbench.spec.errors import Problem, Severity, SpecError
from workbench.spec.pointer import from_fragment, join, lookup
from workbench.spec.source import SourceDocument, parse_document, parse_text

# A ref chain longer than this is certainly a mistake (or a cycle we report by its length).
_MAX_CHAIN = 64
_REMOTE_TIMEOUT_S = 10.0
# Keys whose values are data, not API description: a "$ref" key inside them is an example's content.
_DATA_KEYS = frozenset(("example", "enum", "const", "default"))
# In a JSON text, the `"$ref": "…"` members (a key is the only string a colon follows): the value up to its first
# quote or backslash, and which of the two that is (a backslash: the value holds an escape); and the escapes that
# could spell the key "$ref" so that the scan would not see it.
_JSON_REF = lazy_pattern(r'"\$ref"\s*:\s*"([^"\\]*)(["\\])')
_ESCAPED_REF_LETTER = lazy_pattern(r"\\u00(?:24|[46]5|[46]6|[57]2)", re.I)


class RefPolicy(NamedTuple):
    """Which `$ref`s may be followed beyond the root document's folder tree (neither, by default)."""

    allow_remote: bool = False
    allow_outside: bool = False


class Target(NamedTuple):
    """What a `$ref` leads to: the document, the JSON pointer in it and the value there."""

    document: SourceDocument
    pointer: str
    value: Any


class RefError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Resolver:
    def __init__(self, root: SourceDocument, policy: RefPolicy | None = None,
                 edited: Iterable[SourceDocument] = ()) -> None:
        self.root = root
        self.policy = policy or RefPolicy()
        self.root_dir = root.path.resolve().parent
        self.documents: dict[str, SourceDocument] = {self._key_for_path(root.path): root}
        # Documents to use instead of reading their files (an editor's unsaved edits), by resolved path; each
        # joins `documents` only when a `$ref` reaches it.
        self._edited = {self._key_for_path(document.path): document for document in edited}
        self.problems: list[Problem] = []
        self._reported: set[tuple[str, str]] = set()
        self._followed: dict[tuple[str, str], Target | RefError] = {}

    # -- public ------------------------------------------------------------------------------------

    def resolve(self, ref: str, base: SourceDocument, at: str) -> Target | None:
        """Follow `ref` (found at pointer `at` in `base`) to a non-ref value; report and return None if
        it cannot be followed."""
        try:
            return self.follow(ref, base)
        except RefError as exc:
            self.report(exc, base, at)
            return None

    def follow(self, ref: str, base: SourceDocument) -> Target:
        """The non-ref value `ref` leads to from `base` (memoised: big specs repeat the same refs thousands
        of times); raises RefError."""
        key = (base.name, ref)
        known = self._followed.get(key)
        if known is None:
            try:
                known = self._follow(ref, base)
            except RefError as exc:
                known = exc
            self._followed[key] = known
        if isinstance(known, RefError):
            raise known
        return known

    def target(self, ref: str, base: SourceDocument) -> Target | None:
        """`follow` without raising: None for a ref that cannot be followed (the full check reports it)."""
        known = self._followed.get((base.name, ref))
        if known is None:
            try:
                return self.follow(ref, base)
            except RefError:
                return None
        return None if isinstance(known, RefError) else known

    def _follow(self, ref: str, base: SourceDocument) -> Target:
        seen: set[tuple[str, str]] = set()
        target = self._resolve_once(ref, base)
        while isinstance(target.value, dict) and isinstance(target.value.get("$ref"), str):
            place = (target.document.name, target.pointer)
            if place in seen or len(seen) >= _MAX_CHAIN:
                raise RefError("ref-circular", f"$ref {ref!r} leads into a cycle of $refs (through "
                               f"{target.document.name}#{target.pointer})")
            seen.add(place)
            target = self._resolve_once(target.value["$ref"], target.document)
        return target

    def canonical(self, document: SourceDocument, pointer: str) -> str:
        """How the model names a place: `#/ptr` in the root document, `file#/ptr` elsewhere."""
        if document is self.root:
            return f"#{pointer}"
        return f"{document.name}#{pointer}"

    def report(self, exc: RefError, base: SourceDocument, at: str) -> None:
        if (base.name, at) in self._reported:
            return
        self._reported.add((base.name, at))
        where = base.locate(join(at, "$ref")) if base.has(join(at, "$ref")) else base.locate(at)
        self.problems.append(Problem(exc.code, exc.message, base.name, at, where.start.line,
                                     where.start.column, Severity.ERROR))

    def check_all(self, document: SourceDocument) -> None:
        """Resolve every `$ref` in `document` (and, transitively, in the files it refers to) so that
        every broken one is reported, even those no operation uses."""
        pending = [document]
        checked: set[str] = set()
        while pending:
            doc = pending.pop()
            if doc.name in checked:
                continue
            checked.add(doc.name)
            if self._local_refs_hold(doc):
                continue
            for at, ref in iter_refs(doc.data):
                target = self.resolve(ref, doc, at)
                if target is not None and target.document.name not in checked:
                    pending.append(target.document)

    def _local_refs_hold(self, document: SourceDocument) -> bool:
        """Whether every `$ref` of a document is a plain local one that resolves: then the walk of every node (a
        tenth of a second on a 4 MB file) finds nothing to report. A JSON document's refs are found by a scan of
        its text, a YAML document's by its parse (`refs_written`). Any other case (a ref to another file or a URL,
        one that does not resolve, an escaped spelling the scan could miss, a document built without its refs) is
        left to the walk, which knows which strings are data (examples, extensions)."""
        if document.format == "json":
            if _ESCAPED_REF_LETTER.search(document.text):
                return False
            found = _JSON_REF.findall(document.text)  # one pass: (value, the character that ends it)
            if any(end != '"' for _, end in found):
                return False  # a ref string with an escape in it
            values = [value for value, _ in found]
        elif document.refs_written is not None:
            values = document.refs_written
        else:
            return False
        distinct = dict.fromkeys(values)  # in the text's order, whatever the hash seed
        if not all(ref.startswith("#") for ref in distinct):
            return False  # checked before any is followed: a chain through local refs then stays in this file
        try:
            for ref in distinct:
                self.follow(ref, document)
        except RefError:
            return False
        return True

    # -- internals ---------------------------------------------------------------------------------

    def _resolve_once(self, ref: str, base: SourceDocument) -> Target:
        address, _, fragment = ref.partition("#")
        document = self._document(address, base) if address else base
        pointer = from_fragment(fragment)
        if pointer and not pointer.startswith("/"):
            raise RefError("ref-invalid", f"$ref {ref!r}: the part after '#' must be a JSON pointer "
                           "starting with '/'")
        try:
            value = lookup(document.data, pointer)
        except KeyError as exc:
            raise RefError("ref-unresolved", f"$ref {ref!r} points nowhere: {document.name} has no "
                           f"{exc.args[0]!r} on the way to {pointer!r}") from None
        return Target(document, pointer, value)

    def _document(self, address: str, base: SourceDocument) -> SourceDocument:
        base_is_remote = _is_remote(base.name)
        if _is_remote(address) or base_is_remote:
            url = urljoin(base.name, address) if base_is_remote else address
            if not self.policy.allow_remote:
                raise RefError("ref-remote", f"$ref to remote {url!r} refused (not fetched); allow remote "
                               "refs explicitly to follow it")
            return self._remote_document(url)
        if address.startswith("file://"):
            address = urlsplit(address).path
        path = (base.path.parent / from_fragment(address)).resolve()
        if not self.policy.allow_outside and not path.is_relative_to(self.root_dir):
            raise RefError("ref-outside", f"$ref to {address!r} leaves the spec's folder "
                           f"({self.root_dir}) and was not read; allow out-of-tree refs explicitly to follow it")
        key = self._key_for_path(path)
        document = self.documents.get(key) or self._edited.get(key)
        if document is not None:
            self.documents[key] = document
        else:
            name = os.path.relpath(path, self.root_dir) if path.is_relative_to(self.root_dir) else str(path)
            try:
                document = parse_document(path, name)
            except SpecError as exc:
                raise RefError("ref-unresolved", f"$ref to {address!r}: {exc}") from None
            self.documents[key] = document
        return document

    def _remote_document(self, url: str) -> SourceDocument:
        document = self.documents.get(url)
        if document is None:
            import urllib.request  # only when the user allowed remote refs: it costs 40 ms at start-up

            try:
                with urllib.request.urlopen(url, timeout=_REMOTE_TIMEOUT_S) as answer:
                    text = answer.read().decode("utf-8-sig")
                document = parse_text(text, Path(url), url)
            except (OSError, UnicodeDecodeError, SpecError) as exc:
                raise RefError("ref-unresolved", f"$ref to {url!r} could not be fetched: {exc}") from None
            self.documents[url] = document
        return document

    @staticmethod
    def _key_for_path(path: Path) -> str:
        return str(path.resolve())


def _is_remote(address: str) -> bool:
    return address.startswith(("http://", "https://"))


def iter_refs(data: Any) -> list[tuple[str, str]]:
    """Every (pointer of the object holding it, ref) in `data`, iteratively (no recursion limit) and
    visiting a YAML-aliased subtree once."""
    found: list[tuple[str, str]] = []
    # A node's place is (its parent's place, its key or index), spelled as a pointer only for an object holding a
    # ref: a few thousand of a big spec's tens of thousands of containers.
    stack: list[tuple[tuple | None, Any]] = [(None, data)]
    seen: set[int] = set()
    while stack:
        place, node = stack.pop()
        if isinstance(node, dict):
            if id(node) in seen:
                continue
            seen.add(id(node))
            ref = node.get("$ref")
            if isinstance(ref, str):
                found.append((_pointer(place), ref))
            in_examples = place is not None and place[0] is not None and place[0][1] == "examples"  # its parent's key
            for key, value in node.items():
                if not isinstance(value, (dict, list)) or key in _DATA_KEYS or key.startswith("x-"):
                    continue
                if (key == "value" and in_examples) or (key == "examples" and isinstance(value, list)):
                    continue  # an Example Object's value, or a 3.1 schema's list of examples: data
                stack.append(((place, key), value))
        elif isinstance(node, list):
            if id(node) in seen:
                continue
            seen.add(id(node))
            for i, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    stack.append(((place, i), value))
    found.reverse()
    return found


def _pointer(place: tuple | None) -> str:
    """The JSON pointer of an `iter_refs` place."""
    tokens = []
    while place is not None:
        place, token = place
        tokens.append(token)
    return join("", *reversed(tokens))
