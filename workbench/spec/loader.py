"""Load an API description: read, parse with positions, check every `$ref`, normalise."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from workbench.spec.model import Spec
from workbench.spec.normalize import Normalizer, detect_version
from workbench.spec.refs import RefPolicy, Resolver
from workbench.spec.source import parse_document


def load_spec(path: str | os.PathLike[str], policy: RefPolicy | None = None) -> Spec:
    """Load the document at `path`. Raises SpecError when it cannot be used at all; everything else that
    is wrong (broken refs, duplicate keys) is in `spec.problems`."""
    path = Path(path)
    root = parse_document(path, os.fspath(path))
    version, declared = detect_version(root)
    resolver = Resolver(root, policy or RefPolicy())
    resolver.check_all(root)
    normalizer = Normalizer(root, resolver, version)
    spec = normalizer.spec(declared)
    problems = [p for document in resolver.documents.values() for p in document.problems]
    problems += resolver.problems + normalizer.problems
    return dataclasses.replace(spec, problems=tuple(problems), resolver=resolver,
                               documents={d.name: d for d in resolver.documents.values()})
