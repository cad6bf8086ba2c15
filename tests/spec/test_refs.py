"""`$ref`s: internal, across files, escaped, chained, circular; remote and out-of-tree refused."""

from __future__ import annotations

import http.server
import threading
import typing

import pytest

from workbench.spec import RefPolicy, load_spec

HEAD = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n"


def codes(spec):
    return [p.code for p in spec.problems]


def test_internal_refs_to_parameters_bodies_responses(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths:
  /items/{item-id}:
    get:
      parameters:
        - $ref: '#/components/parameters/Limit'
        - {name: item-id, in: path, required: true, schema: {type: string}}
      responses:
        '200': {$ref: '#/components/responses/Item'}
    post:
      requestBody: {$ref: '#/components/requestBodies/New'}
      responses: {'201': {description: created}}
components:
  parameters:
    Limit: {name: limit, in: query, schema: {type: integer}}
  requestBodies:
    New: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}
  responses:
    Item: {description: one, content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}}
  schemas:
    Item: {type: object, properties: {id: {type: string}}}
"""))
    get, post = spec.operations
    assert [(p.name, p.location) for p in get.parameters] == [("limit", "query"), ("item-id", "path")]
    assert get.parameters[0].origin.pointer == "/components/parameters/Limit"  # reported at the definition
    assert get.responses[0].content["application/json"].schema == {"$ref": "#/components/schemas/Item"}
    assert post.request_body.required and post.request_body.origin.pointer == "/components/requestBodies/New"
    assert spec.resolve_schema("#/components/schemas/Item")["properties"] == {"id": {"type": "string"}}
    assert spec.problems == ()


def test_pointer_escaping_and_percent_encoding(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths:
  /a/{id}:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {"x~y": {type: integer}}}
  /b:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/paths/~1a~1%7Bid%7D/get/responses/200/content/application~1json/schema/properties/x~0y'}
"""))
    assert spec.problems == ()
    ref = spec.operations[1].responses[0].content["application/json"].schema["$ref"]
    assert spec.resolve_schema(ref) == {"type": "integer"}


def test_ref_to_ref_chain_and_circular_chain(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths:
  /a:
    get:
      parameters: [{$ref: '#/components/parameters/A'}, {$ref: '#/components/parameters/Loop1'}]
      responses: {'200': {description: ok}}
components:
  parameters:
    A: {$ref: '#/components/parameters/B'}
    B: {name: b, in: query}
    Loop1: {$ref: '#/components/parameters/Loop2'}
    Loop2: {$ref: '#/components/parameters/Loop1'}
"""))
    assert [p.name for p in spec.operations[0].parameters] == ["b"]
    assert "ref-circular" in codes(spec)


def test_recursive_schema_is_kept_as_a_cycle(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths: {}
components:
  schemas:
    Node:
      type: object
      properties:
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
"""))
    node = spec.components.schemas["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/components/schemas/Node"}
    assert spec.resolve_schema("#/components/schemas/Node") is node


def test_multi_file_spec(write, tmp_path):
    write("schemas/pet.yaml", "Pet:\n  type: object\n  properties:\n    owner: {$ref: 'owner.yaml#/Owner'}\n")
    write("schemas/owner.yaml", "Owner: {type: object, nullable: true, properties: {name: {type: string}}}\n")
    write("params.yaml", "limit: {name: limit, in: query, schema: {type: integer}}\n")
    root = write("api.yaml", HEAD.replace("3.1.0", "3.0.3") + """
paths:
  /pets:
    get:
      parameters: [{$ref: 'params.yaml#/limit'}]
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: 'schemas/pet.yaml#/Pet'}}}
""")
    spec = load_spec(root)
    assert spec.problems == ()
    op = spec.operations[0]
    assert op.parameters[0].origin.document.name == "params.yaml"
    assert op.parameters[0].origin.locate().start.line == 1
    pet_ref = op.responses[0].content["application/json"].schema["$ref"]
    assert pet_ref == "schemas/pet.yaml#/Pet"
    owner_ref = spec.resolve_schema(pet_ref)["properties"]["owner"]["$ref"]
    assert owner_ref == "schemas/owner.yaml#/Owner"
    assert spec.resolve_schema(owner_ref)["type"] == ["object", "null"]  # normalised like the root
    assert sorted(spec.documents) == sorted([str(root), "params.yaml", "schemas/pet.yaml", "schemas/owner.yaml"])


