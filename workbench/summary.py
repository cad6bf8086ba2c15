"""`workbench info`: the headline facts of a loaded spec, as one result object with two renderings."""

from __future__ import annotations

import json
from typing import NamedTuple

from workbench.spec import Spec, SpecVersion

_VERSION_NAMES = {SpecVersion.SWAGGER_2_0: "Swagger", SpecVersion.OPENAPI_3_0: "OpenAPI",
                  SpecVersion.OPENAPI_3_1: "OpenAPI", SpecVersion.OPENAPI_3_2: "OpenAPI"}


class Summary(NamedTuple):
    file: str
    family: str
    spec_version: str
    title: str
    operations: int
    webhooks: int
    paths: int
    tags: list[str]
    servers: list[str]

    def to_json(self) -> str:
        """The documented JSON form: exactly these keys."""
        return json.dumps({"spec_version": self.spec_version, "operations": self.operations,
                           "webhooks": self.webhooks, "paths": self.paths, "tags": self.tags,
                           "servers": self.servers}, indent=2, ensure_ascii=False)

    def to_text(self) -> str:
        rows = [
            ("spec", self.file),
            ("title", self.title or "(none)"),
            ("version", f"{self.family} {self.spec_version}"),
            ("operations", f"{self.operations} in {self.paths} paths"),
            ("webhooks", str(self.webhooks)),
            ("tags", ", ".join(self.tags) if self.tags else "(none)"),
            ("servers", ", ".join(self.servers) if self.servers else "(none)"),
        ]
        return "\n".join(f"{label + ':':<12}{value}" for label, value in rows)


def summarize(spec: Spec) -> Summary:
    return Summary(
        file=spec.root.name,
        family=_VERSION_NAMES[spec.version],
        spec_version=spec.spec_version,
        title=str(spec.info.get("title") or ""),
        operations=len(spec.operations),
        webhooks=len(spec.webhook_operations),
        paths=len(spec.paths),
        tags=spec.tag_names(),
        servers=[server.url for server in spec.servers],
    )
