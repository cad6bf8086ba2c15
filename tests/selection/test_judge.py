"""The judge: every answer gets exactly one outcome, in a fixed order of blame, and argument validity and
expected values are kept apart from selection."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.config import WorkbenchConfig
from workbench.selection.judge import Judge, f1, lenient_equal
from workbench.selection.model import (
    ALL_OF,
    DECLINED,
    ERROR,
    FALSE_CALL,
    HALLUCINATED,
    MALFORMED,
    NONE,
    ONE_OF,
    PASSED,
    WRONG_TOOL,
    Called,
    Case,
    Expectation,
    Sample,
)
from workbench.spec import load_spec
from workbench.tools.options import build_toolset

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "shop-api.yaml"


@pytest.fixture(scope="module")
def judge() -> Judge:
    spec = load_spec(EXAMPLE)
    return Judge(spec, build_toolset(spec, WorkbenchConfig()))


def case(mode: str, *tools: str, arguments=None) -> Case:
    return Case("c1", ({"role": "user", "content": "do it"},), Expectation(mode, tools, tools),
                arguments=arguments or {})


def answer(*calls: Called, error: str | None = None) -> Sample:
    return Sample("c1", 0, calls=calls, error=error)


def offered(judge: Judge) -> tuple[str, ...]:
    return tuple(t.name for t in judge.toolset.tools)


def test_the_right_tool_with_valid_arguments_passes(judge):
    call = Called("getOrder", {"orderId": "ord_4Hq7Zt2Wd9Lr1B"})
    verdict = judge.verdict(case(ONE_OF, "getOrder"), answer(call), offered(judge))
    assert (verdict.outcome, verdict.picked, verdict.arguments_valid) == (PASSED, ("getOrder",), True)


def test_selection_and_argument_validity_are_apart(judge):
    verdict = judge.verdict(case(ONE_OF, "getOrder"), answer(Called("getOrder", {})), offered(judge))
    assert verdict.outcome == PASSED  # the right tool was picked
    assert verdict.arguments_valid is False
    assert any("orderId" in p for p in verdict.argument_problems)


def test_wrong_tool_declined_and_false_call(judge):
    assert judge.verdict(case(ONE_OF, "getOrder"), answer(Called("fetchOrderDetails", {"orderId": "1"})),
                         offered(judge)).outcome == WRONG_TOOL
    assert judge.verdict(case(ONE_OF, "getOrder"), answer(), offered(judge)).outcome == DECLINED
    assert judge.verdict(case(NONE), answer(), offered(judge)).outcome == PASSED
    assert judge.verdict(case(NONE), answer(Called("listOrders", {})), offered(judge)).outcome == FALSE_CALL


def test_the_order_of_blame_error_hallucinated_malformed(judge):
    broken = Called("getOrder", None, "{orderId: ", "arguments are not valid JSON")
    assert judge.verdict(case(ONE_OF, "getOrder"), answer(broken, error="timed out"), offered(judge)).outcome == ERROR
    assert judge.verdict(case(ONE_OF, "getOrder"), answer(broken, Called("get_order_v2", {})),
                         offered(judge)).outcome == HALLUCINATED
    verdict = judge.verdict(case(NONE), answer(broken), offered(judge))
    assert verdict.outcome == MALFORMED  # a call that failed to parse is never an abstention
    assert verdict.argument_problems == ("getOrder: arguments are not valid JSON",)


def test_a_tool_that_exists_but_was_not_offered_is_hallucinated(judge):
    verdict = judge.verdict(case(ONE_OF, "getOrder"), answer(Called("listProducts", {})), ("getOrder", "listOrders"))
    assert verdict.outcome == HALLUCINATED


def test_one_of_accepts_any_listed_tool_but_not_an_extra_call(judge):
    expected = case(ONE_OF, "getOrder", "fetchOrderDetails")
    assert judge.verdict(expected, answer(Called("fetchOrderDetails", {"orderId": "1"})),
                         offered(judge)).outcome == PASSED
    assert judge.verdict(expected, answer(Called("getOrder", {"orderId": "1"}), Called("listOrders", {})),
                         offered(judge)).outcome == WRONG_TOOL


def test_all_of_is_scored_by_f1_over_names(judge):
    expected = case(ALL_OF, "getOrder", "getCustomer")
    both = judge.verdict(expected, answer(Called("getOrder", {"orderId": "1"}), Called("getCustomer",
                                                                                        {"customerId": "c"})),
                         offered(judge))
    assert (both.outcome, both.f1) == (PASSED, 1.0)
    half = judge.verdict(expected, answer(Called("getOrder", {"orderId": "1"})), offered(judge))
    assert half.outcome == WRONG_TOOL and half.f1 == pytest.approx(2 / 3)
    assert judge.verdict(expected, answer(), offered(judge)).f1 == 0.0


def test_expected_values_are_compared_leniently_and_apart(judge):
    expected = case(ONE_OF, "listOrders", arguments={"listOrders": {"status": "Shipped", "limit": 5}})
    good = judge.verdict(expected, answer(Called("listOrders", {"status": "shipped ", "limit": "5"})), offered(judge))
    assert good.arguments_match is True
    bad = judge.verdict(expected, answer(Called("listOrders", {"status": "pending"})), offered(judge))
    assert bad.outcome == PASSED and bad.arguments_match is False
    assert any("limit" in p and "not given" in p for p in bad.argument_problems)
    assert any("status" in p and '"pending"' in p for p in bad.argument_problems)
    other = judge.verdict(expected, answer(Called("getOrder", {"orderId": "1"})), offered(judge))
    assert other.arguments_match is None  # nothing expected of that tool


def test_lenient_equality():
    assert lenient_equal({"a": 1, "b": [1, 2]}, {"a": "1"})
    assert lenient_equal(["x", "Y"], ["y"])
    assert lenient_equal("true", True) and not lenient_equal("false", True)
    assert not lenient_equal(None, "x") and lenient_equal(None, None)
    assert not lenient_equal("abc", 3)
    assert f1(["a", "a"], ["a", "b"]) == pytest.approx(2 / 3)
    assert f1(["a2", "b"], [("a1", "a2"), ("b",)]) == 1.0  # any tool of a group will do
    assert f1(["a1", "a2"], [("a1", "a2"), ("b",)]) == pytest.approx(2 / 3)
    assert f1([], ["a"]) == 0.0
