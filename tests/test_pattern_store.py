"""`workbench.PatternStore`: a constant pattern made from what an earlier run compiled is the one `re` makes."""

import importlib
import json
import marshal
import os
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import workbench
from tests.catalogue import corpus_dir
from workbench import patterns as pattern_store
from workbench.examples import example_path
from workbench.spec import load_spec


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty store of the test's own; this process's patterns forgotten before and after."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    pattern_store.forget()
    yield tmp_path
    pattern_store.forget()


def _store_file(cache: Path) -> Path:
    [path] = (cache / "agent-spec-workbench").glob("patterns-*.marshal")
    return path


def _constants() -> list[tuple[str, int]]:
    """Every constant pattern of the package (its `lazy_pattern`s, in module globals and the tables holding them)."""

    def found(value):
        if isinstance(value, workbench._LaterPattern):
            yield value._source
        elif isinstance(value, tuple | list):
            for item in value:
                yield from found(item)

    sources = {}
    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if info.name.startswith("workbench.gui") or info.name == "workbench.__main__":
            continue
        for value in vars(importlib.import_module(info.name)).values():
            for text, flags in found(value):
                sources[(text, int(flags))] = None
    return list(sources)


def _texts() -> list[str]:
    """The strings of the bundled example and of a real spec with long prose: what the patterns are made to read."""
    texts: list[str] = []

    def strings(node):
        if isinstance(node, str):
            texts.append(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                texts.append(key)
                strings(value)
        elif isinstance(node, list):
            for value in node:
                strings(value)

    for path in (example_path(), corpus_dir() / "twilio-verify-v2.yaml"):
        strings(load_spec(path).root.data)
    return list(dict.fromkeys(texts))


def test_every_constant_pattern_made_from_the_store_is_the_one_re_makes(store):
    constants = _constants()
    assert len(constants) > 50
    for text, flags in constants:  # the first run: compiled, and kept
        pattern_store.compiled(text, flags)
    pattern_store.save()
    kept = marshal.loads(_store_file(store).read_bytes())
    assert set(kept) == set(constants)
    pattern_store.forget()  # a later run: every pattern from the store
    texts = _texts()
    for text, flags in constants:
        made, expected = pattern_store.compiled(text, flags), re.compile(text, flags)
        assert made == expected  # (a pattern compares its flags and its compiled code)
        assert (made.pattern, made.flags, made.groups, made.groupindex) == \
            (expected.pattern, expected.flags, expected.groups, expected.groupindex)
        for subject in texts:
            assert [m.span() for m in made.finditer(subject)] == [m.span() for m in expected.finditer(subject)], \
                (text, subject)
    assert not pattern_store._new  # all read from the store: nothing to add


def test_an_opcode_list_re_rejects_is_compiled_as_usual(store):
    pattern_store.compiled(r"(?P<word>[a-z]+)\d", 0)
    pattern_store.save()
    path = _store_file(store)
    kept = marshal.loads(path.read_bytes())
    kept[(r"(?P<word>[a-z]+)\d", 0)] = (0, [255, 1, 2], 0, {}, (None,))  # not a program `_sre` runs
    path.write_bytes(marshal.dumps(kept))
    pattern_store.forget()
    made = pattern_store.compiled(r"(?P<word>[a-z]+)\d", 0)
    assert made.search("ab1").group("word") == "ab"
    pattern_store.save()  # the list compiled afresh takes the rejected one's place
    assert marshal.loads(path.read_bytes())[(r"(?P<word>[a-z]+)\d", 0)][1] != [255, 1, 2]


@pytest.mark.parametrize("content", [b"", b"not marshal data", marshal.dumps(["a list"]), marshal.dumps({1: 2})])
def test_a_store_that_cannot_be_read_is_replaced(store, content):
    path = store / "agent-spec-workbench" / pattern_store.path().name
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert pattern_store.compiled(r"a+b", re.I).fullmatch("AAb")
    pattern_store.save()
    assert (r"a+b", int(re.I)) in marshal.loads(path.read_bytes())


def test_internals_that_changed_mean_re_as_usual_and_nothing_kept(store, monkeypatch):
    def changed(text, flags):
        raise AttributeError("'State' object has no attribute 'groupdict'")

    monkeypatch.setattr(pattern_store, "_opcodes", changed)
    assert pattern_store.compiled(r"x(y)", 0).search("axy").group(1) == "y"
    assert not pattern_store._new
    pattern_store.save()
    assert not (store / "agent-spec-workbench").exists()


def test_a_pattern_that_is_no_pattern_fails_as_re_compile_does(store):
    with pytest.raises(re.error):
        pattern_store.compiled(r"a(", 0)
    assert not pattern_store._new


def test_a_save_keeps_what_another_process_wrote_meanwhile(store):
    pattern_store.compiled(r"first\d", 0)
    other = subprocess.run([sys.executable, "-c", "from workbench import patterns as pattern_store\n"
                            "pattern_store.compiled(r'second\\d', 0); pattern_store.save()"],
                           env={**os.environ, "XDG_CACHE_HOME": str(store)}, timeout=60)
    assert other.returncode == 0
    pattern_store.save()
    assert {(r"first\d", 0), (r"second\d", 0)} <= set(marshal.loads(_store_file(store).read_bytes()))


def test_a_store_past_its_bound_starts_afresh(store, monkeypatch):
    monkeypatch.setattr(pattern_store, "MAX_ENTRIES", 2)
    for text in ("a1", "a2"):
        pattern_store.compiled(text, 0)
    pattern_store.save()
    pattern_store.forget()
    pattern_store.compiled("a3", 0)
    pattern_store.save()
    assert set(marshal.loads(_store_file(store).read_bytes())) == {("a3", 0)}


def test_a_lint_reports_the_same_with_an_empty_store_and_with_the_one_it_left(tmp_path):
    """The command line, with its forked copy: both add what they compiled, so a later run compiles nothing and
    leaves the store as it was (the two saves of one run merge; only two at the very same moment could drop one's
    patterns, which the next run adds)."""
    command = [sys.executable, "-m", "workbench", "lint", str(corpus_dir() / "twilio-verify-v2.yaml"),
               "--format", "json"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 1 and json.loads(first.stdout)  # (the spec has errors)
    assert len(marshal.loads(_store_file(tmp_path).read_bytes())) > 30
    for _ in range(3):
        before = _store_file(tmp_path).stat().st_mtime_ns, _store_file(tmp_path).read_bytes()
        later = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert later.returncode == 1 and later.stdout == first.stdout
        if (_store_file(tmp_path).stat().st_mtime_ns, _store_file(tmp_path).read_bytes()) == before:
            break
    else:
        raise AssertionError("every later run still compiled patterns the store did not hold")


def test_a_relative_cache_folder_setting_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert pattern_store.path().parent == tmp_path / ".cache" / "agent-spec-workbench"


def test_the_store_is_named_by_the_interpreter_s_exact_version(store):
    assert f"{sys.hexversion:x}" in pattern_store.path().name
