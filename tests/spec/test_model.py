"""The model's records: immutable named tuples (and media types, whose response schemas are normalised when first
read) whose empty maps share one default that nothing writes into."""

import copy
import threading

import pytest

from workbench.lint import lint
from workbench.spec import load_spec, model
from workbench.tools.convert import ConvertOptions, convert

RECORDS = (model.Server, model.Parameter, model.RequestBody, model.Response, model.Operation,
           model.PathItem, model.Components)


def test_a_record_made_without_its_maps_shares_the_one_empty_default():
    origin = model.Origin(None, "/paths/~1a/get")  # type: ignore[arg-type]
    op = model.Operation("get", "/a", origin)
    assert op.extensions is model.NO_ENTRIES and model.Components().schemas is model.NO_ENTRIES
    assert all(default is model.NO_ENTRIES for record in RECORDS for default in record._field_defaults.values()
               if isinstance(default, dict))
    assert model.MediaType(None).examples is model.MediaType(None).encoding is model.NO_ENTRIES
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
    assert any(value is model.NO_ENTRIES for record in records for value in (record.examples, record.encoding))


def test_a_media_type_is_immutable_and_compares_by_value():
    media = model.MediaType({"type": "string"}, "x")
    assert media == model.MediaType({"type": "string"}, "x") and media != model.MediaType({"type": "string"}, "y")
    assert media.has_schema and not model.MediaType(None).has_schema
    with pytest.raises(AttributeError):
        media.example = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(media)  # it holds dicts, as the named tuple did


RESPONSE_ONLY = """
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /pets:
    post:
      operationId: addPet
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
      responses: {"201": {description: added}}
    get:
      operationId: listPets
      responses:
        "200":
          description: the pets
          content:
            application/json:
              schema: {type: array, nullable: true, items: {$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet: {type: object, properties: {tags: {$ref: '#/components/schemas/Tags'}}}
    Tags: {type: array, items: {type: string, nullable: true}}
"""


def test_a_response_schema_is_normalised_when_first_read_with_the_schemas_it_names(tmp_path):
    path = tmp_path / "pets.yaml"
    path.write_text(RESPONSE_ONLY)
    spec = load_spec(path)
    body = spec.operations[1].request_body.content["application/json"]
    media = spec.operations[0].responses[0].content["application/json"]
    assert media.has_schema and body.has_schema and media.written[0]["type"] == "array"
    lint(spec)  # the lint reads bodies as written: it leaves them to be normalised
    assert media._later is not None and body._later is not None
    assert media.schema == {"type": ["array", "null"], "items": {"$ref": "#/components/schemas/Pet"}}
    assert media.schema is media.schema and media._later is None
    copied = copy.copy(body)
    assert copied == body and copied.written == body.written and copied._later is None
    assert spec.resolve_schema("#/components/schemas/Tags") == {"type": "array",
                                                                "items": {"type": ["string", "null"]}}


def test_every_ref_target_is_there_before_any_response_is_read(tmp_path):
    """`ref_targets` lists every schema a ref names, those only responses name included (the example rule's
    validator is built from them all)."""
    path = tmp_path / "pets.yaml"
    path.write_text(RESPONSE_ONLY.replace("$ref: '#/components/schemas/Pet'", "$ref: 'other.yaml#/Pet'"))
    (tmp_path / "other.yaml").write_text("Pet: {type: object, properties: {name: {type: string, nullable: true}}}\n")
    spec = load_spec(path)
    assert spec.ref_targets["other.yaml#/Pet"] == {"type": "object",
                                                   "properties": {"name": {"type": ["string", "null"]}}}
    assert spec.operations[0].responses[0].content["application/json"]._later is None


def test_threads_reading_one_response_schema_at_once_get_the_same_one(corpus):
    spec = load_spec(corpus / "github-api.github.com-2022-07-18.json")
    media = [m for op in spec.operations for r in op.responses for m in r.content.values() if m.has_schema]
    seen: list[list] = [[] for _ in range(4)]
    start = threading.Barrier(4)

    def read(into: list) -> None:
        start.wait()
        into.extend(m.schema for m in media)

    threads = [threading.Thread(target=read, args=(out,)) for out in seen]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(len(out) == len(media) for out in seen)
    assert all(a is b for out in seen[1:] for a, b in zip(seen[0], out, strict=True))
    assert all(not isinstance(schema, dict) or "$ref" not in schema or spec.resolve_schema(schema["$ref"]) is not None
               for schema in seen[0])
