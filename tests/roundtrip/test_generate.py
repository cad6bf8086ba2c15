"""Argument sets generated from tool schemas: valid against the tool's own schema, reproducible, and the
generator's limits handled before it meets them (recursion, 2020-12 keywords, formats, Unicode classes,
header text). Includes the check that the pinned hypothesis / hypothesis-jsonschema pair still works."""

from __future__ import annotations

import re

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis_jsonschema import from_schema

from tests.catalogue import GITHUB, corpus_file
from workbench.config import WorkbenchConfig
from workbench.roundtrip.generate import (
    HEADER_TEXT,
    Unsatisfiable,
    argument_sets,
    ascii_pattern,
    draw,
    minimal,
    prepare,
    prepare_schema,
)
from workbench.spec import load_spec
from workbench.tools.options import ToolOverrides, build_toolset


def test_the_pinned_hypothesis_pair_generates_objects() -> None:
    """hypothesis-jsonschema 0.23.1 breaks on every object schema with hypothesis >= 6.170.10
    ("'many' object has no attribute 'more'"). If this fails, the pin in pyproject.toml was lifted."""
    seen = []

    @settings(max_examples=20, database=None, deadline=None)
    @given(from_schema({"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"},
                                                                          "b": {"type": "array"}}}))
    def collect(value):
        seen.append(value)

    collect()
    assert seen and all(isinstance(v, dict) and isinstance(v["a"], int) for v in seen)


def test_ascii_pattern_spells_classes_in_ascii() -> None:
    assert ascii_pattern(r"^\d{3}-\w+$") == "^[0-9]{3}-[A-Za-z0-9_]+$"
    assert ascii_pattern(r"^[\d.-]+\D$") == "^[0-9.-]+[^0-9]$"
    assert ascii_pattern(r"a\.b\\d") == r"a\.b\\d"  # an escaped backslash before "d" is not \d
    for value in draw({"type": "string", "pattern": ascii_pattern(r"^\d{4}$")}, 20, seed=3):
        assert re.fullmatch("[0-9]{4}", value), value


def test_recursion_is_cut_at_a_depth_and_values_stay_valid() -> None:
    root = {"type": "object", "required": ["tree"], "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "parent": {"$ref": "#/$defs/Node"}}}}}
    prepared = prepare_schema(root, root)
    assert "$ref" not in repr(prepared) and "$defs" not in repr(prepared)
    values = draw(prepared, 10, seed=1)
    for value in values:
        jsonschema.validate(value, root)


def test_openapi_formats_and_2020_keywords() -> None:
    root = {"type": "object", "required": ["id", "n", "raw", "pair"], "additionalProperties": False,
            "properties": {"id": {"type": "string", "format": "uuid"},
                           "n": {"type": "integer", "format": "int32"},
                           "raw": {"type": "string", "format": "byte"},
                           "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                                    "items": False},
                           "when": {"type": "string", "format": "date-time"}},
            "dependentRequired": {"when": ["n"]}}
    for value in draw(prepare_schema(root, root), 15, seed=2):
        jsonschema.Draft202012Validator(root, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER) \
            .validate(value)
        assert -(2**31) <= value["n"] < 2**31
        assert len(value["pair"]) <= 2


def test_header_text_is_printable_ascii() -> None:
    values = draw(prepare_schema({"type": "string"}, {}, header=True), 30, seed=4)
    assert all(re.fullmatch(HEADER_TEXT, v) for v in values)
    assert prepare_schema({"type": "string", "enum": ["a b"]}, {}, header=True) == {"type": "string",
                                                                                    "enum": ["a b"]}


def test_a_contradiction_is_reported_not_skipped() -> None:
    with pytest.raises(Unsatisfiable):
        draw({"type": "integer", "minimum": 5, "maximum": 1}, 3)
    with pytest.raises(Unsatisfiable):
        draw({"type": "object", "required": ["a"], "properties": {"a": False}}, 3)


def test_minimal_sets_have_only_required_arguments_at_every_depth() -> None:
    schema = {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}, "y": {"type": "string"}}},
        "b": {"type": "string"}}}
    for value in draw(minimal(schema), 5, seed=0):
        assert set(value) == {"a"} and set(value["a"]) == {"x"}


def _tools(name: str, vendor: str = "openai", strict: bool = False, limit: int = 40):
    spec = load_spec(corpus_file(name))
    toolset = build_toolset(spec, WorkbenchConfig(), ToolOverrides(vendor=vendor, strict=strict))
    return toolset.tools[:limit]


@pytest.mark.parametrize(("name", "vendor", "strict"), [
    (GITHUB, "openai", True), ("twilio-verify-v2.yaml", "anthropic", False), ("box-openapi.json", "openai", False)])
def test_generated_sets_are_valid_for_the_tool_and_reproducible(name: str, vendor: str, strict: bool) -> None:
    made = 0
    for index, tool in enumerate(_tools(name, vendor, strict, limit=12)):
        validator = jsonschema.Draft202012Validator(tool.parameters)
        sets = argument_sets(tool, 2, seed=7, budget=5)
        if index < 3:
            assert [s.arguments for s in sets] == [s.arguments for s in argument_sets(tool, 2, seed=7, budget=5)]
        for argument_set in (s for s in sets if s.kind != "example"):  # examples are the spec's, not the tool's
            errors = [e.message for e in validator.iter_errors(argument_set.arguments)]
            assert not errors, f"{tool.name} {argument_set.kind} {argument_set.arguments}: {errors}"
            assert set(argument_set.arguments) <= set(tool.parameters.get("properties", {}))
            made += 1
        assert any(s.kind == "minimal" for s in sets) or not tool.parameters.get("properties"), tool.name
    assert made >= 24


