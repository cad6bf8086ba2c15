"""Saving: a link to a file keeps being a link, and what stands for a stream (/dev/stdout) is written in place."""

from __future__ import annotations

import os
import subprocess
import sys

from workbench.edit.save import write_atomically


def test_a_link_to_a_file_replaces_the_file_it_names_and_stays_a_link(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomically(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]  # no temporary left


def test_a_link_to_a_stream_is_written_in_place_whatever_stdout_is(tmp_path):
    """`--output /dev/stdout` (a link to /proc/self/fd/1) with stdout sent to a file or a pipe: renamed over, the
    link would become a plain file (as root, /dev/stdout for every program); it is written through, as a shell's
    `>` does. The test's own link stands in for /dev/stdout, so a regression cannot damage the machine."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    script = ("import sys; from pathlib import Path; from workbench.edit.save import write_atomically; "
              "write_atomically(Path(sys.argv[1]), 'through stdout\\n')")
    out = tmp_path / "out.txt"
    with out.open("wb") as handle:
        done = subprocess.run([sys.executable, "-c", script, str(link)], stdout=handle, stderr=subprocess.PIPE,
                              timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == "through stdout\n"
    piped = subprocess.run([sys.executable, "-c", script, str(link)], capture_output=True, timeout=60)
    assert piped.returncode == 0 and piped.stdout == b"through stdout\n", piped.stderr
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "stdout"]
