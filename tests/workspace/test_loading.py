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


def test_no_collection_runs_while_the_collector_is_paused_and_what_it_built_is_frozen_after():
    import gc
    import threading

    from workbench.workspace.loading import collector_paused

    collections: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    gc.enable()
    gc.set_threshold(10, 1, 1)  # a collection every few containers, were the collector on
    gc.callbacks.append(seen)
    entered, release = threading.Event(), threading.Event()

    def overlapping() -> None:  # a second job's pause, ending after the first
        with collector_paused():
            entered.set()
            release.wait(10)

    other = threading.Thread(target=overlapping)
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            collections.clear()  # those before the pause
            other.start()
            assert entered.wait(10)
            built = [[n] for n in range(5000)]
            assert not gc.isenabled()
        assert not gc.isenabled()  # the other pause still runs
        more = [[n] for n in range(5000)]
        assert collections == []
        release.set()
        other.join(10)
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(built) + len(more)  # never scanned by a collection to come
        gc.disable()
        with collector_paused():
            pass
        assert not gc.isenabled()  # a collector that was off stays off
    finally:
        release.set()
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        (gc.enable if enabled else gc.disable)()
