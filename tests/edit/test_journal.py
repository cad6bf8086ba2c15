"""The recovery journal on its own: steps replayed exactly, torn writes survived, stale journals ignored."""

from __future__ import annotations

import os
import time

from workbench.edit import Edit, apply_edits
from workbench.edit.journal import RecoveryJournal
from workbench.spec.source import parse_text


def _older(path, seconds: float = 60) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def _journal_of_a_saved_file(tmp_path, text: str = "a: 1\n") -> tuple[RecoveryJournal, object]:
    """A file saved a minute ago, and its journal started from its text (so the journal is the newer)."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    _older(spec)
    journal = RecoveryJournal(tmp_path, spec)
    journal.start(text, bom=False)
    return journal, spec


def test_steps_are_replayed_on_the_starting_text(tmp_path):
    spec = tmp_path / "spec.yaml"
    text = "a: 1\nb: two\nc: [3]\n"
    spec.write_text(text, encoding="utf-8")
    _older(spec)
    journal = RecoveryJournal(tmp_path / "recovery", spec)
    document = parse_text(text, spec, "spec.yaml")
    journal.start(text, bom=True)
    for edit in (Edit("/b", "changed: with a colon"), Edit("/d", "new key"), Edit("/a", 10)):
        outcome = apply_edits(document, [edit])
        journal.append(outcome.splices)
        document = outcome.document
    recovered = journal.read()
    assert recovered.text == document.text and recovered.steps == 3 and recovered.bom


def test_a_torn_last_step_is_left_out(tmp_path):
    journal, spec = _journal_of_a_saved_file(tmp_path)
    document = parse_text("a: 1\n", spec, "spec.yaml")
    outcome = apply_edits(document, [Edit("/a", 2)])
    journal.append(outcome.splices)
    with journal.path.open("a", encoding="utf-8") as handle:
        handle.write('{"splices": [[0, 1, "b')  # killed in the middle of writing the next step
    recovered = journal.read()
    assert recovered.text == "a: 2\n" and recovered.steps == 1


def test_a_journal_older_than_the_file_or_of_another_file_is_not_read(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text("a: 1\n", encoding="utf-8")
    journal = RecoveryJournal(tmp_path, spec)
    journal.start("a: 2\n", bom=False)
    _older(journal.path)
    assert journal.read() is None  # the file was saved after the edits
    other = tmp_path / "other.yaml"
    other.write_text("a: 1\n", encoding="utf-8")
    _older(other)
    os.replace(journal.path, RecoveryJournal(tmp_path, other).path)  # a journal under another file's name
    assert RecoveryJournal(tmp_path, other).read() is None


def test_a_step_out_of_bounds_ends_the_replay(tmp_path):
    journal, _spec = _journal_of_a_saved_file(tmp_path)
    with journal.path.open("a", encoding="utf-8") as handle:
        handle.write('{"splices": [[3, 4, "5"]]}\n{"splices": [[0, 99, "x"]]}\n')
    assert journal.read().text == "a: 5\n"


def test_removing_a_journal_that_is_not_there_is_fine(tmp_path):
    journal = RecoveryJournal(tmp_path / "none", tmp_path / "spec.yaml")
    journal.remove()
    assert journal.read() is None


def test_the_starting_text_comes_back_character_for_character(tmp_path):
    text = "a: 1\r\nb: \"caf\u00e9 \U0001f600\"\r\nc: \"line\\u2028break\"\r\n"  # CRLF, accents, an astral emoji
    journal, _spec = _journal_of_a_saved_file(tmp_path, text)
    assert journal.read().text == text
    with journal.path.open("r+", encoding="utf-8", newline="") as handle:
        handle.truncate(len(handle.readline()) + 5)  # killed while the starting text was being written
    assert journal.read() is None
