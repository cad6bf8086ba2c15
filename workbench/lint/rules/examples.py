"""Examples: they anchor argument formats; a wrong one teaches the model a wrong call."""

from __future__ import annotations

import json
from contextlib import suppress
from pathlib import Path

from workbench import cache_folder, write_cache
from workbench.lint.registry import Report, rule
from workbench.lint.schemas import schema_sites, schema_types
from workbench.spec.pointer import join, lookup


def _has_example(node: object) -> bool:
    return isinstance(node, dict) and any(k in node for k in ("example", "examples", "x-example"))


@rule("examples-missing", "hint", "parameters", "object/array parameters and request bodies have an example",
      fix="Add an `example` (or `examples`) to the object or array parameter or request body, with realistic "
          "values that validate against its schema.")
def examples_missing(spec, context):
    for op in spec.operations:
        body = op.request_body
        if body is not None:
            raw = lookup(body.origin.document.data, body.origin.pointer)
            media = [m for m in (raw.get("content") or {}).values() if isinstance(m, dict)] if isinstance(
                raw, dict) else []
            schemas = [spec.deref(m.get("schema"), body.origin.document, "")[0] for m in media]
            if isinstance(raw, dict) and raw.get("in") == "body":  # Swagger 2.0
                schemas = [spec.deref(raw.get("schema"), body.origin.document, "")[0]]
            shaped = any(isinstance(s, dict) and (schema_types(s) & {"object", "array"} or "properties" in s)
                         for s in schemas)
            if shaped and not any(_has_example(m) for m in media) and not any(_has_example(s) for s in schemas):
                yield Report(f"{op.label()}: the request body has no example: examples anchor argument formats",
                             body.origin.document, body.origin.pointer)
    for site in schema_sites(spec):
        if site.role == "parameter" and site.depth == 0 and not site.composition and schema_types(site.schema) & {
                "object", "array"}:
            param_at = site.pointer[: -len("/schema")] if site.pointer.endswith("/schema") else site.pointer
            param = lookup(site.document.data, param_at, None)
            if not _has_example(site.schema) and not _has_example(param):
                kinds = "/".join(sorted(schema_types(site.schema)))
                yield Report(f"{site.name!r} takes an {kinds} but gives no example", site.document, site.pointer)


# -- example-invalid (opt-in: it is what makes other linters slow) --------------------------------------

def _cache_path() -> Path:
    return cache_folder("example-validation.json")


class _VerdictCache:
    """Verdicts keyed by a hash of (schema, example): re-linting an edited spec revalidates only what
    changed. Kept in memory and in the user's cache folder."""

    def __init__(self) -> None:
        self.path = _cache_path()
        try:
            self.verdicts: dict[str, str] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.verdicts = {}
        self.dirty = False

    def key(self, schema: object, example: object, refs: dict) -> str:
        import hashlib  # only for this opt-in rule: OpenSSL's start-up is not every lint's

        blob = json.dumps([schema, example, refs], sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def save(self) -> None:
        if not self.dirty:
            return
        with suppress(OSError):  # a cache that cannot be written only costs time
            write_cache(self.path, json.dumps(self.verdicts).encode("utf-8"))


def _validator(spec, schema):
    import jsonschema
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    root = {"components": {"schemas": spec.components.schemas}, "$defs": {"target": schema}}
    for ref, target in spec.ref_targets.items():
        if not ref.startswith("#"):
            root.setdefault("$defs", {})[ref] = target
    registry = Registry().with_resource("urn:spec", Resource.from_contents(root, default_specification=DRAFT202012))
    return jsonschema.Draft202012Validator({"$ref": "urn:spec#/$defs/target"}, registry=registry)


@rule("example-invalid", "off", "parameters", "examples validate against their own schema (opt-in: expensive)",
      fix="Correct the `example` so it validates against its own schema, or correct the schema if the example "
          "shows what the API really takes.")
def example_invalid(spec, context):
    cache = _VerdictCache()
    refs_fingerprint = {"n": len(spec.components.schemas)}
    for op in spec.operations:
        body = op.request_body
        places = []
        if body is not None:
            for media, content in body.content.items():
                if content.schema is None:
                    continue
                at = join(body.origin.pointer, "content", media)
                if content.example is not None:
                    places.append((content.schema, content.example, join(at, "example")))
                for name, example in content.examples.items():
                    if isinstance(example, dict) and "value" in example:
                        places.append((content.schema, example["value"], join(at, "examples", name, "value")))
        for schema, example, pointer in places:
            key = cache.key(schema, example, refs_fingerprint)
            verdict = cache.verdicts.get(key)
            if verdict is None:
                error = next(iter(_validator(spec, schema).iter_errors(example)), None)
                verdict = "" if error is None else f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: " \
                                                   f"{error.message}"
                cache.verdicts[key] = verdict
                cache.dirty = True
            if verdict:
                yield Report(f"{op.label()}: the example does not match its schema — {verdict[:300]}",
                             body.origin.document, pointer)
    cache.save()
