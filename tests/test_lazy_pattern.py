"""`workbench.lazy_pattern`: a constant pattern compiled when first used, then the same as `re.compile`'s."""

import importlib
import pkgutil
import re

import pytest

import workbench
from workbench import lazy_pattern

TEXTS = ["", "one of `a`, `b` or `c`", "Ab12 cD-3 e_f", "x" * 50 + " e.g. y", "ünïcode Ÿ and ASCII"]


@pytest.mark.parametrize(("text", "flags"), [(r"`([^`]+)`", 0), (r"(?P<word>[a-z]+)(\d*)", re.I),
                                             (r"\b(e\.g\.|one of)\s*", 0), (r"[^\W\d_]+", 0)])
def test_answers_as_the_compiled_pattern_does(text, flags):
    compiled, lazy = re.compile(text, flags), lazy_pattern(text, flags)
    for subject in TEXTS:
        assert bool(lazy.search(subject)) == bool(compiled.search(subject))
        assert [m.span() for m in lazy.finditer(subject)] == [m.span() for m in compiled.finditer(subject)]
        assert lazy.findall(subject) == compiled.findall(subject)
        assert lazy.sub("-", subject) == compiled.sub("-", subject)
        assert lazy.split(subject) == compiled.split(subject)
        assert (lazy.match(subject) is None) == (compiled.match(subject) is None)
        assert (lazy.fullmatch(subject) is None) == (compiled.fullmatch(subject) is None)
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == \
        (compiled.pattern, compiled.flags, compiled.groups, compiled.groupindex)


def test_compiles_at_first_use_and_then_is_the_compiled_patterns_own():
    lazy = lazy_pattern(r"a(")  # not a pattern: nothing is compiled yet, so nothing fails yet
    with pytest.raises(re.error):
        lazy.search("a")
    good = lazy_pattern(r"b+")
    assert "search" not in vars(good)
    assert good.search("abbb").group() == "bbb"
    assert isinstance(vars(good)["search"].__self__, re.Pattern)  # a bound method of the compiled pattern
    assert vars(good)["match"].__self__ is vars(good)["search"].__self__  # compiled once
    with pytest.raises(AttributeError):
        good.no_such_method  # noqa: B018


def _lazy_constants(value):
    if isinstance(value, workbench._LaterPattern):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _lazy_constants(item)


def test_every_constant_pattern_of_the_package_compiles():
    """A pattern used to be checked when its module was imported; now at its first use, which a test run may
    not reach: every module's constant patterns are compiled here."""
    found = 0
    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if info.name.startswith("workbench.gui") or info.name == "workbench.__main__":
            continue  # Qt (its patterns, if any, are the GUI tests' to reach); the program itself
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            for lazy in _lazy_constants(value):
                lazy.pattern  # noqa: B018 - compiles it, raising re.error if it is not a pattern
                found += 1
    assert found > 50
