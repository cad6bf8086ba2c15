"""Load an API description: read, parse with positions, check every `$ref`, normalise."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from workbench.spec.errors import SpecError
from workbench.spec.model import Spec
from workbench.spec.normalize import Normalizer, detect_version
from workbench.spec.refs import RefPolicy, Resolver
from workbench.spec.source import SourceDocument, is_blank, parse_document, parse_text


def load_spec(path: str | os.PathLike[str], policy: RefPolicy | None = None, *, text: str | None = None,
              bom: bool = False, documents: Iterable[SourceDocument] = (), positions: bool = True) -> Spec:
    """Load the document at `path`. Raises SpecError when it cannot be used at all; everything else that
    is wrong (broken refs, duplicate keys) is in `spec.problems`.

    With `text`, that text is the root document (an editor's unsaved edits) in place of the file's: it keeps
    the file's path, so relative `$ref`s resolve — and refs back into the root see the edited text. Likewise
    `documents` (edited documents of other files of the spec) are used in place of reading their files.

    `positions=False` is for a command that places nothing it reports (tools, call, mock): a YAML root's span
    index is then built only if something asks for a place."""
    path = Path(path)
    if text is None:
        root = parse_document(path, os.fspath(path), positions=positions)
    else:
        if is_blank(text):
            raise SpecError("the file is empty", os.fspath(path), code="file-empty")
        root = parse_text(text, path, os.fspath(path), bom=bom)
    version, declared = detect_version(root)
    resolver = Resolver(root, policy or RefPolicy(), documents)
    resolver.check_all(root)
    normalizer = Normalizer(root, resolver, version)
    spec = normalizer.spec(declared)
    problems = [p for document in resolver.documents.values() for p in document.problems]
    problems += resolver.problems + normalizer.problems
    return spec._replace(problems=tuple(problems), resolver=resolver,
                         documents={d.name: d for d in resolver.documents.values()})