def test_prepare_leaves_the_tool_schema_alone() -> None:
    tool = _tools(GITHUB, "openai", True, limit=1)[0]
    before = repr(tool.parameters)
    prepare(tool)
    assert repr(tool.parameters) == before


def test_a_generator_that_does_not_finish_is_stopped_in_any_thread() -> None:
    """hypothesis-jsonschema can take very long on some unions (openai-openapi's createEvalRun in strict mode):
    the generator is stopped hard, in the main thread by an alarm, elsewhere by abandoning its helper."""
    import threading
    import time

    from workbench.roundtrip.generate import GeneratorStalled, _bounded

    started = time.monotonic()
    with pytest.raises(GeneratorStalled):
        _bounded(lambda: time.sleep(5), 0.3)
    assert time.monotonic() - started < 2
    assert _bounded(lambda: 7, 1) == 7
    seen = []

    def elsewhere() -> None:
        try:
            _bounded(lambda: time.sleep(5), 0.3)
        except GeneratorStalled as stalled:
            seen.append(str(stalled))

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join(3)
    assert seen == ["the generator did not finish in 0.3 s"]


def test_the_utf8_table_is_the_one_hypothesis_computes(tmp_path) -> None:
    """Hypothesis's own table for UTF-8, computed from scratch (an empty storage folder), is the one given to it
    without the 1.1-million-code-point walk; a run in a new folder no longer stalls on its first operations."""
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.internal import charmap

    from workbench.roundtrip.generate import UTF8_TABLE, _codec_table

    set_hypothesis_home_dir(tmp_path)
    try:
        computed = _codec_table.__wrapped__("utf-8")
    finally:
        set_hypothesis_home_dir(None)
    assert [s.intervals for s in computed] == [s.intervals for s in UTF8_TABLE]
    assert charmap.intervals_from_codec("utf-8") is UTF8_TABLE
    assert charmap.intervals_from_codec("ascii")[0].intervals == ((0, 127),)


def test_kept_strategies_draw_the_values_fresh_ones_draw(monkeypatch) -> None:
    """Property strategies are kept per schema for the run; the values drawn are the ones hypothesis-jsonschema
    draws when it builds every strategy anew."""
    from hypothesis_jsonschema import _from_schema

    from workbench.roundtrip import generate

    schema = {"type": "object", "required": ["owner", "repo"], "additionalProperties": False, "properties": {
        "owner": {"type": "string", "pattern": "^[a-z]{1,8}$"}, "repo": {"type": "string", "minLength": 1},
        "labels": {"type": "array", "items": {"type": "object", "required": ["name"], "additionalProperties": False,
                                              "properties": {"name": {"type": "string"}}}},
        "per_page": {"type": "integer", "minimum": 1, "maximum": 100}}}
    generate._strategies.clear()
    kept = draw(schema, 6, seed=4)
    assert generate._strategies  # the property strategies were kept
    assert draw(schema, 6, seed=4) == kept  # and drawn from again
    monkeypatch.setattr(_from_schema, "merged_as_strategies", generate._merged_as_strategies)
    assert draw(schema, 6, seed=4) == kept


def test_one_seed_makes_the_same_values_whatever_was_imported_since(tmp_path, monkeypatch) -> None:
    """Hypothesis mixes in string constants from the source of every local module imported so far: a run in a
    worker process (or after another import) made other values for the same seed. They are left out."""
    schema = {"type": "object", "required": ["names"], "additionalProperties": False,
              "properties": {"names": {"type": "array", "minItems": 20, "maxItems": 20,
                                       "items": {"type": "string", "maxLength": 12}}}}
    before = draw(schema, 40, seed=11)
    planted = [f"planted-{i}" for i in range(200)]
    (tmp_path / "strings_of_a_local_module.py").write_text(f"WORDS = {planted!r}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import strings_of_a_local_module  # noqa: F401  (imported for its constants)

    after = draw(schema, 40, seed=11)
    assert after == before
    assert not {name for value in after for name in value["names"]} & set(planted)


def test_a_repeated_class_with_a_length_range_is_drawn_at_that_length() -> None:
    """GitHub's commit_sha: 40 characters of `^[0-9a-fA-F]+$`. Drawn from the pattern and then filtered by
    length, no value was found; the pattern is spelled with the range, which means the same strings."""
    from workbench.roundtrip.generate import sized_pattern

    sha = {"type": "string", "minLength": 40, "maxLength": 40, "pattern": "^[0-9a-fA-F]+$"}
    assert prepare_schema(sha, sha)["pattern"] == "^[0-9a-fA-F]{40,40}$"
    values = draw(prepare_schema(sha, sha), 5, seed=0)
    assert len(values) == 5 and all(re.fullmatch("[0-9a-fA-F]{40}", v) for v in values)
    assert sized_pattern("^[a-z]*$", None, 5) == "^[a-z]{0,5}$"
    assert sized_pattern(r"^[\]a]+$", 2, None) == r"^[\]a]{2,}$"
    for unchanged in (("^[a-z]+$", None, None), ("^(a|b)+$", 1, 2), ("[a-z]+", 1, 2), ("^[a-z]+x$", 1, 2)):
        assert sized_pattern(*unchanged) == unchanged[0]
