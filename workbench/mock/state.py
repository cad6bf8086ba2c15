"""`--stateful`: resources a POST on a collection creates are returned by GET on the item, changed by PUT and
PATCH, removed by DELETE (then 404) and listed by GET on the collection. The pairs are inferred from the
paths (`/orders` and `/orders/{orderId}`) and the id from the created object (the property named like the
path parameter, else `id`); operations outside such a pair stay stateless. State lives in memory, per
server, until `reset()` (or `POST /__mock/reset`)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.spec import Operation, Spec

_ITEM = re.compile(r"^(?P<collection>.*)/\{(?P<param>[^{}/]+)\}$")


@dataclass(frozen=True)
class Resource:
    """A collection path and its item path, as the mock keeps them."""

    collection: str  # "/orders"
    item: str  # "/orders/{orderId}"
    param: str  # "orderId"


def resources(spec: Spec) -> dict[str, Resource]:
    """Every (collection, item) pair the paths show, keyed by both paths; the collection must take a POST."""
    methods: dict[str, set[str]] = {}
    for op in spec.operations:
        methods.setdefault(op.path, set()).add(op.method)
    found: dict[str, Resource] = {}
    for path in methods:
        match = _ITEM.match(path)
        if match and "post" in methods.get(match["collection"] or "/", set()):
            resource = Resource(match["collection"] or "/", path, match["param"])
            found[resource.collection] = found[resource.item] = resource
    return found


def explain(spec: Spec) -> list[str]:
    """One line per operation: which resource it acts on in stateful mode, or that it stays stateless."""
    pairs = resources(spec)
    lines = []
    for op in spec.operations:
        resource = pairs.get(op.path)
        role = _role(op, resource)
        lines.append(f"{op.method.upper():7} {op.path}: " + (f"{role} ({resource.collection})" if role
                                                             else "stateless"))
    return lines


def _role(op: Operation, resource: Resource | None) -> str | None:
    if resource is None:
        return None
    if op.path == resource.collection:
        return {"post": "creates", "get": "lists"}.get(op.method)
    return {"get": "reads", "put": "replaces", "patch": "updates", "delete": "deletes"}.get(op.method)


class Store:
    """The resources created so far, per collection, in the order they were created."""

    def __init__(self, spec: Spec) -> None:
        self.pairs = resources(spec)
        self._items: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._items.clear()

    def role(self, op: Operation) -> str | None:
        return _role(op, self.pairs.get(op.path))

    def apply(self, op: Operation, path_values: dict[str, str], body: Any, generated: Any,
              another: Callable[[int], Any] = lambda _n: None) -> tuple[str, Any]:
        """(what happened, the object or list to answer with): "made", "found", "listed", "gone", "missing".
        `another(n)` is the n-th other object the operation's response could be (a fresh id comes from it)."""
        resource = self.pairs[op.path]
        role = _role(op, resource)
        with self._lock:
            items = self._items.setdefault(resource.collection, {})
            if role == "creates":
                made = {**(generated if isinstance(generated, dict) else {}),
                        **(body if isinstance(body, dict) else {})}
                items[self._new_id(made, resource, items, another)] = made
                return "made", made
            if role == "lists":
                return "listed", _listed(generated, list(items.values()))
            key = path_values.get(resource.param, "")
            if key not in items:
                return "missing", None
            if role == "deletes":
                del items[key]
                return "gone", None
            if role in ("replaces", "updates") and isinstance(body, dict):
                base = {} if role == "replaces" else items[key]
                items[key] = {**base, **body, **_id_fields(items[key], resource)}
            return "found", items[key]

    @staticmethod
    def _new_id(made: dict[str, Any], resource: Resource, items: dict[str, Any],
                another: Callable[[int], Any]) -> str:
        """The new resource's id (the property named like the path parameter, else `id`), unique among those
        stored: an example's fixed id would make every POST overwrite the last one, so a taken id is replaced
        by the id of another generated response (valid for the schema), else by a counter."""
        name = next((n for n in (resource.param, "id") if isinstance(made.get(n), (str, int))), "id")
        value = made.get(name, 1)
        for attempt in range(1, 64):
            if str(value) not in items:
                break
            other = another(attempt)
            value = other.get(name) if isinstance(other, dict) and other.get(name) is not None else None
            if value is None:
                value = len(items) + attempt if isinstance(made.get(name), int) else f"{made.get(name)}-{attempt}"
        made[name] = value
        return str(value)


def _id_fields(item: dict[str, Any], resource: Resource) -> dict[str, Any]:
    return {k: item[k] for k in (resource.param, "id") if k in item}


def _listed(generated: Any, items: list[Any]) -> Any:
    """The collection's answer with the stored items in it: the list itself, or an object's one list field."""
    if isinstance(generated, list) or generated is None:
        return items
    if isinstance(generated, dict):
        lists = [k for k, v in generated.items() if isinstance(v, list)]
        if len(lists) == 1:
            return {**generated, lists[0]: items}
    return items


def json_body(data: bytes | None) -> Any:
    try:
        return json.loads(data) if data else None
    except (ValueError, UnicodeDecodeError):
        return None
