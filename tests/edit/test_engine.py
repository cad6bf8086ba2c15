"""Zero-noise edits: only the intended lines change, in the style of their surroundings, or the edit is
refused with a reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.catalogue import corpus_dir, corpus_names
from workbench.edit import Edit, apply_edits, plan_edit
from workbench.edit.diff import unified_diff
from workbench.edit.engine import EditRefused, ShiftedIndex, apply_splices
from workbench.spec import load_spec
from workbench.spec.pointer import join, lookup
from workbench.spec.source import parse_text


def doc(text: str, name: str = "spec.yaml"):
    return parse_text(text, Path(name), name)


def changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """(removed, added) lines, order kept: a crude diff that is enough when edits do not reorder lines."""
    import difflib

    removed, added = [], []
    for line in difflib.ndiff(old.splitlines(True), new.splitlines(True)):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return removed, added


YAML = """# An API with comments, anchors, block scalars and flow maps.
openapi: 3.1.0
info:
  title: Shop   # the public name
  version: '1'
  description: |
    First line.
    Second line.

x-shared: &limit
  name: limit
  in: query
paths:
  /orders:
    get:
      summary: List orders
      parameters:
        - *limit
        - name: status
          in: query
          schema: {type: string}
      responses:
        '200': {description: ok}
