"""The figures a selection report stands on: Wilson intervals, τ-bench's pass^k, the split of `none` cases,
errors kept out of the rates, the confusion matrix and accuracy per tool count, on hand-made runs whose
right answers are worked out by hand below."""

from __future__ import annotations

import math

import numpy
import pytest

from workbench.selection.metrics import (
    case_results,
    clustered_wilson,
    confusion,
    design_effect,
    pass_hat_k,
    percentile,
    scale_results,
    summarise,
    wilson,
)
from workbench.selection.model import (
    DECLINED,
    ERROR,
    FALSE_CALL,
    HALLUCINATED,
    MALFORMED,
    PASSED,
    WRONG_TOOL,
    Prices,
)


def test_wilson_matches_published_intervals():
    # Newcombe (1998), table I: 81/263 → 0.2553–0.3662; 15/148 → 0.0624–0.1605; 0/20 → 0–0.1611; 1/29 → 0.0061–0.1718
    for (c, n), (lo, hi) in {(81, 263): (0.2553, 0.3662), (15, 148): (0.0624, 0.1605), (0, 20): (0.0, 0.1611),
                             (1, 29): (0.0061, 0.1718)}.items():
        assert wilson(c, n) == pytest.approx((lo, hi), abs=1e-4)
    assert wilson(10, 10)[1] == 1.0 and wilson(10, 10)[0] == pytest.approx(1 - wilson(0, 10)[1])
    assert wilson(0, 0) == (0.0, 1.0)
    narrow, wide = wilson(80, 100), wilson(8, 10)
    assert wide[0] < narrow[0] < 0.8 < narrow[1] < wide[1]


def test_pass_hat_k_is_tau_bench_definition():
    assert pass_hat_k([(9, 10)], 1) == pytest.approx(0.9)
    assert pass_hat_k([(3, 4)], 2) == pytest.approx(3 / 6)  # C(3,2)/C(4,2)
    assert pass_hat_k([(4, 4), (2, 4)], 2) == pytest.approx((1 + 1 / 6) / 2)
    assert pass_hat_k([(9, 10)], 10) == 0.0  # one failure in ten: not all ten pass
    assert pass_hat_k([(5, 5), (1, 2)], 3) == 1.0  # the case with two runs says nothing about three tries
    assert pass_hat_k([(1, 2)], 3) is None
    # it falls with k like τ-bench's table: the same c/n, asked for more tries in a row
    values = [pass_hat_k([(7, 8), (5, 8), (8, 8)], k) for k in range(1, 9)]
    assert values == sorted(values, reverse=True) and values[0] == pytest.approx(20 / 24)


def test_percentile_interpolates_like_numpy():
    values = [0.12, 0.5, 0.31, 2.0, 0.07, 0.9, 0.44]
    for q in (0.5, 0.95, 0.0, 1.0):
        assert percentile(values, q) == pytest.approx(numpy.percentile(values, 100 * q))
    assert percentile([], 0.5) is None


@pytest.fixture
def mixed(build):
    """Five cases × three repeats: every outcome, one error, an all-of case, two `none` cases."""
    b = build
    cases = [b.case("get", "get_pet"), b.case("add", "add_pet"), b.case("quiet", prompt="what time is it?"),
             b.case("chat"), b.all_of("both", "get_pet", "add_pet")]
    v = b.verdict
    verdicts = [
        v("get", 0, PASSED, ("get_pet",), valid=True, match=True, tokens=(100, 10), latency=0.1,
          detail={"rank": 1, "margin": 0.25, "runner_up": "find_pets"}),
        v("get", 1, PASSED, ("get_pet",), valid=False, match=False, tokens=(100, 10), latency=0.2,
          problems=("query/limit: expected integer",)),
        v("get", 2, WRONG_TOOL, ("find_pets",), valid=True, tokens=(100, 10), latency=0.3),
        v("add", 2, ERROR, (), error="timed out after 60 s", latency=60.0),  # out of order on purpose
        v("add", 0, DECLINED, ()),
        v("add", 1, PASSED, ("add_pet",)),
        v("quiet", 0, PASSED, ()),
        v("quiet", 1, FALSE_CALL, ("get_pet",)),
        v("quiet", 2, MALFORMED, ("get_pet",)),
        v("chat", 0, HALLUCINATED, ("delete_everything",)),
        v("chat", 1, PASSED, ()),
        v("chat", 2, PASSED, ()),
        v("both", 0, PASSED, ("get_pet", "add_pet"), f1=1.0),
        v("both", 1, WRONG_TOOL, ("get_pet",), f1=2 / 3),
        v("both", 2, PASSED, ("add_pet", "get_pet"), f1=1.0),
    ]
    return b.run(cases, verdicts, repeats=3, prices=Prices(input=2.0, output=8.0), requests_sent=14, cache_hits=1,
                 api="openai-chat", model="m")


