"""The core never imports Qt: only workbench/gui/ may."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
QT = ("PySide6", "PyQt5", "PyQt6", "PySide2", "shiboken6", "pytestqt", "qtpy")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            names.add(str(node.args[0].value))
    return names


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
