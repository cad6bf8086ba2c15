"""Work shared with forked copies of the process: the same answers as when one process does it all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from workbench import dealing
from workbench.tools import tokens

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="copies are forked on Linux only")


def _slow_pid(index):
    time.sleep(0.01)
    return [index, os.getpid()]


def test_every_piece_is_answered_once_in_order_and_both_processes_take_some():
    answers = dealing.share(24, _slow_pid, 1)
    assert [index for index, _ in answers] == list(range(24))
    assert len({pid for _, pid in answers}) == 2 and os.getpid() in {pid for _, pid in answers}


def test_answers_go_through_send_there_and_receive_here_and_the_parting_data_is_adopted():
    adopted = []
    parent = os.getpid()
    answers = dealing.share(12, _slow_pid, 1, send=lambda answer: [*answer, "sent"],
                            receive=lambda answer: tuple(answer), parting=lambda: {"from": os.getpid()},
                            adopt=adopted.append)
    copied = [answer for answer in answers if answer[1] != parent]
    assert copied and all(answer[2:] == ("sent",) and isinstance(answer, tuple) for answer in copied)
    assert all(isinstance(answer, list) and len(answer) == 2 for answer in answers if answer[1] == parent)
    assert len(adopted) == 1 and adopted[0]["from"] not in (parent, None)


def test_a_piece_that_fails_in_a_copy_fails_here_as_it_does_alone():
    def work(index):
        time.sleep(0.01)
        if index == 7:
            raise LookupError("piece 7's own bug")
        return index

    with pytest.raises(LookupError, match="piece 7's own bug"):
        dealing.share(12, work, 1)


def test_what_a_dead_copy_or_an_answer_that_is_not_plain_data_left_is_done_here():
    from fractions import Fraction

    parent = os.getpid()

    def dies_in_a_copy(index):
        time.sleep(0.01)
        if os.getpid() != parent and index >= 5:
            os._exit(9)
        return index * 2

    assert dealing.share(12, dies_in_a_copy, 1) == [index * 2 for index in range(12)]

    def not_plain(index):  # (marshal sends no Fraction)
        time.sleep(0.01)
        return [os.getpid() == parent, Fraction(index, 3)]

    assert dealing.share(8, not_plain, 1) == [[True, Fraction(index, 3)] for index in range(8)]


def test_nothing_is_forked_for_one_piece_no_copies_or_more_pieces_than_the_pipe_takes():
    for count, copies in ((1, 1), (5, 0), (dealing.MAX_PIECES + 1, 1)):
        assert {pid for pid in dealing.share(count, lambda _: os.getpid(), copies)} == {os.getpid()}


def test_token_counts_shared_with_a_copy_are_the_counts_of_one_process(corpus):
    # (in a process of its own: this one may run other threads, and then nothing is forked)
    script = f"""
import json, os
from workbench import dealing
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, Scope, convert, tokens
toolset = convert(load_spec({str(corpus / "box-openapi.json")!r}), ConvertOptions(vendor="openai",
                  scope=Scope(include_deprecated=True)))
texts = toolset.native_json()
forks = []
real_fork = os.fork
def fork():
    forks.append(1)
    return real_fork()
