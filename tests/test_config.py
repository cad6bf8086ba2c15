"""One reader of `.workbench.yaml`: typed sections, one-line errors at the offending entry."""

from __future__ import annotations

import pytest

from workbench.config import (
    DEFAULT_THRESHOLDS,
    Known,
    LintConfig,
    ToolsConfig,
    WorkbenchConfig,
    config_for,
    load_config,
)
from workbench.lint import RULES, Severity
from workbench.spec import SpecError
from workbench.tools.vendors import VENDORS

KNOWN = Known(RULES, tuple(VENDORS))


def test_every_section_is_typed(write):
    path = write(".workbench.yaml", "rules: {operation-tags-missing: off}\nthresholds: {tool-budget: 12}\n"
                                    "ignore: [{rule: '*', pointer: /paths/~1a}]\n"
                                    "tools: {vendor: mcp, tags: [orders, pets], flatten-depth: 2, nested: true}\n")
    config = load_config(path, KNOWN)
    assert config.source == str(path)
    assert config.lint == LintConfig({"operation-tags-missing": Severity.OFF},
                                     {**DEFAULT_THRESHOLDS, "tool-budget": 12}, (("*", "/paths/~1a"),))
    assert config.tools == ToolsConfig(vendor="mcp", tags=("orders", "pets"), flatten_depth=2, nested=True)


def test_the_config_beside_the_spec_or_the_one_given_or_the_defaults(write, tmp_path):
    spec = write("api/spec.yaml", "openapi: 3.1.0\n")
    assert config_for(spec, KNOWN) == WorkbenchConfig()
    beside = write("api/.workbench.yaml", "tools: {strict: true}\n")
    assert config_for(spec, KNOWN).source == str(beside) and config_for(spec, KNOWN).tools.strict is True
    given = write("elsewhere.yaml", "tools: {read-only: true}\n")
    assert config_for(spec, KNOWN, given).tools == ToolsConfig(read_only=True)


@pytest.mark.parametrize("text, place, message", [
    ("rules:\n  no-such-rule: warn\n", ":2:17 (#/rules/no-such-rule)", "unknown rule 'no-such-rule' in config"),
    ("thresholds: {tool-budget: many}\n", ":1:27 (#/thresholds/tool-budget)", "threshold 'tool-budget' must be"),
    ("tools: {tags: [a, 3]}\n", ":1:15 (#/tools/tags)", "tools option 'tags' must be a list of strings"),
    ("tools: {strict: 'yes'}\n", ":1:17 (#/tools/strict)", "tools option 'strict' must be a bool"),
    ("tools: {colour: red}\n", ":1:17 (#/tools/colour)", "unknown tools option 'colour'"),
    ("ignore: [{pointer: /a}]\n", ":1:10 (#/ignore/0)", "each ignore needs a `rule` and a `pointer`"),
    ("ignore: 5\n", ":1:9 (#/ignore)", "`ignore` must be a list"),
    ("tools:\n  vendor: acme\n", ":2:11 (#/tools/vendor)", "unknown vendor 'acme' (known: openai, "),
])
def test_errors_name_the_file_line_column_and_pointer(write, text, place, message):
    path = write("c.yaml", text)
    with pytest.raises(SpecError) as raised:
        load_config(path, KNOWN)
    assert str(raised.value).startswith(f"{path}{place}: {message}")
