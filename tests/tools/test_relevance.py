"""The offline relevance scorer: the obviously right tool first on small specs, role words in paths,
verbs mapped onto intents, the distractors for accuracy against tool count, `workbench tools
--relevant-to`, the model loaded from the wheel with no network, and GitHub's catalogue."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.catalogue import GITHUB, REPO, corpus_file
from workbench.config import WorkbenchConfig
from workbench.spec import load_spec
from workbench.tools import relevance
from workbench.tools.options import ToolOverrides, build_toolset

ACCOUNTS = """\
openapi: 3.1.0
info: {title: Accounts, version: '1'}
paths:
  /users:
    get:
      operationId: listUsers
      summary: List the users of your team
      parameters:
        - {name: role, in: query, schema: {type: string}, description: Only users with this role}
      responses: {'200': {description: ok}}
    post:
      operationId: inviteUser
      summary: Invite a new user to your team by email
      responses: {'201': {description: created}}
  /users/{userId}:
    get:
      operationId: getUser
      summary: Get one user's profile
      parameters: [{name: userId, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok}}
    patch:
      operationId: updateUser
      summary: Change a user's display name or avatar
      parameters: [{name: userId, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok}}
    delete:
      operationId: removeUser
      summary: Remove a user from your team
      parameters: [{name: userId, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: gone}}
  /admin/users:
    get:
      operationId: adminListUsers
      summary: List users across every organisation (administrators only)
      responses: {'200': {description: ok}}
  /admin/users/{userId}/suspend:
    post:
      operationId: adminSuspendUser
      summary: Suspend a user's account everywhere (administrators only)
      parameters: [{name: userId, in: path, required: true, schema: {type: string}}]
      responses: {'204': {description: done}}
  /invoices:
    get:
      operationId: listInvoices
      summary: List invoices, newest first
      responses: {'200': {description: ok}}
  /invoices/{invoiceId}/pdf:
    get:
      operationId: downloadInvoicePdf
      summary: Download an invoice as a PDF document
      parameters: [{name: invoiceId, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok}}
