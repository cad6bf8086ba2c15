"""Text typed into a file without Qt: keystrokes gathered as splices against the text before them (one step per
pause), undone exactly, journaled, refused edits planned before the re-check, and a spec that does not parse
loaded as text with its `parser` finding."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path

import pytest

from workbench.edit import Edit, apply_edits
from workbench.edit.engine import apply_splices
from workbench.edit.journal import RecoveryJournal
from workbench.spec.source import parse_text
from workbench.workspace import LoadKind, Workspace, load_and_lint
from workbench.workspace.typing import NOT_CHECKED, TypedDocument, TypingBurst

ROOT = """\
openapi: 3.1.0
info: {title: Pets, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      summary: List the pets
      responses:
        '200': {description: The pets.}
"""
SUMMARY = "/paths/~1pets/get/summary"


def test_a_burst_gives_the_text_typed_whatever_the_order_of_the_keystrokes():
    rng = random.Random(7)
    base = parse_text(ROOT, Path("api.yaml"), "api.yaml")
    for _ in range(200):
        burst, text = TypingBurst(base), ROOT
        for _ in range(rng.randint(1, 12)):
            start = rng.randint(0, len(text))
            end = min(len(text), start + rng.choice((0, 0, 1, 3, 20)))
            typed = rng.choice(("", "x", "ab", "\n", "é", "🚢"))
            burst.add(start, end, typed)
            text = text[:start] + typed + text[end:]
            assert burst.length == len(text)
            a = rng.randint(0, len(text))
            b = rng.randint(a, len(text))
            assert burst.slice(a, b) == text[a:b]
        splices = sorted(burst.splices, key=lambda s: s.start)
        assert all(one.end < two.start for one, two in pairwise(splices))  # disjoint
        assert apply_splices(ROOT, list(burst.splices)) == text
        document = burst.document()
        assert (document is None) == (text == ROOT)
        if document is not None:
            assert document.text == text and isinstance(document, TypedDocument)


def test_keystrokes_side_by_side_are_one_splice():
    base = parse_text(ROOT, Path("api.yaml"), "api.yaml")
    burst = TypingBurst(base)
    at = ROOT.index("List")
    for offset, char in enumerate("All: "):
        burst.add(at + offset, at + offset, char)
    burst.add(at + 4, at + 5, "")  # a backspace over the space
    assert [(s.start, s.end, s.text) for s in burst.splices] == [(at, at, "All:")]
    burst.add(at, at + 4, "")  # all of it deleted again: nothing typed
    assert burst.splices == [] and burst.document() is None


@pytest.fixture
def workspace(write, tmp_path) -> Workspace:
    workspace = Workspace(tmp_path / "recovery")
    workspace.take_loaded(load_and_lint(write("api.yaml", ROOT)), LoadKind.OPEN)
    return workspace


def test_typing_is_one_step_per_pause_undone_exactly_and_journaled(workspace):
    root = workspace.root
    name = root.name
    heard = []
    workspace.on_settled = heard.append
    at = root.text.index("List")
    for offset, char in enumerate("Quickly "):
        workspace.type_text(name, at + offset, at + offset, char)
    assert workspace.is_typing and workspace.typed_slice(name, at, at + 14) == "Quickly List t"
    assert workspace.root.text == ROOT.replace("List", "Quickly List")  # reading the files settles the typing
    assert not workspace.is_typing and len(heard) == 1 and heard[0][0].typed
    assert len(workspace.history) == 1 and workspace.history.undo_label == "Typing"
    recovered = RecoveryJournal(workspace.recovery_dir, root.path).read()
    assert recovered is not None and recovered.text == workspace.root.text
    workspace.type_text(name, 0, 0, "# typed\n")
    workspace.undo()  # the typing not yet settled is the step undone first
    assert workspace.root.text == ROOT.replace("List", "Quickly List")
    workspace.undo()
    assert workspace.root is root and not workspace.is_modified
    workspace.redo()
    assert workspace.root.text == ROOT.replace("List", "Quickly List")
    workspace.save()
    assert root.path.read_text() == ROOT.replace("List", "Quickly List")
    assert root.path.with_name("api.yaml.bak").read_text() == ROOT


def test_an_edit_planned_from_the_typed_text_waits_for_the_recheck(workspace):
    name = workspace.root.name
    workspace.type_text(name, 0, 0, "# typed\n")
    typed = workspace.edited[name]
    assert isinstance(typed, TypedDocument)
    assert workspace.apply(apply_edits(typed, [Edit(SUMMARY, "All pets")]), "Edit") == []
    assert workspace.last_refused == [f"{name}: {NOT_CHECKED}"]
    checked = load_and_lint(typed.path, text=typed.text)
    workspace.take_loaded(checked, LoadKind.RECHECK)
    parsed = workspace.edited[name]
    assert parsed.text == typed.text and not isinstance(parsed, TypedDocument) and workspace.is_checked()
    assert workspace.apply(apply_edits(parsed, [Edit(SUMMARY, "All pets")]), "Edit")
    assert "summary: All pets" in workspace.root.text and workspace.root.text.startswith("# typed\n")


def test_a_spec_that_does_not_parse_loads_as_text_with_the_parser_finding(write, tmp_path):
    broken = ROOT.replace("      summary: List the pets\n", "      summary: [List the pets\n")
    path = write("api.yaml", broken)
    loaded = load_and_lint(path)
    assert not loaded.parsed and loaded.spec.root.text == broken and loaded.operations == ()
    (entry,) = loaded.problems
    assert entry.finding.rule == "parser" and entry.finding.severity.label == "error"
    from workbench.lint.engine import parser_result
    from workbench.spec import SpecError
    from workbench.spec.loader import load_spec
    with pytest.raises(SpecError) as raised:
        load_spec(path)
    expected = parser_result(raised.value, path).findings[0].locate().start
    assert (entry.start.line, entry.start.column) == (expected.line, expected.column)  # as `workbench lint`
    workspace = Workspace(tmp_path / "recovery")
    workspace.take_loaded(loaded, LoadKind.OPEN)
    at = broken.index("[")
    workspace.type_text(workspace.root.name, at, at + 1, "")
    fixed = load_and_lint(path, text=workspace.root.text)
    assert fixed.parsed and len(fixed.operations) == 1
    workspace.take_loaded(fixed, LoadKind.RECHECK)
    assert workspace.root.text == ROOT and workspace.is_modified


def test_a_referenced_file_typed_into_a_syntax_error_is_the_file_with_the_finding(write, tmp_path):
    bad_request = "      responses:\n        '400': {$ref: 'more.yaml#/Bad'}"
    root = write("api.yaml", ROOT.replace("      responses:", bad_request))
    write("more.yaml", "Bad: {description: Bad request.}\n")
    workspace = Workspace(tmp_path / "recovery")
    workspace.take_loaded(load_and_lint(root), LoadKind.OPEN)
    (name,) = [name for name in workspace.edited if name.endswith("more.yaml")]
    workspace.type_text(name, 5, 5, "[")  # Bad: [{description: ...}  — an unclosed flow sequence
    loaded = load_and_lint(root, text=workspace.root.text, documents=workspace.edited_others())
    assert not loaded.parsed  # the typed text is what is checked (parsed off the UI thread), not the old data
    (entry,) = loaded.problems
    assert entry.finding.document.name == name and entry.finding.rule == "parser"
    assert entry.finding.document.text == workspace.edited[name].text
    workspace.take_loaded(loaded, LoadKind.RECHECK)
    assert set(workspace.edited) == {workspace.root.name, name}  # both files stay, as edited
    workspace.type_text(name, 5, 6, "")
    fixed = load_and_lint(root, text=workspace.root.text, documents=workspace.edited_others())
    assert fixed.parsed and len(fixed.operations) == 1
    assert workspace.edited[name].text == "Bad: {description: Bad request.}\n"
