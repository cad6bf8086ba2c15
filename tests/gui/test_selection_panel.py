"""The Selection panel end to end: the example suite run offline, a model profile run against a real local
OpenAI-compatible server (its key in a keyring backend of the test's own), a heatmap cell clicked, a baseline's
flips, and the fix-and-measure loop: a description edited through the document moves the offline numbers."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QAbstractItemView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QWidget,
)

from tests.servers import MemoryKeyring, ScriptedModelServer
from workbench.cli import main as cli_main
from workbench.edit import Edit, apply_edits
from workbench.examples import example_path, example_suite_path
from workbench.gui.app import take_screenshots
from workbench.selection.baseline import read_baseline
from workbench.selection.suite import read_suite
from workbench.tools import relevance
from workbench.workspace import LoadKind
from workbench.workspace.selectionrun import Profile

SUITE = example_suite_path()
KEY = "sk-test-" + secrets.token_hex(16)


@pytest.fixture
def memory_keyring():
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(before)


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def shop(tmp_path) -> tuple[Path, Path]:
    """The example spec and its suite, copied (the loop edits the spec)."""
    folder = tmp_path / "shop"
    (folder / "examples").mkdir(parents=True)
    (folder / "suites").mkdir()
    spec = folder / "examples" / "shop-api.yaml"
    shutil.copyfile(example_path(), spec)
    suite = folder / "suites" / "shop-api.suite.yaml"
    shutil.copyfile(SUITE, suite)
    return spec, suite


def show_selection(window) -> None:
    window.docks["selection"].show()
    window.docks["selection"].raise_()


def run_and_wait(qtbot, panel, timeout: int = 60_000):
    with qtbot.waitSignal(panel.runFinished, timeout=timeout) as blocker:
        assert panel.run()
    return blocker.args[0]


def selection_on(window, open_spec, spec: Path):
    """The spec open in the window and the Selection panel in front."""
    open_spec(spec)
    show_selection(window)
    return window.selection


def open_shop(qtbot, window, open_spec, shop):
    spec, suite = shop
    panel = selection_on(window, open_spec, spec)
    with qtbot.waitSignal(panel.suiteChanged, timeout=30_000):
        panel.open_suite(suite)
    return panel


def save(qtbot, panel, path: Path) -> Path:
    with qtbot.waitSignal(panel.suiteSaved, timeout=30_000) as blocker:
        assert panel.save_to(path)
    return blocker.args[0]


def test_the_example_suite_runs_offline_as_workbench_select_does(qtbot, window, open_spec, shop, tmp_path):
    panel = open_shop(qtbot, window, open_spec, shop)
    assert panel.profile.is_offline  # day one: no key, no network
    assert panel.case_model.rowCount() == 22
    finished = run_and_wait(qtbot, panel)
    cli = tmp_path / "cli.json"
    assert cli_main(["select", str(shop[1]), "--spec", str(shop[0]), "--format", "json", "--output", str(cli)]) == 0
    printed = json.loads(cli.read_text(encoding="utf-8"))
    assert finished.results.summary.accuracy == pytest.approx(printed["summary"]["accuracy"], abs=1e-4)
    assert [(c.id, c.passed, c.runs) for c in finished.results.cases] == [
        (c["id"], c["passed"], c["runs"]) for c in printed["cases"]]
    summary = panel.summary_label.full_text()
    assert f"accuracy {finished.results.summary.accuracy:.1%}" in summary and "pass^1" in summary
    low, high = finished.results.summary.accuracy_ci
    assert f"[{low:.1%}, {high:.1%}]" in summary
    rows = panel.result_rows()
    assert len(rows) == 22
    failing = next(c for c in printed["cases"] if c["passed"] == 0 and c.get("rank"))
    row = next(r for r in rows if r[0] == failing["id"])
    assert row[3] == "0/1" and row[4] == str(failing["rank"]) and row[2] == failing["selected"][0]


def test_a_heatmap_cell_clicked_lists_its_cases(qtbot, window, open_spec, shop):
    panel = open_shop(qtbot, window, open_spec, shop)
    finished = run_and_wait(qtbot, panel)
    panel.tabs.setCurrentIndex(2)
    qtbot.wait(50)
    rows, columns = panel.heat_labels()
    confusion = finished.results.confusion
    assert rows and set(rows) == set(confusion)
    assert panel.heat_image.image.shape[:2] == (len(rows), len(columns))
    # the cell of listOrders picked as something else: orders-of-a-customer went to listProducts
    r, c = rows.index("listOrders"), columns.index("listProducts")
    assert panel.heat_image.image[r, c, 3] > 0  # painted
    qtbot.mouseClick(panel.heat_view.viewport(), Qt.MouseButton.LeftButton, pos=panel.cell_center(r, c))
    assert panel.cell_cases_shown() == ["orders-of-a-customer"]
    assert "expected listOrders → picked listProducts: 1 cases" in panel.cell_label.full_text()
    window.set_theme("dark", save=False)  # the charts' background follows the theme
    qtbot.waitUntil(lambda: panel.heat_view.backgroundBrush().color().lightness() < 128, timeout=5_000)
    base = panel.palette().color(panel.palette().ColorRole.Base)
    assert panel.heat_view.backgroundBrush().color() == base == panel.scale_view.backgroundBrush().color()
    window.set_theme("light", save=False)
    qtbot.waitUntil(lambda: panel.heat_view.backgroundBrush().color().lightness() > 200, timeout=5_000)
    r, c = rows.index("none"), columns.index("none")
    qtbot.mouseClick(panel.heat_view.viewport(), Qt.MouseButton.LeftButton, pos=panel.cell_center(r, c))
    assert set(panel.cell_cases_shown()) == {"small-talk", "off-topic-weather"}


def test_accuracy_against_tool_count_is_plotted(qtbot, window, open_spec, shop):
    panel = open_shop(qtbot, window, open_spec, shop)
    panel.scale_edit.setText("3, 6")
    finished = run_and_wait(qtbot, panel)
    points = [(p.size, round(p.accuracy * 100, 6)) for p in finished.results.scale]
    assert [p[0] for p in points] == [3, 6, 15]
    assert [(x, round(y, 6)) for x, y in panel.scale_points()] == points


def test_a_baseline_saved_and_compared_lists_the_flips(qtbot, window, open_spec, shop, tmp_path):
    panel = open_shop(qtbot, window, open_spec, shop)
    run_and_wait(qtbot, panel)
    baseline = tmp_path / "baseline.json"
    assert panel.save_baseline_to(baseline)
    assert read_baseline(baseline)["summary"]["accuracy"] == round(panel.finished.results.summary.accuracy, 4)
    # the baseline says one failing case passed and one passing case failed
    data = json.loads(baseline.read_text(encoding="utf-8"))
    for case in data["cases"]:
        if case["id"] == "charged-twice":
            case["passed"] = 1
        if case["id"] == "what-can-i-buy":
            case["passed"] = 0
    baseline.write_text(json.dumps(data), encoding="utf-8")
    comparison = panel.compare_with(baseline)
    assert [f.id for f in comparison.worse] == ["charged-twice"]
    assert [f.id for f in comparison.better] == ["what-can-i-buy"]
    flips = panel.flips()
    assert "worse  charged-twice: 1/1 → 0/1" in flips and "better what-can-i-buy: 0/1 → 1/1" in flips
    assert any("regression" in line for line in flips[:1])


def test_editing_and_saving_writes_a_suite_workbench_select_reads(qtbot, window, open_spec, shop, tmp_path):
    panel = open_shop(qtbot, window, open_spec, shop)
    panel.set_cell(0, 1, "Look up the account of dewi.lestari@example.com please")
    panel.set_cell(2, 2, "getCustomer | listCustomers")
    panel.set_cell(3, 3, "customers, gdpr")
    panel.add_case("What is the capital of France?", "none")
    target = tmp_path / "out" / "edited.suite.yaml"
    target.parent.mkdir()
    assert save(qtbot, panel, target) == target
    read = read_suite(target)  # `workbench select`'s reader
    cases = {c.id: c for c in read.cases}
    prompt = cases["find-customer-by-email"].messages[0]["content"]
    assert prompt == "Look up the account of dewi.lestari@example.com please"
    assert [r.text for r in cases["customer-profile"].references] == ["getCustomer", "listCustomers"]
    assert cases["erase-customer"].tags == ("customers", "gdpr")
    assert cases["case-1"].mode == "none"
    assert dict(cases["find-customer-by-email"].arguments) == {"email": "dewi.lestari@example.com"}
    assert cases["write-email"].messages[0]["role"] == "system"  # messages kept as written
    assert read.spec.resolve() == shop[0].resolve()  # `spec:` written relative to the new folder
    assert cli_main(["select", str(target), "--format", "json", "--output", str(tmp_path / "r.json")]) == 0
    # a taken id is refused in one line, the table shows the case as it was
    panel.set_cell(1, 0, "find-customer-by-email")
    assert panel.data.cases[1].id == "sign-up-customer"
    assert panel.case_model.item(1, 0).text() == "sign-up-customer"


def test_a_suite_that_cannot_be_read_or_run_is_said_in_one_line(qtbot, window, open_spec, shop, tmp_path):
    panel = open_shop(qtbot, window, open_spec, shop)
    broken = tmp_path / "broken.suite.yaml"
    broken.write_text("format: 1\nspec: x.yaml\ncases:\n  - id: a\n    prompt: hi\n    expect: none\n    colour: red\n",
                      encoding="utf-8")
    with qtbot.waitSignal(panel.fileFailed, timeout=30_000) as blocker:
        panel.open_suite(broken)
    message = blocker.args[0]
    assert message.startswith(f"{broken}:7:5") and "unknown key 'colour'" in message and "\n" not in message
    assert panel.data is not None and len(panel.data.cases) == 22  # the suite shown stays
    with qtbot.waitSignal(panel.checked, timeout=30_000) as blocker:
        panel.set_cell(0, 1, "")
    assert blocker.args[0].startswith("Not runnable yet:") and "prompt" in blocker.args[0]
    assert "Not runnable yet" in panel.case_status.full_text()
    with qtbot.waitSignal(panel.fileFailed, timeout=30_000):
        assert panel.save_to(tmp_path / "never.suite.yaml")
    assert not (tmp_path / "never.suite.yaml").exists()


def test_the_expected_column_offers_the_tools(qtbot, window, open_spec, shop):
    panel = open_shop(qtbot, window, open_spec, shop)
    run_and_wait(qtbot, panel)
    panel.tabs.setCurrentIndex(0)
    index = panel.case_model.index(0, 2)
    panel.case_view.setCurrentIndex(index)
    panel.case_view.edit(index)
    editor = panel.case_view.findChild(QWidget, "selectionExpectedEditor")
    assert editor is not None
    offered = [editor.itemText(i) for i in range(editor.count())]
    assert {t.name for t in panel.finished.toolset.tools} <= set(offered) and "none" in offered
    editor.setCurrentText("getCustomer")
    panel.case_view.commitData(editor)
    panel.case_view.closeEditor(editor, QAbstractItemDelegate.EndEditHint.NoHint)
    assert panel.data.cases[0].expect == "getCustomer"


def test_a_draft_from_the_spec_fills_the_table(qtbot, window, open_spec, shop):
    panel = selection_on(window, open_spec, shop[0])
    with qtbot.waitSignal(panel.draftReady, timeout=30_000):
        panel.draft()
    assert panel.case_model.rowCount() >= 15 and all(c.draft for c in panel.data.cases)
    assert any(c.expect == "none" for c in panel.data.cases)
    finished = run_and_wait(qtbot, panel)
    assert finished.results.summary.cases == len(panel.data.cases)


def test_a_model_profile_runs_against_a_local_server_with_its_key_from_the_keyring(
        qtbot, window, open_spec, shop, memory_keyring, tmp_path, settings):
    panel = open_shop(qtbot, window, open_spec, shop)
    with ScriptedModelServer() as server:
        panel.add_profile(Profile("local", "openai-chat", server.url, "scripted-1"), KEY)
        assert memory_keyring.store[("agent-spec-workbench", "profile:local")] == KEY
        assert panel.profile.name == "local"
        asked = []
        panel.confirm_run = lambda estimate: asked.append(estimate) or True
        finished = run_and_wait(qtbot, panel)
        sent = server.received("/chat/completions")
    assert not asked  # a server on this machine costs nothing: no question
    assert len(sent) == 22 and finished.results.summary.requests_sent == 22
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in sent)
    assert {r.body["model"] for r in sent} == {"scripted-1"}
    assert finished.run.context.api == "openai-chat" and finished.results.summary.runs == 22
    assert "scripted-1 (openai-chat)" in panel.summary_label.full_text()
    # the outcomes per case, as the scripted model answered them
    assert len(panel.result_rows()) == 22
    baseline = tmp_path / "model-baseline.json"
    assert panel.save_baseline_to(baseline)
    report = tmp_path / "report.html"
    assert cli_main(["select", str(shop[1]), "--spec", str(shop[0]), "--format", "html", "--output", str(report)]) == 0
    settings.sync()
    # the key is nowhere the application wrote: settings, suite, caches, baselines, reports, the widgets' text
    save(qtbot, panel, tmp_path / "saved.suite.yaml")
    found = [p for p in tmp_path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert not found, found
    assert any((tmp_path / "cache").rglob("*.json"))  # the answers were cached (without the key)
    stored = (tmp_path / "settings.ini").read_text(encoding="utf-8")
    assert "scripted-1" in stored and server.url in stored  # the profile is in the settings, its key is not
    shots = tmp_path / "shots"
    shots.mkdir()
    for name, widget in (("window.png", window), ("selection.png", window.docks["selection"])):
        assert widget.grab().save(str(shots / name))
    assert not [p for p in shots.iterdir() if KEY.encode() in p.read_bytes()]
    assert not [text for text in widget_texts(window) if KEY in text]


def widget_texts(window) -> list[str]:
    """Every text the window's widgets show (labels, fields, lists, tables, tooltips)."""
    texts = []
    for widget in window.findChildren(QWidget):
        texts.append(widget.toolTip())
        if isinstance(widget, QLabel | QLineEdit):
            texts.append(widget.text())
        elif isinstance(widget, QPlainTextEdit):
            texts.append(widget.toPlainText())
        elif isinstance(widget, QListWidget):
            texts += [widget.item(i).text() for i in range(widget.count())]
        elif isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            for r in range(model.rowCount()):
                for c in range(model.columnCount()):
                    index = model.index(r, c)
                    texts += [str(model.data(index) or ""), str(model.data(index, Qt.ItemDataRole.ToolTipRole) or "")]
    return texts