def test_missing_target_and_missing_file_are_reported_not_fatal(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths:
  /a:
    get:
      parameters: [{$ref: '#/components/parameters/Nope'}, {$ref: 'nofile.yaml#/x'}]
      responses: {'200': {description: ok}}
"""))
    assert len(spec.operations) == 1 and spec.operations[0].parameters == ()
    assert codes(spec) == ["ref-unresolved", "ref-unresolved"]
    assert [p.line for p in spec.problems] == [7, 7]  # the `parameters:` line holding both refs


def test_deref_follows_a_good_ref_and_leaves_a_broken_or_circular_one_as_it_is(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths: {}
components:
  schemas:
    A: {$ref: '#/components/schemas/B'}
    B: {type: string}
    C: {$ref: '#/components/schemas/D'}
    D: {$ref: '#/components/schemas/C'}
"""))
    root = spec.documents[next(iter(spec.documents))]
    for _ in range(2):  # the second time from the resolver's memo
        assert spec.deref({"$ref": "#/components/schemas/A"}, root, "/x") == (
            {"type": "string"}, root, "/components/schemas/B")
        for broken in ({"$ref": "#/components/schemas/Nope"}, {"$ref": "#/components/schemas/C"},
                       {"$ref": "nofile.yaml#/x"}):
            assert spec.deref(broken, root, "/x") == (broken, root, "/x")
            assert spec.resolver.target(broken["$ref"], root) is None
        assert spec.deref({"type": "integer"}, root, "/y") == ({"type": "integer"}, root, "/y")


class _CountingHandler(http.server.BaseHTTPRequestHandler):
    hits: typing.ClassVar[list[str]] = []

    def do_GET(self):
        self.hits.append(self.path)
        body = b"Limit: {name: limit, in: query, schema: {type: integer}}\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/yaml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def local_server():
    _CountingHandler.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _CountingHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _CountingHandler.hits
    server.shutdown()
    server.server_close()


def _remote_spec(write, url):
    return write("s.yaml", HEAD + f"""
paths:
  /a:
    get:
      parameters: [{{$ref: '{url}/params.yaml#/Limit'}}]
      responses: {{'200': {{description: ok}}}}
""")


def test_remote_ref_is_refused_and_never_fetched(write, local_server):
    url, hits = local_server
    spec = load_spec(_remote_spec(write, url))
    assert codes(spec) == ["ref-remote"]
    assert hits == []


def test_remote_ref_is_fetched_when_allowed(write, local_server):
    url, hits = local_server
    spec = load_spec(_remote_spec(write, url), RefPolicy(allow_remote=True))
    assert spec.problems == ()
    assert [p.name for p in spec.operations[0].parameters] == ["limit"]
    assert hits == ["/params.yaml"]


def test_out_of_tree_ref_is_refused_unless_allowed(write):
    write("outside.yaml", "Limit: {name: limit, in: query}\n")
    root = write("api/s.yaml", HEAD + """
paths:
  /a:
    get:
      parameters: [{$ref: '../outside.yaml#/Limit'}]
      responses: {'200': {description: ok}}
""")
    spec = load_spec(root)
    assert codes(spec) == ["ref-outside"] and len(spec.documents) == 1
    allowed = load_spec(root, RefPolicy(allow_outside=True))
    assert allowed.problems == () and allowed.operations[0].parameters[0].name == "limit"


