"""The wire format, below both the HTTP client and the mock server: every parameter style
(`parameters.py`) and body encoding (`bodies.py`) in both directions, the plain request message
(`messages.py`) and the check of a request against its operation (`validate.py`). Imports only
`workbench.spec`, the standard library and the dependencies."""

from workbench.wire.bodies import (
    as_file,
    binary_schema,
    decode_body,
    decode_xml,
    encode_body,
    file_stand_in,
    is_file,
    media_family,
    text_only_form_field,
)
from workbench.wire.parameters import (
    STYLES,
    SerializationError,
    Style,
    collection_format,
    header_text,
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

__all__ = [
    "STYLES",
    "SerializationError",
    "Style",
    "as_file",
    "binary_schema",
    "collection_format",
    "decode_body",
    "decode_xml",
    "encode_body",
    "file_stand_in",
    "header_text",
    "is_file",
    "join_query",
    "media_family",
    "parse_cookie",
    "parse_header",
    "parse_path",
    "parse_query",
    "schema_kind",
    "serialize_cookie",
    "serialize_header",
    "serialize_path",
    "serialize_query",
    "split_query",
    "text_only_form_field",
]