def test_answers_stream_in_and_a_cancel_stops_the_run(qtbot, window, open_spec, shop, memory_keyring):
    panel = open_shop(qtbot, window, open_spec, shop)
    with ScriptedModelServer(latency=0.15) as server:
        panel.add_profile(Profile("slow", "openai-chat", server.url, "scripted-1"))
        finished = []
        panel.runFinished.connect(finished.append)
        assert panel.run()
        qtbot.waitUntil(lambda: any(row[2] for row in panel.result_rows()), timeout=30_000)
        assert panel.progress_bar.isVisible() and panel.cancel_button.isEnabled()
        streamed = [row for row in panel.result_rows() if row[2]]
        assert streamed and all(row[3] == "…" for row in panel.result_rows())  # shown before any is judged
        panel.cancel()
        qtbot.waitUntil(lambda: panel.jobs.current is None and not panel.progress_bar.isVisible(), timeout=5_000)
        qtbot.wait(600)  # what was in flight comes back; nothing more is sent
        sent = len(server.requests)
        qtbot.wait(400)
        assert len(server.requests) == sent < 22
    assert not finished and "Cancelled" in panel.summary_label.full_text()
    assert panel.run_button.isEnabled()


def test_the_profile_dialog_gives_the_key_once(qtbot):
    from workbench.gui.panels.selection import ProfileDialog

    dialog = ProfileDialog()
    qtbot.addWidget(dialog)
    dialog.name_edit.setText("gateway")
    dialog.api_combo.setCurrentIndex(1)
    dialog.url_edit.setText("https://gateway.example.invalid/v1")
    dialog.model_edit.setText("m-1")
    dialog.prices[0].setValue(1.5)
    dialog.key_edit.setText(KEY)
    assert dialog.key_edit.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.profile() == Profile("gateway", "openai-responses", "https://gateway.example.invalid/v1", "m-1",
                                       1.5, None)
    assert dialog.take_key() == KEY and dialog.key_edit.text() == "" and dialog.take_key() == ""
    dialog.name_edit.setText("Offline (no key)")
    assert dialog.profile() is None  # the offline scorer's name is not a profile's


