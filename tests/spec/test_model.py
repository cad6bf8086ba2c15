"""The model's records: immutable named tuples whose empty maps share one default that nothing writes into."""

import pytest

from workbench.lint import lint
from workbench.spec import load_spec, model
from workbench.tools.convert import ConvertOptions, convert

RECORDS = (model.Server, model.MediaType, model.Parameter, model.RequestBody, model.Response, model.Operation,
           model.PathItem, model.Components)


def test_a_record_made_without_its_maps_shares_the_one_empty_default():
    origin = model.Origin(None, "/paths/~1a/get")  # type: ignore[arg-type]
    op = model.Operation("get", "/a", origin)
    assert op.extensions is model.NO_ENTRIES and model.Components().schemas is model.NO_ENTRIES
    assert all(default is model.NO_ENTRIES for record in RECORDS for default in record._field_defaults.values()
               if isinstance(default, dict))
    with pytest.raises(AttributeError):
        op.summary = "changed"  # type: ignore[misc]
    assert op == model.Operation("get", "/a", origin) and op != model.Operation("put", "/a", origin)
    assert repr(op).startswith("Operation(method='get', path='/a', origin=Origin(")


@pytest.mark.parametrize("name", ["oai-v2.0-uber.json", "twilio-verify-v2.yaml", "readme-v3.0-readme.yaml"])
def test_loading_linting_and_converting_write_nothing_into_the_shared_default(corpus, name):
    spec = load_spec(corpus / name)
    lint(spec)
    for vendor in ("openai", "anthropic", "gemini", "mcp"):
        convert(spec, ConvertOptions(vendor=vendor))
    assert model.NO_ENTRIES == {}


def test_a_loaded_spec_shares_the_default_where_it_has_no_entries(corpus):
    """Some records a load makes do take the shared default (Swagger 2.0 media types): what the test above guards."""
    spec = load_spec(corpus / "oai-v2.0-uber.json")
    records = [m for op in spec.operations for r in op.responses for m in r.content.values()]
    assert any(value is model.NO_ENTRIES for record in records for value in record)
