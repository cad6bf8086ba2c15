"""The fixture specs the test modules share, and where the corpus lives. Test modules take shared specs and
builders from here — never from another test module or from a conftest (which keeps only fixtures)."""

from __future__ import annotations

import difflib
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

from workbench.config import LintConfig
from workbench.lint import Severity, lint
from workbench.lint.engine import with_hints
from workbench.spec import load_spec

REPO = Path(__file__).resolve().parents[1]


def corpus_dir() -> Path:
    """The shared corpus, read in place (never copied into the repository)."""
    return Path(os.environ.get("WORKBENCH_CORPUS", REPO.parent / "shared" / "corpus"))


def corpus_names() -> list[str]:
    """Every API description of the corpus by name (its JSON and YAML files; not its MANIFEST.md, nor a folder a
    tool may have left there)."""
    return sorted(p.name for p in corpus_dir().iterdir() if p.is_file() and p.suffix in (".json", ".yaml"))


# The corpus files tests name (see the corpus's MANIFEST.md for the rest).
TRAVEL = "readme-v3.1-train-travel.yaml"  # 3.1, small, tags and webhooks: the window's everyday spec
GITHUB = "github-api.github.com-2022-07-18.json"  # 3.9 MB JSON, 874 operations: the large-file case
OPENAI = "openai-openapi.yaml"  # 2.8 MB YAML
KUBERNETES = "kubernetes-swagger.json"  # 3.9 MB Swagger 2.0


def corpus_file(name: str) -> Path:
    return corpus_dir() / name


def changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """(removed, added) lines of the diff from old to new: what a zero-noise save may change, exactly."""
    removed, added = [], []
    for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), n=0):
        if line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    return removed, added


# -- a well-described API head, for specs built operation by operation ---------------------------------------

HEAD = """openapi: 3.1.0
info: {title: t, version: '1'}
servers: [{url: 'https://api.example.com'}]
components:
  securitySchemes: {bearer: {type: http, scheme: bearer}}
security: [{bearer: []}]
"""

# An operation that no lint rule faults (given its own operationId).
GOOD_OP = """      operationId: {op_id}
      tags: [things]
      summary: Find things that match the query and return them
      description: Use this to look up things; returns a page of things.
      responses:
        '200': {{description: ok, content: {{application/json: {{schema: {{type: object}}}}}}}}
        '404': {{description: not found, content: {{application/problem+json: {{schema: {{type: object}}}}}}}}
"""

# The operations built from GOOD_OP share one description, so they are near-duplicates of each other by
# design: lint tests of other rules leave that rule out (it has its own tests).
ISOLATED = {"near-duplicate-operations": Severity.OFF}


def op(path: str, method: str = "get", op_id: str = "findThings", extra: str = "") -> str:
    """A path item holding one good operation, plus `extra` lines under the operation."""
    return f"  {path}:\n    {method}:\n" + GOOD_OP.format(op_id=op_id) + extra


def body(properties: str, required: str = "") -> str:
    """Lines of an operation's JSON request body (with an example) holding these property lines."""
    required_line = f"              required: [{required}]\n" if required else ""
    return ("      requestBody:\n        required: true\n        content:\n          application/json:\n"
            "            example: {}\n            schema:\n              type: object\n" + required_line +
            "              properties:\n" + properties)


def rules_at(found: list[tuple[str, str]], rule: str) -> list[str]:
    """The pointers of `rule`'s findings among `findings(...)`'s (rule, pointer) pairs."""
    return [pointer for r, pointer in found if r == rule]


def findings(write, paths: str, **thresholds) -> list[tuple[str, str]]:
    """(rule, pointer) of every finding on HEAD + `paths`, with near-duplicates off, hint rules on and these
    thresholds."""
    spec = load_spec(write("s.yaml", HEAD + "paths:\n" + paths))
    config = with_hints(LintConfig(severities=ISOLATED, thresholds={**LintConfig().thresholds, **thresholds}))
    return [(f.rule, f.pointer) for f in lint(spec, config).findings]


# -- one list endpoint with a query parameter --------------------------------------------------------------

CUSTOMERS = """openapi: 3.1.0
info: {title: t, version: '1'}
servers: [{url: 'https://api.example.invalid'}]
paths:
  /customers:
    get:
      operationId: listCustomers
      description: Lists the customers, newest first, a page at a time.
      parameters:
        - {name: limit, in: query, schema: {type: integer, maximum: 100}, description: How many to return at most.}
      responses: {'200': {description: ok}}
"""


def judged_document(path: Path) -> dict:
    """The document the round-trip judge reads for a corpus file (bench/peers.py: as written for OpenAPI 3.x,
    converted by swagger2openapi, installed into bench/.peers on first use, for Swagger 2.0)."""
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    import peers

    return peers.judged_document(path)


def run_until_killed(script: str, args: list[str], said: str) -> None:
    """Run `script` in a Python of its own until it prints the line `said` (at most 2 minutes), then kill it
    (SIGKILL: no close handler, no save prompt, nothing flushed on the way out)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, env=environment, text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 120)
        assert ready and process.stdout.readline().strip() == said
    finally:
        process.kill()
        process.wait(30)
    assert process.returncode == -signal.SIGKILL


# A spec in two files: the root, and a shared schema it refers to (the edit session's tests).
PETS_ROOT = """\
openapi: 3.1.0
info: {title: Pets, version: '1'}
paths:
  /pets:
    post:
      operationId: createPet
      summary: Register a pet
      requestBody:
        content:
          application/json:
            schema: {$ref: 'schemas/pet.yaml#/Pet'}
      responses:
        '201': {description: The pet as stored.}
"""

PET = """\
# Pets, shared by every operation that takes or returns one.
Pet:
  type: object
  properties:
    name:
      type: string
"""
PET_NAME = "schemas/pet.yaml"


# -- the mock's small spec: routes, a base path, credentials, a declared 422 and 400 (tests/mock/) ------------

MOCK_PETS = """openapi: 3.1.0
info: {title: Pets, version: '1'}
servers: [{url: 'https://pets.example.invalid/v1'}]
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties: {id: {type: integer}, name: {type: string, minLength: 1}}
paths:
  /pets:
    get:
      operationId: listPets
      parameters: [{name: limit, in: query, schema: {type: integer, maximum: 100}}]
      responses:
        '200':
          description: the pets
          content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Pet'}},
                                        example: [{id: 1, name: Rex}]}}
        '422': {description: invalid}
    post:
      operationId: addPet
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
      responses:
        '201': {description: added, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
        '400': {description: invalid}
  /pets/mine:
    get:
      operationId: myPets
      responses: {'200': {description: mine, content: {application/json: {example: {mine: true}}}}}
  /pets/{petId}:
    get:
      operationId: getPet
      parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]
      responses:
        '200': {description: the pet, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
        '404': {description: no such pet, content: {application/json: {example: {message: no such pet}}}}
    delete:
      operationId: deletePet
      security: [{key: []}]
      parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]
      responses: {'204': {description: gone}}
"""


def child_processes(pid: int) -> set[int]:
    """The processes whose parent is `pid` now (Linux: read from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended between the listing and the read
            continue
        if int(stat.rpartition(")")[2].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def running(pid: int) -> bool:
    """The process exists and has not ended (a zombie waiting for its reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"
