"""The Round trips panel end to end against the real mock on 127.0.0.1: started from the panel and asked with
httpx, faults injected the way its context menu does (saved in `.workbench.yaml`, served at once), round trips on
the bundled example and a corpus file with rows streaming in, a cancel, a failure opened, a server of yours."""

from __future__ import annotations

import shutil
import time

import httpx
import pytest
from PySide6.QtGui import QGuiApplication

from tests.catalogue import TRAVEL, corpus_file
from workbench.config import FaultRule
from workbench.http.auth import env_name
from workbench.roundtrip.run import EXECUTOR, NOT_RUN, SERVER, SPEC
from workbench.workspace.loading import spec_config

AUTH = {"Authorization": "Bearer test-token", "X-API-Key": "k"}  # the example's credentials (any values do)


@pytest.fixture
def panel(qtbot, window, open_spec, shop):
    open_spec(shop)
    window.focus_roundtrips()
    yield window.roundtrips
    window.roundtrips.shutdown()


def start(qtbot, panel) -> str:
    with qtbot.waitSignal(panel.mockStarted, timeout=20_000) as blocker:
        panel.start_mock()
    return blocker.args[0]


def run(qtbot, panel, timeout: int = 240_000):
    counts: list[int] = []
    panel.rowsAdded.connect(counts.append)
    with qtbot.waitSignal(panel.runFinished, timeout=timeout) as blocker:
        panel.run_roundtrip()
    panel.rowsAdded.disconnect(counts.append)
    return blocker.args[0], counts


def test_the_mock_starts_and_a_real_request_shows_in_the_log(qtbot, window, panel):
    url = start(qtbot, panel)
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v2")  # the spec's base path
    assert panel.url_label.full_text() == url == panel.mock_url()
    panel.copy_url()
    assert QGuiApplication.clipboard().text() == url
    answer = httpx.get(f"{url}/products", headers=AUTH, timeout=10)
    assert answer.status_code == 200
    qtbot.waitUntil(lambda: any(row[1] == "/v2/products" for row in panel.log_rows()), timeout=5_000)
    method, path, status, ms, fault, violations = panel.log_rows()[-1]
    assert (method, path, status, fault, violations) == ("GET", "/v2/products", "200", "", "")
    assert float(ms) >= 0
    httpx.get(f"{url}/products", params={"activeOnly": "maybe"}, headers=AUTH, timeout=10)  # a violation
    qtbot.waitUntil(lambda: len(panel.log_rows()) == 2, timeout=5_000)
    assert panel.log_rows()[-1][2] != "200" and "query/activeOnly" in panel.log_rows()[-1][5]
    with qtbot.waitSignal(panel.mockStopped, timeout=5_000):
        panel.stop_mock()
    assert panel.mock_url() is None and panel.url_label.full_text() == "Not running."
    with pytest.raises(httpx.TransportError):
        for _ in range(50):  # the socket closes in the background: bounded wait
            httpx.get(f"{url}/products", headers=AUTH, timeout=1)
            time.sleep(0.1)


