"""The config's JSON Schema in resources/ describes exactly what the config loader accepts."""

from __future__ import annotations

import json
from importlib.resources import files

import jsonschema
import pytest

from workbench.config import DEFAULT_THRESHOLDS, load_config
from workbench.lint import RULES
from workbench.mock.faults import FAULTS
from workbench.spec import SpecError
from workbench.spec.source import parse_document
from workbench.workspace.loading import KNOWN_NAMES


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads((files("workbench.resources") / "schemas" / "workbench-config.schema.json").read_text())


def test_schema_is_valid_and_names_every_rule_and_threshold(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    assert set(schema["properties"]["rules"]["propertyNames"]["enum"]) == set(RULES)
    assert set(schema["properties"]["thresholds"]["properties"]) == set(DEFAULT_THRESHOLDS)
    fault = schema["properties"]["mock"]["properties"]["faults"]["items"]["properties"]["fault"]
    assert set(fault["enum"]) == set(FAULTS)


SAMPLES = [
    ("rules: {operation-tags-missing: off}\nthresholds: {tool-budget: 30}\n"
     "ignore: [{rule: '*', pointer: /paths/~1a}]\n", True),
    ("colour: blue\n", False),
    ("rules: {no-such-rule: warn}\n", False),
    ("rules: {operation-tags-missing: loud}\n", False),
    ("thresholds: {tool-budget: many}\n", False),
    ("ignore: [{pointer: /paths}]\n", False),
    ("tools: {vendor: anthropic, strict: true, tags: [orders], flatten-depth: 1}\n", True),
    ("tools: {vendor: anthropic, colour: red}\n", False),
    ("tools: {flatten-depth: deep}\n", False),
    ("tools: {vendor: acme}\n", False),
    ("tools: {flatten-depth: -1}\n", False),
    ("ignore: 5\n", False),
    ("mock: {seed: 3, faults: [{operation: listPets, status: 503, times: 2}, "
     "{operation: 'GET /pets', fault: reset, probability: 0.5}]}\n", True),
    ("mock: {faults: [{operation: listPets, fault: explode}]}\n", False),
    ("mock: {faults: [{operation: listPets}]}\n", False),
    ("mock: {faults: [{status: 503}]}\n", False),
    ("mock: {faults: [{operation: x, status: 503, probability: 2}]}\n", False),
    ("mock: {port: 1}\n", False),
]


@pytest.mark.parametrize("text, valid", SAMPLES)
def test_schema_and_loader_agree(schema, write, text, valid):
    path = write("c.yaml", text)
    schema_ok = jsonschema.Draft202012Validator(schema).is_valid(parse_document(path).data)
    try:
        load_config(path, KNOWN_NAMES)
        loader_ok = True
    except SpecError:
        loader_ok = False
    assert (schema_ok, loader_ok) == (valid, valid)
