"""Each default rule is useful in at least 9 of 10 of its findings on real specs: the judged sample in
precision_labels.yaml (see bench/lint_precision.py), re-linted, must still hold. A labelled finding that fires
counts as useful or not as labelled; one that no longer fires counts for nothing (its rule was reworked)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from tests.catalogue import corpus_file
from workbench.lint import RULES, Severity, lint
from workbench.spec import load_spec

LABELS = Path(__file__).with_name("precision_labels.yaml")
SMALL = "readme-v2.0-petstore.yaml"  # the default run's one file: small, and labelled for several rules
FLOOR = 0.9


def labels() -> list[dict]:
    return yaml.safe_load(LABELS.read_text(encoding="utf-8"))["labels"]


def firing(names: set[str]) -> set[tuple[str, str, str]]:
    found = set()
    for name in sorted(names):
        for finding in lint(load_spec(corpus_file(name))).findings:
            found.add((finding.rule, name, finding.pointer))
    return found


def precision(items: list[dict], fired: set[tuple[str, str, str]]) -> dict[str, tuple[int, int]]:
    """(useful, firing) per rule over the labelled findings that fire."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in items:
        if (item["rule"], item["file"], item["pointer"]) in fired:
            counts[item["rule"]][1] += 1
            counts[item["rule"]][0] += 1 if item["useful"] else 0
    return {rule: (useful, total) for rule, (useful, total) in counts.items()}


def test_labels_are_well_formed_and_name_default_rules():
    items = labels()
    assert len(items) >= 250
    for item in items:
        assert set(item) == {"rule", "file", "pointer", "useful", "why"}, item
        assert item["rule"] in RULES and RULES[item["rule"]].default_run is not Severity.OFF, item["rule"]
        assert isinstance(item["useful"], bool) and item["why"].strip()
        assert corpus_file(item["file"]).is_file(), item["file"]


def check(names: set[str]) -> None:
    items = [item for item in labels() if item["file"] in names]
    fired = firing(names)
    scores = precision(items, fired)
    assert scores, "no labelled finding fires"
    low = {rule: f"{useful}/{total}" for rule, (useful, total) in scores.items() if useful < FLOOR * total}
    assert low == {}
    # Every finding judged useful still fires: a rework that silences good findings shows here.
    lost = [(i["rule"], i["file"], i["pointer"]) for i in items
            if i["useful"] and (i["rule"], i["file"], i["pointer"]) not in fired]
    assert lost == []


def test_precision_on_a_small_labelled_file():
    check({SMALL})


@pytest.mark.corpus_sweep
def test_every_default_rule_holds_its_precision_on_the_labelled_sample():
    items = labels()
    check({item["file"] for item in items})
    scores = precision(items, firing({item["file"] for item in items}))
    sampled = {rule for rule, (_, total) in scores.items() if total >= 4}
    defaults = {rule_id for rule_id, rule in RULES.items() if rule.default_run is not Severity.OFF}
    # Every default rule that fires on the corpus is in the sample (the rest fire there rarely or never).
    assert sampled >= defaults - RARE_ON_CORPUS


# Default rules that find fewer than 4 problems on the corpus files (their tests use hand-written snippets).
RARE_ON_CORPUS = {"operation-id-duplicate", "operation-id-reserved-word", "path-params-mismatch",
                  "path-colon-parameter", "unresolved-ref", "format-contradicts-prose", "description-copy-pasted",
                  "server-field-required", "magic-header-unpinned"}
