"""How long does the window freeze while a selection run streams its answers?

Opens a spec in the main window (offscreen), drafts a suite from it in the Selection panel, and runs it offline
and then against a scripted OpenAI-compatible model on 127.0.0.1 in a process of its own (no latency: answers
arrive as fast as the runner takes them), with a 10 ms QTimer recording the gaps between its ticks.
Also times the UI-thread steps (the batched appends of streamed answers, the results shown at the end).

    .venv/bin/python bench/selection_stall.py [path] [--repeats N] [--stacks]

(`--stacks`: a watchdog thread samples the UI thread's stack, and the other threads', whenever the UI thread is over
50 ms late, and prints the places seen most often in each run: see `stackwatch.py`.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gui_stall import WATCHES, report_stacks, timed, watching  # timed: a step's UI-thread time, summed
from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from workbench.gui.app import configure_application
from workbench.gui.main_window import MainWindow
from workbench.workspace.selectionrun import Profile

DEFAULT = Path("/work/shared/corpus/box-openapi.json")
ROOT = Path(__file__).resolve().parents[1]
SERVER = """import os, sys
from tests.servers import ScriptedModelServer
server = ScriptedModelServer()
print(server.url, flush=True)
sys.stdin.read()
os._exit(0)  # its handler threads may be in a keep-alive read
"""


def model_server() -> tuple[subprocess.Popen, str]:
    """The scripted model in another process, so its work does not compete with the window's for the GIL."""
    process = subprocess.Popen([sys.executable, "-c", SERVER], cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return process, process.stdout.readline().strip()


def measured(app, signal, action, timeout_s: float = 600, phase: str = "") -> list[float]:
    """Run `action`, then the event loop until `signal`; the gaps between 10 ms ticks meanwhile (seconds)."""
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    watch = watching(phase) if phase else None
    timer.start()
    action()
    loop.exec()
    timer.stop()
    if watch is not None:
        watch.stop()
    signal.disconnect(loop.quit)
    return gaps


def main() -> int:
    args = sys.argv[1:]
    repeats = int(args[args.index("--repeats") + 1]) if "--repeats" in args else 3
    paths = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--repeats")]
    path = Path(paths[0]) if paths else DEFAULT
    app = QApplication.instance() or QApplication([])
    configure_application(app)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["XDG_CACHE_HOME"] = os.path.join(folder, "cache")
        settings = QSettings(os.path.join(folder, "settings.ini"), QSettings.Format.IniFormat)
        settings.setValue("recovery/dir", os.path.join(folder, "recovery"))
        window = MainWindow(settings)
        window.resize(1024, 700)
        window.show()
        measured(app, window.documentLoaded, lambda: window.open_path(path))
        while not window.source.view.is_complete:  # the text all in the view: the runs' own stalls are measured
            app.processEvents()
        panel = window.selection
        window.docks["selection"].show()
        window.docks["selection"].raise_()
        steps: dict[str, float] = {}
        for name in ("_take_feed", "_show_finished", "_begin_rows"):
            timed(panel, name, steps)
        panel.feed_timer.timeout.disconnect()
        panel.feed_timer.timeout.connect(panel._take_feed)
        measured(app, panel.draftReady, panel.draft)
        cases = len(panel.data.cases)
        panel.repeats_spin.setValue(repeats)
        offline = measured(app, panel.runFinished, panel.run, phase="offline run")
        process, url = model_server()
        try:
            panel.add_profile(Profile("bench", "openai-chat", url, "scripted"))
            began = time.perf_counter()
            model = measured(app, panel.runFinished, panel.run, phase="model run")
            seconds = time.perf_counter() - began
            sent = panel.finished.results.summary.requests_sent
        finally:
            process.stdin.close()
            process.wait(timeout=10)
        window.close()
    print(f"{path.name}: {cases} drafted cases × {repeats} repeats")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"offline run: longest event-loop stall {max(offline) * 1000:.0f} ms over {len(offline)} ticks; stalls "
          f"over 100 ms: {sum(1 for g in offline if g > 0.1)}")
    print(f"model run: {sent} requests in {seconds:.1f} s; longest stall {max(model) * 1000:.0f} ms over "
          f"{len(model)} ticks; stalls over 100 ms: {sum(1 for g in model if g > 0.1)}")
    for name, seconds in steps.items():
        print(f"  UI thread in {name}: {seconds * 1000:.0f} ms in all")
    if WATCHES:
        report_stacks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