def test_a_fault_from_the_menu_is_saved_in_the_config_and_served(qtbot, window, panel, shop):
    url = start(qtbot, panel)
    op = next(e.operation for e in window.loaded.operations if e.operation.operation_id == "listProducts")
    menu = panel.fault_menu(op)  # what right-clicking the operation shows
    action = next(a for a in menu.actions() if a.text() == "Answer 503")
    with qtbot.waitSignal(panel.faultsWritten, timeout=5_000) as blocker:
        action.trigger()
    menu.deleteLater()
    config = shop.parent / ".workbench.yaml"
    assert blocker.args[0] == config
    assert spec_config(shop).mock.faults == (FaultRule("listProducts", status=503),)  # what `workbench mock` reads
    assert ("GET /products", "status 503") in panel.fault_rows()
    assert httpx.get(f"{url}/products", headers=AUTH, timeout=10).status_code == 503  # applied while serving
    qtbot.waitUntil(lambda: bool(panel.log_rows()) and panel.log_rows()[-1][4] == "status 503", timeout=5_000)

    panel.set_fault("listProducts", "fail", 2)  # "fail 2 then succeed" replaces the operation's rule
    assert spec_config(shop).mock.faults == (FaultRule("listProducts", status=503, times=2),)
    statuses = [httpx.get(f"{url}/products", headers=AUTH, timeout=10).status_code for _ in range(3)]
    assert statuses == [503, 503, 200]
    panel.set_fault("GET /customers/{customerId}", "reset")
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/customers/cus_8f2kQ1x9LmP3aZ", headers=AUTH, timeout=10)
    panel.set_fault("listProducts", None)
    assert spec_config(shop).mock.faults == (FaultRule("getCustomer", fault="reset"),)
    assert httpx.get(f"{url}/products", headers=AUTH, timeout=10).status_code == 200
    assert "getCustomer" in config.read_text(encoding="utf-8")


def test_the_round_trip_on_the_example_streams_rows_and_opens_a_failure(qtbot, window, panel):
    panel.tabs.setCurrentIndex(1)
    panel.sets_spin.setValue(1)
    report, counts = run(qtbot, panel)
    attempts = report.attempts
    assert len(counts) >= 2 and counts == sorted(counts) and counts[-1] == len(attempts)  # in batches, as it ran
    assert [row[0] for row in panel.result_rows()] == [a.tool for a in attempts]
    assert panel.bar.value() == panel.bar.maximum() == len(report.operations)
    assert not [a for a in attempts if a.classification == EXECUTOR]
    failures = [a for a in attempts if a.classification == SPEC]
    assert failures, "the example requires shipping_address, which its NewOrder schema does not define"
    assert panel.select_failure(0)
    attempt = panel.current_attempt()
    assert attempt.to_json() == failures[0].to_json()  # the rows are the report's attempts, in order
    text = panel.detail_text()
    assert attempt.request in text and attempt.request.startswith("POST /v2/orders")
    assert all(o in text for o in attempt.oracle) and SPEC in text and "shipping_address" in text
    with qtbot.waitSignal(window.document.revealed, timeout=5_000) as blocker:
        assert panel.go_to_operation()
    assert blocker.args[0].operation.operation.operation_id == "orders.create"
    assert panel.finding_button.isEnabled()  # its operationId is no valid tool name: the lint says so
    with qtbot.waitSignal(window.document.revealed, timeout=5_000) as blocker:
        assert panel.go_to_finding()
    finding = blocker.args[0].problem.finding
    assert finding.rule == "operation-id-tool-name-invalid"
    assert finding.pointer.startswith(attempt_pointer(window, attempt))


def attempt_pointer(window, attempt) -> str:
    entry = next(e for e in window.loaded.operations
                 if (e.operation.method, e.operation.path) == (attempt.method, attempt.path))
    return entry.operation.origin.pointer


def test_a_round_trip_on_a_corpus_file_and_a_cancelled_one(qtbot, window, open_spec, tmp_path):
    travel = tmp_path / "travel.yaml"
    shutil.copyfile(corpus_file(TRAVEL), travel)
    open_spec(travel)
    window.focus_roundtrips()
    panel = window.roundtrips
    try:
        panel.sets_spin.setValue(1)
        report, counts = run(qtbot, panel)
        assert counts[-1] == len(report.attempts) == len(panel.result_rows()) > 7
        assert {row[0] for row in panel.result_rows()} == {op.tool for op in report.operations}
        assert all(row[2] in ("yes", "no", "not run") for row in panel.result_rows())

        panel.sets_spin.setValue(5)
        with qtbot.waitSignal(panel.rowsAdded, timeout=60_000):
            panel.run_roundtrip()
        with qtbot.waitSignal(panel.runCancelled, timeout=5_000):
            panel.cancel_run()
        shown = len(panel.result_rows())
        assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled() and not panel.is_running
        assert "Cancelled" in panel.status_text()
        qtbot.wait(600)  # the worker stops at its next tool: nothing it still makes is shown
        assert len(panel.result_rows()) == shown < len(report.attempts) * 2
    finally:
        panel.shutdown()


