"""Every corpus file loads, and the loader agrees with MANIFEST.md on its operation count."""

from __future__ import annotations

import re

import pytest

from tests.catalogue import corpus_dir
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


# Finding counts per rule on a few small corpus files, pinned so that any change in a rule shows up here
# (update deliberately, after reading the new findings).
PINNED = {
    "oai-v3.0-petstore-expanded.json": {
        "destructive-operation-unmarked": 1, "id-param-no-source": 2, "operation-id-tool-name-invalid": 1,
        "property-description-missing": 1, "security-undeclared": 1},
    "oai-v2.0-uber.json": {
        "bounds-in-prose": 1, "id-param-no-source": 1, "operation-id-missing": 5, "security-undeclared": 1},
    "readme-v3.1-train-travel.yaml": {  # id-param-no-source: a path parameter, and Booking's trip_id (get-trips)
        "destructive-operation-unmarked": 1, "id-param-no-source": 2, "numeric-unit-missing": 1,
        "operation-description-restates-signature": 1, "property-description-missing": 1,
        "unsafe-write-unmarked": 1},
    "twilio-oauth-v1.json": {
        "error-responses-missing": 2, "id-param-no-source": 1, "operation-description-thin": 1,
        "string-format-missing": 2, "summary-equals-description": 2},
    "redocly-museum.yaml": {
        "destructive-operation-unmarked": 1, "id-param-no-source": 2, "numeric-unit-missing": 1,
        "operation-description-restates-signature": 1, "unsafe-write-unmarked": 1},
}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_finding_counts(corpus, name):
    findings = lint(load_spec(corpus / name)).findings
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    assert counts == PINNED[name]