def test_a_paid_run_asks_first_with_the_request_count_and_cost(qtbot, window, open_spec, shop, memory_keyring):
    panel = open_shop(qtbot, window, open_spec, shop)
    panel.add_profile(Profile("paid", "openai-chat", "https://api.example.invalid/v1", "big-model", 2.5, 10.0), KEY)
    asked = []
    panel.confirm_run = lambda estimate: asked.append(estimate) or False
    panel.repeats_spin.setValue(3)
    with qtbot.waitSignal(panel.jobs.succeeded, timeout=30_000):
        assert panel.run()
    qtbot.waitUntil(lambda: not panel.is_running, timeout=5_000)
    assert len(asked) == 1 and asked[0].requests == 22 * 3 and asked[0].paid
    assert asked[0].cost is not None and asked[0].cost > 0
    assert "66 requests" in asked[0].text() and "$" in asked[0].text()
    assert panel.finished is None  # declined: nothing ran


def test_a_description_edited_through_the_document_moves_the_offline_numbers(qtbot, window, open_spec, shop):
    panel = open_shop(qtbot, window, open_spec, shop)
    before = run_and_wait(qtbot, panel)
    case = next(c for c in before.results.cases if c.id == "orders-of-a-customer")
    assert case.passed == 0 and case.rank > 1
    # the Edit form's way: an edit of the operation's description, applied to the document as one step
    ws = window.document.workspace
    entry = next(e for e in window.loaded.operations if e.operation.operation_id == "listOrders")
    document = ws.edited[entry.operation.origin.document.name]
    pointer = entry.operation.origin.pointer
    text = ("Everything a customer has bought: the orders of one customer (customerId), or every order with a "
            "status. Show what a customer bought from us.")
    with qtbot.waitSignal(panel.recheckReady, timeout=60_000) as blocker:
        assert window.document.apply(apply_edits(document, [Edit(f"{pointer}/description", text)]), "Edit")
    result = blocker.args[0]
    assert window.document.spec is not None
    assert result.changed == ["listOrders"]
    assert result.rerun == [c.id for c in before.results.cases]  # the whole suite, not a mix of old and new
    change = next(c for c in result.cases if c.id == "orders-of-a-customer")
    assert change.rank_before == case.rank and change.rank_after < change.rank_before
    assert change.margin_after > change.margin_before
    after_accuracy = result.after.summary.accuracy
    assert after_accuracy > before.results.summary.accuracy
    loop = panel.loop_label.full_text()
    assert f"accuracy {before.results.summary.accuracy:.1%} → {after_accuracy:.1%}" in loop
    assert "all 22 cases scored again" in loop and "all cases scored again" in panel.loop_hint.full_text()
    row = next(r for r in panel.change_rows() if r[0] == "orders-of-a-customer")
    assert row[1] == f"{change.rank_before} → {change.rank_after}"
    assert panel.finished.results.summary.accuracy == after_accuracy  # the results show the state after


