"""`workbench fix`: a diff by default, atomic writes with --apply, JSON listing, rule filters, renames
that follow links."""

from __future__ import annotations

import json
import subprocess
import sys

from workbench.examples import CLEAN_EXAMPLE_SPEC, example_path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", "fix", *args], capture_output=True, text=True,
                          timeout=60, check=False)


def test_diff_by_default_leaves_the_file_untouched(write):
    original = example_path().read_bytes()
    spec = write("api/shop.yaml", original)
    result = run(str(spec))
    assert result.returncode == 1
    assert spec.read_bytes() == original
    assert result.stdout.startswith(f"--- a/{str(spec).lstrip('/')}\n+++ b/{str(spec).lstrip('/')}\n@@ ")
    added = [line for line in result.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in result.stdout.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert added == [
        "+      operationId: getCustomersLoyaltyByCustomerId",
        "+          schema: { type: string, enum: [pending, paid, shipped, delivered, cancelled] }",
        "+      operationId: orders_create"]  # no placeholder description: only the author can write one
    assert removed == ["-          schema: { type: string }", "-      operationId: orders.create"]


def test_apply_writes_atomically_and_then_there_is_nothing_left(write, tmp_path):
    spec = write("api/shop.yaml", example_path().read_bytes())
    result = run(str(spec), "--apply")
    assert result.returncode == 0, result.stderr
    assert "3 edit(s) written" in result.stderr
    assert sorted(p.name for p in spec.parent.iterdir()) == ["shop.yaml"]  # no temporary left behind
    again = run(str(spec))
    assert (again.returncode, again.stdout) == (0, "")
    lint = subprocess.run([sys.executable, "-m", "workbench", "lint", str(spec)], capture_output=True, text=True,
                          timeout=60, check=False)
    for rule in ("operation-id-missing", "operation-id-tool-name-invalid", "enum-in-prose"):
        assert f" {rule} " not in lint.stdout
    assert " operation-description-missing " in lint.stdout  # left for the author: no fix writes it


def test_clean_spec_has_nothing_to_fix():
    result = run(str(example_path(CLEAN_EXAMPLE_SPEC)))
    assert (result.returncode, result.stdout) == (0, "")


def test_json_listing_and_rule_filter(write):
    spec = write("shop.yaml", example_path().read_bytes())
    result = run(str(spec), "--format", "json", "--rule", "enum-in-prose")
    assert result.returncode == 1  # like the diff: something to fix
    assert json.loads(result.stdout) == [{
        "rule": "enum-in-prose", "file": str(spec), "pointer": "/paths/~1orders/get/parameters/2/schema/enum",
        "old": None, "new": ["pending", "paid", "shipped", "delivered", "cancelled"], "applied": True}]


def test_unknown_rule_is_exit_2(write):
    result = run(str(write("s.yaml", example_path().read_bytes())), "--rule", "no-such-rule")
    assert result.returncode == 2 and "unknown rule(s): no-such-rule" in result.stderr


def test_rename_updates_links_and_keeps_json(write):
    spec = write("api.json", json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {
            "/users/{id}": {"get": {"operationId": "users.get", "summary": "Get one user by id",
                                    "parameters": [{"name": "id", "in": "path", "required": True,
                                                    "schema": {"type": "string"}}],
                                    "responses": {"200": {"description": "ok"}}}},
            "/users": {"post": {"operationId": "createUser", "summary": "Create a user",
                                "responses": {"201": {"description": "created", "links": {
                                    "GetUser": {"operationId": "users.get", "parameters": {"id": "$response.body#/id"}}
                                }}}}}},
    }, indent=2) + "\n")
    result = run(str(spec), "--apply")
    assert result.returncode == 0, result.stderr
    data = json.loads(spec.read_text())
    assert data["paths"]["/users/{id}"]["get"]["operationId"] == "users_get"
    assert data["paths"]["/users"]["post"]["responses"]["201"]["links"]["GetUser"]["operationId"] == "users_get"
    assert spec.read_text().startswith('{\n  "openapi": "3.0.3",\n')
