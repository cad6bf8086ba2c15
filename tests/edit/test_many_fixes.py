"""Many renames at once stay linear: the Link Objects are found in one walk of the document however many
operationIds are renamed, and splices that do not overlap are joined in one pass with the same text as
splicing them one by one."""

from __future__ import annotations

import json
import random

from workbench.edit.engine import Splice, apply_splices
from workbench.edit.fixes import apply_fixes, quick_fixes
from workbench.lint import lint
from workbench.spec import load_spec
from workbench.spec.source import parse_text

RENAMES = 12


class CountingDict(dict):
    """The document's `paths`: every walk of the whole document lists its items once."""

    listed = 0

    def items(self):
        CountingDict.listed += 1
        return super().items()


def _spec_with_links(tmp_path):
    paths = {}
    for i in range(RENAMES):
        paths[f"/things{i}/{{id}}"] = {"get": {
            "operationId": f"things{i}.get", "summary": f"Get thing {i}",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "links": {
                "Next": {"operationId": f"things{(i + 1) % RENAMES}.get", "parameters": {"id": "$response.body#/id"}},
            }}}}}
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths},
                               indent=2))
    return load_spec(path)


def test_renames_find_their_links_in_one_walk(tmp_path):
    spec = _spec_with_links(tmp_path)
    result = lint(spec)
    spec.root.data["paths"] = CountingDict(spec.root.data["paths"])
    CountingDict.listed = 0
    fixes = quick_fixes(spec, result, ["operation-id-tool-name-invalid"])
    assert len(fixes) == RENAMES
    assert CountingDict.listed == 1
    by_old = {fix.old: fix for fix in fixes}
    for i in range(RENAMES):  # each rename also rewrites the link of the operation before it
        fix = by_old[f"things{i}.get"]
        link = f"/paths/~1things{(i - 1) % RENAMES}~1{{id}}/get/responses/200/links/Next/operationId"
        assert [edit.pointer for edit in fix.edits][1:] == [link]


def _one_by_one(text: str, splices: list[Splice]) -> str:
    """How splices were applied before: later positions first, at one position in planning order."""
    for _, splice in sorted(enumerate(splices), key=lambda item: (item[1].start, item[0]), reverse=True):
        text = splice.apply(text)
    return text


def test_joined_splices_give_the_text_splicing_one_by_one_gives():
    rng = random.Random(17)
    text = "".join(rng.choice("abc:\n ") for _ in range(200))
    for _ in range(2000):
        splices = []
        for _ in range(rng.randint(0, 6)):
            start = rng.randint(0, len(text))
            end = min(len(text), start + rng.choice((0, 0, 1, 3, 8)))
            splices.append(Splice(start, end, rng.choice(("", "X", "YY", "zzz\n"))))
        assert apply_splices(text, splices) == _one_by_one(text, splices), splices


def test_hundreds_of_renames_in_one_json_file_verify_as_one_batch(tmp_path):
    spec = _spec_with_links(tmp_path)
    fixes = quick_fixes(spec, lint(spec), ["operation-id-tool-name-invalid"])
    outcome = apply_fixes(fixes)[spec.root.name]
    assert not outcome.refused and outcome.planned_together
    data = parse_text(outcome.document.text, spec.root.path, spec.root.name).data
    assert data["paths"]["/things3/{id}"]["get"]["operationId"] == "things3_get"
    assert data["paths"]["/things2/{id}"]["get"]["responses"]["200"]["links"]["Next"]["operationId"] == "things3_get"