def test_refs_inside_example_values_are_data(write):
    spec = load_spec(write("s.yaml", HEAD + """
paths: {}
components:
  examples:
    e: {value: {members: [{$ref: 'https://example.com/users/1'}]}}
  schemas:
    S: {type: object, examples: [{$ref: 'not-a-ref'}]}
"""))
    assert spec.problems == ()


def test_unsaved_text_loads_at_the_files_path_and_refs_back_see_it(write):
    write("parts/item.yaml", "Item: {$ref: '../api.yaml#/components/schemas/Name'}\n")
    root = write("api.yaml", HEAD + """
paths: {}
components:
  schemas:
    Name: {type: string}
    Item: {$ref: 'parts/item.yaml#/Item'}
""")
    edited = root.read_text().replace("Name: {type: string}", "Name: {type: integer}")
    spec = load_spec(root, text=edited)
    assert spec.root.name == str(root) and spec.root.text == edited
    item = spec.components.schemas["Item"]
    # parts/item.yaml refers back into the root: following it reaches the edited text, not the disk
    assert spec.resolve_schema(item["$ref"]) == {"type": "integer"}
    assert spec.resolve_schema("#/components/schemas/Name") == {"type": "integer"}
    assert root.read_text() != edited  # nothing was written


def test_edited_documents_of_other_files_are_used_instead_of_their_files(write):
    from workbench.edit import Edit, apply_edits

    part = write("parts/item.yaml", "Item: {type: object, properties: {name: {type: string}}}\n")
    root = write("api.yaml", HEAD + """
paths: {}
components:
  schemas:
    Item: {$ref: 'parts/item.yaml#/Item'}
""")
    on_disk = load_spec(root)
    document = on_disk.documents["parts/item.yaml"]
    edited = apply_edits(document, [Edit("/Item/properties/name/description", "The item's name.")]).document
    spec = load_spec(root, documents=[edited])
    assert spec.documents["parts/item.yaml"] is edited  # the very document, not the file read again
    target = spec.resolve_schema(spec.components.schemas["Item"]["$ref"])
    assert target["properties"]["name"]["description"] == "The item's name."
    assert "description" not in part.read_text()  # nothing was written
    other = write("other.yaml", HEAD + "paths: {}\n")
    unused = load_spec(other, documents=[edited])  # a document no ref reaches is not part of the spec
    assert set(unused.documents) == {str(other)}


def _json_spec(components: str) -> str:
    return ('{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": '
            '{"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": '
            '"#/components/schemas/A"}}}}}}}}, "components": {"schemas": {"A": {"type": "object"}, '
            + components + "}}}")


@pytest.mark.parametrize(("components", "expected"), [
    ('"B": {"$ref": "#/components/schemas/Nope"}', ["ref-unresolved"]),  # unused, still reported
    ('"B": {"$ref": "#\\/components\\/schemas\\/Nope"}', ["ref-unresolved"]),  # escaped slashes in the text
    ('"B": {"\\u0024ref": "#/components/schemas/Nope"}', ["ref-unresolved"]),  # an escaped key
    ('"B": {"$ref": "other.json#/X"}', ["ref-unresolved"]),  # another file, which does not exist
    ('"B": {"$ref": "#/components/schemas/A"}, "C": {"example": {"$ref": "#/nowhere"}}', []),  # data, not a ref
    ('"B": {"type": "object", "properties": {"$ref": {"type": "string"}}}', []),  # a property named $ref
], ids=["broken", "escaped-slashes", "escaped-key", "other-file", "in-an-example", "property-named-ref"])
def test_every_ref_of_a_json_file_is_checked_however_it_is_spelled(write, components, expected):
    spec = load_spec(write("s.json", _json_spec(components)))
    assert codes(spec) == expected
    assert all(p.pointer.startswith("/components/schemas/B") for p in spec.problems)


