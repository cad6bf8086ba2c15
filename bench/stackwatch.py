"""What is the UI thread doing when it is late? A sampling watchdog for the stall benches.

A 10 ms QTimer on the UI thread stamps the time; a watchdog thread wakes every few milliseconds and, while the
stamp is older than `late_ms`, records the UI thread's Python stack (`sys._current_frames`) and those of the other
threads (one of them may be holding the interpreter lock). `report()` prints the places seen most often, by the
innermost frames of the workbench's own code (and the library frames under them), so a stall is named before it is
fixed. It also counts the samples taken while a thread was importing a module (by the line that asked for it), and
lists the top-level modules first imported during the watch (`sys.modules` before and after).

    watch = StackWatch(late_ms=50)
    watch.start()
    ...  # the measured work, on the event loop
    watch.stop()
    watch.report()
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
import traceback
from collections import Counter

from PySide6.QtCore import QTimer

OURS = ("/workbench/", "/bench/")


def _importer(frame) -> str | None:
    """The line that started the import this stack is in (None: it is not importing)."""
    stack = traceback.extract_stack(frame)
    for outer, entry in itertools.pairwise(stack):
        if entry.filename.startswith("<frozen importlib"):
            return f"{_short(outer.filename)}:{outer.lineno} {outer.name}: {outer.line}"
    return None


def _short(name: str) -> str:
    for marker in (*OURS, "/site-packages/", "/lib/python"):
        if marker in name:
            return name[name.index(marker) + 1:]
    return name


def _where(frame, depth: int = 4) -> str:
    """The innermost `depth` frames of a stack, shortened: file:line function, innermost first."""
    stack = traceback.extract_stack(frame)[::-1]
    shown = []
    for entry in stack:
        shown.append(f"{_short(entry.filename)}:{entry.lineno} {entry.name}")
        if len(shown) >= depth:
            break
    return " < ".join(shown)


class StackWatch:
    def __init__(self, late_ms: float = 50, every_ms: float = 5, depth: int = 5) -> None:
        self.late = late_ms / 1000
        self.every = every_ms / 1000
        self.depth = depth
        self.ui_ident = threading.get_ident()
        self.stamp = time.perf_counter()
        self.ui: Counter[str] = Counter()
        self.others: Counter[str] = Counter()
        self.importing: Counter[str] = Counter()
        self.modules_before: set[str] = set()
        self.imported: list[str] = []
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="stackwatch", daemon=True)
        self._timer = QTimer()
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        self.stamp = time.perf_counter()

    def start(self) -> None:
        self.modules_before = {name.split(".")[0] for name in list(sys.modules)}
        self.stamp = time.perf_counter()
        self._timer.start()
        self._thread.start()

    def stop(self) -> None:
        self._timer.stop()
        self._stop.set()
        self._thread.join()
        self.imported = sorted({name.split(".")[0] for name in list(sys.modules)} - self.modules_before)

    def _watch(self) -> None:
        me = threading.get_ident()
        names = {}
        while not self._stop.wait(self.every):
            if time.perf_counter() - self.stamp < self.late:
                continue
            frames = sys._current_frames()
            self.samples += 1
            ui = frames.get(self.ui_ident)
            if ui is not None:
                self.ui[_where(ui, self.depth)] += 1
            for ident, frame in frames.items():
                importer = _importer(frame) if ident != me else None
                if importer is not None:
                    self.importing[importer] += 1
                if ident in (me, self.ui_ident):
                    continue
                if ident not in names:
                    names = {t.ident: t.name for t in threading.enumerate()}
                self.others[f"[{names.get(ident, ident)}] {_where(frame, self.depth)}"] += 1

    def report(self, top: int = 8) -> None:
        print(f"stack samples while the UI thread was over {self.late * 1000:.0f} ms late: {self.samples}")
        print(f"  top-level modules first imported meanwhile: {', '.join(self.imported) or 'none'}")
        for title, counter in (("UI thread", self.ui), ("other threads", self.others),
                               ("importing (the line asking)", self.importing)):
            print(f"  {title}:")
            for where, count in counter.most_common(top):
                print(f"    {count:4d}  {where}")