"""


def test_set_plain_scalar_keeps_the_comment():
    outcome = apply_edits(doc(YAML), [Edit("/info/title", "Acme Shop")])
    assert changed_lines(YAML, outcome.document.text) == (["  title: Shop   # the public name\n"],
                                                          ["  title: Acme Shop   # the public name\n"])


def test_block_scalar_stays_a_block_and_keeps_the_blank_line_after_it():
    outcome = apply_edits(doc(YAML), [Edit("/info/description", "New first.\nNew second.\n")])
    removed, added = changed_lines(YAML, outcome.document.text)
    assert removed == ["    First line.\n", "    Second line.\n"]
    assert added == ["    New first.\n", "    New second.\n"]
    assert outcome.document.data["info"]["description"] == "New first.\nNew second.\n"


def test_insert_description_after_summary_with_the_siblings_indentation():
    outcome = apply_edits(doc(YAML), [Edit("/paths/~1orders/get/description", "Lists orders: newest first.",
                                           after=("summary",))])
    assert changed_lines(YAML, outcome.document.text) == (
        [], ["      description: 'Lists orders: newest first.'\n"])
    lines = outcome.document.text.splitlines()
    assert lines[lines.index("      summary: List orders") + 1] == "      description: 'Lists orders: newest first.'"


def test_insert_into_a_flow_mapping_and_a_sequence_item():
    outcome = apply_edits(doc(YAML), [
        Edit("/paths/~1orders/get/parameters/1/schema/enum", ["open", "closed"], after=("type",)),
        Edit("/paths/~1orders/get/parameters/1/description", "Filter by status.", after=("in",))])
    removed, added = changed_lines(YAML, outcome.document.text)
    assert removed == ["          schema: {type: string}\n"]
    assert added == ["          description: Filter by status.\n",
                     "          schema: {type: string, enum: [open, closed]}\n"]


def test_an_aliased_value_is_refused_with_a_reason():
    outcome = apply_edits(doc(YAML), [Edit("/paths/~1orders/get/parameters/0/name", "max")])
    assert outcome.applied == [] and "alias" in outcome.refused[0][1]
    anchored = apply_edits(doc(YAML), [Edit("/x-shared/name", "max")])
    assert anchored.applied == [] and "anchor" in anchored.refused[0][1]


def test_crlf_and_bom_survive():
    text = "openapi: 3.1.0\r\ninfo:\r\n  title: A\r\npaths: {}\r\n"
    document = parse_text(text, Path("c.yaml"), "c.yaml", bom=True)
    outcome = apply_edits(document, [Edit("/info/description", "Two\nlines", after=("title",)),
                                     Edit("/info/title", "B")])
    assert outcome.document.text == "openapi: 3.1.0\r\ninfo:\r\n  title: B\r\n  description: |-\r\n    Two\r\n" \
                                    "    lines\r\npaths: {}\r\n"
    assert outcome.document.bom


def test_comment_after_a_value_blocks_a_multiline_rewrite():
    with pytest.raises(EditRefused, match="comment"):
        plan_edit(doc(YAML), Edit("/info/title", "two\nlines"))


def test_document_separator_and_key_order_survive():
    text = "---\nopenapi: 3.1.0\ninfo: {title: a, version: '1'}\npaths: {}\n...\n"
    outcome = apply_edits(doc(text), [Edit("/info/title", "b")])
    assert outcome.document.text == text.replace("title: a", "title: b")


JSON = '{\n    "openapi": "3.0.3",\n    "paths": {\n        "/a": {\n            "get": {\n' \
       '                "summary": "A",\n                "responses": {}\n            }\n        }\n    }\n}\n'


def test_json_stays_json_with_its_indentation():
    outcome = apply_edits(doc(JSON, "spec.json"), [
        Edit("/paths/~1a/get/operationId", "getA", first=True),
        Edit("/paths/~1a/get/tags", ["a"]),
        Edit("/paths/~1a/get/summary", 'Say "hi"')])
    new = outcome.document.text
    assert json.loads(new)["paths"]["/a"]["get"] == {"operationId": "getA", "summary": 'Say "hi"', "responses": {},
                                                     "tags": ["a"]}
    removed, added = changed_lines(JSON, new)
    assert removed == ['                "summary": "A",\n', '                "responses": {}\n']
    assert added == ['                "operationId": "getA",\n', '                "summary": "Say \\"hi\\"",\n',
                     '                "responses": {},\n', '                "tags": [\n', '                    "a"\n',
                     '                ]\n']


def test_undo_is_the_inverse_splice():
    document = doc(YAML)
    outcome = apply_edits(document, [Edit("/info/description", "Short.")])
    (_, splice), = outcome.applied
    assert splice.inverse(document.text).apply(outcome.document.text) == document.text


def test_unified_diff_from_splices_matches_the_edit():
    document = doc(YAML)
    outcome = apply_edits(document, [Edit("/info/title", "Acme")])
    diff = unified_diff(document.text, [s for _, s in outcome.applied], "spec.yaml")
    assert diff == ("--- a/spec.yaml\n+++ b/spec.yaml\n@@ -1,7 +1,7 @@\n"
                    " # An API with comments, anchors, block scalars and flow maps.\n openapi: 3.1.0\n info:\n"
                    "-  title: Shop   # the public name\n+  title: Acme   # the public name\n"
                    "   version: '1'\n   description: |\n     First line.\n")


# -- properties -----------------------------------------------------------------------------------------

_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30) | st.sampled_from(
    ["yes", "no", "on", "12", "1e3", "true", "null", "~", "a: b", "# x", "- item", "'q'", '"dq"', "x #y", " lead",
     "trail ", "multi\nline", "multi\nline\n", "tab\there", "{flow}", "[x]", "@at", "`tick`", "", "é ü 中"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_text, style=st.sampled_from(["plain", "'", '"', "|", ">", "flow", "json"]))
def test_any_string_round_trips_in_any_style(value, style):
    if style == "json":
        text, name = '{\n  "info": {\n    "title": "old",\n    "version": "1"\n  }\n}\n', "s.json"
    else:
        written = {"plain": "old", "'": "'old'", '"': '"old"', "|": "|\n    old\n", ">": ">\n    old\n",
                   "flow": "{x: old}"}[style]
        text, name = f"info:\n  title: {written}\n  version: '1'\n", "s.yaml"
    pointer = "/info/title/x" if style == "flow" else "/info/title"
    document = doc(text, name)
    try:
        outcome = apply_edits(document, [Edit(pointer, value)])
    except EditRefused:
        assume(False)
    if outcome.refused:
        return  # refused with a reason: allowed, never sloppy
    assert lookup(outcome.document.data, pointer) == value
    (_, splice), = outcome.applied
    assert outcome.document.text[: splice.start] == text[: splice.start]  # nothing before the span moved
    assert outcome.document.text.endswith(text[splice.end :])  # nor after it


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_splice_diff_applies_back(data):
    lines = [f"k{i}: v{i}\n" for i in range(data.draw(st.integers(3, 40)))]
    text = "".join(lines)
    keys = data.draw(st.lists(st.integers(0, len(lines) - 1), min_size=1, max_size=5, unique=True))
    edits = [Edit(f"/k{k}", data.draw(st.sampled_from(["x", "two\nlines", "#", "v"]))) for k in keys]
    document = doc(text)
    outcome = apply_edits(document, edits)
    diff = unified_diff(text, [s for _, s in outcome.applied], "s.yaml")
    assert _patch(text, diff) == apply_splices(text, [s for _, s in outcome.applied])


def _patch(text: str, diff: str) -> str:
    """Apply a unified diff (no fuzz): the test's own reader, independent of the writer."""
    old = text.splitlines(True)
    out, cursor = [], 0
    for line in diff.splitlines(True)[2:]:
        if line.startswith("@@"):
            start = int(line.split()[1][1:].split(",")[0])
            count = line.split()[1].split(",")
            first = start - 1 if len(count) == 1 or count[1] != "0" else start
            out += old[cursor:first]
            cursor = first
        elif line.startswith(" "):
            out.append(old[cursor])
            cursor += 1
        elif line.startswith("-"):
            cursor += 1
        elif line.startswith("+"):
            out.append(line[1:])
    return "".join(out + old[cursor:])


