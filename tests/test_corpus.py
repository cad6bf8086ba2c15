"""Every corpus file loads, and the loader agrees with MANIFEST.md on its operation count."""

from __future__ import annotations

import re

import pytest

from tests.conftest import corpus_dir
from workbench.lint import lint
from workbench.spec import load_spec


def manifest() -> dict[str, int]:
    rows = {}
    for line in (corpus_dir() / "MANIFEST.md").read_text().splitlines():
        match = re.match(r"\|\s*([\w.-]+\.(?:json|yaml))\s*\|.*\|\s*(\d+)\s*\|\s*$", line)
        if match:
            rows[match.group(1)] = int(match.group(2))
    return rows


def test_manifest_lists_every_corpus_file(corpus):
    on_disk = {p.name for p in corpus.iterdir() if p.suffix in (".json", ".yaml")}
    assert set(manifest()) == on_disk and len(on_disk) == 32


@pytest.mark.parametrize("name, operations", sorted(manifest().items()))
def test_operation_count_matches_manifest_and_lint_runs(corpus, name, operations):
    spec = load_spec(corpus / name)
    assert len(spec.operations) == operations
    assert [p for p in spec.problems if p.code.startswith("ref-")] == []
    result = lint(spec)
    for finding in result.findings:  # every finding has a real place in its file
        where = finding.locate()
        assert 1 <= where.start.line <= where.end.line, finding


def test_large_corpus_file_positions(corpus):
    """The 4 MB GitHub description: an operation's origin points at the right line of the file."""
    spec = load_spec(corpus / "github-api.github.com-2022-07-18.json")
    op = next(o for o in spec.operations if o.operation_id == "repos/get")
    where = op.origin.locate()
    lines = spec.root.text.splitlines()
    assert lines[where.key_start.line - 1].strip() == '"get": {'
    assert lines[where.key_start.line - 2].strip() == '"/repos/{owner}/{repo}": {'