def test_summary_counts_by_hand(mixed):
    s = summarise(mixed)
    assert (s.cases, s.runs, s.passed, s.errors) == (5, 14, 8, 1)  # the error is not a run
    assert s.accuracy == pytest.approx(8 / 14) and s.accuracy_ci == pytest.approx(wilson(8, 14))
    # per case (passed, runs): get 2/3, add 1/2, quiet 1/3, chat 2/3, both 2/3
    assert s.pass_k["1"] == pytest.approx((2 / 3 + 1 / 2 + 1 / 3 + 2 / 3 + 2 / 3) / 5)
    assert s.pass_k["2"] == pytest.approx((1 / 3 + 0 + 0 + 1 / 3 + 1 / 3) / 5)
    assert s.pass_k["3"] == 0.0 and list(s.pass_k) == ["1", "2", "3"]
    assert s.pass_k["1"] != s.accuracy  # pass^1 weighs cases equally, accuracy weighs runs
    # declined where a call was expected: 1 of the 8 runs of get, add and both
    assert (s.declined, s.no_call_runs, s.no_call_rate) == (1, 8, pytest.approx(1 / 8))
    # none cases: a false call, a malformed call and an invented tool are all calls, not abstentions
    assert (s.none_runs, s.none_declined, s.none_called, s.false_call_rate) == (6, 3, 3, 0.5)
    assert (s.hallucinated, s.malformed) == (1, 1)
    assert s.f1_mean == pytest.approx((1 + 2 / 3 + 1) / 3) and s.f1_runs == 3
    assert (s.arguments_valid_runs, s.arguments_valid_rate) == (3, pytest.approx(2 / 3))
    assert (s.arguments_match_runs, s.arguments_match_rate) == (2, 0.5)
    assert (s.usage.input_tokens, s.usage.output_tokens) == (300, 30)
    assert s.usage.cost == pytest.approx((300 * 2.0 + 30 * 8.0) / 1e6)
    latencies = [0.1, 0.2, 0.3, 60.0] + [0.0] * 11
    assert s.usage.latency_p95 == pytest.approx(numpy.percentile(latencies, 95))
    assert s.usage.latency_mean == pytest.approx(sum(latencies) / 15)
    assert (s.requests_sent, s.cache_hits) == (14, 1)
    assert s.outcomes == {PASSED: 8, WRONG_TOOL: 2, DECLINED: 1, FALSE_CALL: 1, MALFORMED: 1, HALLUCINATED: 1,
                          ERROR: 1}


def test_summary_json_has_the_issue_keys(mixed):
    out = summarise(mixed).to_json()
    for key in ("cases", "runs", "accuracy", "accuracy_ci", "pass_k", "no_call_rate", "false_call_rate",
                "hallucinated", "malformed"):
        assert key in out
    assert out["accuracy_ci"][0] < out["accuracy"] < out["accuracy_ci"][1]
    assert out["none_cases"] == {"runs": 6, "declined": 3, "called": 3}
    # samples of a model API with no usage counted apart (the fixture gives tokens on some only)
    assert out["tokens"] == {"input": 300, "output": 30, "unknown": 11} and out["cost"] == pytest.approx(0.00084)


def test_cost_only_with_prices(build):
    run = build.run([build.case("get", "get_pet")], [build.verdict("get", 0, PASSED, ("get_pet",), tokens=(5, 1))])
    assert summarise(run).usage.cost is None
    assert summarise(run).to_json()["cost"] is None