# -- every corpus file ------------------------------------------------------------------------------------

CORPUS = corpus_names()


@pytest.mark.parametrize("name", CORPUS)
def test_editing_one_description_in_every_corpus_file(name):
    spec = load_spec(corpus_dir() / name)
    operations = spec.operations or spec.webhook_operations
    op = operations[len(operations) // 2]
    document = op.origin.document
    pointer = join(op.origin.pointer, "description")
    value = "Edited: returns the thing.\nSecond line, with a colon: and a # hash."
    outcome = apply_edits(document, [Edit(pointer, value, after=("summary",))])
    assert outcome.refused == []
    assert lookup(outcome.document.data, pointer) == value
    (_, splice), = outcome.applied
    new = outcome.document.text
    assert new[: splice.start] == document.text[: splice.start]
    assert new[splice.start + len(splice.text) :] == document.text[splice.end :]
    # the untouched parts re-read identically, and the format is kept
    assert outcome.document.format == document.format
    if document.format == "yaml":
        assert yaml.safe_load(new) is not None


@pytest.fixture
def no_full_read(monkeypatch):
    """Fail if the engine re-reads a whole document: these edits must be verified by their block alone."""

    def refuse(*args, **kwargs):
        raise AssertionError("the whole document was read again")

    monkeypatch.setattr("workbench.edit.engine.parse_text", refuse)


@pytest.mark.parametrize("name", [n for n in CORPUS if n.endswith(".yaml")])
def test_quick_verification_gives_the_same_document_as_a_full_read(name, no_full_read):
    """Edits verified by re-reading only their block must yield exactly the data and spans a full read gives."""
    spec = load_spec(corpus_dir() / name)
    document = spec.root
    for op in (spec.operations or spec.webhook_operations)[:5]:
        for pointer, value in ((join(op.origin.pointer, "description"), "Edited.\nTwo lines: yes # no"),
                               (join(op.origin.pointer, "summary"), "A summary: short")):
            outcome = apply_edits(document, [Edit(pointer, value, after=("summary", "operationId"), first=True)])
            assert outcome.refused == []
            full = parse_text(outcome.document.text, document.path, document.name)
            assert outcome.document.data == full.data
            assert outcome.document.index == full.index
            document = outcome.document


def test_quick_verification_handles_items_of_a_sequence(no_full_read):
    text = "paths:\n  /a:\n    get:\n      parameters:\n        - name: q\n          in: query\n" \
           "          description: old\n        - name: r\n          in: query\n"
    document = doc(text)
    outcome = apply_edits(document, [Edit("/paths/~1a/get/parameters/0/description", "new\nlines")])
    full = parse_text(outcome.document.text, document.path, document.name)
    assert outcome.document.data == full.data and outcome.document.index == full.index


@pytest.mark.parametrize("name", ["github-api.github.com-2022-07-18.json", "box-openapi.json",
                                  "oai-v3.0-petstore.json"])
def test_quick_verification_of_json_gives_the_same_document(name, no_full_read):
    spec = load_spec(corpus_dir() / name)
    document = spec.root
    for op in spec.operations[:4]:
        pointer = join(op.origin.pointer, "description")
        outcome = apply_edits(document, [Edit(pointer, "Edited: \"quoted\".\nTwo lines.", after=("summary",))])
        assert outcome.refused == []
        full = parse_text(outcome.document.text, document.path, document.name)
        assert outcome.document.data == full.data
        assert outcome.document.index == full.index
        document = outcome.document


@pytest.mark.parametrize("name", ["github-api.github.com-2022-07-18.json", "readme-v3.1-train-travel.yaml"])
def test_a_chain_of_edits_answers_span_lookups_without_copying_the_index(name, no_full_read):
    """After many edits each span is looked up through the chain of edits; every answer (and every pointer that
    is gone) must be what a full read of the final text gives, before and after the chain is flattened."""
    spec = load_spec(corpus_dir() / name)
    document = spec.root
    values = ("A new description: longer than the old one,\nacross two lines.", "Short.")
    for n, op in enumerate(spec.operations[:12]):
        edit = Edit(join(op.origin.pointer, "description"), values[n % 2], after=("summary", "operationId"))
        outcome = apply_edits(document, [edit])
        assert outcome.refused == []
        document = outcome.document
    full = parse_text(document.text, document.path, document.name)
    chained = document.index
    assert isinstance(chained, ShiftedIndex)
    assert all(chained[pointer] == entry for pointer, entry in full.index.items())
    assert all(pointer in full.index for pointer in spec.root.index if pointer in chained)
    assert dict(chained) == full.index
    assert all(chained[pointer] == entry for pointer, entry in full.index.items())  # from the flat copy now


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_outcome_splices_turn_the_old_text_into_the_new(data):
    lines = [f"k{i}: v{i}\n" for i in range(data.draw(st.integers(3, 20)))]
    text = "".join(lines)
    keys = data.draw(st.lists(st.sampled_from([f"k{i}" for i in range(len(lines))] + ["new"]), min_size=1,
                              max_size=4))
    edits = [Edit(f"/{k}", data.draw(st.sampled_from(["x", "two\nlines", "#", "v"]))) for k in keys]
    outcome = apply_edits(doc(text), edits)
    if outcome.splices is not None:
        assert apply_splices(text, outcome.splices) == outcome.document.text


def test_edits_made_one_after_another_give_no_splices_against_the_old_text():
    text = "a: &x 1\nb: *x\nc: 2\nd: 3\n"
    # /a is anchored: changing it changes /b too, so the batch does not verify; each edit then goes alone, and
    # the one to /d is planned against the text the edit to /c left.
    outcome = apply_edits(doc(text), [Edit("/c", "longer"), Edit("/a", 5), Edit("/d", "later")])
    assert [edit.pointer for edit, _ in outcome.applied] == ["/c", "/d"]
    assert [edit.pointer for edit, _ in outcome.refused] == ["/a"]
    assert outcome.splices is None
    assert apply_splices(text, [s for _, s in outcome.applied]) != outcome.document.text


def test_one_pointer_edited_twice_in_a_batch_is_refused_once():
    outcome = apply_edits(doc("a:\n  b: 1\n"), [Edit("/a/description", "x"), Edit("/a/description", "y")])
    assert outcome.document.text == "a:\n  b: 1\n  description: x\n"  # never two `description` keys
    assert outcome.refused == [(Edit("/a/description", "y"), "the same pointer is edited twice in one batch")]
    assert apply_splices("a:\n  b: 1\n", outcome.splices) == outcome.document.text



def test_a_long_chain_of_edits_flattens_without_recursion(no_full_read):
    text = "a:\n  b: 0\n"
    document = doc(text)
    for n in range(3000):  # deeper than the interpreter's recursion limit
        document = apply_edits(document, [Edit("/a/b", n % 7)]).document
    assert document.index["/a/b"] == parse_text(document.text, document.path, document.name).index["/a/b"]
    assert dict(document.index) == parse_text(document.text, document.path, document.name).index


def test_a_block_list_is_replaced_one_flow_item_a_line_and_the_rest_kept():
    text = ("# team\nmock:\n  seed: 1  # fixed\n  faults:\n    - operation: a  # old\n      status: 503\n"
            "    - {operation: b, fault: reset}\ntools: {vendor: openai}\n")
    value = [{"operation": "GET /x/{id}", "status": 503, "times": 2}, {"operation": "c: d", "delay-ms": 10}]
    outcome = apply_edits(doc(text, ".workbench.yaml"), [Edit("/mock/faults", value)])
    assert not outcome.refused
    assert outcome.document.text == ("# team\nmock:\n  seed: 1  # fixed\n  faults:\n"
                                     "    - {operation: 'GET /x/{id}', status: 503, times: 2}\n"
                                     "    - {operation: 'c: d', delay-ms: 10}\ntools: {vendor: openai}\n")
    emptied = apply_edits(outcome.document, [Edit("/mock/faults", [])]).document
    assert emptied.data["mock"] == {"seed": 1, "faults": []} and emptied.text.startswith("# team\nmock:\n  seed: 1")


def test_a_list_of_mappings_is_inserted_in_flow_style():
    outcome = apply_edits(doc("mock:\n  seed: 1\n", ".workbench.yaml"),
                          [Edit("/mock/faults", [{"operation": "a", "fault": "hang"}])])
    assert outcome.document.text == "mock:\n  seed: 1\n  faults: [{operation: a, fault: hang}]\n"


FAULTS = ("faults:\n  # first\n  - {operation: a, status: 500}  # keep me\n  # a block item\n  - operation: b\n"
          "    delay-ms: 200   # slow\n  - c\n# after\nother: 1\n")


def test_a_block_list_item_is_replaced_appended_or_removed_as_its_own_lines():
    document = doc(FAULTS)
    replaced = apply_edits(document, [Edit("/faults/1", {"operation": "b", "status": 503})])
    assert replaced.applied and not replaced.refused
    assert replaced.document.text == FAULTS.replace("- operation: b\n    delay-ms: 200   # slow",
                                                    "- {operation: b, status: 503}   # slow")
    appended = apply_edits(document, [Edit("/faults/-", {"operation": "d", "fault": "hang"})])
    assert appended.document.text == FAULTS.replace("  - c\n", "  - c\n  - {operation: d, fault: hang}\n")
    removed = apply_edits(document, [Edit("/faults/1", remove=True)])
    assert removed.document.text == FAULTS.replace("  - operation: b\n    delay-ms: 200   # slow\n", "")
    assert removed.document.data["faults"] == [{"operation": "a", "status": 500}, "c"]
    only = apply_edits(doc("faults:\n  - {operation: a}  # the one\nnext: 2\n"), [Edit("/faults/0", remove=True)])
    assert only.document.text == "faults: []\nnext: 2\n" and only.document.data == {"faults": [], "next": 2}


def test_list_items_outside_a_block_yaml_list_are_refused_not_guessed():
    for text, name in (("faults: [{operation: a}, b]\n", "spec.yaml"), ('{"faults": [{"operation": "a"}]}', "s.json")):
        # (replacing a JSON list's mapping item is an ordinary value edit: see the test after this one)
        for edit in (Edit("/faults/0", remove=True), Edit("/faults/-", {"operation": "z"}),
                     *([Edit("/faults/0", {"operation": "z"})] if name.endswith(".yaml") else [])):
            outcome = apply_edits(doc(text, name), [edit])
            assert not outcome.applied and outcome.refused, (text, edit)
    outcome = apply_edits(doc("a: 1\n"), [Edit("/a", remove=True)])
    assert outcome.refused[0][1] == "only a list item can be removed"


def test_a_mapping_item_of_a_json_list_is_replaced_as_any_value():
    outcome = apply_edits(doc('{"a": [{"x": 1}, {"x": 2}]}', "s.json"), [Edit("/a/0", {"x": 5})])
    assert outcome.applied and not outcome.refused
    assert outcome.document.text == '{"a": [{"x": 5}, {"x": 2}]}'
