"""Independent pieces of work shared between this process and forked copies of it on the other CPUs.

A forked copy shares everything already loaded (copy-on-write), so nothing is loaded twice. The pieces are dealt
through a pipe, two bytes per piece, all written before the forks: each process takes the next piece when it is
free, so a slow one does not hold up the rest. A copy sends back its answers as plain data (`marshal`, read back far
quicker than a pickle). Whatever a copy did not send back (it failed, was killed, an answer was not plain data),
this process does itself: the answers, and any exception a piece raises, are the same as when it does them all.

Forking is only for a caller that asks for it (the command line, never the window), in a process that runs no other
thread, on Linux (`processes_here`). Used by the lint (a piece: one rule) and by the token estimate (one tool).
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from workbench import only_thread

MAX_PIECES = 1 << 15  # (two bytes each, all in the pipe's 64 KiB before anyone reads)
MAX_PROCESSES = 4

_ATOMIC = 512  # bytes a pipe writes whole or not at all (POSIX's least PIPE_BUF)
NOT_DONE: Any = object()  # what `share` holds for a piece before it is done


def processes_here() -> int:
    """How many processes may share work here: 1 unless this is Linux, with more than one CPU for this process,
    and no thread running beside the main one."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    if not only_thread():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_PROCESSES))


def share(count: int, work: Callable[[int], Any], copies: int, *, send: Callable[[Any], Any] | None = None,
          receive: Callable[[Any], Any] | None = None, parting: Callable[[], Any] | None = None,
          adopt: Callable[[Any], None] | None = None) -> list[Any]:
    """`[work(0), …, work(count - 1)]`, the pieces shared with `copies` forked copies of this process. A copy's
    answer goes through `send` there (to plain data: `marshal`'s types, a bytes-like answer coming back as bytes)
    and `receive` here; `parting()`, in a copy after its last piece, is data sent back with its answers for `adopt`
    here. A piece that raises, here or in a copy, is done again here after every piece before it: the exception
    raised is the one doing them in order raises. Where a pipe or a fork cannot be had, this process does it all."""
    if copies < 1 or not 1 < count <= MAX_PIECES:
        return [work(index) for index in range(count)]
    results: list[Any] = [NOT_DONE] * count
    children: list[tuple[int, int]] = []
    queue_in = -1
    try:
        queue_in = _queue(count)
        for _ in range(copies):
            child = _fork(work, queue_in, send, parting)
            if child is None:
                break
            children.append(child)
        while taken := os.read(queue_in, 2):
            index = int.from_bytes(taken, "little")
            try:
                results[index] = work(index)
            except Exception:  # (done again below, in order)
                _drain(queue_in)  # (the rest taken from the copies: they stop)
                break
        for _, answer_in in children:
            _collect(answer_in, results, receive, adopt)
    except OSError:
        pass  # no pipe: what is not done is done below
    finally:
        if queue_in >= 0:
            _drain(queue_in)  # (an interrupt: the copies stop)
            os.close(queue_in)
        for pid, answer_in in children:
            with suppress(OSError):
                os.close(answer_in)
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)
    for index, result in enumerate(results):
        if result is NOT_DONE:  # a piece no process answered for: done here
            results[index] = work(index)
    return results


def _queue(count: int) -> int:
    """The read end of a pipe holding the pieces' indices, as many as it takes (a pipe may hold less than 64 KiB:
    the rest are done by the caller, after)."""
    queue_in, queue_out = os.pipe()
    indices = b"".join(index.to_bytes(2, "little") for index in range(count))
    try:
        os.set_blocking(queue_out, False)
        for at in range(0, len(indices), _ATOMIC):  # (each write whole or not at all: no index is cut in two)
            os.write(queue_out, indices[at:at + _ATOMIC])
    except BlockingIOError:
        pass
    finally:
        os.close(queue_out)  # (closed before the forks: once every piece is taken, a read returns nothing)
    return queue_in


def _fork(work: Callable[[int], Any], queue_in: int, send: Callable[[Any], Any] | None,
          parting: Callable[[], Any] | None) -> tuple[int, int] | None:
    """A copy taking pieces from `queue_in`: its pid and the read end of its answers; None if it cannot be forked."""
    answer_in, answer_out = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(answer_in)
        os.close(answer_out)
        return None
    if pid == 0:  # the copy: never returns
        _copy(work, queue_in, answer_in, answer_out, send, parting)
    os.close(answer_out)
    return pid, answer_in


def _drain(queue_in: int) -> None:
    with suppress(OSError):
        while os.read(queue_in, 1 << 16):
            pass


def _copy(work: Callable[[int], Any], queue_in: int, answer_in: int, answer_out: int,
          send: Callable[[Any], Any] | None, parting: Callable[[], Any] | None) -> None:
    """A forked copy's whole life: take pieces until none is left, send back their answers, and end without running
    any of the parent's clean-up (`os._exit`, whatever happens: no buffered output of the parent is written twice,
    and the copy never returns into its parent's code)."""
    code = 0
    try:
        os.close(answer_in)
        answers: dict[int, Any] = {}
        while taken := os.read(queue_in, 2):
            index = int.from_bytes(taken, "little")
            try:
                answer = work(index)
                answers[index] = send(answer) if send is not None else answer
            except Exception:  # not answered: the parent does it and meets the same exception
                continue
        payload = memoryview(_dumps(answers, parting() if parting is not None else None))
        while payload:
            payload = payload[os.write(answer_out, payload):]
    except BaseException:  # whatever it did not send, the parent does
        code = 1
    finally:
        os._exit(code)


def _dumps(answers: dict[int, Any], extra: Any) -> bytes:
    """The answers and the parting data in `marshal`'s form; an answer holding a value of another type (a subclass,
    a date read from YAML) is left out, for the parent to do."""
    try:
        return marshal.dumps((answers, extra))
    except ValueError:
        plain = {}
        for index, answer in answers.items():
            try:
                marshal.dumps(answer)
            except ValueError:
                continue
            plain[index] = answer
        return marshal.dumps((plain, extra))


def _collect(answer_in: int, results: list[Any], receive: Callable[[Any], Any] | None,
             adopt: Callable[[Any], None] | None) -> None:
    chunks = []
    while chunk := os.read(answer_in, 1 << 20):
        chunks.append(chunk)
    if not chunks:
        return
    try:
        answers, extra = marshal.loads(b"".join(chunks))
    except (EOFError, ValueError, TypeError):  # a copy cut off mid-answer: its pieces are done here
        return
    if adopt is not None:
        adopt(extra)
    for index, answer in answers.items():
        results[index] = receive(answer) if receive is not None else answer
