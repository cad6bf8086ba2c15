"""The Round trips panel's logic without Qt: fault rules written to the config's `mock:` section with the edit
engine (and read back by the config reader every command uses), the embedded mock serving them and logging what
it broke, the round trip as a job and in a process of its own (streamed, cancelled, a question per write)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.catalogue import changed_lines
from workbench.config import FaultRule, MockConfig
from workbench.examples import example_path
from workbench.http.auth import env_name
from workbench.roundtrip.run import NOT_RUN, PASSED
from workbench.spec import SpecError, load_spec
from workbench.workspace.configfile import write_section
from workbench.workspace.loading import load_and_lint, spec_config
from workbench.workspace.roundtrips import (
    EmbeddedMock,
    RoundTripProcess,
    RoundTripRun,
    RunSettings,
    WriteQuestion,
    attempt_text,
    change_faults,
    fault_rule,
    fault_text,
    log_row,
    operation_entry,
    operation_finding,
    result_row,
)

AUTH = {"Authorization": "Bearer t", "X-API-Key": "k"}


def operation(spec_path: Path, operation_id: str):
    return next(op for op in load_spec(spec_path).operations if op.operation_id == operation_id)


def test_each_kind_of_fault_is_one_rule():
    op = operation(example_path(), "listProducts")
    assert fault_rule(op, "status", 503) == FaultRule("listProducts", status=503)
    assert fault_rule(op, "status", 429) == FaultRule("listProducts", status=429, retry_after="1")
    assert fault_rule(op, "delay", 250) == FaultRule("listProducts", delay_ms=250)
    assert fault_rule(op, "reset") == FaultRule("listProducts", fault="reset")
    assert fault_rule(op, "hang") == FaultRule("listProducts", fault="hang")
    assert fault_rule(op, "fail", 2) == FaultRule("listProducts", status=503, times=2)
    assert fault_text(fault_rule(op, "fail", 2)) == "status 503 ×2, then normal"
    with pytest.raises(ValueError, match="unknown fault kind"):
        fault_rule(op, "explode")


def test_faults_create_the_config_and_are_read_back_as_the_mock_command_reads_them(shop):
    op = operation(shop, "listProducts")
    path, mock = change_faults(shop, op, fault_rule(op, "fail", 2))
    assert path == shop.parent / ".workbench.yaml"
    assert mock == spec_config(shop).mock == MockConfig(0, (FaultRule("listProducts", status=503, times=2),))
    other = operation(shop, "getCustomer")
    change_faults(shop, other, fault_rule(other, "reset"))
    _path, mock = change_faults(shop, op, fault_rule(op, "delay", 100))  # the operation's rule is replaced in place
    assert mock.faults == (FaultRule("listProducts", delay_ms=100), FaultRule("getCustomer", fault="reset"))
    _path, mock = change_faults(shop, other, None)
    assert mock.faults == (FaultRule("listProducts", delay_ms=100),)


def test_a_hand_written_block_list_is_changed_item_by_item_and_everything_else_kept(shop):
    config = shop.parent / ".workbench.yaml"
    head = "# shared with the team\ntools:\n  vendor: gemini  # what we ship\nmock:\n  seed: 7  # fixed\n  faults:\n"
    config.write_text(head + "    - operation: 'GET /products'\n      status: 500\n"
                      "    - {operation: getOrder, fault: hang}\n", encoding="utf-8")
    op = operation(shop, "listProducts")  # named by method and path in the file: that rule is the one replaced
    _path, mock = change_faults(shop, op, fault_rule(op, "status", 502))
    text = config.read_text(encoding="utf-8")
    assert text == head + "    - {operation: listProducts, status: 502}\n    - {operation: getOrder, fault: hang}\n"
    assert mock == MockConfig(7, (FaultRule("listProducts", status=502), FaultRule("getOrder", fault="hang")))
    assert spec_config(shop).tools.vendor == "gemini"
    _path, mock = change_faults(shop, operation(shop, "getOrder"), None)
    _path, mock = change_faults(shop, op, None)
    assert mock == MockConfig(7, ()) and config.read_text(encoding="utf-8").startswith(head)


def test_a_changed_fault_touches_only_its_own_item(shop):
    config = shop.parent / ".workbench.yaml"
    original = ("mock:\n  seed: 7\n  faults:\n    # outages we rehearse\n"
                "    - {operation: listProducts, status: 500}  # the catalogue is down\n"
                "    # slow orders\n    - operation: getOrder\n      delay-ms: 200   # a slow database\n"
                "    # the refund desk\n    - {operation: refundOrder, fault: reset}\n  # end of faults\n"
                "rules:\n  enum-in-prose: off\n")
    config.write_text(original, encoding="utf-8")
    get_order = operation(shop, "getOrder")
    change_faults(shop, get_order, fault_rule(get_order, "status", 503))
    changed = config.read_text(encoding="utf-8")
    assert changed_lines(original, changed) == (
        ["    - operation: getOrder\n", "      delay-ms: 200   # a slow database\n"],
        ["    - {operation: getOrder, status: 503}   # a slow database\n"])
    assert [r.operation for r in spec_config(shop).mock.faults] == ["listProducts", "getOrder", "refundOrder"]
    # removed: only its own line goes; added: one line after the last item; comments and the rest byte for byte
    products = operation(shop, "listProducts")
    change_faults(shop, products, None)
    removed = config.read_text(encoding="utf-8")
    assert changed_lines(changed, removed) == (
        ["    - {operation: listProducts, status: 500}  # the catalogue is down\n"], [])
    customers = operation(shop, "getCustomer")
    _path, mock = change_faults(shop, customers, fault_rule(customers, "hang"))
    added = config.read_text(encoding="utf-8")
    assert changed_lines(removed, added) == ([], ["    - {operation: getCustomer, fault: hang}\n"])
    assert added.index("getCustomer") < added.index("# end of faults")
    assert mock == MockConfig(7, (FaultRule("getOrder", status=503), FaultRule("refundOrder", fault="reset"),
                                  FaultRule("getCustomer", fault="hang")))
    assert mock == spec_config(shop).mock


def test_a_config_without_a_mock_section_gets_one_and_a_broken_one_is_left_alone(shop):
    config = shop.parent / ".workbench.yaml"
    config.write_text("rules:\n  enum-in-prose: off  # noisy here\n", encoding="utf-8")
    op = operation(shop, "listProducts")
    change_faults(shop, op, fault_rule(op, "hang"))
    assert config.read_text(encoding="utf-8").startswith("rules:\n  enum-in-prose: off  # noisy here\nmock:\n")
    assert spec_config(shop).mock.faults == (FaultRule("listProducts", fault="hang"),)
    config.write_text("mock: [unclosed\n", encoding="utf-8")
    with pytest.raises(SpecError):
        change_faults(shop, op, fault_rule(op, "hang"))
    assert config.read_text(encoding="utf-8") == "mock: [unclosed\n"


def test_an_empty_new_section_is_still_a_mapping(tmp_path):
    config = tmp_path / ".workbench.yaml"
    config.write_text("rules: {}\n", encoding="utf-8")
    write_section(tmp_path / "spec.yaml", config, "mock", {}, {}, {}, "header")
    assert config.read_text(encoding="utf-8") == "rules: {}\nmock: {}\n"


def test_the_embedded_mock_serves_the_faults_and_logs_what_it_broke(shop):
    op = operation(shop, "listProducts")
    _path, mock_config = change_faults(shop, op, fault_rule(op, "fail", 1))
    mock = EmbeddedMock(load_spec(shop), mock_config, seed=3).start()
    try:
        assert mock.url.endswith("/v2") and mock.seed == 3
        statuses = [httpx.get(f"{mock.url}/products", headers=AUTH, timeout=10).status_code for _ in range(2)]
        assert statuses == [503, 200]
        mock.set_faults((fault_rule(op, "delay", 50),))
        began = time.perf_counter()
        assert httpx.get(f"{mock.url}/products", headers=AUTH, timeout=10).status_code == 200
        assert time.perf_counter() - began >= 0.05
        rows = [log_row(entry) for entry in mock.take_log()]
        assert [(r[0], r[1], r[2], r[4]) for r in rows] == [("GET", "/v2/products", "503", "status 503"),
                                                         ("GET", "/v2/products", "200", ""),
                                                         ("GET", "/v2/products", "200", "delay 50 ms")]
        assert mock.take_log() == []  # taken once
    finally:
        mock.stop()


def test_the_round_trip_job_hands_over_every_attempt_as_it_comes(shop):
    loaded = load_and_lint(shop)
    said: list[str] = []
    taken: list = []
    run = RoundTripRun(shop, loaded.spec, RunSettings(count=0), taken.append)
    report = run(said.append, lambda: False)
    assert [a.key for a in taken] == [a.key for a in report.attempts]
    assert said[-1] == f"{len(report.operations)}/{len(report.operations)} tools" and run.done == run.total
    failure = next(a for a in taken if a.classification not in (PASSED, NOT_RUN))
    text = attempt_text(failure)
    assert failure.request in text and "Violations" in text and result_row(failure)[2] == "no"
    entry = operation_entry(loaded, failure.method, failure.path)
    assert entry is not None and entry.operation.path == failure.path
    found = [operation_finding(loaded, operation_entry(loaded, op.method, op.path)) for op in report.operations]
    assert any(found)  # the example's operations have lint findings to jump to
    assert all(f is None or f.finding.pointer.startswith(operation_entry(loaded, op.method, op.path)
                                                         .operation.origin.pointer)
               for f, op in zip(found, report.operations, strict=True))


def test_a_cancelled_run_stops_at_the_next_tool(shop):
    run = RoundTripRun(shop, load_spec(shop), RunSettings(count=0), lambda _attempt: None)
    report = run(lambda _text: None, lambda: run.done >= 2)  # `done` counts the tools begun before this one
    assert report.cancelled and len(report.operations) == 3 < len(load_spec(shop).operations)


def poll_until_finished(run: RoundTripProcess, answer=None, seconds: float = 120) -> list:
    taken = []
    deadline = time.monotonic() + seconds
    while not run.finished and time.monotonic() < deadline:
        taken += run.poll()
        while answer is not None and run.questions:
            run.answer(answer(run.questions[0]))
        time.sleep(0.05)
    return taken


def test_the_process_streams_the_run_and_asks_each_write_of_a_server_of_yours(shop, monkeypatch):
    for scheme in ("bearerAuth", "apiKeyAuth"):  # the child process inherits the environment's credentials
        monkeypatch.setenv(env_name(scheme), "secret-of-the-test")
    mock = EmbeddedMock(load_spec(shop), MockConfig()).start()
    try:
        run = RoundTripProcess(shop, RunSettings(count=0, base_url=mock.url, allow_writes=True)).start()
        asked: list[WriteQuestion] = []
        taken = poll_until_finished(run, lambda q: asked.append(q) or q.name == "createCustomer")
    finally:
        mock.stop()
    assert run.error is None and run.report is not None
    assert [a.key for a in taken] == [a.key for a in run.report.attempts] and run.done == run.total > 10
    assert WriteQuestion("createCustomer", "post", "/customers") in asked and len(asked) > 3
    sent = {a.tool for a in taken if a.request}
    assert "createCustomer" in sent and not any(q.name in sent for q in asked if q.name != "createCustomer")


def test_a_cancelled_process_ends_at_once_and_a_bad_base_url_is_one_line(shop):
    run = RoundTripProcess(shop, RunSettings(count=5)).start()
    deadline = time.monotonic() + 60
    while not run.poll(1) and time.monotonic() < deadline:
        time.sleep(0.05)
    began = time.monotonic()
    run.cancel()
    assert run.finished and not run.process.is_alive() and time.monotonic() - began < 5
    run = RoundTripProcess(shop, RunSettings(base_url="http://127.0.0.1:9")).start()  # nothing listens on 9
    assert poll_until_finished(run) == [] and run.report is None
    assert run.error.startswith("http://127.0.0.1:9: cannot reach the server") and "\n" not in run.error


def test_a_run_cancelled_before_its_process_has_read_the_text_does_not_keep_the_program_from_exiting(shop):
    # 2 MB of unsaved text handed over to a process stopped at once: the queue's writer thread must not hold the
    # interpreter at exit (it waited for ever on a pipe nobody would read).
    script = ("import sys; from pathlib import Path; from workbench.workspace.roundtrips import RoundTripProcess, "
              "RunSettings; text = Path(sys.argv[1]).read_text() + '#' * 2_000_000; "
              "run = RoundTripProcess(Path(sys.argv[1]), RunSettings(count=1), text).start(); run.cancel(); "
              "print('cancelled')")
    done = subprocess.run([sys.executable, "-c", script, str(shop)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert done.returncode == 0 and done.stdout.strip() == "cancelled", done.stderr[-2000:]
