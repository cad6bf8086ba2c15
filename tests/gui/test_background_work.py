"""What runs beside the window after an edit: the re-check and the span index never stop it for long, and the
findings it shows after typing and a form edit sit where they are in the edited text."""

from __future__ import annotations

import gc
import json
import sys
import threading
from pathlib import Path

import pytest

from workbench.gui.app import SWITCH_INTERVAL_S
from workbench.gui.document import SpecDocument
from workbench.workspace import LoadKind, load_and_lint
from workbench.workspace.typing import TypedDocument

NOTES = {
    "openapi": "3.0.3", "info": {"title": "Notes", "version": "1", "description": "Notes kept by a person."},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {
        "/notes": {"get": {"summary": "List notes", "responses": {"200": {
            "description": "The notes", "content": {"application/json": {"schema": {
                "type": "array", "items": {"$ref": "#/components/schemas/Note"}}}}}}}},
        "/notes/{id}": {"get": {"summary": "Get a note", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "The note", "content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/Note"}}}}}}}},
    "components": {"schemas": {"Note": {"type": "object", "description": "A note.", "properties": {
        "text": {"type": "string", "description": "What it says."}}},
        **{f"Label{n}": {"type": "object", "description": f"Label number {n}.", "properties": {
            "name": {"type": "string", "description": "What the label reads."},
            "colour": {"type": "string", "enum": ["red", "green"], "description": "How it is drawn."}}}
           for n in range(100)}}},  # nodes no finding is on: placing the findings needs only part of the index
}


@pytest.fixture
def notes_json(tmp_path) -> Path:
    """A JSON spec whose findings are all inside its operations: placing them (and the operations) needs only part
    of its span index, as on the GitHub description (a JSON file's whole index is built on demand)."""
    target = tmp_path / "notes.json"
    target.write_text(json.dumps(NOTES, indent=2), encoding="utf-8")
    return target


@pytest.fixture
def document(qtbot, tmp_path):
    doc = SpecDocument(tmp_path / "recovery")
    yield doc
    doc.shutdown()


def open_document(qtbot, document: SpecDocument, path: Path) -> None:
    with qtbot.waitSignal(document.loaded, timeout=30_000):
        document.open(path)
    assert document.jobs.wait(30_000)  # the load's worker has ended too


def type_into_description(qtbot, document: SpecDocument, typed: str) -> None:
    """Type into the first description and wait for the re-check after the pause."""
    ws = document.workspace
    at = ws.root.text.index('"description": "') + len('"description": "')
    with qtbot.waitSignal(document.loaded, timeout=30_000,
                          check_params_cb=lambda _loaded, kind: kind is LoadKind.RECHECK):
        document.type_text(ws.root.name, at, at, typed)


def test_a_recheck_of_typed_text_sets_off_no_collection_on_its_worker(qtbot, document, notes_json):
    open_document(qtbot, document, notes_json)
    ws = document.workspace
    on_workers: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start" and threading.current_thread() is not threading.main_thread():
            on_workers.append(info["generation"])

    thresholds = gc.get_threshold()
    # A collection every 200 new containers: a re-check sets off several (none while the collector is paused;
    # the few containers its worker makes once the pause is over, handing the result back, set off none).
    gc.set_threshold(200, 2, 2)
    gc.callbacks.append(seen)
    try:
        type_into_description(qtbot, document, "Typed while measuring. ")
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
    assert "Typed while measuring. " in ws.root.text and ws.is_checked()
    assert on_workers == []
    assert gc.isenabled()


def test_a_recheck_of_typed_json_hands_over_its_whole_span_index_and_no_job_runs_after_it(
        qtbot, document, notes_json):
    open_document(qtbot, document, notes_json)
    ws = document.workspace
    when_shown: list[tuple[bool, bool]] = []
    document.loaded.connect(lambda _loaded, kind: when_shown.append(
        (ws.root.is_indexed, document.index_jobs.current is not None)) if kind is LoadKind.RECHECK else None)
    type_into_description(qtbot, document, "Typed. ")
    qtbot.wait(0)
    assert when_shown == [(True, False)] and document.index_jobs.current is None
    assert not isinstance(ws.root, TypedDocument) and "Typed. " in ws.root.text
    # A typed text that no longer parses comes back as text (no index is built on it).
    at = ws.root.text.index("{") + 1
    with qtbot.waitSignal(document.loaded, timeout=30_000,
                          check_params_cb=lambda loaded, kind: kind is LoadKind.RECHECK and not loaded.parsed):
        document.type_text(ws.root.name, at, at, "}}")
    assert ws.loaded.result.findings[0].rule == "parser"


def test_the_window_waits_a_millisecond_at_most_for_a_worker_to_hand_over_the_interpreter():
    assert sys.getswitchinterval() <= SWITCH_INTERVAL_S <= 0.001  # set by configure_application (conftest)


def test_findings_after_typing_and_a_form_edit_right_after_its_recheck_sit_where_a_fresh_lint_puts_them(
        qtbot, window, open_spec, notes_json):
    open_spec(notes_json)
    ws = window.document.workspace
    qtbot.waitUntil(lambda: ws.root.is_indexed, timeout=30_000)  # the opened file's, once its text is shown
    view = window.source.view
    # Three new lines at the top: every finding moves three lines down.
    cursor = view.textCursor()
    cursor.setPosition(1)
    view.setTextCursor(cursor)
    view.setFocus()
    with qtbot.waitSignal(window.document.loaded, timeout=30_000,
                          check_params_cb=lambda _loaded, kind: kind is LoadKind.RECHECK):
        for _ in range(3):
            qtbot.keyClick(view, "\r")
    assert ws.root.text.startswith("{\n\n\n")
    # A form edit at once: the re-checked text's span index came with it, nothing builds it meanwhile.
    assert ws.root.is_indexed and window.document.index_jobs.current is None
    entry = window.loaded.operations[0]
    window.edit.fill(entry)
    window.edit.form.summary.setText("An edited summary\u2014placed after the typing")
    with qtbot.waitSignal(window.document.loaded, timeout=30_000,
                          check_params_cb=lambda _loaded, kind: kind is LoadKind.RECHECK):
        window.edit.form.apply_button.click()
    qtbot.waitUntil(lambda: window.document.index_jobs.current is None, timeout=30_000)
    assert "An edited summary" in ws.root.text
    fresh = load_and_lint(ws.loaded.path, text=ws.root.text)

    def places(entries) -> list[tuple]:
        return sorted((e.finding.rule, e.finding.pointer, e.start.line, e.start.column, e.location.end.line)
                      for e in entries)

    assert places(window.problems.entries()) == places(fresh.problems)
    markers = {e.start.line for e in fresh.problems if e.finding.document.name == ws.root.name}
    assert set(view._markers) == markers
