"""The readiness score: its formula, its headline counts, and `workbench score`."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.catalogue import HEAD, corpus_dir
from workbench.config import LintConfig
from workbench.examples import CLEAN_EXAMPLE_SPEC, example_path
from workbench.lint import Severity, lint
from workbench.lint.registry import CATEGORIES, RULES
from workbench.lint.score import CATEGORY_WEIGHT, score
from workbench.spec import load_spec

SPEC = HEAD + "paths:\n"


def operation(path: str, op_id: str) -> str:
    return (f"  {path}:\n    get:\n      operationId: {op_id}\n      tags: [t]\n"
            "      description: Use this to read the thing; returns it with all of its fields.\n"
            "      responses:\n"
            "        '200': {description: ok, content: {application/json: {schema: {type: object}}}}\n"
            "        '404': {description: nf, content: {application/problem+json: {schema: {type: object}}}}\n")


def test_every_rule_belongs_to_a_scored_category():
    assert {rule.category for rule in RULES.values()} == set(CATEGORIES)
    assert set(CATEGORY_WEIGHT) == set(CATEGORIES)


def test_formula_on_a_hand_computed_case(write):
    # Four operations, one invalid name (error, weight 1): naming = 100 * (1 - 1/4) = 75, every other
    # category 100, overall = (75*15 + 100*85) / 100 = 96.25 -> 96.
    text = SPEC + "".join(operation(f"/t{i}", name) for i, name in enumerate(
        ["getThingA", "getThingB", "getThingC", "'get thing d'"]))
    result = score(lint(load_spec(write("s.yaml", text)), LintConfig({"near-duplicate-operations": Severity.OFF})))
    assert {c.name: c.score for c in result.categories} == {
        "naming": 75, "descriptions": 100, "parameters": 100, "responses": 100, "safety": 100, "scope": 100}
    assert result.score == 96
    assert (result.operations, result.invalid_tool_names, result.operations_without_description) == (4, 1, 0)


def test_config_changes_the_score_exactly_as_it_changes_the_findings(write):
    text = SPEC + "".join(operation(f"/t{i}", name) for i, name in enumerate(["getThingA", "'get thing b'"]))
    spec = load_spec(write("s.yaml", text))
    quiet = {"near-duplicate-operations": Severity.OFF}
    assert score(lint(spec, LintConfig(quiet))).score < 100
    off = LintConfig({**quiet, "operation-id-tool-name-invalid": Severity.OFF})
    assert score(lint(spec, off)).score == 100


def test_examples_and_a_large_corpus_file():
    assert score(lint(load_spec(example_path(CLEAN_EXAMPLE_SPEC)))).score == 100
    gapped = score(lint(load_spec(example_path())))
    assert gapped.score == 92 and (gapped.operations_without_description, gapped.invalid_tool_names) == (1, 1)
    github = score(lint(load_spec(corpus_dir() / "github-api.github.com-2022-07-18.json")))
    naming = next(c for c in github.categories if c.name == "naming")
    assert naming.score == 0 and github.invalid_tool_names == 874 and github.operations == 874


def test_score_command_json():
    result = subprocess.run([sys.executable, "-m", "workbench", "score", str(example_path()), "--format", "json"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert set(data) == {"score", "categories", "operations", "operations_without_description", "parameters",
                         "parameters_without_description", "invalid_tool_names"}
    assert data["score"] == 92 and list(data["categories"]) == list(CATEGORIES)
    assert data["categories"]["naming"] == {"score": 87, "weight": 15, "findings": 2}