def test_a_server_of_yours_gets_writes_only_when_approved(qtbot, window, panel, monkeypatch):
    for scheme in ("bearerAuth", "apiKeyAuth"):  # a server of yours gets the real credentials, from the environment
        monkeypatch.setenv(env_name(scheme), "secret-of-the-test")
    url = start(qtbot, panel)  # the panel's own mock stands in for a server of yours
    panel.set_fault("listProducts", "status", 500)  # a planted failure: the server refuses a valid request
    asked: list[str] = []

    def ask(question) -> bool:
        asked.append(question.name)
        return question.name == "createCustomer"

    panel.ask_write = ask
    panel.sets_spin.setValue(0)
    panel.base_url_edit.setText(url)
    panel.writes_box.setChecked(True)
    report, _counts = run(qtbot, panel)
    by_tool = {op.tool: op for op in report.operations}
    assert "createCustomer" in asked and "listProducts" not in asked and len(asked) == len(set(asked)) > 3
    assert all(a.classification == NOT_RUN for name in asked if name != "createCustomer"
               for a in by_tool[name].attempts)
    assert any(a.request.startswith("POST /v2/customers") for a in by_tool["createCustomer"].attempts)
    assert {a.classification for a in by_tool["listProducts"].attempts} == {SERVER}
    qtbot.waitUntil(lambda: any(row[4] == "status 500" for row in panel.log_rows()), timeout=5_000)
    assert panel.select_result(next(n for n, a in enumerate(panel.attempts) if a.tool == "listProducts"))
    assert "status 500" in panel.detail_text() and "secret-of-the-test" not in panel.detail_text()

    asked.clear()
    panel.writes_box.setChecked(False)  # read-only: nobody is asked, no write is sent
    report, _counts = run(qtbot, panel)
    assert not asked and not any(a.request.startswith(("POST", "PUT", "PATCH", "DELETE")) for a in report.attempts)


def test_a_hidden_panel_builds_no_rows_until_it_is_shown(qtbot, window, panel):
    url = start(qtbot, panel)
    panel.sets_spin.setValue(0)
    panel.run_roundtrip()
    window.focus_problems()  # the Round trips tab behind Problems: the run goes on, nothing is built
    with qtbot.waitSignal(panel.runFinished, timeout=240_000) as blocker:
        pass
    httpx.get(f"{url}/products", headers=AUTH, timeout=10)
    qtbot.wait(300)
    assert not panel.is_shown and panel.result_rows() == [] and panel.log_rows() == []
    with qtbot.waitSignal(panel.rowsAdded, timeout=5_000):
        window.focus_roundtrips()
    assert len(panel.result_rows()) == len(blocker.args[0].attempts)
    qtbot.waitUntil(lambda: [row[1] for row in panel.log_rows()] == ["/v2/products"], timeout=5_000)


def test_a_long_summary_is_cut_to_the_progress_bar_with_the_whole_in_its_tooltip(qtbot, window, panel):
    window.resize(1024, 700)
    panel.tabs.setCurrentIndex(1)
    qtbot.wait(50)
    panel.bar.setRange(0, 296)
    panel.bar.setValue(296)
    said = "840 sets, 838 sent: 835 passed, 1 conversion loss, 3 mock limitation, 1 spec self-contradiction"
    panel._say(said)
    shown = panel.bar.text()
    assert shown.startswith("296/296 tools · ") and shown.endswith("…")
    assert panel.bar.fontMetrics().horizontalAdvance(shown) < panel.bar.contentsRect().width()
    assert panel.bar.toolTip() == said == panel.status_text()
    window.resize(1900, 700)  # room again: the whole text
    qtbot.waitUntil(lambda: panel.bar.text() == f"296/296 tools · {said}", timeout=5_000)
