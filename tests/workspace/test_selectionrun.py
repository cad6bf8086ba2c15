"""The Selection panel's logic without Qt: the suite as data and back to the file `workbench select` reads, the
profiles (no key in them), the estimate of a paid run, the run with its streamed answers, the cases of a confusion
cell, and the offline re-scoring of the suite after an edit of the spec."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from workbench.cli import main as cli_main
from workbench.edit import Edit, apply_edits
from workbench.examples import example_path, example_suite_path
from workbench.selection.run import RunOptions
from workbench.selection.suite import read_suite
from workbench.spec import SpecError, load_spec
from workbench.spec.source import parse_document
from workbench.workspace.loading import load_and_lint
from workbench.workspace.selectionrun import (
    OFFLINE_PROFILE,
    Feed,
    Profile,
    affected_cases,
    cell_cases,
    changed_tools,
    draft_data,
    estimate,
    execute,
    expect_text,
    expect_value,
    new_suite_data,
    open_suite_data,
    prepare,
    recheck,
    save_suite,
    settings_for,
    tags_value,
    with_case,
)


@pytest.fixture
def shop(tmp_path) -> tuple[Path, Path]:
    (tmp_path / "examples").mkdir()
    (tmp_path / "suites").mkdir()
    spec = tmp_path / "examples" / "shop-api.yaml"
    suite = tmp_path / "suites" / "shop-api.suite.yaml"
    shutil.copyfile(example_path(), spec)
    shutil.copyfile(example_suite_path(), suite)
    return spec, suite


def loaded(spec: Path, text: str | None = None):
    return load_and_lint(spec, lambda _text: None, lambda: False, text)


def test_expect_is_written_back_as_it_was_read():
    for value in ("listOrders", "GET /orders/{orderId}", "none", ["getOrder", "fetchOrderDetails"],
                  {"all": ["getOrder", "getCustomer"]}):
        assert expect_value(expect_text(value)) == value
    assert expect_text(["a", "b"]) == "a | b" and expect_text({"all": ["a", "b"]}) == "a + b"
    assert tags_value(" orders, refunds,, orders ") == ("orders", "refunds")


def test_a_suite_read_as_data_saves_as_the_same_suite(shop, tmp_path):
    spec, suite = shop
    data = open_suite_data(suite)
    assert data.header.startswith("# Tool-selection suite for the bundled Acme Shop example")
    target = tmp_path / "elsewhere" / "copy.suite.yaml"
    target.parent.mkdir()
    saved = save_suite(data, target, spec)
    assert saved.path == target and saved.spec == "../examples/shop-api.yaml"
    original, copy = read_suite(suite), read_suite(target)
    assert copy.spec == original.spec
    for a, b in zip(original.cases, copy.cases, strict=True):
        assert (a.id, a.messages, a.mode, [r.text for r in a.references], dict(a.arguments), a.tags, a.draft) == (
            b.id, b.messages, b.mode, [r.text for r in b.references], dict(b.arguments), b.tags, b.draft)
    assert parse_document(target).data["model"] == {"api": "offline"}
    assert target.read_text(encoding="utf-8").startswith("# Tool-selection suite")  # the header comment kept


def test_a_suite_that_would_not_run_is_not_written(shop, tmp_path):
    spec, suite = shop
    data = open_suite_data(suite)
    with pytest.raises(SpecError, match="taken"):
        with_case(data, 1, id=data.cases[0].id)
    broken = with_case(data, 0, prompt="")
    target = tmp_path / "broken.suite.yaml"
    with pytest.raises(SpecError) as error:
        save_suite(broken, target, spec)
    assert str(error.value).startswith(str(target)) and "\n" not in str(error.value)
    assert not target.exists()


def test_a_draft_from_the_spec_is_the_cli_draft(shop, tmp_path):
    spec, _ = shop
    opened = loaded(spec)
    from workbench.tools.options import ToolOverrides, build_toolset

    toolset = build_toolset(opened.spec, opened.config, ToolOverrides())
    data = draft_data(opened.spec, toolset, spec, opened.config.lint.threshold("similarity"))
    mine = save_suite(data, tmp_path / "mine.suite.yaml", spec)
    assert cli_main(["suite", "draft", str(spec), "-o", str(tmp_path / "cli.suite.yaml")]) == 0
    assert (tmp_path / "mine.suite.yaml").read_text(encoding="utf-8") == (
        tmp_path / "cli.suite.yaml").read_text(encoding="utf-8")
    assert mine.cases and all(c.draft for c in mine.cases)
    empty = new_suite_data(spec)
    assert empty.cases == [] and empty.spec == "shop-api.yaml"


def test_the_offline_run_is_workbench_selects_and_streams_its_answers(shop, tmp_path):
    spec, suite = shop
    data, opened_spec = open_suite_data(suite), loaded(spec)
    opened = prepare(data, spec, opened_spec.spec, opened_spec.config)
    feed, seen = Feed(), []
    finished = execute(opened, RunOptions(), feed, lambda done, total, _what: seen.append((done, total)))
    assert len(feed.take()) == 22 and feed.take() == []
    assert seen[-1] == (22, 22)
    out = tmp_path / "cli.json"
    assert cli_main(["select", str(suite), "--format", "json", "--output", str(out)]) == 0
    printed = json.loads(out.read_text(encoding="utf-8"))
    assert [(c.id, c.passed, c.rank) for c in finished.results.cases] == [
        (c["id"], c["passed"], c.get("rank")) for c in printed["cases"]]
    assert finished.offline and finished.threshold is not None
    assert [c.id for c in cell_cases(finished, "listOrders", "listProducts")] == ["orders-of-a-customer"]


def test_profiles_keep_no_key_and_set_the_run(shop):
    profile = Profile("gateway", "openai-responses", "https://gateway.example.invalid/v1", "m-1", 1.0, 4.0)
    stored = profile.to_dict()
    assert Profile.from_dict(stored) == profile and "key" not in json.dumps(stored).lower()
    assert Profile.from_dict({"name": "", "api": "openai-chat"}) is None
    assert Profile.from_dict({"name": "x", "api": "telnet"}) is None
    assert Profile.from_dict({"name": "x", "input_price": "lots"}) is None
    data = open_suite_data(shop[1])
    suite_model = read_suite(shop[1]).model
    settings = settings_for(suite_model, profile)
    assert (settings.api, settings.model, settings.base_url, settings.key_entry) == (
        "openai-responses", "m-1", "https://gateway.example.invalid/v1", "profile:gateway")
    assert settings.prices.input == 1.0 and settings.prices.output == 4.0
    assert settings_for(suite_model, OFFLINE_PROFILE).api == "offline"
    assert data.model == {"api": "offline"}


def test_a_profile_uses_its_own_key_never_the_environments_for_another_endpoint(shop, monkeypatch):
    import keyring

    from tests.servers import MemoryKeyring
    from workbench.selection.keys import api_key, store_key

    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    try:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
        suite_model = read_suite(shop[1]).model
        gateway = settings_for(suite_model, Profile("gw", "openai-chat", "https://gw.example.invalid/v1", "m"))
        with pytest.raises(SpecError):  # nothing stored for it yet: the environment's key is not sent to a gateway
            api_key(gateway, gateway.base_url)
        store_key("profile:gw", "sk-for-the-gateway")
        assert api_key(gateway, gateway.base_url) == "sk-for-the-gateway"
        assert api_key(suite_model, None) == "sk-from-the-environment"  # the CLI's order is unchanged
        store_key("profile:gw", "")
        assert keyring.get_password("agent-spec-workbench", "profile:gw") is None
    finally:
        keyring.set_keyring(previous)


def test_a_renamed_profiles_key_moves_to_its_new_entry():
    import keyring

    from tests.servers import MemoryKeyring
    from workbench.selection.keys import move_key, store_key

    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        store_key("profile:old", "sk-moved")
        move_key("profile:old", "profile:new")
        assert backend.store == {("agent-spec-workbench", "profile:new"): "sk-moved"}
        move_key("profile:absent", "profile:other")  # nothing stored: nothing made
        move_key("profile:new", "profile:new")
        assert backend.store == {("agent-spec-workbench", "profile:new"): "sk-moved"}
    finally:
        keyring.set_keyring(previous)


def test_the_estimate_counts_requests_and_prices_them(shop):
    spec, suite = shop
    data, opened_spec = open_suite_data(suite), loaded(spec)
    paid = prepare(data, spec, opened_spec.spec, opened_spec.config,
                   Profile("paid", "openai-chat", "https://api.example.invalid/v1", "m", 2.0, 8.0))
    one = estimate(paid, 1)
    assert one.requests == 22 and one.paid
    assert one.input_tokens > 22 * paid.toolset.tokens.total and one.output_tokens == 22 * 40
    assert one.cost == pytest.approx((one.input_tokens * 2.0 + one.output_tokens * 8.0) / 1_000_000)
    scaled = estimate(paid, 3, (5, 10, None, 100))
    assert scaled.requests == 22 * 3 * 3 and scaled.input_tokens < 3 * 3 * one.input_tokens
    local = prepare(data, spec, opened_spec.spec, opened_spec.config,
                    Profile("local", "openai-chat", "http://127.0.0.1:9/v1", "m"))
    assert not estimate(local, 1).paid and estimate(local, 1).cost is None
    assert "22 requests" in one.text() and "$" in one.text()


def edited(spec: Path, first, operation_id: str, description: str):
    """The spec loaded again with one operation's description replaced (the file itself untouched)."""
    operation = next(op for op in first.spec.operations if op.operation_id == operation_id)
    outcome = apply_edits(parse_document(spec), [Edit(f"{operation.origin.pointer}/description", description)])
    assert outcome.applied and not outcome.refused
    return loaded(spec, outcome.document.text)


