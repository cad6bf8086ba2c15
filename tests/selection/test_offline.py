"""The offline runner: the best tool "called", none under a threshold learned from the suite's `none`
cases, the detail a report shows, determinism, the offered subset, all-of cases, progress and cancel."""

from __future__ import annotations

import time

import pytest

from workbench.config import WorkbenchConfig
from workbench.examples import example_path
from workbench.selection.model import ALL_OF, NONE, ONE_OF, Case, Expectation, SampleRequest
from workbench.selection.offline import OfflineRunner, learn_threshold, user_text
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset


def case(case_id: str, prompt: str, *tools: str, mode: str = ONE_OF) -> Case:
    mode = NONE if not tools else mode
    return Case(case_id, ({"role": "user", "content": prompt},), Expectation(mode, tools, tools or ("none",)))


# The bundled example shop: prompts in a customer-support agent's words, not the summaries'.
SHOP = [
    case("find-by-email", "Find the customer whose email is jane@example.com", "listCustomers"),
    case("sign-up", "Sign up a new customer, Ana Lima, ana@example.com", "createCustomer"),
    case("profile", "Show me the profile of customer cus_8f2kQ1x9LmP3aZ", "getCustomer"),
    case("erase", "Erase customer cus_8f2kQ1x9LmP3aZ from our records", "deleteCustomer"),
    case("points", "How many loyalty points does customer cus_8f2kQ1x9LmP3aZ have?",
         "getCustomersLoyaltyByCustomerId"),
    case("unshipped", "Which paid orders haven't shipped yet?", "listOrders"),
    case("buy", "Buy two units of prd_2Mx8Yv5Qn3Ka7C for customer cus_8f2kQ1x9LmP3aZ, ship to 1 Main St",
         "orders_create"),
    case("refunds-of-order", "What refunds have been issued for order ord_4Hq7Zt2Wd9Lr1B?", "listOrderRefunds"),
    case("catalogue", "What do we sell at the moment?", "listProducts"),
    case("stock", "Is product prd_2Mx8Yv5Qn3Ka7C in stock, and at what price?", "op1"),
    case("money-back", "Give back 20 euros on order ord_4Hq7Zt2Wd9Lr1B, the item arrived damaged", "refundOrder"),
    case("none-capital", "What's the capital of Australia?"),
    case("none-joke", "Tell me a joke about cats"),
    case("none-router", "My wifi router keeps dropping the connection, how do I reset it?"),
]


@pytest.fixture(scope="module")
def shop():
    return build_toolset(load_spec(example_path()), WorkbenchConfig(), ToolOverrides(vendor="openai"))


def requests_for(toolset, cases, offered=None, repeats=1):
    names = tuple(offered or (t.name for t in toolset.tools))
    return [SampleRequest(c, r, names) for c in cases for r in range(repeats)]


def passed(c: Case, sample) -> bool:
    names = [call.name for call in sample.calls]
    if c.expect.mode == NONE:
        return not names
    if c.expect.mode == ALL_OF:
        return set(names) == set(c.expect.tools)
    return len(names) == 1 and names[0] in c.expect.tools


def test_learn_threshold_separates_none_cases():
    cases = [case("a", "x", "t"), case("b", "x", "t"), case("n1", "x"), case("n2", "x")]
    assert learn_threshold({"a": 0.5, "b": 0.6, "n1": 0.1, "n2": 0.2}, cases) == pytest.approx(0.35)
    # overlapping: the best place gets 3 of 4 right, and of the equally good places the lowest is taken
    assert learn_threshold({"a": 0.3, "b": 0.6, "n1": 0.1, "n2": 0.4}, cases) == pytest.approx(0.2)
    # no none case, or none cases that score above everything else: never abstain
    assert learn_threshold({"a": 0.5, "b": 0.6}, cases[:2]) is None
    assert learn_threshold({"a": 0.1, "b": 0.2, "n1": 0.5, "n2": 0.6}, cases) is None
    # more none cases than others, all above: declining everything is the most right
    many = [case("a", "x", "t"), *(case(f"n{i}", "x") for i in range(3))]
    assert learn_threshold({"a": 0.1, "n0": 0.5, "n1": 0.6, "n2": 0.7}, many) > 0.7
    # equal scores on both sides cannot be split
    tied = [case("a", "x", "t"), case("n", "x")]
    assert learn_threshold({"a": 0.3, "n": 0.3}, tied) is None


def test_the_shop_suite_offline(shop):
    runner = OfflineRunner()
    samples = {s.case_id: s for s in runner.samples(shop, requests_for(shop, SHOP))}
    assert set(samples) == {c.id for c in SHOP}
    right = [c.id for c in SHOP if passed(c, samples[c.id])]
    assert len(right) >= 12, sorted(set(samples) - set(right))
    for c in SHOP:
        sample = samples[c.id]
        if c.expect.mode == NONE:
            assert sample.calls == () and sample.detail["rank"] is None
        else:
            assert 1 <= sample.detail["rank"] <= len(shop.tools)
            assert all(call.arguments == {} for call in sample.calls)
    assert runner.requests_sent == 0 and runner.cache_hits == 0
    assert runner.threshold is not None and samples["buy"].detail["threshold"] == round(runner.threshold, 4)