def test_a_ref_in_an_extension_never_brings_in_the_file_its_chain_names(write):
    # The text holds a local ref (in an extension, which is data) whose target is a ref to another file: the scan
    # must not follow it (the walk never does), so that file is neither read nor reported.
    write("other.json", '{"B": {"type": "string", "type": "integer"}}')  # a duplicate key, reported if read
    spec = load_spec(write("s.json", _json_spec('"B": {"type": "object"}')[:-1]
                           + ', "x-a": {"$ref": "#/x-b"}, "x-b": {"$ref": "other.json#/B"}}'))
    assert len(spec.documents) == 1
    assert spec.problems == ()


_YAML_BASE = HEAD + """paths:
  /a:
    get:
      responses:
        '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}
components:
  schemas:
    A: &a {type: object, properties: {id: {$ref: '#/components/schemas/Id'}}}
    Id: {type: string}
"""


@pytest.mark.parametrize(("components", "expected"), [
    ("    B: {$ref: '#/components/schemas/Nope'}\n", ["ref-unresolved"]),  # unused, still reported
    ('    B: {"$ref": "#/components/schemas/Nope"}\n', ["ref-unresolved"]),  # a quoted key
    ("    B:\n      $ref: !!str '#/components/schemas/Nope'\n", ["ref-unresolved"]),  # a tagged value
    ("    B: {$ref: other.yaml#/X}\n", ["ref-unresolved"]),  # another file, which does not exist
    ("    B: {example: {$ref: '#/nowhere'}}\n", []),  # data, not a ref
    ("    B: {x-a: {$ref: '#/nowhere'}}\n", []),  # an extension: data
    ("    B: {properties: {$ref: {type: string}}}\n", []),  # a property named $ref
    ("    B: *a\n    C: {$ref: '#/components/schemas/B'}\n", []),  # through an alias
    ("    N: &n '#/components/schemas/Nope'\n    B: {$ref: *n}\n", ["ref-unresolved"]),  # the ref an alias
    ("    K: &k $ref\n    B: {*k : '#/components/schemas/Nope'}\n", ["ref-unresolved"]),  # the key an alias
    ("    M: &m {$ref: '#/components/schemas/Nope'}\n    B: {<<: *m, type: object}\n",
     ["ref-unresolved", "ref-unresolved"]),  # merged: in M and in B
], ids=["broken", "quoted-key", "tagged", "other-file", "in-an-example", "in-an-extension", "property-named-ref",
        "alias", "alias-value", "alias-key", "merge"])
def test_every_ref_of_a_yaml_file_is_checked_as_the_walk_checks_it(write, components, expected):
    # The parse gathers the `$ref` strings so that the check can skip its walk when all are local and resolve;
    # whatever it gathers, the problems are the walk's own.
    path = write("s.yaml", _YAML_BASE + components)
    spec = load_spec(path)
    assert codes(spec) == expected
    assert spec.root.refs_written is not None
    from workbench.spec.refs import Resolver
    from workbench.spec.source import parse_document

    document = parse_document(path)
    walked = Resolver(document)
    document.refs_written = None  # as a document built without its refs: the walk alone
    walked.check_all(document)
    assert [(p.code, p.pointer) for p in walked.problems] == [(p.code, p.pointer) for p in spec.problems
                                                               if p.code.startswith("ref-")]


def test_a_yaml_file_whose_refs_all_resolve_here_is_checked_without_its_walk(write):
    from workbench.spec.refs import Resolver
    from workbench.spec.source import parse_document

    document = parse_document(write("s.yaml", _YAML_BASE + "    B: {example: {$ref: '#/components/schemas/A'}}\n"))
    assert document.refs_written == ["#/components/schemas/A", "#/components/schemas/Id", "#/components/schemas/A"]
    assert Resolver(document)._local_refs_hold(document)  # every ref local and resolving: no walk needed
    document.refs_written = None
    assert not Resolver(document)._local_refs_hold(document)  # refs not gathered: the walk decides
    other = parse_document(write("o.yaml", _YAML_BASE + "    B: {$ref: other.yaml#/X}\n"))
    assert not Resolver(other)._local_refs_hold(other)  # another file: the walk decides