"""


@pytest.fixture(scope="module")
def accounts(tmp_path_factory):
    path = tmp_path_factory.mktemp("accounts") / "accounts.yaml"
    path.write_text(ACCOUNTS, encoding="utf-8")
    return path, build_toolset(load_spec(path), WorkbenchConfig(), ToolOverrides(vendor="openai"))


@pytest.mark.parametrize(("prompt", "expected"), [
    ("show me everyone on my team", "listUsers"),
    ("send an invitation to ana@example.com so she can join the team", "inviteUser"),
    ("what's in the profile of user u_42?", "getUser"),
    ("rename user u_42 to 'Ana L.'", "updateUser"),
    ("kick u_42 off the team", "removeUser"),
    ("as an administrator, list the users of every organisation", "adminListUsers"),
    ("suspend the account of u_42 across the whole platform", "adminSuspendUser"),
    ("get me the PDF of invoice in_7", "downloadInvoicePdf"),
    ("which invoices did we receive lately?", "listInvoices"),
])
def test_the_right_tool_ranks_first(accounts, prompt, expected):
    _, toolset = accounts
    ranked = relevance.ToolIndex.of(toolset).rank(prompt)
    assert ranked[0].name == expected, [(r.name, round(r.score, 3)) for r in ranked[:3]]
    assert ranked == sorted(ranked, key=lambda r: -r.score)
    assert len(ranked) == len(toolset.tools)


def test_role_words_in_the_path_tell_twins_apart(accounts):
    _, toolset = accounts
    index = relevance.ToolIndex.of(toolset)
    assert index.rank("list the users, admin view across organisations")[0].name == "adminListUsers"
    assert index.rank("list the users of my team")[0].name == "listUsers"


def test_among_restricts_the_ranking_to_the_offered_tools(accounts):
    _, toolset = accounts
    ranked = relevance.ToolIndex.of(toolset).rank("remove a user", among=["listUsers", "getUser", "nope"])
    assert {r.name for r in ranked} == {"listUsers", "getUser"}


def test_scores_are_comparable_across_queries(accounts):
    """Off-topic text scores low in absolute terms (what the offline runner's threshold relies on)."""
    _, toolset = accounts
    index = relevance.ToolIndex.of(toolset)
    on_topic = index.rank("remove user u_42 from the team")[0]
    off_topic = index.rank("what's the weather in Lisbon tomorrow, will it rain?")[0]
    assert off_topic.score < on_topic.score - 0.1
    assert off_topic.bm25 == 0.0
    assert 0.0 <= on_topic.bm25 <= 1.0


def test_words_stems_and_intents():
    assert relevance.words("CreateNewFactorPasskey") == ["create", "new", "factor", "passkey"]
    assert relevance.words("list_order-refunds /v2/Services/{ServiceSid}") == [
        "list", "order", "refunds", "services", "service", "sid"]
    assert relevance.words("HTTPServer") == ["http", "server"]
    assert [relevance.stem(w) for w in ("factors", "entities", "created", "creating", "create", "boxes")] == [
        "factor", "entity", "creat", "creat", "creat", "box"]
    assert relevance.intents_of(["get", "rid", "of", "it"]) == ["@delete"]
    assert relevance.intents_of(["set", "up", "a", "new", "service"]) == ["@create", "@create"]
    assert relevance.query_intents("Drop rate limit RK55") == {"@delete": 1.0}
    assert relevance.terms("Thanks, that's all!") == ["thank"]  # "all" is no term, nor a verb
    shown = relevance.query_intents("show me every order")
    assert shown["@list"] > shown["@get"]
    asked = relevance.query_intents("Which buckets does it have?")
    assert asked["@list"] > asked["@get"]
    asked = relevance.query_intents("Is +14155550100 on the safe list?")
    assert asked["@get"] >= asked["@list"]


def test_summary_verb_wins_over_the_method(accounts):
    """A POST that suspends is not a create; a GET on an item reads one, on a collection lists."""
    _, toolset = accounts
    intents = {d.name: d.intent for d in (relevance.document(t) for t in toolset.tools)}
    assert intents["inviteUser"] == "@create"  # "Invite": no intent word, so the method's
    assert intents["updateUser"] == "@update"
    assert intents["removeUser"] == "@delete"
    assert intents["listUsers"] == "@list"
    assert intents["getUser"] == "@get"
    assert relevance.tool_intent("searchThings", "Search things", "post", "/things/search") == "@list"


def test_relevant_and_narrowed_keep_natives_and_tokens_aligned(accounts):
    _, toolset = accounts
    picked = relevance.relevant(toolset, "download the invoice as pdf", 2)
    assert picked[0].name == "downloadInvoicePdf" and len(picked) == 2
    small = relevance.narrowed(toolset, [t.name for t in picked])
    assert [t.name for t in small.tools] == [t.name for t in picked]
    assert [n["function"]["name"] for n in small.native] == [t.name for t in picked]
    assert set(small.tokens.per_tool) == {t.name for t in picked}
    assert small.tokens.total == sum(small.tokens.per_tool.values()) + small.tokens.overhead
    assert relevance.relevant(toolset, "anything", 0) == []


def test_similar_tools_are_the_expected_tools_twins(accounts):
    _, toolset = accounts
    similar = relevance.similar_tools(toolset, ["adminListUsers"], 3)
    assert len(similar) == 3 and "adminListUsers" not in similar
    assert set(similar[:2]) == {"listUsers", "adminSuspendUser"}  # the same resource, the same role
    assert "downloadInvoicePdf" not in similar
    both = relevance.similar_tools(toolset, ["listInvoices", "removeUser"], 4)
    assert len(set(both)) == 4 and not {"listInvoices", "removeUser"} & set(both)
    index = relevance.ToolIndex.of(toolset)
    first, second = ([r.name for r in index.similar(n)] for n in ("listInvoices", "removeUser"))
    assert both[0] == first[0]  # the first tool's nearest, then the second's, in turn
    assert both[1] == next(n for n in second if n not in (both[0], "listInvoices"))
    assert "downloadInvoicePdf" in first[:2]
    assert relevance.similar_tools(toolset, ["listInvoices", "removeUser"], 2) == both[:2]
    everything = relevance.similar_tools(toolset, ["listUsers"], 100)
    assert len(everything) == len(toolset.tools) - 1


def test_safety_facts_do_not_make_destructive_tools_alike(accounts):
    """`describe` appends the same approval/destructive sentences to every delete: the scorer skips them."""
    _, toolset = accounts
    remove = toolset.tool("removeUser")
    assert "Destructive" in remove.description
    terms = dict(relevance.document(remove).terms)
    assert "destructiv" not in terms and "human" not in terms
    assert set(relevance.similar_tools(toolset, ["removeUser"], 2)) <= {"getUser", "updateUser", "listUsers",
                                                                         "inviteUser"}


def test_the_index_is_cached_by_content(accounts):
    path, toolset = accounts
    again = build_toolset(load_spec(path), WorkbenchConfig(), ToolOverrides(vendor="openai"))
    assert relevance.ToolIndex.of(again) is relevance.ToolIndex.of(toolset)
    assert relevance.ToolIndex.of(toolset) is relevance.ToolIndex.of(toolset)
    other = build_toolset(load_spec(path), WorkbenchConfig(), ToolOverrides(vendor="openai", read_only=True))
    assert relevance.ToolIndex.of(other).names == [t.name for t in other.tools] != relevance.ToolIndex.of(toolset).names


def test_the_model_loads_from_the_wheel_with_no_network(tmp_path):
    """Hugging Face offline, a proxy that refuses everything and an empty home (no cache to fall back on):
    the model still loads, and importing wordllama leaves the root logger as it was."""
    script = textwrap.dedent("""
        import logging
        from workbench.tools import relevance
        vectors = relevance.embed(["delete a user", "remove a member"])
        print(len(vectors), len(vectors[0]), round(float(vectors[0] @ vectors[1]), 3), logging.getLogger().handlers)
    """)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9", "ALL_PROXY": "http://127.0.0.1:9", "PYTHONPATH": str(REPO)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    count, dim, similarity, handlers = result.stdout.split(" ", 3)
    assert (count, dim) == ("2", "256")
    assert float(similarity) > 0.3
    assert handlers.strip() == "[]"
    assert not list(tmp_path.rglob("*.safetensors"))  # nothing fetched into the empty home


def run_tools(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "tools", *args], capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(REPO)})