def test_detail_shows_rank_margin_and_scores(shop):
    sample = next(OfflineRunner().samples(shop, requests_for(shop, [SHOP[3]])))
    detail = sample.detail
    assert sample.calls[0].name == "deleteCustomer" and detail["rank"] == 1
    names = [name for name, _ in detail["scores"]]
    assert len(detail["scores"]) == 5 and names[0] == "deleteCustomer" and detail["runner_up"] == names[1]
    assert detail["margin"] == pytest.approx(detail["scores"][0][1] - detail["scores"][1][1], abs=1e-3)
    assert detail["margin"] > 0
    assert detail["threshold"] is None  # no none case in this call: it never abstains


def test_off_topic_prompts_are_declined(shop):
    cases = [*SHOP[:6], case("weather", "Will it rain in Lisbon tomorrow?"),
             case("poem", "Write a short poem about the sea"), case("capital", "What's the capital of Peru?")]
    samples = {s.case_id: s for s in OfflineRunner().samples(shop, requests_for(shop, cases))}
    for off_topic in ("weather", "poem", "capital"):
        assert samples[off_topic].calls == ()
        assert samples[off_topic].text
    assert all(samples[c.id].calls for c in cases[:6])


def test_a_fixed_threshold_is_used_as_given(shop):
    runner = OfflineRunner(threshold=10.0)
    assert all(s.calls == () for s in runner.samples(shop, requests_for(shop, SHOP[:3])))
    assert runner.threshold == 10.0


def test_repeats_give_the_same_answer(shop):
    samples = list(OfflineRunner().samples(shop, requests_for(shop, SHOP, repeats=3)))
    assert len(samples) == 3 * len(SHOP)
    by_case: dict[str, set] = {}
    for s in samples:
        by_case.setdefault(s.case_id, set()).add((tuple(c.name for c in s.calls), repr(s.detail)))
    assert all(len(answers) == 1 for answers in by_case.values())
    assert sorted({s.sample for s in samples}) == [0, 1, 2]


def test_only_offered_tools_are_picked(shop):
    offered = ("listCustomers", "listOrders", "listProducts")
    cases = [SHOP[3], SHOP[5]]  # erase a customer (not offered), paid orders (offered)
    samples = {s.case_id: s for s in OfflineRunner().samples(shop, requests_for(shop, cases, offered))}
    assert samples["unshipped"].calls[0].name == "listOrders"
    assert all(name in offered for name, _ in samples["erase"].detail["scores"])
    assert samples["erase"].detail["rank"] is None  # the right tool is not among the offered


def test_all_of_cases_pick_as_many_tools_as_expected(shop):
    both = case("both", "Delete customer cus_1 and also list the products for sale", "deleteCustomer",
                "listProducts", mode=ALL_OF)
    sample = next(OfflineRunner().samples(shop, requests_for(shop, [both])))
    assert len(sample.calls) == 2
    assert {c.name for c in sample.calls} == {"deleteCustomer", "listProducts"}


def test_every_user_message_is_read():
    conversation = Case("c", ({"role": "system", "content": "be terse"}, {"role": "user", "content": "hi"},
                              {"role": "assistant", "content": "hello"},
                              {"role": "user", "content": "refund order 7"}),
                        Expectation(ONE_OF, ("refundOrder",), ("refundOrder",)))
    assert user_text(conversation) == "hi\nrefund order 7"


def test_progress_and_cancel(shop):
    seen: list[tuple[int, int, str]] = []
    samples = list(OfflineRunner().samples(shop, requests_for(shop, SHOP), progress=lambda *a: seen.append(a)))
    assert len(samples) == len(SHOP) and seen[-1][:2] == (len(SHOP), len(SHOP))
    stop = {"now": False}

    def cancel_after_two(done, total, what):
        stop["now"] = done >= 2

    some = list(OfflineRunner().samples(shop, requests_for(shop, SHOP), progress=cancel_after_two,
                                        cancelled=lambda: stop["now"]))
    assert len(some) == 2


def test_a_hundred_cases_rank_quickly(shop):
    """The issue asks for well under a second (measured: about 50 ms); asserted loosely for a shared machine,
    with the model and the index already loaded."""
    runner = OfflineRunner()
    list(runner.samples(shop, requests_for(shop, SHOP)))
    hundred = (SHOP * 8)[:100]
    started = time.perf_counter()
    samples = list(runner.samples(shop, requests_for(shop, hundred)))
    assert len(samples) == 100
    assert time.perf_counter() - started < 3.0
