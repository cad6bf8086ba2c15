"""Loading and linting for the workbench, without Qt: what the command line computes, cancellable by steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.catalogue import corpus_dir
from workbench.config import find_config
from workbench.edit import Edit, apply_edits
from workbench.edit.engine import apply_splices, inverse_splices
from workbench.spec.source import parse_text
from workbench.workspace import Cancelled, load_and_lint

TRAVEL = corpus_dir() / "readme-v3.1-train-travel.yaml"


@pytest.fixture(scope="module")
def travel():
    return load_and_lint(TRAVEL)


def test_load_and_lint_is_what_the_command_line_computes(travel):
    assert len(travel.operations) == len(travel.spec.operations) + len(travel.spec.webhook_operations)
    assert [e.finding for e in travel.problems] == list(travel.result.findings)
    assert 0 <= travel.score.score <= 100
    assert travel.config_path == find_config(TRAVEL)


def test_load_and_lint_can_be_cancelled_between_steps():
    steps = []
    with pytest.raises(Cancelled):
        load_and_lint(TRAVEL, steps.append, lambda: len(steps) >= 2)
    assert len(steps) == 2 and steps[0].startswith("Reading")


def test_inverse_splices_restore_the_original():
    text = "a: 1\nb:\n  c: x  # keep\n"
    document = parse_text(text, Path("t.yaml"), "t.yaml")
    outcome = apply_edits(document, [Edit("/a", 2), Edit("/b/c", "longer value")])
    splices = [splice for _edit, splice in outcome.applied]
    assert apply_splices(outcome.document.text, inverse_splices(text, splices)) == text
