"""`workbench diff` as a user runs it: exit codes, the four formats, and versions read from git revisions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.drift import sources

BASE = (Path(__file__).parent / "shop.yaml").read_text(encoding="utf-8")  # as test_diff.py
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}
NARROWED = BASE.replace("enum: [red, green, blue]", "enum: [red, green]")
WIDENED = BASE.replace("enum: [red, green, blue]", "enum: [red, green, blue, black]")


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def workbench(capsys, monkeypatch):
    """The command in this process (as `main` runs it for the console script), from a folder of the test's."""

    def run(*args: str, cwd: Path | None = None) -> Ran:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return Ran(code, out.out, out.err)

    return run


def git(repo: Path, *args: str) -> None:
    import os

    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=30, env={**os.environ, **GIT_ENV})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two commits of api/shop.yaml (the second narrows an enum) and the file edited since."""
    folder = tmp_path / "repo"
    (folder / "api").mkdir(parents=True)
    git(folder, "init", "-q")
    (folder / "api" / "shop.yaml").write_text(BASE)
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "one")
    (folder / "api" / "shop.yaml").write_text(NARROWED)
    git(folder, "commit", "-qam", "two")
    (folder / "api" / "shop.yaml").write_text(WIDENED)
    return folder


def test_exit_1_and_the_text_report_when_something_breaks(write, workbench):
    old, new = write("old.yaml", BASE), write("new.yaml", NARROWED)
    result = workbench("diff", str(old), str(new))
    assert result.returncode == 1, result.stderr
    assert "BREAKING enum-narrowed" in result.stdout and "createOrder.colour" in result.stdout
    assert result.stdout.splitlines()[-1].endswith("1 breaking change, 0 other")


def test_exit_0_when_nothing_breaks_and_json_lists_the_change(write, workbench):
    old, new = write("old.yaml", BASE), write("new.yaml", WIDENED)
    result = workbench("diff", str(old), str(new), "--format", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["breaking"] == 0
    assert [(c["kind"], c["tool"], c["argument"], c["breaking"]) for c in report["changes"]] == [
        ("enum-widened", "createOrder", "colour", False)]
    assert report["changes"][0]["new"]["line"] > 0


def test_markdown_is_a_pull_request_comment(write, workbench):
    old = write("old.yaml", BASE)
    new = write("new.yaml", NARROWED.replace("A note for the courier.", "Delivery instructions."))
    result = workbench("diff", str(old), str(new), "--format", "markdown")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("**Tool drift**") and "1 breaking change" in lines[0]
    assert "| enum-narrowed | `createOrder` | `colour` |" in result.stdout
    folded = result.stdout[result.stdout.index("<details>"):]
    assert "description-changed" in folded and folded.rstrip().endswith("</details>")


def test_sarif_locates_every_result_in_the_new_file(write, workbench):
    old, new = write("old.yaml", BASE), write("new.yaml", NARROWED)
    result = workbench("diff", str(old), str(new), "--format", "sarif")
    log = json.loads(result.stdout)
    [run] = log["runs"]
    [item] = run["results"]
    assert (item["ruleId"], item["level"]) == ("enum-narrowed", "error")
    assert run["tool"]["driver"]["rules"][item["ruleIndex"]]["id"] == "enum-narrowed"
    location = item["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == str(new) and location["region"]["startLine"] > 1


def test_unusable_input_is_exit_2_in_one_line_from_the_real_command(write, tmp_path):
    old = write("old.yaml", BASE)
    result = subprocess.run([sys.executable, "-m", "workbench", "diff", str(old), str(tmp_path / "missing.yaml")],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr and "missing.yaml" in result.stderr


def test_two_revisions_and_a_revision_against_the_working_file(repo, workbench):
    result = workbench("diff", "git:HEAD~1:shop.yaml", "git:HEAD:shop.yaml", "--format", "json", cwd=repo / "api")
    assert result.returncode == 1, result.stderr
    [change] = json.loads(result.stdout)["changes"]
    assert change["kind"] == "enum-narrowed" and change["new"]["file"] == "git:HEAD:api/shop.yaml"
    assert change["old"]["file"] == "git:HEAD~1:api/shop.yaml"
    result = workbench("diff", "git:HEAD:api/shop.yaml", "api/shop.yaml", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "enum-widened" in result.stdout


def test_a_bad_revision_or_path_is_one_line(repo, workbench):
    for given, expected in (("git:nope:shop.yaml", "no revision 'nope'"), ("git:HEAD:gone.yaml", "gone.yaml"),
                            ("git:HEAD", "git:REV:PATH")):
        result = workbench("diff", given, "shop.yaml", cwd=repo / "api")
        assert result.returncode == 2, given
        assert len(result.stderr.strip().splitlines()) == 1 and expected in result.stderr, result.stderr


def test_a_file_outside_any_repository_is_one_line(tmp_path):
    (tmp_path / "api.yaml").write_text(BASE)
    with pytest.raises(sources.SpecError, match="not a git repository"):
        sources.load(f"git:HEAD:{tmp_path / 'api.yaml'}")


def test_referenced_files_are_read_from_the_same_revision(tmp_path, workbench):
    folder = tmp_path / "split"
    (folder / "schemas").mkdir(parents=True)
    git(folder, "init", "-q")
    root = BASE.replace("                colour: {type: string, enum: [red, green, blue], default: red}\n",
                        "                colour: {$ref: 'schemas/colour.yaml'}\n")
    (folder / "api.yaml").write_text(root)
    (folder / "schemas" / "colour.yaml").write_text("type: string\nenum: [red, green, blue]\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "one")
    (folder / "schemas" / "colour.yaml").write_text("type: string\nenum: [red]\n")
    git(folder, "commit", "-qam", "two")
    (folder / "schemas" / "colour.yaml").write_text("type: string\nenum: [blue]\n")  # the working tree: not read
    old = sources.load(f"git:HEAD~1:{folder / 'api.yaml'}")
    new = sources.load(f"git:HEAD:{folder / 'api.yaml'}")
    assert sorted(old.documents) == ["git:HEAD~1:api.yaml", "git:HEAD~1:schemas/colour.yaml"]
    enum = next(d.data for name, d in new.documents.items() if name.endswith("colour.yaml"))["enum"]
    assert enum == ["red"]
    result = workbench("diff", "git:HEAD~1:api.yaml", "git:HEAD:api.yaml", "--format", "json", cwd=folder)
    [change] = json.loads(result.stdout)["changes"]
    assert (change["kind"], change["new"]["file"]) == ("enum-narrowed", "git:HEAD:schemas/colour.yaml")
