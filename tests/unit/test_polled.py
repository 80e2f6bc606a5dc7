"""Reads from a pipe wait in slices and heed a stop (``sources.polled``, ``ForwardReader``).

Real pipes (``os.pipe``, a FIFO), their writers kept open: a quiet writer is not an end.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from logagent.errors import ReadStopped
from logagent.sources.files import open_source
from logagent.sources.polled import WAIT_S, open_waiting
from logagent.sources.streams import ForwardReader


class Stop:
    """A stop check that fires once ``fire`` is set, counting how often it was asked."""

    def __init__(self) -> None:
        self.fire = False
        self.asked = 0

    def __call__(self) -> None:
        self.asked += 1
        if self.fire:
            raise ReadStopped("interrupted by SIGTERM", "interrupted")


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    r, w = os.pipe()
    yield r, w
    for fd in (r, w):
        with contextlib.suppress(OSError):
            os.close(fd)


def _reader(r: int, stop: Stop, *, reopen: bool = False) -> ForwardReader:
    raw, polled = open_waiting(r, owned=False)
    polled.check = stop
    again = (lambda: (raw, [raw])) if reopen else None  # a file's stream: never waits
    return ForwardReader(raw, "pipe", closers=[raw], reopen=again)


def test_a_quiet_pipe_is_waited_for_and_asks_the_stop_between_waits(
    pipe: tuple[int, int],
) -> None:
    r, w = pipe
    stop = Stop()
    reader = _reader(r, stop)
    later = threading.Timer(4 * WAIT_S, lambda: os.write(w, b"a\nb\n"))
    later.start()
    assert reader.read_at(0, 2) == b"a\n"  # waited for the writer, asking meanwhile
    later.join()
    assert stop.asked >= 2 and not reader.eof


def test_a_stop_while_waiting_ends_the_pipe_after_its_last_whole_line(
    pipe: tuple[int, int],
) -> None:
    r, w = pipe
    os.write(w, b"a\nb\nhalf a li")
    stop = Stop()
    stop.fire = True
    reader = _reader(r, stop)
    started = time.monotonic()
    assert reader.read_at(0, 1 << 20) == b"a\nb\n"  # the half-written line is not a line
    assert reader.eof and reader.stopped
    assert reader.read_at(4, 100) == b""  # and nothing more is read
    assert time.monotonic() - started < 30


def test_a_stop_before_a_whole_line_came_is_raised(pipe: tuple[int, int]) -> None:
    r, w = pipe
    os.write(w, b"half")
    stop = Stop()
    stop.fire = True
    with pytest.raises(ReadStopped):
        _reader(r, stop).read_at(0, 100)


def test_a_files_stream_raises_the_stop_as_it_came(pipe: tuple[int, int]) -> None:
    """A stream that can be opened again (a compressed file) never waits: a stop there (its
    decompression again, ``_resume``) is raised, not taken for its end."""
    r, w = pipe
    os.write(w, b"a\nb\n")
    stop = Stop()
    stop.fire = True
    with pytest.raises(ReadStopped):
        _reader(r, stop, reopen=True).read_at(0, 100)


def test_a_fifo_opens_without_its_writer_and_a_stop_ends_the_wait(tmp_path: Path) -> None:
    """open() of a FIFO waits for a writer inside the system call, where a signal could not
    end it: it is opened at once and waited for by its reads."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            open_source(str(fifo), lambda: ("interrupted", "interrupted by SIGTERM"))
        except BaseException as exc:  # handed to the test
            done.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # still blocked in open(): free it for the test run's sake
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("open_source waited inside open() for a writer")
    assert len(done) == 1 and isinstance(done[0], ReadStopped)


def test_a_fifo_is_read_whole_once_its_writer_comes(tmp_path: Path) -> None:
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    data = b"".join(b"line %d\n" % i for i in range(50_000))  # past a pipe's 64 KiB

    def write() -> None:
        time.sleep(3 * WAIT_S)
        with open(fifo, "wb") as out:
            out.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    source = open_source(str(fifo))
    try:
        got = source.read_at(0, len(data) + 10)
    finally:
        source.close()
        writer.join()
    assert got == data
