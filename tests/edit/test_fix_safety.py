"""A fix is offered only when it cannot change what the API accepts: enum from prose only for a closed list of
single tokens, never for comma lists, ranges, free text or a list that leaves a value out; no placeholder text."""

from __future__ import annotations

import pytest

from tests.catalogue import HEAD, corpus_file, op
from workbench.edit.fixes import quick_fixes
from workbench.lint import lint
from workbench.lint.engine import with_hints
from workbench.spec import load_spec


def enum_fixes(write, name: str, text: str, kind: str = "string") -> list:
    param = (f"      parameters: [{{name: {name}, in: query, schema: {{type: {kind}}}, "
             f"description: \"{text}\"}}]\n")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + op("/things", extra=param)))
    return [f.new for f in quick_fixes(spec, lint(spec), ["enum-in-prose"])]


# The false cases read in real specs: each enum would have made the spec reject valid input.
@pytest.mark.parametrize("name, text", [
    # Twilio Lookups: `Fields` takes a comma-separated list of these.
    ("Fields", "A comma-separated list of fields to return. Possible values are validation, caller_name, sim_swap."),
    ("expand", "One or more of `owner`, `labels`, `assignees`, separated by commas."),
    # A range read as two values.
    ("ttl", "Possible values: `1` to `36000`."),
    ("wait", "Can be `5` to `600` seconds."),
    # Free text in a language of its own.
    ("query", "The search terms. Can be `is:open` or `label:bug` or any text."),
    ("rrule", "An RRULE; FREQ can be one of `DAILY`, `WEEKLY` or `MONTHLY`."),
    # A listed value the enum would drop: `in progress` (a space), `none`.
    ("state", "One of `open`, `in progress` or `closed`."),
    ("level", "One of: none, low, high."),
    # An open list.
    ("sort", "Sort key, one of `name`, `created`, etc."),
])
def test_no_enum_fix_where_it_would_reject_valid_input(write, name, text):
    assert enum_fixes(write, name, text) == []


def test_an_enum_fix_for_a_closed_list_of_single_tokens(write):
    # Kubernetes: "Node address type, one of Hostname, ExternalIP or InternalIP."
    assert enum_fixes(write, "type", "Node address type, one of Hostname, ExternalIP or InternalIP.") == [
        ["Hostname", "ExternalIP", "InternalIP"]]
    assert enum_fixes(write, "priority", "One of `1`, `2` or `3`.", "integer") == [[1, 2, 3]]


def test_a_value_left_out_still_reports_the_prose_list_without_a_fix(write):
    param = ("      parameters: [{name: level, in: query, schema: {type: string}, "
             "description: 'One of: none, low, high.'}]\n")
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + op("/things", extra=param)))
    [finding] = [f for f in lint(spec).findings if f.rule == "enum-in-prose"]
    assert finding.fix is None and "with every value the prose allows" in finding.message


def test_no_fix_anywhere_writes_a_placeholder():
    # Every rule on, over corpus files with missing descriptions: no fix value is a TODO skeleton.
    for name in ("oai-v3.0-link-example.json", "readme-v3.0-polymorphism.json", "oai-v2.0-uber.json"):
        spec = load_spec(corpus_file(name))
        values = [f.fix.value for f in lint(spec, with_hints()).findings if f.fix is not None]
        assert not [v for v in values if isinstance(v, str) and "TODO" in v], name
    missing = [f for f in lint(load_spec(corpus_file("oai-v3.0-link-example.json"))).findings
               if f.rule == "operation-description-missing"]
    assert missing and all(f.fix is None for f in missing)
