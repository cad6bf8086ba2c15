"""`--mock`: the embedded mock on 127.0.0.1, as the round trip starts it (under the spec's base path, with a
stand-in secret for every security scheme: the mock checks that credentials are there, not what they are)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.mock.app import MockApp
from workbench.mock.router import base_path
from workbench.mock.server import MockServer
from workbench.spec import Spec

STAND_IN = "mcp:stand-in"


@dataclass
class MockTarget:
    server: MockServer
    base_url: str
    credentials: dict[str, str]

    def stop(self) -> None:
        self.server.stop()


def start_mock(spec: Spec, seed: int = 0) -> MockTarget:
    server = MockServer(spec, app=MockApp(spec, seed)).start()
    credentials = dict.fromkeys(spec.components.security_schemes, STAND_IN)
    return MockTarget(server, server.url + base_path(spec), credentials)
