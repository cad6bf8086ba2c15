"""Schemathesis as an independent client of the mock: it generates and serialises its own requests from the
spec (none of our code writes them), positive and negative, and checks that valid data is accepted, invalid
data refused and nothing answers 5xx. Each run is bounded (a few examples per operation, a time budget).

What it would also flag, by design of the mock, is left out of the checks: an invalid request to an operation
that declares no 400/422/default gets the mock's generated 422 (status_code_conformance calls it
undocumented), and the mock's own refusals are application/problem+json whatever media type the spec
declares for that status (content_type_conformance), so that they always say what to fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.catalogue import corpus_file
from workbench.examples import example_path
from workbench.mock.server import MockServer
from workbench.spec import load_spec

CHECKS = "not_a_server_error,positive_data_acceptance,negative_data_rejection"
RUN_SECONDS = 15  # schemathesis's own budget for one spec; the process is stopped at four times that


def schemathesis(spec_path: Path, url: str, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    """Run it in `folder` (it keeps a `.schemathesis/` folder where it runs: never beside the spec)."""
    command = [sys.executable, "-c", "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())",
               "run", str(spec_path), "--url", url, "--checks", CHECKS, "--max-examples", "5",
               "--max-time", str(RUN_SECONDS), "--phases", "examples,coverage,fuzzing", "--workers", "1",
               "--seed", "1", "--generation-database", "none", "--request-timeout", "5", "--no-color", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=RUN_SECONDS * 4, cwd=folder)


@pytest.mark.parametrize("spec_path, base_path, auth", [
    pytest.param(example_path(), "/v2", ("-H", "Authorization: Bearer token"), id="bundled example"),
    # 3.1, an XML request body, OAuth2: Schemathesis found the mock reading XML bodies as text here
    pytest.param(corpus_file("readme-v3.1-train-travel.yaml"), "", ("-H", "Authorization: Bearer token"),
                 id="train travel"),
    # two more under `make test-corpus`: a base path and HTTP Basic; form bodies and Twilio's own styles
    pytest.param(corpus_file("redocly-museum.yaml"), "/_mock/docs/openapi/museum-api",
                 ("-H", "Authorization: Basic dXNlcjpwYXNz"), id="museum", marks=pytest.mark.corpus_sweep),
    pytest.param(corpus_file("twilio-lookups-v2.json"), "", ("-H", "Authorization: Basic dXNlcjpwYXNz"),
                 id="twilio lookups", marks=pytest.mark.corpus_sweep),
])
def test_schemathesis_finds_valid_data_accepted_invalid_refused_and_no_5xx(spec_path, base_path, auth, tmp_path):
    with MockServer(load_spec(spec_path)) as server:
        run = schemathesis(spec_path, server.url + base_path, tmp_path, *auth)
        log = server.app.log()
    tail = run.stdout[-4000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    assert len(log) > 50 and {e.status // 100 for e in log} <= {2, 3, 4}, tail  # it did ask; never a 5xx
    assert {e.status // 100 for e in log} >= {2, 4}  # valid requests answered, invalid ones refused
