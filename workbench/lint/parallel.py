"""The rules' reports, the rules run in this process or shared with forked copies of it on the other CPUs
(`workbench.dealing`: one rule a piece).

A forked copy shares the loaded spec and its schema walk (copy-on-write), so nothing is loaded twice. A copy sends
back each rule's reports as plain data, each document by its place in the spec's list, and the patterns it compiled
(for the parent's store). Whatever a copy did not send back (it failed, was killed, a report named a document the
spec does not hold or a fix a value that is not plain data), this process runs itself: the reports, and any exception
a rule raises, are the same as when it runs every rule alone.

Forking is only for a caller that asks for it (the command line, never the window), whatever the spec's size: a
fork costs a few milliseconds, and even a small spec's rules cost more, most of it compiling the patterns they read
prose with, which each process does only for the rules it takes (paired runs of the whole command: the bundled
example's lint 0.93x the time; the smaller corpus files 0.95x to 1.02x, within the noise of a machine whose second
CPU gives half a core).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench import dealing, patterns
from workbench.lint.finding import Fix
from workbench.lint.registry import Report, Rule
from workbench.lint.schemas import schema_sites
from workbench.spec import Spec


def run_rules(spec: Spec, context: Any, rules: Sequence[Rule], parallel: bool = False) -> list[list[Report]]:
    """Each rule's reports, in `rules`' order. `parallel`: the caller's process may fork (see the module); the
    spec's schema walk is then done first, so the copies share it."""
    count = dealing.processes_here() if parallel and len(rules) > 1 else 1
    if count == 1:
        return [list(rule.check(spec, context)) for rule in rules]
    schema_sites(spec)  # (walked once, here: every copy shares it)
    return _shared(spec, context, rules, count - 1)


def _shared(spec: Spec, context: Any, rules: Sequence[Rule], copies: int) -> list[list[Report]]:
    documents = list(spec.documents.values())
    place = {id(document): index for index, document in enumerate(documents)}

    def send(reports: list[Report]) -> list[tuple]:
        return [(r.message, place[id(r.document)], r.pointer, None if r.fix is None else
                 (r.fix.pointer, r.fix.value, r.fix.title)) for r in reports]

    def receive(reports: list[tuple]) -> list[Report]:
        return [Report(message, documents[at], pointer, fix if fix is None else Fix(*fix))
                for message, at, pointer, fix in reports]

    return dealing.share(len(rules), lambda index: list(rules[index].check(spec, context)), copies, send=send,
                         receive=receive, parting=patterns.compiled_here, adopt=patterns.adopt)