os.fork = fork
shared = tokens.counts(texts, parallel=True)
alone = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
print(json.dumps([shared == [alone(text) for text in texts], len(forks), sum(map(len, texts)), len(texts),
                  toolset.tokens.total == sum(shared) + toolset.tokens.overhead,
                  dealing.processes_here()]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    same, forks, size, tools, total, processes = json.loads(done.stdout)
    assert size >= tokens.SHARED_FROM and tools > 100  # (enough to be shared)
    assert processes == min(len(os.sched_getaffinity(0)), dealing.MAX_PROCESSES)
    assert same and total and forks == (1 if processes > 1 else 0)


def _in_a_process_alone(script: str) -> list:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


_TOOLSET = """
import json, os, signal, time
from workbench import dealing
from workbench.spec import load_spec
from workbench.tools import ConvertOptions, Scope, convert, tokens
toolset = convert(load_spec({spec!r}), ConvertOptions(vendor="openai", scope=Scope(include_deprecated=True)))
texts = toolset.native_json()
alone = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
expected = [alone(text) for text in texts]
"""


def test_a_counting_process_counts_what_this_one_counts_and_this_one_loads_no_table(corpus):
    script = _TOOLSET.format(spec=str(corpus / "box-openapi.json")) + """
counter = tokens.CountingProcess.start()
counter.send(texts)
counted, how = counter.counts(texts)
print(json.dumps([counted == expected, how == tokens.METHOD, tokens._encoder.cache_info().currsize,
                  counter.pid, dealing.processes_here()]))
"""
    same, how, loaded_here, pid_after, processes = _in_a_process_alone(script)
    assert processes > 1  # (this machine, and CI's, has a second CPU)
    assert same and how and loaded_here == 0 and pid_after == 0


def test_what_a_counting_process_did_not_answer_is_counted_here(corpus):
    # killed before it answers; and a process whose texts are not the ones asked about
    script = _TOOLSET.format(spec=str(corpus / "twilio-verify-v2.yaml")) + """
killed = tokens.CountingProcess.start()
os.kill(killed.pid, signal.SIGKILL)
toolset.estimate_with(killed)
estimate = toolset.tokens
tokens._encoder.cache_clear()  # (counted here, above: a process is started only where the table is not loaded)
other = tokens.CountingProcess.start()
other.send(texts[:3])
print(json.dumps([killed.counts(texts), list(estimate.per_tool.values()) == expected, other.counts(list(texts)),
                  estimate.method == tokens.METHOD]))
"""
    killed_answer, counted_here, other_answer, method = _in_a_process_alone(script)
    assert killed_answer is None and other_answer is None and counted_here and method


def test_an_unused_counting_process_ends_when_closed(corpus):
    script = """
import json, os, time
from workbench.tools import tokens
counter = tokens.CountingProcess.start()
pid = counter.pid
started = time.monotonic()
counter.close()
try:
    os.kill(pid, 0)
    alive = True
except ProcessLookupError:
    alive = False
print(json.dumps([alive, time.monotonic() - started < 10, counter.pid]))
"""
    alive, quick, pid_after = _in_a_process_alone(script)
    assert not alive and quick and pid_after == 0


def test_the_tools_command_s_token_counts_are_the_counts_of_one_process(corpus, tmp_path):
    spec = corpus / "box-openapi.json"
    out = tmp_path / "tools.json"
    done = subprocess.run([sys.executable, "-m", "workbench", "tools", str(spec), "--include-deprecated",
                           "--output", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    printed = json.loads(out.read_text(encoding="utf-8"))
    counter = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
    assert list(printed["tokens"]["per_tool"].values()) == [counter(tokens.serialise(tool))
                                                          for tool in printed["tools"]]


def test_pieces_a_small_pipe_cannot_hold_are_done_here(monkeypatch):
    import fcntl

    real_pipe = os.pipe

    def small_pipe():
        ends = real_pipe()
        fcntl.fcntl(ends[1], fcntl.F_SETPIPE_SZ, 4096)  # (a pipe of a user over the kernel's soft limit)
        return ends

    monkeypatch.setattr(os, "pipe", small_pipe)
    started = time.monotonic()
    answers = dealing.share(6000, lambda index: [index, os.getpid()], 1)
    assert [index for index, _ in answers] == list(range(6000)) and time.monotonic() - started < 60
    assert {pid for _, pid in answers[2048:]} == {os.getpid()}  # (past the 4 KiB the pipe held: done here)


def test_where_no_copy_can_be_forked_or_no_pipe_had_this_process_does_it_all(monkeypatch):
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setattr(dealing, "processes_here", lambda: 2)  # (as in a command-line process on two CPUs)
    tokens._encoder.cache_clear()  # (a counting process is started only where the table is not loaded)
    open_before = len(os.listdir("/proc/self/fd"))
    assert dealing.share(10, lambda index: index * 3, 1) == [index * 3 for index in range(10)]
    assert tokens.CountingProcess.start() is None
    assert len(os.listdir("/proc/self/fd")) == open_before

    def no_pipe():
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(os, "pipe", no_pipe)
    assert dealing.share(10, lambda index: index * 3, 1) == [index * 3 for index in range(10)]


def test_of_several_failing_pieces_the_first_in_order_raises_as_alone():
    def work(index):
        time.sleep(0.01)
        if index in (5, 6, 9):
            raise LookupError(f"piece {index}")
        return index

    for _ in range(3):
        with pytest.raises(LookupError, match="piece 5"):
            dealing.share(12, work, 1)


def test_the_counting_process_counts_the_spec_s_words_only_until_the_texts_come(corpus):
    spec = corpus / "box-openapi.json"
    waiting_in, waiting_out = os.pipe()
    sent_in, sent_out = os.pipe()
    os.write(sent_out, b"texts")
    try:
        waiting, sent = (tokens.Counter(tokens.Table(tokens.RANKS.read_bytes())) for _ in range(2))
        tokens._warm(waiting, spec, waiting_in)
        tokens._warm(sent, spec, sent_in)
        assert len(waiting.words) > 3000 and not sent.words and not sent.pieces
        assert tokens._warm(waiting, corpus / "no-such-file.yaml", waiting_in) is None
    finally:
        for fd in (waiting_in, waiting_out, sent_in, sent_out):
            os.close(fd)
    # what was counted before is kept as counting anything keeps it: the same counts after
    texts = [line for line in spec.read_text(encoding="utf-8").splitlines() if line.strip()][::7]
    fresh = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
    assert [waiting(text) for text in texts] == [fresh(text) for text in texts]


def test_the_counting_process_leaves_a_spec_read_from_a_pipe_to_the_command(corpus):
    text = (corpus / "twilio-verify-v2.yaml").read_bytes()[:4000]
    spec_in, spec_out = os.pipe()
    texts_in, texts_out = os.pipe()
    os.write(spec_out, text)
    os.close(spec_out)  # (all of it sent: reading the pipe would take it whole, not wait)
    try:
        counter = tokens.Counter(tokens.Table(tokens.RANKS.read_bytes()))
        tokens._warm(counter, f"/proc/self/fd/{spec_in}", texts_in)
        assert not counter.words and os.read(spec_in, len(text) + 1) == text
    finally:
        for fd in (spec_in, texts_in, texts_out):
            os.close(fd)


def test_the_tools_command_reads_a_spec_that_comes_late_through_a_pipe_whole(corpus, tmp_path):
    spec = (corpus / "box-openapi.json").read_bytes()
    out = tmp_path / "tools.json"
    spec_in, spec_out = os.pipe()
    try:
        command = subprocess.Popen([sys.executable, "-m", "workbench", "tools", f"/dev/fd/{spec_in}", "--output",
                                    str(out)], pass_fds=(spec_in,), stderr=subprocess.PIPE, text=True)
        os.close(spec_in)
        spec_in = -1
        time.sleep(0.5)  # (as `<(curl …)` does: the counting process has its table by now)
        with os.fdopen(spec_out, "wb") as writer:
            spec_out = -1
            writer.write(spec)
        _, errors = command.communicate(timeout=120)
    finally:
        for fd in (spec_in, spec_out):
            if fd >= 0:
                os.close(fd)
    assert command.returncode == 0, errors
    assert len(json.loads(out.read_text(encoding="utf-8"))["tools"]) == 296
