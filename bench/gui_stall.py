"""How long does the window freeze while it opens a big spec, and while text is typed into it?

Opens the 4 MB GitHub description in the main window (offscreen), with a 10 ms QTimer recording the gaps
between its ticks: the longest gap is the longest event-loop stall while the file loads (off the UI thread),
lints, and is shown (outline, problems, source text and colours), and while the Tools panel (raised, so its
list is drawn) converts the spec in the background and shows the tools. Then types a sentence into the
source view, a key every 40 ms (one undoable step at the pause, the re-check after it), timing each keystroke
and the step. Also times the UI-thread steps.

    .venv/bin/python bench/gui_stall.py [path] [--tools-hidden] [--roundtrip [SECONDS]] [--stacks]

(`--tools-hidden`: the Tools tab left behind Problems, as the window opens: then it converts nothing.
`--roundtrip`: then the Round trips panel raised and a round trip run on the file for SECONDS at most (default
30; cancelled then), its rows streaming into the table: the longest stall meanwhile. `--stacks`: a watchdog
thread samples the UI thread's stack (and the other threads') whenever it is over 50 ms late, and prints the places
seen most often for each phase: see `stackwatch.py`.) Each phase also says how much of its longest stalls the UI thread
spent running (the rest it waited: for the interpreter lock, or for a core on a loaded machine) and the garbage
collections over 10 ms on each thread (one holds the interpreter lock throughout).
"""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop, QSettings, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stackwatch import StackWatch

from workbench.gui.app import configure_application
from workbench.gui.main_window import MainWindow
from workbench.workspace import SaveChoice

DEFAULT = Path("/work/shared/corpus/github-api.github.com-2022-07-18.json")
SETTLE_SECONDS = 1.5  # keep measuring after the load: painting and colouring what is visible


def timed(owner, name: str, record: dict[str, float]) -> None:
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            record[name] = record.get(name, 0.0) + time.perf_counter() - began

    setattr(owner, name, wrapper)


STACKS = "--stacks" in sys.argv
WATCHES: list[tuple[str, StackWatch]] = []  # with --stacks: each measured phase's watchdog


