"""The round trip's outcomes stay what they were when its cost is cut: the bundled example and train travel give
the same sets and the same classifications, and the judge's explicit format checks are openapi-core's own."""

from __future__ import annotations

import datetime

import pytest
from openapi_core.unmarshalling.request.unmarshallers import (
    V30RequestBodyUnmarshaller,
    V30RequestParametersUnmarshaller,
    V31RequestBodyUnmarshaller,
    V31RequestParametersUnmarshaller,
)

from tests.catalogue import TRAVEL, corpus_file
from workbench.config import WorkbenchConfig
from workbench.examples import example_path
from workbench.roundtrip.oracle import format_validators
from workbench.roundtrip.suite import RoundTripOptions, run_roundtrip
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset


@pytest.mark.parametrize(("path", "expected"), [
    (example_path(), {"operations": 15, "sets": 60, "sent": 60,
                      "classifications": {"passed": 55, "spec self-contradiction": 5}}),
    (corpus_file(TRAVEL), {"operations": 7, "sets": 26, "sent": 26, "classifications": {"passed": 26}}),
], ids=["example", "train-travel"])
def test_the_classifications_are_the_ones_measured_before_the_speed_work(path, expected) -> None:
    spec = load_spec(path)
    toolset = build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor="openai"))
    summary = run_roundtrip(spec, path, toolset, "openai", RoundTripOptions(count=3)).summary()
    assert {key: summary[key] for key in expected} == expected
    assert (summary["not_judged"], summary["disagreements"], summary["skipped"]) == (0, 0, 0)


SAMPLES = ["", "x", "2024-02-30", "2024-02-29", "2024-02-29T10:00:00Z", "10:00:00Z", "a@b.example", "not an email",
           "::1", "256.1.1.1", "10.0.0.1", "https://example.com/a?b", "/relative", "QUJD", "QUJ", "%%%", "^[a-z]+$",
           "[", "123e4567-e89b-12d3-a456-426614174000", "not-a-uuid", 1, 2**31, 2**63, -1.5, 1e308, True, None,
           b"bytes", datetime.date(2024, 1, 1)]


@pytest.mark.parametrize("unmarshaller", [V30RequestParametersUnmarshaller, V30RequestBodyUnmarshaller,
                                          V31RequestParametersUnmarshaller, V31RequestBodyUnmarshaller])
def test_the_judges_format_checks_are_openapi_cores_own(unmarshaller) -> None:
    """Given explicitly (so openapi-core no longer deep-copies its checker per schema), each format says of
    each value what openapi-core's own checker says."""
    own = unmarshaller.schema_unmarshallers_factory.schema_validators_factory.format_checker
    given = format_validators(unmarshaller)
    assert set(given) == set(own.checkers) and given
    for name, check in given.items():
        for value in SAMPLES:
            assert check(value) == own.conforms(value, name), (name, value)