def test_case_results_in_sample_order(mixed):
    by_id = {c.id: c for c in case_results(mixed)}
    assert [c.id for c in case_results(mixed)] == ["get", "add", "quiet", "chat", "both"]
    get = by_id["get"]
    assert get.selected == ["get_pet", "get_pet", "find_pets"] and (get.passed, get.runs) == (2, 3)
    assert get.flaky and get.expected == "get_pet"
    assert (get.rank, get.margin, get.runner_up) == (1, 0.25, "find_pets")
    assert get.problems == ["query/limit: expected integer"]
    add = by_id["add"]
    assert add.selected == ["none", "add_pet", None] and (add.passed, add.runs, add.errors) == (1, 2, 1)
    assert add.problems == ["timed out after 60 s"] and add.rank is None
    assert by_id["quiet"].expected == "none" and by_id["quiet"].selected == ["none", "get_pet", "get_pet"]
    both = by_id["both"]
    assert both.expected == "add_pet + get_pet" and both.selected[1] == "get_pet"  # labels in name order
    assert both.f1 == pytest.approx((1 + 2 / 3 + 1) / 3)
    js = get.to_json()
    assert {k: js[k] for k in ("id", "expected", "selected", "passed", "runs", "flaky")} == {
        "id": "get", "expected": "get_pet", "selected": ["get_pet", "get_pet", "find_pets"], "passed": 2,
        "runs": 3, "flaky": True}


def test_not_flaky_when_all_or_nothing(build):
    cases = [build.case("always", "a"), build.case("never", "a")]
    verdicts = [build.verdict("always", i, PASSED, ("a",)) for i in range(3)] + [
        build.verdict("never", i, WRONG_TOOL, ("b",)) for i in range(3)]
    results = {c.id: c for c in case_results(build.run(cases, verdicts, repeats=3))}
    assert not results["always"].flaky and not results["always"].failed
    assert not results["never"].flaky and results["never"].failed and results["never"].picks() == {"b": 3}


def test_confusion_matrix(mixed):
    assert confusion(mixed) == {
        "get_pet": {"get_pet": 2, "find_pets": 1},
        "add_pet": {"none": 1, "add_pet": 1},  # the error is not in it
        "none": {"none": 3, "get_pet": 2, "delete_everything": 1},  # both none cases, the invented name as is
        # the same two calls in either order are one choice
        "add_pet + get_pet": {"add_pet + get_pet": 2, "get_pet": 1},
    }


def test_scale_points(build):
    cases = [build.case(f"c{i}", "t") for i in range(10)]
    ok = [build.verdict(f"c{i}", 0, PASSED, ("t",)) for i in range(10)]
    half = [build.verdict(f"c{i}", 0, PASSED if i < 5 else WRONG_TOOL, ("t",) if i < 5 else ("u",))
            for i in range(10)]
    errors = [build.verdict(f"c{i}", 0, ERROR) for i in range(10)]
    run = build.run(cases, ok, scale={40: half, 10: ok, 80: errors})
    points = scale_results(run)
    assert [(p.size, p.passed, p.runs, p.errors) for p in points] == [(10, 10, 10, 0), (40, 5, 10, 0), (80, 0, 0, 10)]
    assert points[1].accuracy == 0.5 and points[1].ci == wilson(5, 10)
    assert points[2].accuracy is None and points[2].to_json()["accuracy"] is None


def test_only_errors_is_no_accuracy(build):
    run = build.run([build.case("a", "t")], [build.verdict("a", 0, ERROR, error="budget spent")],
                    api="openai-chat", model="m")
    s = summarise(run)
    assert (s.runs, s.errors, s.accuracy, s.accuracy_ci) == (0, 1, None, (0.0, 1.0))
    assert s.pass_k == {"1": None} and s.no_call_rate is None and s.false_call_rate is None
    assert not math.isnan(s.usage.latency_mean)


def test_cancelled_run_keeps_cases_without_samples(build):
    run = build.run([build.case("a", "t"), build.case("b", "t")], [build.verdict("a", 0, PASSED, ("t",))])
    run.cancelled = True
    s = summarise(run)
    assert (s.cases, s.runs, s.accuracy, s.cancelled) == (2, 1, 1.0, True)
    assert [(c.id, c.runs) for c in case_results(run)] == [("a", 1), ("b", 0)]


def test_the_offline_scorer_has_no_latency(build):
    run = build.run([build.case("a", "t")], [build.verdict("a", 0, PASSED, ("t",))])
    assert summarise(run).usage.latency_mean is None


def test_the_design_effect_counts_repeats_as_far_as_they_are_new():
    assert design_effect([(3, 3), (0, 3), (3, 3)]) == 3.0  # a deterministic runner: one observation a case
    assert design_effect([(1, 1), (0, 1), (1, 1)]) == 1.0  # one run a case
    assert design_effect([(2, 4), (2, 4), (2, 4), (2, 4)]) == 1.0  # cases alike, runs disagree: independent
    assert clustered_wilson([(3, 3), (0, 3), (3, 3)]) == wilson(2, 3)
    assert clustered_wilson([(1, 1), (0, 1)]) == wilson(1, 2)