def main() -> int:
    args, roundtrip_s = roundtrip_option([a for a in sys.argv[1:] if a not in ("--tools-hidden", "--stacks")])
    path = Path(args[0]) if args else DEFAULT
    app = QApplication.instance() or QApplication([])
    configure_application(app)
    with tempfile.TemporaryDirectory() as folder:
        settings = QSettings(os.path.join(folder, "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("recovery/dir", os.path.join(folder, "recovery"))
        window = MainWindow(settings)
        window.show()
        app.processEvents()
        steps: dict[str, float] = {}
        timed(window.document, "take_loaded", steps)
        timed(window.source.view, "set_source", steps)
        if "--tools-hidden" not in sys.argv:
            window.focus_tools()
        timed(window.tools, "_built", steps)
        previews: list[float] = []
        window.tools.previewReady.connect(lambda preview: previews.append(preview.seconds))
        chunks: list[float] = []
        append = window.source.view._append_chunk

        def timed_append(*args) -> None:
            at = time.perf_counter()
            append(*args)
            chunks.append(time.perf_counter() - at)

        window.source.view._append_chunk = timed_append
        window.source.view._chunk_timer.timeout.disconnect()
        window.source.view._chunk_timer.timeout.connect(timed_append)
        complete_at: list[float] = []
        window.source.view.sourceComplete.connect(lambda: complete_at.append(time.perf_counter() - began))

        began = time.perf_counter()
        gaps = run_measured(app, window, lambda: window.open_path(path), "opening")
        loaded_at = [window.loaded.seconds] if window.loaded else []
        edit_gaps: list[tuple[float, float, float]] = []
        while not window.source.view.is_complete:  # the whole text in the view (an edit while it goes in works)
            app.processEvents()
        if window.loaded is not None and window.loaded.operations:
            # An edit through the form: the window re-checks the edited text in the background (debounced).
            entry = window.loaded.operations[0]
            window.edit.fill(entry)
            window.edit.form.summary.setText("Edited summary, to measure the re-check")
            edit_gaps = run_measured(app, window, window.edit.form.apply_button.click, "re-checking after an edit")
        keys: list[float] = []
        timed(window.document.workspace, "settle", steps)  # the pause's step (one copy of the text, the journal)
        typing_gaps = run_measured(app, window, lambda: type_slowly(window, TYPED, keys), "typing and the re-check")
        typed_ok = TYPED in window.document.workspace.root.text
        window.ask_save_changes = lambda: SaveChoice.DISCARD  # the edit was only for measuring
        streamed = measure_roundtrip(app, window, roundtrip_s) if roundtrip_s and window.loaded else None
        window.close()

    size = path.stat().st_size / 2**20
    print(f"{path.name}: {size:.1f} MiB, {window.outline.model.operation_count()} operations, "
          f"{len(window.problems.entries())} findings")
    if loaded_at:
        print(f"loaded and linted in {loaded_at[0]:.2f} s on a worker thread")
    report("opening", gaps, "opening")
    if edit_gaps:
        report("re-checking after an edit", edit_gaps, "re-checking after an edit")
    if keys:
        keys.sort()
        print(f"typing {len(keys)} keys into the middle of the text (a key per {KEY_MS} ms): per keystroke median "
              f"{keys[len(keys) // 2] * 1000:.1f} ms, longest {keys[-1] * 1000:.1f} ms; the typed text "
              f"{'is' if typed_ok else 'is NOT'} the workspace's")
        typing_seconds = len(keys) * KEY_MS / 1000
        report(f"while the keys are typed (the first {typing_seconds:.1f} s)",
               [gap for gap in typing_gaps if gap[1] <= typing_seconds])
        report("typing, the pause's step and the re-check after it", typing_gaps, "typing and the re-check")
    if chunks:
        print(f"source text appended in {len(chunks)} chunks, longest {max(chunks) * 1000:.0f} ms; all of it "
              f"shown after {complete_at[-1]:.2f} s" if complete_at else "; NOT complete")
    if previews:
        print(f"tool set converted {len(previews)} times on a worker thread, longest {max(previews):.2f} s")
    for name, seconds in steps.items():
        print(f"  UI thread in {name}: {seconds * 1000:.0f} ms")
    if streamed:
        gaps, rows, batches, finished = streamed
        print(f"round trip: {rows} result rows in {batches} batches, "
              + ("finished" if finished else f"cancelled after {roundtrip_s:g} s"))
        report("round trip streaming", gaps)
    report_stacks()
    return 0


def report_stacks() -> None:
    """With --stacks, what each phase's watchdog saw; then the load the figures were taken under."""
    for phase, watch in WATCHES:
        print(f"-- {phase}:")
        watch.report()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def roundtrip_option(args: list[str]) -> tuple[list[str], float | None]:
    """`--roundtrip [SECONDS]` taken out of the arguments: the seconds (30 when not given), or None without it."""
    if "--roundtrip" not in args:
        return args, None
    at = args.index("--roundtrip")
    given = args[at + 1:at + 2]
    has_seconds = bool(given) and given[0].replace(".", "").isdigit()
    return args[:at] + args[at + (2 if has_seconds else 1):], float(given[0]) if has_seconds else 30.0


TYPED = "Typed into the source view, to measure the keystrokes. "
KEY_MS = 40


def type_slowly(window, text: str, keys: list[float]) -> None:
    """Type `text` into a description in the middle of the source text, a key every KEY_MS (each keystroke's
    time in `keys`)."""
    view = window.source.view
    view.go_to_line(view.document().blockCount() // 2)
    view.find_text('"description": "')  # inside a string: the text typed keeps the spec valid
    view.moveCursor(view.textCursor().MoveOperation.Right)
    view.setFocus()
    left = list(text)

    def key() -> None:
        if not left:
            return
        at = time.perf_counter()
        QTest.keyClicks(view, left.pop(0))
        keys.append(time.perf_counter() - at)
        QTimer.singleShot(KEY_MS, key)

    key()


def measure_roundtrip(app, window, seconds: float) -> tuple[list[tuple[float, float, float]], int, int, bool]:
    """Raise the Round trips panel and run a round trip for `seconds` at most (then cancel it); the gaps of a 10 ms
    timer meanwhile, the rows shown, the batches they came in, and whether it finished."""
    panel = window.roundtrips
    window.focus_roundtrips()
    panel.tabs.setCurrentIndex(1)
    app.processEvents()
    batches: list[int] = []
    finished: list[bool] = []
    gaps, timer = ticker()
    watch = watching("round trip streaming")
    loop = QEventLoop()
    flushes: list[tuple[float, float]] = []  # (wall, the UI thread's own CPU): the difference is waiting for the GIL
    flush = panel.flush

    def timed_flush() -> None:
        at, cpu = time.perf_counter(), time.thread_time()
        flush()
        flushes.append((time.perf_counter() - at, time.thread_time() - cpu))

    panel.flush_timer.timeout.disconnect()
    panel.flush_timer.timeout.connect(timed_flush)
    panel.rowsAdded.connect(batches.append)
    panel.runFinished.connect(lambda _report: (finished.append(True), loop.quit()))
    panel.runFailed.connect(lambda message: (print("round trip failed:", message), loop.quit()))
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    timer.start()
    panel.run_roundtrip()
    loop.exec()
    timer.stop()
    if watch is not None:
        watch.stop()
    if panel.is_running:
        panel.cancel_run()
    if flushes:
        walls, cpus = [w for w, _ in flushes], [c for _, c in flushes]
        print(f"  UI thread taking the batches: {len(flushes)} times, longest {max(walls) * 1000:.0f} ms "
              f"(its own CPU time: longest {max(cpus) * 1000:.1f} ms, in all {sum(cpus) * 1000:.0f} ms; the rest is "
              "waiting for the interpreter lock)")
    return gaps, len(panel.result_rows()), len(batches), bool(finished)


def ticker() -> tuple[list[tuple[float, float, float]], QTimer]:
    """A 10 ms timer (not started) and the gaps between its ticks, as (gap, seconds since it was made, the UI
    thread's own CPU time in the gap: the rest it waited, for the interpreter lock or for a core)."""
    gaps: list[tuple[float, float, float]] = []
    began = time.perf_counter()
    last = [began, time.thread_time()]

    def tick() -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        gaps.append((now - last[0], now - began, cpu - last[1]))
        last[0], last[1] = now, cpu

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    return gaps, timer


def watching(phase: str) -> StackWatch | None:
    """With --stacks: a started watchdog for `phase` (stop it when the phase ends)."""
    if not STACKS:
        return None
    watch = StackWatch()
    WATCHES.append((phase, watch))
    watch.start()
    return watch


def run_measured(app, window, action, phase: str = "") -> list[tuple[float, float, float]]:
    """Run `action`, then the event loop until the window has shown the (re)loaded spec and settled; the gaps
    between the ticks of a 10 ms timer meanwhile, as (gap, seconds since the action)."""
    gaps, timer = ticker()
    loop = QEventLoop()

    def settle() -> None:
        QTimer.singleShot(int(SETTLE_SECONDS * 1000), loop.quit)

    def loaded(_loaded) -> None:
        if window.tools.is_building:  # the Tools panel converts the new text: measure until it is shown too
            window.tools.previewReady.connect(lambda _preview: settle(), Qt.ConnectionType.SingleShotConnection)
        else:
            settle()

    def failed(message: str) -> None:
        print("load failed:", message)
        loop.quit()

    window.documentLoaded.connect(loaded)
    window.loadFailed.connect(failed)
    QTimer.singleShot(120_000, loop.quit)  # never wait for ever: a missing signal shows as a short report
    watch = watching(phase)
    stop_collections = collections_during(phase)
    timer.start()
    action()
    loop.exec()
    timer.stop()
    stop_collections()
    if watch is not None:
        watch.stop()
    window.documentLoaded.disconnect(loaded)
    window.loadFailed.disconnect(failed)
    return gaps


def report(what: str, gaps: list[tuple[float, float, float]], phase: str = "") -> None:
    worst = sorted(gaps, reverse=True)[:5]
    print(f"{what}: longest event-loop stalls (10 ms timer): "
          + ", ".join(f"{gap * 1000:.0f} ms at {at:.2f} s" for gap, at, _cpu in worst))
    print("  the UI thread's own CPU time in them: " + ", ".join(f"{cpu * 1000:.0f} ms" for _gap, _at, cpu in worst))
    print(f"  stalls over 100 ms: {sum(1 for gap, *_ in gaps if gap > 0.1)}; over 50 ms: "
          f"{sum(1 for gap, *_ in gaps if gap > 0.05)}; ticks: {len(gaps)}")
    if phase in COLLECTIONS:
        for where, seen in (("the UI thread", [d for d, ui in COLLECTIONS[phase] if ui]),
                            ("worker threads", [d for d, ui in COLLECTIONS[phase] if not ui])):
            print(f"  garbage collections over 10 ms on {where}: {len(seen)}"
                  + (f", longest {max(seen) * 1000:.0f} ms (the interpreter lock held throughout)" if seen else ""))


COLLECTIONS: dict[str, list[tuple[float, bool]]] = {}  # phase → (seconds, on the UI thread?) of each long one


def collections_during(phase: str) -> Callable[[], None]:
    """Record the garbage collections over 10 ms from now on under `phase`; call what it returns to stop."""
    seen = COLLECTIONS.setdefault(phase, [])
    started: dict[int, float] = {}

    def callback(stage: str, _info: dict) -> None:
        ident = threading.get_ident()
        if stage == "start":
            started[ident] = time.perf_counter()
        elif ident in started:
            seconds = time.perf_counter() - started.pop(ident)
            if seconds > 0.01:
                seen.append((seconds, threading.current_thread() is threading.main_thread()))

    gc.callbacks.append(callback)
    return lambda: gc.callbacks.remove(callback)


if __name__ == "__main__":
    raise SystemExit(main())