def test_the_yaml_parse_gathers_every_string_written_as_a_ref():
    from workbench.spec.yaml_parse import parse_yaml

    refs: list[str] = []
    parse_yaml("a: &r {$ref: '#/x'}\nb: *r\nc: {<<: *r}\nd: {$ref: 3}\nn: &n '#/y'\ne: {$ref: *n}\n"
               "f: {example: {$ref: '#/z'}}\n", "f.yaml", refs=refs)
    assert refs == ["#/x", "#/y", "#/z"]  # each written once (aliases and merges reuse what was read); not the number


@pytest.mark.parametrize(("components", "scanned"), [
    ('"B": {"$ref": "#/components/schemas/A"}', True),
    ('"B": {"type": "object", "properties": {"$ref": {"type": "string"}}}', True),  # a property named $ref
    ('"B": {"$ref": "#\\/components\\/schemas\\/A"}', False),  # resolves, but an escape: left to the walk
    ('"B": {"$ref": "#/components/schemas/A"}, "C": {"$ref": "#/components/schemas/\\u0041"}', False),
], ids=["plain", "property-named-ref", "escaped-slashes", "one-escaped-among-plain"])
def test_the_text_scan_vouches_only_for_refs_without_escapes_and_the_walk_agrees(write, components, scanned):
    # The scan reads each ref's value up to its first quote or backslash: a backslash leaves the file to the walk,
    # which finds the same nothing to report for these refs that all resolve.
    spec = load_spec(write("s.json", _json_spec(components)))
    assert spec.resolver._local_refs_hold(spec.root) is scanned
    assert spec.problems == ()


def test_iter_refs_spells_the_pointers_of_the_refs_it_finds_as_a_walk_building_every_pointer_does():
    # The walk keeps each node's place as (parent's place, key) and spells a pointer only for a ref it finds: the
    # same (pointer, ref) pairs, in the same order, as one that joins a pointer for every container. Keys that need
    # escaping, list indexes, an Example Object's value (data), a list of examples, an extension and an enum (data),
    # and a subtree reached twice (visited once).
    from workbench.spec.pointer import join
    from workbench.spec.refs import _DATA_KEYS, iter_refs

    def joined(data):
        found, stack, seen = [], [("", data)], set()
        while stack:
            pointer, node = stack.pop()
            if isinstance(node, (dict, list)):
                if id(node) in seen:
                    continue
                seen.add(id(node))
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    found.append((pointer, node["$ref"]))
                in_examples = pointer.rsplit("/", 2)[-2:-1] == ["examples"]
                for key, value in node.items():
                    if not isinstance(value, (dict, list)) or key in _DATA_KEYS or key.startswith("x-"):
                        continue
                    if (key == "value" and in_examples) or (key == "examples" and isinstance(value, list)):
                        continue
                    stack.append((join(pointer, key), value))
            elif isinstance(node, list):
                stack += [(f"{pointer}/{i}", value) for i, value in enumerate(node) if isinstance(value, (dict, list))]
        return found[::-1]

    shared = {"$ref": "#/shared"}
    data = {"a~b/c": {"$ref": "#/x", "in": {"$ref": "#/y"}}, "l": [{"$ref": "#/z"}, [{"$ref": "#/w"}], 3],
            "examples": {"e": {"value": {"$ref": "#/data"}, "summary": {"$ref": "#/s"}}},
            "schema": {"examples": [{"$ref": "#/listed"}], "value": {"$ref": "#/not-an-example"}},
            "x-ext": {"$ref": "#/ext"}, "enum": [{"$ref": "#/en"}], "one": shared, "two": [shared], "$ref": "#/root"}
    assert iter_refs(data) == joined(data)
    assert iter_refs(data) == [("/a~0b~1c/in", "#/y"), ("/a~0b~1c", "#/x"), ("/l/0", "#/z"), ("/l/1/0", "#/w"),
                               ("/examples/e/summary", "#/s"), ("/schema/value", "#/not-an-example"),
                               ("/two/0", "#/shared"), ("", "#/root")]
