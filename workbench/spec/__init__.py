"""Reading API descriptions: parsing with positions, `$ref`s, and the one normalised model."""

from workbench.spec.errors import Problem, Severity, SpecError
from workbench.spec.loader import load_spec
from workbench.spec.model import (
    HTTP_METHODS,
    Components,
    Header,
    MediaType,
    Operation,
    Origin,
    Parameter,
    PathItem,
    RequestBody,
    Response,
    Schema,
    Server,
    ServerVariable,
    Spec,
    SpecVersion,
    Tag,
)
from workbench.spec.refs import RefPolicy
from workbench.spec.source import Location, Position, SourceDocument

__all__ = [
    "HTTP_METHODS",
    "Components",
    "Header",
    "Location",
    "MediaType",
    "Operation",
    "Origin",
    "Parameter",
    "PathItem",
    "Position",
    "Problem",
    "RefPolicy",
    "RequestBody",
    "Response",
    "Schema",
    "Server",
    "ServerVariable",
    "Severity",
    "SourceDocument",
    "Spec",
    "SpecError",
    "SpecVersion",
    "Tag",
    "load_spec",
]
