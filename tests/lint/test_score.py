"""The readiness score: blockers first, then quality per operation, each case computed by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.catalogue import GITHUB, HEAD, ISOLATED, corpus_file, op
from workbench.config import LintConfig, WorkbenchConfig
from workbench.examples import CLEAN_EXAMPLE_SPEC, example_path
from workbench.lint import Severity, lint
from workbench.lint.registry import CATEGORIES, RULES
from workbench.lint.score import BLOCKED_CAP, CATEGORY_WEIGHT, TOOL_LIMIT, score
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, scoped_operations

SCHEMA = Path(__file__).resolve().parents[2] / "resources" / "schemas" / "score.schema.json"


def scored(write, paths: str, head: str = HEAD, **severities):
    spec = load_spec(write("s.yaml", head + "paths:\n" + paths))
    return score(lint(spec, LintConfig({**ISOLATED, **severities})))


def passed(result) -> dict[str, int]:
    return {c.name: c.passed for c in result.categories}


def test_every_rule_belongs_to_a_scored_category():
    assert {rule.category for rule in RULES.values()} == set(CATEGORIES)
    assert set(CATEGORY_WEIGHT) == set(CATEGORIES) and sum(CATEGORY_WEIGHT.values()) == 100


def test_an_invalid_tool_name_blocks_and_sinks_only_its_operation(write):
    # Four operations, one invalid name (naming fails for 1 of 4): quality = 15 × 3/4 + 85 = 96.25 → 96; the
    # vendors reject the whole list, so the headline is capped.
    result = scored(write, "".join(op(f"/t{i}", op_id=name) for i, name in enumerate(
        ["getThingA", "getThingB", "getThingC", "'get thing d'"])))
    assert passed(result) == {"naming": 3, "descriptions": 4, "parameters": 4, "responses": 4, "safety": 4,
                              "scope": 4}
    assert result.quality == 96 and result.score == BLOCKED_CAP == 0
    assert result.blocked and result.blocked_operations == 1 and result.invalid_tool_names == 1
    [blocker] = result.blockers
    assert (blocker.kind, blocker.operations) == ("invalid-tool-name", 1)
    assert blocker.unblock == "workbench fix s.yaml --rule operation-id-tool-name-invalid --apply"
    assert result.headline() == "0/100, blocked: 1 operation (quality 96 once unblocked)"
    assert "  naming        15 ×    3 of 4    =  11.2  have a valid, telling tool name" in result.to_text()


def test_many_defects_on_one_operation_sink_that_operation_not_the_others(write):
    # Operation A has no description and no error response; B is clean. A fails descriptions and responses:
    # quality = (A: 100 - 25 - 15 = 60, B: 100) / 2 = 80.
    bare = ("  /a:\n    get:\n      operationId: getA\n      tags: [t]\n"
            "      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}}}}}\n")
    result = scored(write, bare + op("/b", op_id="getB"))
    assert passed(result) == {"naming": 2, "descriptions": 1, "parameters": 2, "responses": 1, "safety": 2,
                              "scope": 2}
    assert (result.quality, result.score, result.blocked) == (80, 80, False)
    descriptions = next(c for c in result.categories if c.name == "descriptions")
    assert (descriptions.score, descriptions.points) == (50, 12.5)
    assert dict(descriptions.failing) == {"operation-description-missing": 1}


def test_info_findings_advise_and_do_not_fail(write):
    # operation-tags-missing (info) on /c, the one of three operations without tags: it passes scope, the score
    # stays 100. As a warning it fails scope for /c: 100 - 10 × 1/3 = 96.7 → 97.
    untagged = op("/c", op_id="getC").replace("      tags: [things]\n", "")
    text = op("/a", op_id="getA") + op("/b", op_id="getB") + untagged
    result = scored(write, text)
    scope = next(c for c in result.categories if c.name == "scope")
    assert (scope.findings, scope.passed, result.score) == (1, 3, 100)
    assert scored(write, text, **{"operation-tags-missing": Severity.WARN}).score == 97  # as the config says


def test_a_component_defect_belongs_to_every_operation_that_reaches_it(write):
    # `Thing` requires an undefined property (error, parameters) and is the request body of two of three
    # operations: parameters passes 1 of 3, quality = 75 + 25/3 = 83.3 → 83.
    body = ("      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Thing'}}}}\n")
    paths = op("/a", "post", "createA", body) + op("/b", "put", "replaceB", body) + op("/c", op_id="getC")
    head = HEAD.replace("components:\n", "components:\n  schemas:\n"
                        "    Thing: {type: object, properties: {name: {type: string, description: The name.}},"
                        " required: [nmae]}\n")
    result = scored(write, paths, head)
    assert passed(result)["parameters"] == 1 and result.quality == 83
    parameters = next(c for c in result.categories if c.name == "parameters")
    assert dict(parameters.failing) == {"required-undefined": 2}  # one finding, two operations it sinks


def test_a_spec_wide_finding_belongs_to_every_operation(write):
    # No security schemes (warn, at the document's root): safety fails for both operations, 100 - 10 = 90.
    head = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://api.example.com'}]\n"
    result = scored(write, op("/a", op_id="getA") + op("/b", op_id="getB"), head)
    assert passed(result)["safety"] == 0 and result.score == 90


def test_path_parameter_mismatch_and_unresolved_ref_block(write):
    broken = op("/things/{id}", op_id="getThing") + op("/other", op_id="getOther", extra=(
        "      parameters: [{$ref: '#/components/parameters/Missing'}]\n"))
    result = scored(write, broken + op("/fine", op_id="getFine"))
    assert {(b.kind, b.operations) for b in result.blockers} == {("path-parameters", 1), ("unresolved-ref", 1)}
    assert result.blocked_operations == 2 and result.score == 0
    assert result.quality == round(100 - 2 * 25 / 3)  # both fail parameters, each one operation: 83


def test_more_tools_than_the_vendor_limit_block_until_scoped(write):
    paths = "".join(op(f"/t{i}", op_id=f"getThing{i}").replace("[things]", f"[{'a' if i < 10 else 'b'}]")
                    for i in range(TOOL_LIMIT + 1))
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + paths))
    config = WorkbenchConfig(lint=LintConfig(ISOLATED))
    result = lint(spec, config.lint)
    # 129 tools: blocked; and over the tool budget of 40 (too-many-operations, spec-wide): scope fails, 100 - 10
    everything = score(result, scoped_operations(spec, config))
    assert [(b.kind, b.operations) for b in everything.blockers] == [("tool-count", TOOL_LIMIT + 1)]
    assert (everything.score, everything.quality, everything.operations) == (0, 90, TOOL_LIMIT + 1)
    # scoped by tag to 10 tools, within the budget: the count's finding no longer belongs to them
    scoped = score(result, scoped_operations(spec, config, ToolOverrides(tags=("a",))))
    assert (scoped.score, scoped.operations, scoped.blocked) == (100, 10, False)


def test_no_operations_no_score(write):
    result = scored(write, "  {}\n")
    assert (result.score, result.quality, result.operations) == (None, None, 0)
    assert result.headline() == "none (no operations)"
    assert "no operations an agent could call" in result.to_text()
    assert json.loads(result.to_json())["score"] is None


def test_config_changes_the_score_exactly_as_it_changes_the_findings(write):
    paths = op("/a", op_id="getThingA") + op("/b", op_id="'get thing b'")
    assert scored(write, paths).score == 0
    off = scored(write, paths, **{"operation-id-tool-name-invalid": Severity.OFF})
    assert (off.score, off.blocked) == (100, False)


def test_the_examples_and_github():
    assert score(lint(load_spec(example_path(CLEAN_EXAMPLE_SPEC)))).score == 100
    gapped = score(lint(load_spec(example_path())))
    assert gapped.blocked and [b.kind for b in gapped.blockers] == ["invalid-tool-name"] and gapped.score == 0
    assert (gapped.operations_without_description, gapped.invalid_tool_names) == (1, 1)
    github = score(lint(load_spec(corpus_file(GITHUB))))
    assert {b.kind: b.operations for b in github.blockers} == {"invalid-tool-name": 874, "tool-count": 874}
    naming = next(c for c in github.categories if c.name == "naming")
    assert (naming.passed, github.operations, github.blocked_operations) == (0, 874, 874)


@pytest.mark.parametrize("spec", [example_path(), corpus_file("oai-v3.1-webhook-example.json")])
def test_score_command_json_follows_its_schema(spec):
    result = subprocess.run([sys.executable, "-m", "workbench", "score", str(spec), "--format", "json"],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    if data["score"] is not None:
        assert data["blocked"] and data["blockers"][0]["kind"] == "invalid-tool-name"
        assert list(data["categories"]) == list(CATEGORIES)
        naming = data["categories"]["naming"]
        assert (naming["weight"], naming["of"]) == (15, data["operations"])
