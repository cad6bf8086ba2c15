"""workbench.wire: the style table of docs/mock-and-roundtrip.md in both directions, round trips
for every style, location and body media type, and the Swagger 2 collectionFormat equivalents."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.wire import (
    SerializationError,
    collection_format,
    decode_body,
    encode_body,
    join_query,
    parse_cookie,
    parse_header,
    parse_path,
    parse_query,
    schema_kind,
    serialize_cookie,
    serialize_header,
    serialize_path,
    serialize_query,
    split_query,
)

# ---------------------------------------------------------------------------------------------------
# the table, verbatim from the document (None = n/a)

VALUES = {
    "string": ("blue", "string", "string"),  # (value, kind, item_kind)
    "array": (["blue", "black", "brown"], "array", "string"),
    "object": ({"R": 100, "G": 200, "B": 150}, "object", "integer"),
}
TABLE = [
    ("matrix", False, ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"),
    ("matrix", True, ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"),
    ("label", False, ".blue", ".blue,black,brown", ".R,100,G,200,B,150"),
    ("label", True, ".blue", ".blue.black.brown", ".R=100.G=200.B=150"),
    ("simple", False, "blue", "blue,black,brown", "R,100,G,200,B,150"),
    ("simple", True, "blue", "blue,black,brown", "R=100,G=200,B=150"),
    ("form", False, "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"),
    ("form", True, "color=blue", "color=blue&color=black&color=brown", "R=100&G=200&B=150"),
    ("spaceDelimited", False, None, "color=blue%20black%20brown", "color=R%20100%20G%20200%20B%20150"),
    ("pipeDelimited", False, None, "color=blue%7Cblack%7Cbrown", "color=R%7C100%7CG%7C200%7CB%7C150"),
    ("deepObject", True, None, None, "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"),
]
CASES = [pytest.param(style, explode, shape, text, id=f"{style}-{'explode' if explode else 'flat'}-{shape}")
         for style, explode, *texts in TABLE for shape, text in zip(VALUES, texts, strict=True) if text is not None]
PATH_STYLES = ("matrix", "label", "simple")


@pytest.mark.parametrize(("style", "explode", "shape", "text"), CASES)
def test_table_serialises(style, explode, shape, text):
    value = VALUES[shape][0]
    if style in PATH_STYLES:
        assert serialize_path("color", value, style, explode) == text
    else:
        assert join_query(serialize_query("color", value, style, explode)) == text


@pytest.mark.parametrize(("style", "explode", "shape", "text"), CASES)
def test_table_parses(style, explode, shape, text):
    value, kind, item_kind = VALUES[shape]
    if style in PATH_STYLES:
        assert parse_path(text, "color", style, explode, kind, item_kind) == value
    else:  # among other parameters, as a server sees it
        pairs = split_query(f"a=1&{text}&z=%2C")
        assert parse_query(pairs, "color", style, explode, kind, item_kind, properties=["R", "G", "B"]) == value


@pytest.mark.parametrize(("style", "explode", "shape", "text"), [c for c in CASES if c.values[0] == "simple"])
def test_table_simple_rows_are_the_header_form(style, explode, shape, text):
    value, kind, item_kind = VALUES[shape]
    assert serialize_header(value, explode) == text
    assert parse_header(f" {text} ", explode, kind, item_kind) == value


@pytest.mark.parametrize(("style", "explode", "shape", "text"), [c for c in CASES if c.values[0] == "form"])
def test_table_form_rows_are_the_cookie_form(style, explode, shape, text):
    value, kind, item_kind = VALUES[shape]
    assert serialize_cookie("color", value, explode) == text
    assert parse_cookie(f"session=x; {text}; theme=dark", "color", explode, kind, item_kind,
                        properties=["R", "G", "B"]) == value


# ---------------------------------------------------------------------------------------------------
# round trips of parameters

NAME = "the-param"  # not identifier-like, so never equal to an object key
NOISE = "x-noise"
ANY_TEXT = st.one_of(
    st.text(max_size=16),  # arbitrary Unicode (hypothesis leaves out surrogates)
    st.text(alphabet=st.sampled_from("/?#&=,;.%+~[]|\t \"'\\aZ9-_é中😀"), max_size=12),
)
KEYS = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True)
NUMBERS = st.one_of(st.integers(), st.integers(min_value=2**53, max_value=2**64), st.floats(allow_nan=False))


def lists(items):
    # [] is undefined (RFC 6570): nothing is sent, see test_an_empty_array_is_undefined_and_sends_nothing
    return st.lists(items, min_size=1, max_size=5)


def dicts(values):
    # {} is undefined too (RFC 6570): see test_an_empty_object_is_undefined_and_sends_nothing
    return st.dictionaries(KEYS, values, min_size=1, max_size=5)


def without(chars):
    return ANY_TEXT.filter(lambda s: not set(s) & set(chars))


def kind_of(value):
    return {bool: "boolean", int: "integer", float: "number"}.get(type(value), "string")


@pytest.mark.parametrize("explode", [False, True])
@pytest.mark.parametrize("style", PATH_STYLES)
@settings(max_examples=100)
@given(data=st.data())
def test_path_round_trip(style, explode, data):
    # path text is parsed raw (still percent-encoded), so no character needs restricting
    shape = data.draw(st.sampled_from(["string", "array", "object"]))
    value = data.draw({"string": ANY_TEXT, "array": lists(ANY_TEXT), "object": dicts(ANY_TEXT)}[shape])
    text = serialize_path(NAME, value, style, explode)
    assert parse_path(text, NAME, style, explode, kind=shape) == value


@pytest.mark.parametrize("style", PATH_STYLES)
@settings(max_examples=100)
@given(value=st.one_of(ANY_TEXT, st.text(alphabet="./%2Ef?#", max_size=8), lists(ANY_TEXT), dicts(ANY_TEXT)),
       explode=st.booleans())
def test_a_path_value_never_injects_a_segment(style, value, explode):
    text = serialize_path(NAME, value, style, explode)
    assert not set(text) & set("/?#")
    assert text not in (".", "..")  # dot-segments that clients would normalise away
    assert len(f"/items/{text}/x".split("/")) == 4


@pytest.mark.parametrize("style", PATH_STYLES)
@settings(max_examples=100)
@given(value=st.one_of(NUMBERS, st.booleans()), items=st.lists(st.integers(), min_size=1, max_size=4),
       explode=st.booleans())
def test_typed_scalars_round_trip_everywhere(style, value, items, explode):
    kind = kind_of(value)
    assert parse_path(serialize_path(NAME, value, style, explode), NAME, style, explode, kind) == value
    assert parse_path(serialize_path(NAME, items, style, explode), NAME, style, explode, "array", "integer") == items
    assert parse_query(split_query(join_query(serialize_query(NAME, value))), NAME, kind=kind) == value
    assert parse_header(serialize_header(value), kind=kind) == value
    assert parse_cookie(serialize_cookie(NAME, value), NAME, kind=kind) == value


# Query pairs are parsed DECODED (as parse_qsl gives them), so in a non-exploded style an item, key or
# value that contains the style's own separator would read as two: those strategies leave it out.
SEPARATOR = {"form": ",", "spaceDelimited": " ", "pipeDelimited": "|", "tabDelimited": "\t"}
QUERY_CASES = [(style, False, shape) for style in SEPARATOR for shape in ("array", "object")]
QUERY_CASES += [("form", False, "string"), ("form", True, "string")]
QUERY_CASES += [("form", True, "array"), ("form", True, "object"), ("deepObject", True, "object")]
# exploded space/pipe/tabDelimited are form/explode (checked in test_exploded_delimited_styles_are_form)


@pytest.mark.parametrize(("style", "explode", "shape"), QUERY_CASES)
@settings(max_examples=100)
@given(data=st.data(), allow_reserved=st.booleans())
def test_query_round_trip(style, explode, shape, data, allow_reserved):
    text = without(SEPARATOR.get(style, "")) if not explode else ANY_TEXT
    value = data.draw({"string": ANY_TEXT, "array": lists(text), "object": dicts(text)}[shape])
    pairs = serialize_query(NAME, value, style, explode, allow_reserved)
    assert all(c not in k + v for k, v in pairs for c in "&#+ ")  # the query string's own structure is safe
    query = join_query([(NOISE, "1"), *pairs, (NOISE, "%2C")])
    properties = list(value) if shape == "object" else None
    assert parse_query(split_query(query), NAME, style, explode, shape, properties=properties) == value


@pytest.mark.parametrize("style", ["spaceDelimited", "pipeDelimited", "tabDelimited"])
@pytest.mark.parametrize("value", [["a b", "c|d"], {"R": "1 2", "G": "|"}])
def test_exploded_delimited_styles_are_form(style, value):
    pairs = serialize_query("color", value, style, True)
    assert pairs == serialize_query("color", value, "form", True)
    parsed = parse_query(split_query(join_query(pairs)), "color", style, True, type(value).__name__.replace(
        "list", "array").replace("dict", "object"), properties=["R", "G"])
    assert parsed == value


def test_query_none_and_absent():
    assert serialize_query("q", None) == []
    assert parse_query([("other", "1")], "q") is None
    assert parse_query([("other", "1")], "q", kind="array") is None
    assert parse_query([("other", "1")], "q", style="deepObject", kind="object") is None


@pytest.mark.parametrize("style, explode", [("form", True), ("form", False), ("spaceDelimited", False),
                                            ("pipeDelimited", False), ("tabDelimited", False)])
def test_an_empty_array_is_undefined_and_sends_nothing(style, explode):
    # RFC 6570 3.2.1: an empty list is undefined, so the parameter is left out (not `tags=`, which reads [""])
    assert serialize_query("tags", [], style, explode) == []
    assert join_query(serialize_query("tags", [""], style, explode)) == "tags="
    assert parse_query(split_query("tags="), "tags", style, explode, "array") == [""]
    assert parse_query(split_query("other=1"), "tags", style, explode, "array") is None


@pytest.mark.parametrize("style, explode", [("form", True), ("form", False), ("deepObject", True)])
def test_an_empty_object_is_undefined_and_sends_nothing(style, explode):
    # RFC 6570 2.3: an empty map is undefined, like an empty list: `metadata: {}` (no filter) leaves the
    # parameter out, never `metadata=`, which a server reads as an empty value (allowEmptyValue is false by default)
    for empty in ({}, {"key": None}):
        assert serialize_query("metadata", empty, style, explode) == []
    assert serialize_header({}) is None and serialize_cookie("metadata", {}) is None
    for path_style in PATH_STYLES:
        with pytest.raises(SerializationError, match="empty array or object has no form"):
            serialize_path("ids", {}, path_style)


def test_an_empty_array_header_or_cookie_is_not_sent_and_a_path_cannot_be_empty():
    assert serialize_header([]) is None and serialize_header([], True) is None and serialize_header(None) is None
    assert serialize_cookie("tags", []) is None and serialize_cookie("tags", [], False) is None
    assert serialize_header([""]) == "" and parse_header("", kind="array") == [""]
    assert serialize_cookie("tags", [""]) == "tags=" and parse_cookie("tags=", "tags", kind="array") == [""]
    for style in PATH_STYLES:
        with pytest.raises(SerializationError, match="at least one item"):
            serialize_path("ids", [], style)


PRINTABLE = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=16)
STRIPPED = PRINTABLE.filter(lambda s: s == s.strip())


@pytest.mark.parametrize("explode", [False, True])
@settings(max_examples=100)
@given(data=st.data())
def test_header_round_trip(explode, data):
    # headers are not percent-encoded: printable ASCII only, items without "," and without surrounding
    # spaces (HTTP list syntax drops them); "=" is fine inside exploded object values (split on the first)
    item = STRIPPED.filter(lambda s: "," not in s)
    shape = data.draw(st.sampled_from(["string", "array", "object"]))
    value = data.draw({"string": STRIPPED, "array": lists(item), "object": dicts(item)}[shape])
    text = serialize_header(value, explode)
    assert parse_header(text, explode, shape) == value


def test_header_refuses_line_breaks():
    with pytest.raises(SerializationError):
        serialize_header("a\r\nX-Injected: 1")


@pytest.mark.parametrize("explode", [False, True])
@settings(max_examples=100)
@given(data=st.data())
def test_cookie_round_trip(explode, data):
    # cookies are percent-encoded and parsed raw, so no character needs restricting
    shape = data.draw(st.sampled_from(["string", "array", "object"]))
    value = data.draw({"string": ANY_TEXT, "array": lists(ANY_TEXT), "object": dicts(ANY_TEXT)}[shape])
    text = serialize_cookie(NAME, value, explode)
    assert not set(text) & set('; "\\')  # never a cookie separator, space, quote or backslash
    header = f"{NOISE}=a%26b; {text}; other=1"
    properties = list(value) if shape == "object" else None
    assert parse_cookie(header, NAME, explode, shape, properties=properties) == value


# ---------------------------------------------------------------------------------------------------
# Swagger 2.0 collectionFormat

ARRAY = ["blue", "black", "brown"]


@pytest.mark.parametrize(("fmt", "location", "style", "explode", "text"), [
    ("csv", "query", "form", False, "color=blue,black,brown"),
    ("ssv", "query", "spaceDelimited", False, "color=blue%20black%20brown"),
    ("pipes", "query", "pipeDelimited", False, "color=blue%7Cblack%7Cbrown"),
    ("tsv", "query", "tabDelimited", False, "color=blue%09black%09brown"),
    ("multi", "query", "form", True, "color=blue&color=black&color=brown"),
    (None, "query", "form", False, "color=blue,black,brown"),
    ("csv", "path", "simple", False, "blue,black,brown"),
    ("ssv", "path", "spaceDelimited", False, "blue%20black%20brown"),
    ("pipes", "path", "pipeDelimited", False, "blue%7Cblack%7Cbrown"),
    ("tsv", "path", "tabDelimited", False, "blue%09black%09brown"),
    ("csv", "header", "simple", False, "blue,black,brown"),
    ("tsv", "header", "tabDelimited", False, "blue\tblack\tbrown"),
    ("pipes", "header", "pipeDelimited", False, "blue|black|brown"),
])
def test_collection_formats(fmt, location, style, explode, text):
    assert collection_format(fmt, location) == (style, explode)
    if location == "query":
        assert join_query(serialize_query("color", ARRAY, style, explode)) == text
        assert parse_query(split_query(text), "color", style, explode, "array") == ARRAY
    elif location == "path":
        assert serialize_path("color", ARRAY, style, explode) == text
        assert parse_path(text.lower(), "color", style, explode, "array") == ARRAY  # %7c as well as %7C
    else:
        assert serialize_header(ARRAY, explode, style) == text
        assert parse_header(text, explode, "array", style=style) == ARRAY


def test_collection_format_multi_is_query_and_form_data_only():
    assert collection_format("multi", "formData") == ("form", True)
    with pytest.raises(SerializationError):
        collection_format("multi", "path")
    with pytest.raises(SerializationError):
        collection_format("bogus")


@settings(max_examples=100)
@given(items=lists(without("\t")))  # a tab inside an item would read as two items
def test_tab_delimited_round_trip(items):
    pairs = serialize_query("color", items, "tabDelimited", False)
    assert parse_query(split_query(join_query(pairs)), "color", "tabDelimited", False, "array") == items
    body, content_type = encode_body({"color": items}, "application/x-www-form-urlencoded", openapi_version="2.0",
                                     encoding={"color": {"style": "tabDelimited", "explode": False}})
    schema = {"type": "object", "properties": {"color": {"type": "array", "items": {"type": "string"}}}}
    decoded = decode_body(body, content_type, openapi_version="2.0",
                          encoding={"color": {"style": "tabDelimited", "explode": False}}, schema=schema)
    assert decoded == {"color": items}


# ---------------------------------------------------------------------------------------------------
# specific rules and regressions


def test_path_encoding_details():
    assert serialize_path("id", "../../admin") == "..%2F..%2Fadmin"
    assert serialize_path("id", "a/b?c#d e") == "a%2Fb%3Fc%23d%20e"
    assert serialize_path("id", "..") == "%2E%2E"
    assert parse_path("%2E%2E", "id") == ".."
    assert serialize_path("id", "", "label") == "%2E"
    assert parse_path("%2E", "id", "label") == ""
    assert serialize_path("v", "1.5", "label") == ".1%2E5"  # "." is label's separator
    assert serialize_path("v", ["a.b", "c"], "label", True) == ".a%2Eb.c"
    assert serialize_path("color", "", "matrix") == ";color"
    assert serialize_path("color", [""], "matrix", True) == ";color"
    assert parse_path(";color", "color", "matrix", True, "array") == [""]
    assert serialize_path("v", ["a,b", "c"]) == "a%2Cb,c"
    with pytest.raises(SerializationError):
        parse_path("blue", "color", "label")
    with pytest.raises(SerializationError):
        serialize_path("color", "x", "form")
    with pytest.raises(SerializationError):
        serialize_path("color", None)


def test_prism_regressions():
    assert parse_path(".1,2", "l", "label", False, "array", "integer") == [1, 2]
    assert parse_query(split_query("tags=a&tags=b"), "tags", kind="array") == ["a", "b"]
    big = 2**63 - 1
    assert parse_query(split_query(join_query(serialize_query("n", big))), "n", kind="integer") == big
    assert parse_query(split_query("ids=1%202%203"), "ids", "spaceDelimited", False, "array", "integer") == [1, 2, 3]
    body = (b'--b\r\nContent-Disposition: form-data; name="f"; filename="x.bin"\r\n\r\n%zz\r\n--b--\r\n')
    assert decode_body(body, "multipart/form-data; boundary=b")["f"]["content"] == b"%zz"


def test_allow_reserved():
    pairs = serialize_query("u", "http://x/y?z=1&w#f+[0]", allow_reserved=True)
    assert pairs == [("u", "http://x/y?z=1%26w%23f%2B%5B0%5D")]
    assert parse_query(split_query(join_query(pairs)), "u") == "http://x/y?z=1&w#f+[0]"
    assert serialize_query("u", "a/b:c") == [("u", "a%2Fb%3Ac")]


def test_non_exploded_array_sent_exploded_is_still_read():
    assert parse_query(split_query("c=a,b&c=d"), "c", "form", False, "array") == ["a", "b", "d"]


def test_properties_mapping_types_each_value():
    pairs = split_query("R=100&G=x&B=true&other=1")
    properties = {"R": {"type": "integer"}, "G": {"type": "string"}, "B": {"type": "boolean"}}
    assert parse_query(pairs, "color", kind="object", properties=properties) == {"R": 100, "G": "x", "B": True}
    assert parse_path("R,1.5,G,2", "c", kind="object", item_kind="number") == {"R": 1.5, "G": 2}
    assert parse_query(split_query("n=abc"), "n", kind="integer") == "abc"  # left for schema validation


def test_deep_object_nesting():
    value = {"a": {"b": "1", "c": ["x", "y"]}, "d": "2"}
    pairs = serialize_query("f", value, "deepObject")
    assert join_query(pairs) == "f%5Ba%5D%5Bb%5D=1&f%5Ba%5D%5Bc%5D=x&f%5Ba%5D%5Bc%5D=y&f%5Bd%5D=2"
    assert parse_query(split_query(join_query(pairs)), "f", "deepObject", True, "object") == value
    with pytest.raises(SerializationError):
        serialize_query("f", ["a"], "deepObject")


def test_nested_values_are_refused_where_no_style_defines_them():
    with pytest.raises(SerializationError):
        serialize_query("f", {"a": {"b": 1}})
    with pytest.raises(SerializationError):
        serialize_path("f", [[1]])


def test_schema_kind():
    assert schema_kind({"type": ["null", "integer"]}) == "integer"
    assert schema_kind({"properties": {}}) == "object"
    assert schema_kind({"items": {}}) == "array"
    assert schema_kind(None) == "string"


# ---------------------------------------------------------------------------------------------------
# bodies

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20)


@settings(max_examples=100)
@given(value=JSON, media_type=st.sampled_from(["application/json", "application/problem+json"]))
def test_json_body_round_trip(value, media_type):
    data, content_type = encode_body(value, media_type)
    assert content_type == media_type
    assert decode_body(data, content_type) == value


def form_schema(value):
    def prop(v):
        return {"type": "array", "items": {"type": "string"}} if isinstance(v, list) else {"type": "string"}

    return {"type": "object", "properties": {k: prop(v) for k, v in value.items()}}


FORM_KEYS = st.text(min_size=1, max_size=8)


@pytest.mark.parametrize("version", ["3.0.3", "3.1.1"])
@settings(max_examples=100)
@given(value=st.dictionaries(FORM_KEYS, ANY_TEXT | lists(ANY_TEXT), max_size=5))
def test_form_body_round_trip(version, value):
    data, content_type = encode_body(value, "application/x-www-form-urlencoded", openapi_version=version)
    assert content_type == "application/x-www-form-urlencoded"
    assert b"~" not in data and b"+" not in data
    assert decode_body(data, content_type, openapi_version=version, schema=form_schema(value)) == value


@settings(max_examples=100)
@given(value=st.dictionaries(FORM_KEYS, ANY_TEXT | st.lists(ANY_TEXT, min_size=2, max_size=4), max_size=5))
def test_form_body_without_schema(value):
    # without a schema a one-item array cannot be told from a string: repeated keys become lists
    data, content_type = encode_body(value, "application/x-www-form-urlencoded")
    assert decode_body(data, content_type) == value


@pytest.mark.parametrize("version", ["2.0", "3.0.3", "3.1.0", "3.2.0"])
@settings(max_examples=100)
@given(name=ANY_TEXT, color=dicts(ANY_TEXT))
def test_form_body_objects_by_version(version, name, color):
    value = {"the-name": name, "color": color}  # "the-name" is never one of color's (identifier) keys
    schema = {"type": "object", "properties": {
        "the-name": {"type": "string"},
        "color": {"type": "object", "properties": {key: {"type": "string"} for key in color}}}}
    data, content_type = encode_body(value, "application/x-www-form-urlencoded", openapi_version=version)
    pairs = split_query(data.decode())
    if version.startswith(("2", "3.0")):  # every property form/explode: the object's own keys
        assert all(k in ("the-name", "color", *color) for k, _ in pairs)
    else:  # 3.1+: the object as one JSON-encoded value
        assert [k for k, _ in pairs] == ["the-name", "color"]
    assert decode_body(data, content_type, openapi_version=version, schema=schema) == value
    free = {"type": "object", "properties": {"the-name": {"type": "string"}, "color": {"type": "object"}}}
    assert decode_body(data, content_type, openapi_version=version, schema=free) == value


def test_form_body_table_examples():
    value = {"id": 7, "color": {"R": 100, "G": 200, "B": 150}, "tags": ["a", "b"]}
    assert encode_body(value, "application/x-www-form-urlencoded", openapi_version="3.0.3")[0] == (
        b"id=7&R=100&G=200&B=150&tags=a&tags=b")
    assert encode_body(value, "application/x-www-form-urlencoded", openapi_version="3.1.1")[0] == (
        b"id=7&color=%7B%22R%22%3A100%2C%22G%22%3A200%2C%22B%22%3A150%7D&tags=a&tags=b")
    encoding = {"color": {"style": "deepObject", "explode": True}, "tags": {"style": "form", "explode": False}}
    data, content_type = encode_body(value, "application/x-www-form-urlencoded", encoding=encoding)
    assert data == b"id=7&color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150&tags=a,b"
    schema = {"type": "object", "properties": {
        "id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}},
        "color": {"type": "object", "properties": {key: {"type": "integer"} for key in "RGB"}}}}
    assert decode_body(data, content_type, encoding=encoding, schema=schema) == value
    assert encode_body({"t": "a~b c"}, "application/x-www-form-urlencoded")[0] == b"t=a%7Eb%20c"


FIELD_NAMES = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10).filter(
    lambda s: "%" not in s)  # names and filenames: %22/%0D/%0A are the WHATWG escapes, so a literal "%" is out
FILES = st.fixed_dictionaries({
    "filename": FIELD_NAMES | st.just(""),
    "content": st.binary(max_size=64),
    "content_type": st.sampled_from(["application/octet-stream", "image/png", "text/csv; charset=utf-8"]),
})
PART = st.one_of(st.text(max_size=32), st.binary(max_size=64), FILES)


@settings(max_examples=100)
@given(value=st.dictionaries(FIELD_NAMES, PART | st.lists(PART, min_size=1, max_size=3), max_size=4))
def test_multipart_round_trip(value):
    # text parts come back as str, bytes as bytes (a part without filename), file dicts as file dicts;
    # the schema says which properties are arrays (a one-item array is otherwise a single part)
    data, content_type = encode_body(value, "multipart/form-data")
    assert content_type.startswith("multipart/form-data; boundary=")
    schema = {"type": "object", "properties": {
        k: {"type": "array", "items": {}} if isinstance(v, list) else {} for k, v in value.items()}}
    assert decode_body(data, content_type, schema=schema) == value


def test_multipart_details():
    value = {"n": 3, "ok": True, "meta": {"a": [1]}, "f": {"filename": 'a"b.txt', "content": "hé"}}
    data, content_type = encode_body(value, "multipart/form-data; boundary=XyZ")
    assert content_type == "multipart/form-data; boundary=XyZ"
    assert b'filename="a%22b.txt"' in data and b"Content-Type: application/json" in data
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "ok": {"type": "boolean"}}}
    assert decode_body(data, content_type, schema=schema) == {
        "n": 3, "ok": True, "meta": {"a": [1]},
        "f": {"filename": 'a"b.txt', "content": "hé".encode(), "content_type": "application/octet-stream"}}
    with pytest.raises(SerializationError):
        encode_body({"t": "--XyZ"}, "multipart/form-data; boundary=XyZ")
    assert decode_body(*encode_body({}, "multipart/form-data")) == {}
    with pytest.raises(SerializationError):
        decode_body(b"garbage", "multipart/form-data; boundary=q")
    utf8 = b'--q\r\nContent-Disposition: form-data; name="x"; filename*=UTF-8\'\'%E2%82%AC.txt\r\n\r\n1\r\n--q--\r\n'
    assert decode_body(utf8, "multipart/form-data; boundary=q")["x"]["filename"] == "€.txt"


@settings(max_examples=100)
@given(text=st.text())
def test_text_body_round_trip(text):
    data, content_type = encode_body(text, "text/plain")
    assert content_type == "text/plain; charset=utf-8"
    assert decode_body(data, content_type) == text
    data, content_type = encode_body(text.encode("utf-8").decode("latin-1"), "text/plain; charset=latin-1")
    assert decode_body(data, content_type) == text.encode("utf-8").decode("latin-1")


@settings(max_examples=100)
@given(data=st.binary(), media_type=st.sampled_from(["application/octet-stream", "image/png", "application/pdf"]))
def test_binary_body_round_trip(data, media_type):
    body, content_type = encode_body(data, media_type)
    assert (body, content_type) == (data, media_type)
    assert decode_body(body, content_type) == data


def test_binary_and_wildcard_bodies():
    assert encode_body("hé", "application/octet-stream") == ("hé".encode(), "application/octet-stream")
    assert encode_body(b"\x00", "*/*") == (b"\x00", "application/octet-stream")
    assert encode_body({"a": 1}, "*/*") == (b'{"a":1}', "application/json")
    assert encode_body("x", "text/*") == (b"x", "text/plain; charset=utf-8")
    with pytest.raises(ValueError):
        encode_body(float("nan"), "application/json")