def fresh_offline(before, opened):
    """What a whole offline run of the edited suite gives with the threshold the loop keeps."""
    from workbench.selection.metrics import evaluate
    from workbench.selection.offline import OfflineRunner
    from workbench.selection.run import run_selection

    runner = OfflineRunner(threshold=before.threshold, learn=False)
    return evaluate(run_selection(opened.suite, opened.spec, opened.toolset, runner, RunOptions(repeats=1)))


def test_an_edited_description_scores_the_whole_suite_again(shop):
    spec, suite = shop
    data = open_suite_data(suite)
    first = loaded(spec)
    before = execute(prepare(data, spec, first.spec, first.config), RunOptions())
    second = edited(spec, first, "listOrders", "Everything a customer has bought: the orders of one customer "
                    "(customerId), or every order with a status. Show what a customer bought from us.")
    opened = prepare(data, spec, second.spec, second.config)
    assert changed_tools(before.toolset, opened.toolset) == ["listOrders"]
    progress = []
    result = recheck(before, opened, progress=lambda done, total, _what: progress.append((done, total)))
    assert result.changed == ["listOrders"]
    assert result.rerun == [c.id for c in opened.suite.cases] and progress[-1] == (22, 22)
    # the table lists the cases the edit reached (the changed tool expected or ranked) and any that moved
    reached = affected_cases(opened.suite, before.run, ["listOrders"])
    ranked = {v.case_id: {name for name, _ in v.answer.detail["scores"]} | set(v.picked) for v in before.run.verdicts}
    expects = {c.id: set(c.expect.tools) for c in opened.suite.cases}
    assert reached == [c.id for c in opened.suite.cases if "listOrders" in ranked[c.id] | expects[c.id]]
    assert set(reached) <= {c.id for c in result.cases} and "paid-not-shipped" in reached
    assert "erase-customer" not in {c.id for c in result.cases}
    change = next(c for c in result.cases if c.id == "orders-of-a-customer")
    assert change.rank_after < change.rank_before == 5 and change.margin_after > change.margin_before
    assert result.after.summary.accuracy > result.before.summary.accuracy
    assert result.finished.threshold == before.threshold  # the numbers move for the words, not the threshold
    fresh = fresh_offline(before, opened)
    assert [(c.id, c.passed, c.rank) for c in result.after.cases] == [(c.id, c.passed, c.rank) for c in fresh.cases]
    assert result.after.summary.accuracy == fresh.summary.accuracy
    assert "accuracy 68.2% →" in result.text() and "all 22 cases scored again" in result.text()


