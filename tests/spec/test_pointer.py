"""JSON pointers: one walk for "the value at this pointer", escaped tokens included."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.spec.pointer import MISSING, join, lookup
from workbench.spec.source import parse_text

DATA = {"paths": {"/pets/{id}": {"get": {"x-a~b": [10, 20]}}}, "components": {"schemas": {"a/b~c": {}}}}


def test_escaped_tokens_are_unescaped_on_the_way():
    assert lookup(DATA, "/paths/~1pets~1{id}/get/x-a~0b/1") == 20
    assert lookup(DATA, join("/components/schemas", "a/b~c")) == {}
    assert lookup(DATA, "/components/schemas/a~1b~0c") == {}
    assert lookup(DATA, "/components/schemas/a/b~c", None) is None  # unescaped, the `/` would split the name


def test_nothing_there_is_the_default_else_a_key_error_naming_the_token():
    assert lookup(DATA, "", None) is DATA
    assert lookup(DATA, "/components/parameters", None) is None
    assert lookup(DATA, "/components/parameters/x", MISSING) is MISSING
    with pytest.raises(KeyError, match="parameters"):
        lookup(DATA, "/components/parameters/x")


@pytest.mark.parametrize("token", ["2", "01", "-1", "x", "-"])
def test_array_indexes_are_decimal_in_range_without_leading_zeros(token):
    assert lookup(DATA, f"/paths/~1pets~1{{id}}/get/x-a~0b/{token}", MISSING) is MISSING


def test_a_document_has_the_nodes_its_escaped_pointers_name(tmp_path: Path):
    document = parse_text('{"components": {"schemas": {"a/b~c": {"type": "string"}}}}', tmp_path / "s.json",
                          "s.json")
    assert document.has("/components/schemas/a~1b~0c/type")
    assert not document.has("/components/schemas/a/b~c")
    assert not document.has("components")  # not a pointer
