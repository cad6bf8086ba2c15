"""Derived names: the summary's verb before the method's, shortened at word boundaries within 64 characters."""

from __future__ import annotations

import pytest

from tests.catalogue import HEAD
from workbench.config import WorkbenchConfig
from workbench.lint import lint
from workbench.naming import (
    derive_operation_id,
    is_valid_tool_name,
    sanitize_tool_name,
    shorten,
    split_words,
    summary_verb,
    with_suffix,
)
from workbench.spec import load_spec
from workbench.tools.options import build_toolset


@pytest.mark.parametrize("method, path, summary, expected", [
    # a PATCH that lists orders tells the model it lists, not that it updates
    ("patch", "/shoppings/customers/orders", "List orders", "listShoppingsCustomersOrders"),
    ("patch", "/shoppings/customers/orders", "Lists the customer's orders", "listShoppingsCustomersOrders"),
    ("post", "/orders/search", "Search orders by status", "searchOrdersSearch"),
    ("post", "/search/orders", "Search orders", "searchOrders"),
    ("post", "/orders", "Create an order", "createOrders"),
    ("post", "/orders/{orderId}", "Deletes an order", "deleteOrdersByOrderId"),
    ("post", "/payments/{id}/cancel", "Cancel a payment", "cancelPaymentsCancelById"),
    ("post", "/hooks/{id}/pings", "Test a webhook", "testHooksPingsById"),
    # no verb, a noun-or-verb word before no determiner, or only "this reads": the method decides
    ("post", "/hooks/{id}/results", "Test results of a hook", "createHooksResultsById"),
    ("get", "/orders", "Returns all orders", "listOrders"),
    ("get", "/orders/{orderId}", "Get an order", "getOrdersByOrderId"),
    ("put", "/orders/{orderId}", "The order, replaced", "replaceOrdersByOrderId"),
    ("patch", "/orders/{orderId}", None, "updateOrdersByOrderId"),
    ("delete", "/orders/{orderId}", "", "deleteOrdersByOrderId"),
    ("get", "/orders/{orderId}/refunds", None, "listOrdersRefundsByOrderId"),
])
def test_the_summary_verb_comes_before_the_method(method, path, summary, expected):
    assert derive_operation_id(method, path, summary) == expected


@pytest.mark.parametrize("summary, verb", [("List orders", "list"), ("Searches customers", "search"),
                                           ("Creates a pet", "create"), ("Order details", None),
                                           ("Issue a refund", "issue"), ("Issues for a repo", None),
                                           ("Returns a pet", None), ("", None), (None, None)])
def test_summary_verb(summary, verb):
    assert summary_verb(summary) == verb


def test_a_long_derived_name_drops_whole_words_never_cuts_one():
    path = ("/accounts/{account_id}/organizations/{organization_id}/workspaces/{workspace_id}"
            "/environments/{environment_id}/deployments/{deployment_id}/artifacts")
    name = derive_operation_id("get", path)
    full = "listAccountsOrganizationsWorkspacesEnvironmentsDeploymentsArtifacts"  # 67 characters
    assert len(full) > 64 and name == "listOrganizationsWorkspacesEnvironmentsDeploymentsArtifacts"
    assert is_valid_tool_name(name) and set(split_words(name)) <= set(split_words(full))


def test_shorten_and_sanitise_cut_at_word_boundaries():
    long_id = "zone-level-access-service-tokens-list-service-tokens-for-the-account-and-every-zone"
    cleaned = sanitize_tool_name(long_id)
    assert cleaned == "zone-tokens-list-service-tokens-for-the-account-and-every-zone"  # first and last words kept
    assert len(cleaned) <= 64 and long_id.endswith(cleaned.removeprefix("zone"))
    assert sanitize_tool_name("repos/get-commit") == "repos_get-commit"
    kubernetes = "deleteAdmissionregistrationV1CollectionMutatingAdmissionPolicyBinding"
    assert shorten(kubernetes) == "deleteV1CollectionMutatingAdmissionPolicyBinding"
    camel = "getRepositoryEnvironmentDeploymentProtectionRuleIntegrationsForTheCurrentApp"
    assert shorten(camel) == "getDeploymentProtectionRuleIntegrationsForTheCurrentApp"
    assert shorten("x" * 70) == "x" * 64  # only a single word longer than the limit is itself cut
    suffixed = with_suffix("getReposActionsRunsAttemptsLogsByOwnerAndRepoAndRunIdAndAttempt", "_2")
    assert suffixed == "getActionsRunsAttemptsLogsByOwnerAndRepoAndRunIdAndAttempt_2" and len(suffixed) <= 64


SPEC = HEAD + """paths:
  /shoppings/customers/orders:
    patch:
      summary: List orders
      tags: [orders]
      responses: {'200': {description: ok}}
"""


def test_the_lint_fix_and_the_tool_name_take_the_summary_verb(write):
    spec = load_spec(write("s.yaml", SPEC))
    fixes = [f.fix.value for f in lint(spec).findings if f.rule == "operation-id-missing"]
    assert fixes == ["listShoppingsCustomersOrders"]
    tools = build_toolset(spec, WorkbenchConfig()).tools
    assert [t.name for t in tools] == ["listShoppingsCustomersOrders"]


@pytest.mark.parametrize(("text", "words"), [
    ("unitPriceCents", ["unit", "Price", "Cents"]),
    ("unit_price-cents", ["unit", "price", "cents"]),
    ("HTTPServer", ["HTTP", "Server"]),
    ("MyHTTP2Server", ["My", "HTTP2", "Server"]),
    ("ABC123def", ["ABC123def"]),
    ("A1B", ["A1", "B"]),
    ("getURLForID", ["get", "URL", "For", "ID"]),
    ("straße Ünicode", ["stra", "e", "nicode"]),  # letters outside A–Z part words, as before
    ("", []),
])
def test_split_words_parts_at_separators_and_capitals(text, words):
    assert split_words(text) == words


def test_split_words_finds_the_words_of_the_three_alternatives():
    # split_words searches with the alternatives led by a word's first character: the same words as `_WORD`'s
    import random

    from workbench.naming import _WORD

    rng = random.Random(7)
    texts = ["HTTPServer v2 unitPriceCents", "ABCdefGHi", "aB1Cd2EF3gh IDs", "x-API-Key_ID", "é Ünicode ÀB"]
    texts += ["".join(rng.choice("aAbBZz09 _-.:éÉ\n") for _ in range(rng.randint(0, 40))) for _ in range(3000)]
    for text in texts:
        assert split_words(text) == _WORD.findall(text), text
