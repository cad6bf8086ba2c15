"""The layer order holds: a package imports only packages in layers below its own, and only workbench/gui/
imports Qt."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
QT = ("PySide6", "PyQt5", "PyQt6", "PySide2", "shiboken6", "pytestqt", "qtpy")


def imported_modules(path: Path, package: str | None = None) -> set[str]:
    """Every module `path` imports; relative imports are resolved against `package` (the file's own)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join((package or "").split(".")[:len((package or "").split(".")) - node.level + 1])
            names.add(f"{base}.{node.module}" if node.module else base)
            names.update(f"{base}.{alias.name}" for alias in node.names if not node.module)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)  # and `from workbench import gui` names the package it brings in:
            names.update(f"{node.module}.{alias.name}" for alias in node.names if node.module == "workbench")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            names.add(str(node.args[0].value))
    return names


# Bottom to top. A package may import the packages of the layers below it, never a peer or anything above.
LAYERS: list[tuple[str, ...]] = [
    ("workbench",),  # the version
    ("spec",),  # documents with positions → one model
    ("naming", "config", "policy", "wire", "examples", "dealing"),  # the small shared pieces
    ("lint", "tools", "summary"),
    ("edit",),  # lint fixes become splices
    ("http", "mock"),  # the executor (client) and the mock server never import each other
    ("roundtrip", "selection", "drift", "mcp"),
    ("workspace",),  # Qt-free: the open spec and its edit session
    ("gui",),
    ("cli",),
    ("__main__",),
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def unit_of(module: str) -> str | None:
    """`workbench.tools.vendors.mcp` → "tools"; the package itself → "workbench"; outside → None."""
    parts = module.split(".")
    if parts[0] != "workbench":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYER_OF else "workbench"


def layer_violations(package: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package.parent).with_suffix("")
        module = ".".join(relative.parts)
        own_package = module.removesuffix(".__init__") if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        me = unit_of(module)
        bad = sorted({m for m in imported_modules(path, own_package) if (u := unit_of(m)) not in (None, me)
                      and LAYER_OF[u] >= LAYER_OF[me]})
        if bad:
            found[str(path.relative_to(package))] = bad
    return found


def test_every_package_has_a_layer():
    on_disk = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()}
    assert on_disk - set(LAYER_OF) == set()


def test_architecture_md_names_every_package():
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    on_disk = [f"{p.name}/" if p.is_dir() else p.name for p in PACKAGE.iterdir()
               if (p / "__init__.py").is_file() or (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))]
    assert [name for name in on_disk if f"`{name}" not in text] == []


def test_packages_import_only_lower_layers():
    assert layer_violations(PACKAGE) == {}


def test_the_layer_check_sees_an_upward_and_a_sideways_import(tmp_path):
    package = tmp_path / "workbench"
    (package / "spec").mkdir(parents=True)
    (package / "tools").mkdir()
    (package / "spec" / "model.py").write_text("from workbench.lint import lint\n")
    (package / "tools" / "convert.py").write_text("import workbench.lint.rules\nfrom workbench.spec import Spec\n")
    (package / "spec" / "refs.py").write_text("from workbench import gui, __version__\n")
    (package / "tools" / "scope.py").write_text("from ..lint import rules\nfrom . import convert\n")
    (package / "tools" / "names.py").write_text("from .. import http\n")
    assert layer_violations(package) == {"spec/model.py": ["workbench.lint"], "spec/refs.py": ["workbench.gui"],
                                         "tools/convert.py": ["workbench.lint.rules"],
                                         "tools/names.py": ["workbench.http"], "tools/scope.py": ["workbench.lint"]}


def test_core_modules_do_not_import_qt():
    core = [p for p in PACKAGE.rglob("*.py") if "gui" not in p.relative_to(PACKAGE).parts]
    assert len(core) > 5
    offenders = {str(p.relative_to(PACKAGE)): sorted(m for m in imported_modules(p) if m.split(".")[0] in QT)
                 for p in core}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_itself_sees_a_qt_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import importlib\nfrom PySide6.QtWidgets import QWidget\nimportlib.import_module('PyQt6')\n")
    assert {"PySide6.QtWidgets", "PyQt6"} <= imported_modules(sample)


def test_every_package_is_listed_for_installation():
    import tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in PACKAGE.rglob("__init__.py")}
    assert on_disk | {"workbench.resources"} == listed


SHARED_TEST_HELPERS = {"tests.catalogue", "tests.servers"}  # the fixture specs and the recording server


def test_test_modules_share_helpers_only_through_the_catalogue():
    tests = PACKAGE.parent / "tests"
    found = {str(p.relative_to(tests)): sorted(m for m in imported_modules(p)
                                               if m.startswith("tests.") and m not in SHARED_TEST_HELPERS)
             for p in tests.rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {}
