"""The desktop integration files agree with the application: one app id everywhere, the command that exists,
the icon that ships, the version that is released."""

from __future__ import annotations

import configparser
import re
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from workbench import __version__
from workbench.gui import APP_ID

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive in desktop entries
    parser.read(PACKAGING / f"{APP_ID}.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_desktop_entry_names_the_app_id_the_command_and_spec_file_types():
    entry = _desktop_entry()
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] in scripts and entry["TryExec"] in scripts
    assert entry["Icon"] == APP_ID and entry["StartupWMClass"] == APP_ID
    assert {"application/x-yaml", "application/yaml", "application/json"} <= set(entry["MimeType"].split(";"))
    assert entry["Terminal"] == "false" and entry["Categories"].endswith(";")


def test_the_metainfo_describes_the_same_app_and_the_current_version():
    root = ElementTree.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    assert root.find("provides/binary").text == _desktop_entry()["TryExec"]
    assert __version__ in [release.get("version") for release in root.iter("release")]


def test_the_icon_ships_under_the_app_id_and_the_frozen_build_uses_it():
    icon = ROOT / "resources" / "icons" / f"{APP_ID}.svg"
    assert ElementTree.parse(icon).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    spec = (PACKAGING / "workbench.spec").read_text(encoding="utf-8")
    compile(spec, "workbench.spec", "exec")
    assert f'APP_ID = "{APP_ID}"' in spec and '"resources"' in spec
    launcher = (PACKAGING / "launch.py").read_text(encoding="utf-8")
    # the same function as the installed console script (`[project.scripts]`), so both end alike
    script = re.search(r'^workbench = "workbench\.cli:(\w+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert script and f"from workbench.cli import {script.group(1)}" in launcher