def test_cli_relevant_to_keeps_the_top_k(accounts):
    path, _ = accounts
    result = run_tools(str(path), "--relevant-to", "download the invoice PDF for in_7", "--top", "2")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert len(data["tools"]) == 2
    assert data["tools"][0]["function"]["name"] == "downloadInvoicePdf"
    assert set(data["mapping"]) == {t["function"]["name"] for t in data["tools"]}
    assert set(data["tokens"]["per_tool"]) == set(data["mapping"])
    text = run_tools(str(path), "--relevant-to", "kick u_42 off the team", "--top", "1", "--format", "text")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0].startswith("removeUser ")
    assert "1 tools for openai" in text.stdout


def test_cli_top_defaults_to_five_and_refuses_zero(accounts):
    path, _ = accounts
    result = run_tools(str(path), "--relevant-to", "users")
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["tools"]) == 5
    refused = run_tools(str(path), "--relevant-to", "users", "--top", "0")
    assert refused.returncode == 2 and "--top" in refused.stderr
    alone = run_tools(str(path), "--top", "3")
    assert alone.returncode == 2 and alone.stderr.count("\n") == 1 and "--relevant-to" in alone.stderr


def test_github_catalogue(corpus):
    """~850 operations: a plain request finds its operation among near-namesakes."""
    toolset = build_toolset(load_spec(corpus_file(GITHUB)), WorkbenchConfig(), ToolOverrides(vendor="openai"))
    assert len(toolset.tools) > 800
    index = relevance.ToolIndex.of(toolset)
    assert "repos_get" in [r.name for r in index.rank("get a repository")[:3]]
    assert "issues_create" in [r.name for r in index.rank("open a new issue in my repository")[:3]]
    assert "pulls_merge" in [r.name for r in index.rank("merge this pull request")[:3]]


def test_embeddings_from_a_process_of_their_own_are_the_ones_computed_here(monkeypatch):
    texts = ["list the users of my team", "delete a repository", "create an invoice for a customer"]
    here = relevance.embed(texts)
    monkeypatch.setattr(relevance, "_IN_OWN_PROCESS", False)
    relevance.embed_in_own_process()
    assert relevance._IN_OWN_PROCESS
    monkeypatch.setattr(relevance, "_MODEL", None)  # loaded above: were it loaded here again, this would show
    there = relevance.embed(texts)
    assert relevance._MODEL is None
    child = relevance._CHILD
    assert child is not None and child.process.is_alive() and child.process.pid != os.getpid()
    assert there.shape == here.shape and (there == here).all()
    assert relevance.embed([]).shape == (0, 256)
    assert relevance._embedding_process() is child  # one process, asked again