def test_a_hidden_panel_re_runs_nothing_until_it_is_shown(qtbot, window, open_spec, shop):
    panel = open_shop(qtbot, window, open_spec, shop)
    run_and_wait(qtbot, panel)
    window.docks["problems"].raise_()
    qtbot.waitUntil(lambda: not panel.is_shown, timeout=5_000)
    ws = window.document.workspace
    entry = next(e for e in window.loaded.operations if e.operation.operation_id == "getRefund")
    document = ws.edited[entry.operation.origin.document.name]
    with qtbot.waitSignal(window.document.loaded, timeout=30_000,
                          check_params_cb=lambda _l, kind: kind is LoadKind.RECHECK):
        window.document.apply(apply_edits(document, [Edit(f"{entry.operation.origin.pointer}/description",
                                                          "The state of one refund.")]), "Edit")
    assert panel.last_recheck is None and not panel.is_running
    with qtbot.waitSignal(panel.recheckReady, timeout=60_000) as blocker:
        show_selection(window)
    assert blocker.args[0].changed == ["getRefund"]


def test_selection_screenshots_are_written(qtbot, window, tmp_path):
    out = tmp_path / "shots"
    assert take_screenshots(window, example_path(), out) == 0
    for name in ("selection-results.png", "selection-heatmap.png", "selection-results-dark.png",
                 "selection-heatmap-dark.png"):
        assert (out / name).stat().st_size > 10_000


