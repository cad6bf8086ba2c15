"""The rules' reports, the rules run in this process or shared with forked copies of it on the other CPUs.

A forked copy shares the loaded spec and its schema walk (copy-on-write), so nothing is loaded twice. The rules are
dealt through a pipe, one byte per rule: each process takes the next rule when it is free, so a slow rule does not
hold up the rest. A copy sends back its reports as plain data (`marshal`), each document by its place in the spec's
list. Whatever a copy did not send back (it failed, was killed, a report named a document the spec does not hold or
a fix a value that is not plain data), this process runs itself: the reports, and any exception a rule raises, are
the same as when it runs every rule alone.

Forking is only for a caller that asks for it (the command line, never the window), in a process that runs no other
thread, on Linux, whatever the spec's size: a fork costs a few milliseconds, and even a small spec's rules cost
more, most of it compiling the patterns they read prose with, which each process does only for the rules it takes
(paired runs of the whole command: the bundled example's lint 0.93x the time; the smaller corpus files 0.95x to
1.02x, within the noise of a machine whose second CPU gives half a core).
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from workbench import only_thread, patterns
from workbench.lint.finding import Fix
from workbench.lint.registry import Report, Rule
from workbench.lint.schemas import schema_sites
from workbench.spec import Spec

MAX_RULES = 256  # (each is dealt as one byte)
MAX_WORKERS = 4  # (the rules' slowest one alone takes a quarter of their time on a large spec)


def workers() -> int:
    """How many processes may share the rules here: 1 unless this is Linux, with more than one CPU for this
    process, and no thread running beside the main one."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    if not only_thread():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_WORKERS))


def run_rules(spec: Spec, context: Any, rules: Sequence[Rule], parallel: bool = False) -> list[list[Report]]:
    """Each rule's reports, in `rules`' order. `parallel`: the caller's process may fork (see the module); the
    spec's schema walk is then done first, so the copies share it."""
    count = workers() if parallel and 1 < len(rules) <= MAX_RULES else 1
    if count == 1:
        return [list(rule.check(spec, context)) for rule in rules]
    schema_sites(spec)  # (walked once, here: every copy shares it)
    return _shared(spec, context, rules, count - 1)


def _shared(spec: Spec, context: Any, rules: Sequence[Rule], copies: int) -> list[list[Report]]:
    documents = list(spec.documents.values())
    place = {id(document): index for index, document in enumerate(documents)}
    queue_in, queue_out = os.pipe()
    os.write(queue_out, bytes(range(len(rules))))
    os.close(queue_out)  # (closed before the forks: once every rule is taken, a read returns nothing)
    results: list[list[Report] | None] = [None] * len(rules)
    children: list[tuple[int, int]] = []
    try:
        for _ in range(copies):
            answer_in, answer_out = os.pipe()
            pid = os.fork()
            if pid == 0:  # the copy: never returns
                os.close(answer_in)
                _copy(spec, context, rules, queue_in, answer_out, place)
            os.close(answer_out)
            children.append((pid, answer_in))
        while taken := os.read(queue_in, 1):
            results[taken[0]] = list(rules[taken[0]].check(spec, context))
        for _, answer_in in children:
            _collect(answer_in, results, documents)
    finally:
        os.close(queue_in)
        for pid, answer_in in children:
            with suppress(OSError):
                os.close(answer_in)
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)
    for index, reports in enumerate(results):
        if reports is None:  # a rule no copy answered for: run here
            results[index] = list(rules[index].check(spec, context))
    return results  # type: ignore[return-value]


def _copy(spec: Spec, context: Any, rules: Sequence[Rule], queue_in: int, answer_out: int,
          place: dict[int, int]) -> None:
    """A forked copy's whole life: take rules until none is left, send back their reports, and end without running
    any of the parent's clean-up (`os._exit`: no buffered output of the parent is written twice)."""
    code = 0
    try:
        answers: dict[int, list[tuple]] = {}
        while taken := os.read(queue_in, 1):
            index = taken[0]
            try:
                answers[index] = [(r.message, place[id(r.document)], r.pointer, None if r.fix is None else
                                   (r.fix.pointer, r.fix.value, r.fix.title))
                                  for r in rules[index].check(spec, context)]
            except Exception:  # not answered: the parent runs it and meets the same exception
                continue
        payload = memoryview(_dumps(answers, patterns.compiled_here()))
        while payload:
            payload = payload[os.write(answer_out, payload):]
    except BaseException:  # whatever it did not send, the parent runs
        code = 1
    finally:
        os._exit(code)


def _dumps(answers: dict[int, list[tuple]], compiled: dict) -> bytes:
    """The answers, and the patterns the copy compiled (for the parent's store: one process writes it), in
    `marshal`'s form (plain data only, read back far quicker than a pickle); a rule whose fix holds a value of another
    type (a subclass, a date read from YAML) is left out, for the parent to run."""
    try:
        return marshal.dumps((answers, compiled))
    except ValueError:
        plain = {}
        for index, reports in answers.items():
            try:
                marshal.dumps(reports)
            except ValueError:
                continue
            plain[index] = reports
        return marshal.dumps((plain, compiled))


def _collect(answer_in: int, results: list[list[Report] | None], documents: list) -> None:
    chunks = []
    while chunk := os.read(answer_in, 1 << 20):
        chunks.append(chunk)
    if not chunks:
        return
    try:
        answers, compiled = marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):  # a copy cut off mid-answer: its rules are run here
        return
    patterns.adopt(compiled)
    for index, reports in answers.items():
        results[index] = [Report(message, documents[at], pointer, fix if fix is None else Fix(*fix))
                          for message, at, pointer, fix in reports]
