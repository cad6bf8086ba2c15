"""The wire format sits below the client and the mock: it may use the spec model, never the layers above."""

from __future__ import annotations

from pathlib import Path

from tests.test_architecture import PACKAGE, imported_modules


def foreign_imports(path: Path, allowed: tuple[str, ...]) -> list[str]:
    """The workbench modules `path` imports that are neither `allowed` nor below one of them."""
    mine = {m for m in imported_modules(path) if m == "workbench" or m.startswith("workbench.")}
    return sorted(m for m in mine if not any(m == a or m.startswith(a + ".") for a in allowed))


def test_wire_imports_only_the_spec_model_and_itself():
    files = sorted((PACKAGE / "wire").rglob("*.py"))
    assert len(files) >= 3
    offenders = {str(p.relative_to(PACKAGE)): foreign_imports(p, ("workbench.spec", "workbench.wire")) for p in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_layering_check_sees_an_import_from_above(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("from workbench.http.request import build_request\nimport workbench.spec.model\n"
                      "from workbench import wire\nfrom workbench.wireless import x\n")
    assert foreign_imports(sample, ("workbench.spec", "workbench.wire")) == ["workbench", "workbench.http.request",
                                                                            "workbench.wireless"]