def test_an_edit_that_takes_a_case_it_was_never_ranked_for_counts_in_the_accuracy(shop):
    # deleteCustomer is nowhere in the weather question's ranking: only scoring every case again sees it take it
    spec, suite = shop
    data = open_suite_data(suite)
    first = loaded(spec)
    before = execute(prepare(data, spec, first.spec, first.config), RunOptions())
    second = edited(spec, first, "deleteCustomer", "Will it rain in Bandung this weekend? The weather forecast.")
    opened = prepare(data, spec, second.spec, second.config)
    assert "off-topic-weather" not in affected_cases(opened.suite, before.run, ["deleteCustomer"])
    result = recheck(before, opened)
    weather = next(c for c in result.cases if c.id == "off-topic-weather")
    assert weather.passed_before == (1, 1) and weather.passed_after == (0, 1)
    assert next(c for c in result.after.cases if c.id == "off-topic-weather").selected == ["deleteCustomer"]
    fresh = fresh_offline(before, opened)
    assert result.after.summary.accuracy == fresh.summary.accuracy < before.results.summary.accuracy


def test_no_tool_changed_means_nothing_runs_again(shop):
    spec, suite = shop
    data = open_suite_data(suite)
    first = loaded(spec)
    opened = prepare(data, spec, first.spec, first.config)
    before = execute(opened, RunOptions())
    result = recheck(before, opened)
    assert result.changed == [] and result.rerun == [] and result.cases == []
    assert result.after.summary.accuracy == before.results.summary.accuracy
    assert result.text() == "The edit changed no tool: the offline numbers stay."
    added = replace(data, cases=[*data.cases, replace(data.cases[0], id="new-case")])
    grown = prepare(added, spec, first.spec, first.config)
    assert affected_cases(grown.suite, before.run, ["getCustomer"])[-1] == "new-case"
    assert load_spec(spec).operations  # the file itself was never touched