def test_the_offline_run_ranks_with_the_model_loaded_in_a_process_of_its_own(qtbot, window, open_spec, shop,
                                                                            monkeypatch):
    monkeypatch.setattr(relevance, "_MODEL", None)  # whether an earlier test loaded it here or not: none now
    panel = open_shop(qtbot, window, open_spec, shop)
    finished = run_and_wait(qtbot, panel)
    assert len(finished.results.cases) == 22
    assert relevance._MODEL is None  # the window's process loaded no model: its interpreter lock was never held
    child = relevance._CHILD
    assert child is not None and child.process.is_alive() and child.process.pid != os.getpid()


def test_renaming_a_profile_in_its_dialog_moves_it_and_its_key(qtbot, window, open_spec, shop, memory_keyring,
                                                               tmp_path, settings, monkeypatch):
    from workbench.gui.panels.selection import ProfileDialog

    panel = selection_on(window, open_spec, shop[0])
    panel.add_profile(Profile("work", "openai-chat", "https://gateway.example.invalid/v1", "m-1"), KEY)
    panel.add_profile(Profile("other", "openai-chat", "https://other.example.invalid/v1", "m-2"))
    assert panel.select_profile("work")
    seen = []

    def rename_to(name):
        def accept(dialog):
            seen.append(dialog.key_edit.text())  # the stored key is never put back in the field
            dialog.name_edit.setText(name)
            return ProfileDialog.DialogCode.Accepted
        return accept

    monkeypatch.setattr(ProfileDialog, "exec", rename_to("work-eu"))
    panel.profile_button.click()
    assert seen == [""]
    assert [p.name for p in panel.profiles()[1:]] == ["other", "work-eu"] and panel.profile.name == "work-eu"
    assert panel.profile.base_url == "https://gateway.example.invalid/v1"
    assert memory_keyring.store == {("agent-spec-workbench", "profile:work-eu"): KEY}
    settings.sync()
    stored = (tmp_path / "settings.ini").read_text(encoding="utf-8")
    assert "work-eu" in stored and '"work"' not in stored and KEY not in stored
    # a name another profile has is refused: nothing moves
    monkeypatch.setattr(ProfileDialog, "exec", rename_to("other"))
    panel.profile_button.click()
    assert [p.name for p in panel.profiles()[1:]] == ["other", "work-eu"]
    assert memory_keyring.store == {("agent-spec-workbench", "profile:work-eu"): KEY}
    assert "exists already" in panel.summary_label.full_text()
    # a key typed while renaming replaces the stored one under the new name
    other_key = "sk-test-" + secrets.token_hex(16)

    def rename_with_key(dialog):
        dialog.name_edit.setText("work-us")
        dialog.key_edit.setText(other_key)
        return ProfileDialog.DialogCode.Accepted

    monkeypatch.setattr(ProfileDialog, "exec", rename_with_key)
    panel.profile_button.click()
    assert memory_keyring.store == {("agent-spec-workbench", "profile:work-us"): other_key}
    assert not [text for text in widget_texts(window) if KEY in text or other_key in text]
    settings.sync()
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and (KEY.encode() in p.read_bytes()
                                                                   or other_key.encode() in p.read_bytes())]


def test_a_heatmap_of_hundreds_of_tools_labels_only_rows_that_fit(qtbot, window, open_spec, shop):
    from itertools import pairwise

    from PySide6.QtGui import QFontMetrics

    panel = selection_on(window, open_spec, shop[0])
    window.resize(1024, 700)
    panel.tabs.setCurrentIndex(2)
    qtbot.wait(50)
    rows = [f"tool_number_{n}" for n in range(300)]  # the Box API's 296 tools draft about as many rows
    panel._heat_labels = (rows, [*rows, "none"])
    panel._heat_ticks()
    box = panel.heat_plot.getViewBox().boundingRect()
    left, bottom = panel.heat_plot.getAxis("left"), panel.heat_plot.getAxis("bottom")
    metrics = QFontMetrics(left.style["tickFont"])
    assert box.height() / len(rows) < 1  # cells thinner than a pixel
    for axis, cell, need in ((left, box.height() / len(rows), metrics.height()),
                             (bottom, box.width() / (len(rows) + 1), metrics.horizontalAdvance("300"))):
        ticks = [position for position, _text in axis._tickLevels[0]]
        assert len(ticks) >= 2
        assert min(b - a for a, b in pairwise(ticks)) * cell >= need  # no label over another
