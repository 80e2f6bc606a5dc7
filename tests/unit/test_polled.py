"""Reads from a pipe wait in slices and heed a stop (``sources.polled``, ``ForwardReader``).

Real pipes (``os.pipe``, a FIFO), their writers kept open: a quiet writer is not an end.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from logagent import Question, QuestionKind, Result, Settings, Status, analyze, load_settings
from logagent.engine.run import RunEnv
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


def _signal_after(seconds: float) -> Callable[[], str | None]:
    """A run's pending signal: none until ``seconds`` have passed, then SIGTERM."""
    at = time.monotonic() + seconds
    return lambda: "SIGTERM" if time.monotonic() >= at else None


def _access_lines(n: int) -> bytes:
    return "".join(
        f'10.0.0.{i % 9} - - [01/Dec/2026:10:00:{i % 60:02d} +0000] "GET /a/{i % 4} HTTP/1.1" '
        f'{500 + i % 3} 12 "-" "x"\n'
        for i in range(n)
    ).encode()


def _quiet_fifo_run(tmp_path: Path, data: bytes, settings: Settings, env: RunEnv) -> Result:
    """``analyze`` of a FIFO whose writer writes ``data``, then stays quiet (not gone)."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    opened: list[int] = []

    def write() -> None:
        opened.append(os.open(fifo, os.O_WRONLY))  # waits for the run to open it
        os.write(opened[0], data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    got: list[Result] = []
    question = Question(kind=QuestionKind.TOP_ERRORS, top=3)
    run = threading.Thread(
        target=lambda: got.append(analyze([str(fifo)], question, settings, env)), daemon=True
    )
    run.start()
    run.join(timeout=60)
    stuck = run.is_alive()
    writer.join(timeout=30)
    for fd in opened:
        os.close(fd)  # the writer gone: a stuck run ends (at the pipe's end)
    run.join(timeout=60)
    assert not stuck, "the run kept waiting on the quiet pipe"
    return got[0]


def test_a_signal_while_the_sample_waits_keeps_every_line_that_came(tmp_path: Path) -> None:
    """Fewer lines than the format sample's bytes came, then the writer went quiet: the stop
    comes during detection, and the partial answer counts all of them (the read proper asked
    the stop check first and raised at once, with nothing counted)."""
    signal = _signal_after(1.0)
    env = RunEnv(interrupted=signal, pending_signal=signal)
    result = _quiet_fifo_run(tmp_path, _access_lines(300), load_settings(), env)
    assert result.status is Status.PARTIAL and result.progress.lines_read == 300
    assert sum(e.count for e in result.answer.top) == 300  # every line is a 5xx


def test_a_time_budget_while_a_pipe_is_quiet_stops_it(tmp_path: Path) -> None:
    """``--max-seconds`` counts from the opening, and is asked while a pipe is quiet during
    detection (budgets were asked only once the read proper began: it waited for ever)."""
    settings = load_settings(budget={"max_seconds": 1.0})
    started = time.monotonic()
    result = _quiet_fifo_run(tmp_path, _access_lines(50), settings, RunEnv())
    assert result.status is Status.PARTIAL and result.progress.lines_read == 50
    assert time.monotonic() - started < 60


@pytest.mark.parametrize(
    "encode",
    [gzip.compress, bz2.compress, lambda data: data.decode().encode("utf-16")],
    ids=["gzip", "bzip2", "utf-16"],
)
def test_a_signal_on_a_quiet_encoded_pipe_keeps_what_was_decoded(
    tmp_path: Path, encode: Callable[[bytes], bytes]
) -> None:
    """A decoder over a pipe read ``n`` bytes with a buffered ``read(n)``, which waits for all
    of them: the stop while it waited lost what it had taken (gzip ~100, bzip2 and UTF-16
    every line). It now hands on what came (``polled.Eager``, the decoders' ``read1``)."""
    signal = _signal_after(1.0)
    env = RunEnv(interrupted=signal, pending_signal=signal)
    result = _quiet_fifo_run(tmp_path, encode(_access_lines(300)), load_settings(), env)
    assert result.status is Status.PARTIAL and result.progress.lines_read == 300


def test_dask_refuses_a_fifo_before_its_open_waits(tmp_path: Path) -> None:
    """Workers cannot read a pipe: a FIFO is refused by its type, not after an open() that
    waited for its writer (where a signal could not end it)."""
    from logagent.distributed.inputs import open_inputs
    from logagent.errors import ConfigError

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    raised: list[BaseException] = []

    def attempt() -> None:
        try:
            open_inputs([str(fifo)])
        except BaseException as exc:  # handed to the test
            raised.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():  # waiting in open(): free it for the test run's sake
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("open_inputs waited for the FIFO's writer")
    assert len(raised) == 1 and isinstance(raised[0], ConfigError)
    assert "pipe or FIFO" in str(raised[0])


def test_a_stop_before_any_line_exits_130_for_a_signal_and_2_for_a_budget() -> None:
    from logagent.cli.exits import EXIT_INTERRUPTED, EXIT_USAGE, exit_code_for
    from logagent.routermem.router import Reason

    signal = ReadStopped("interrupted by SIGTERM before a whole line came", "interrupted")
    assert signal.interrupted and Reason.INTERRUPTED.value == signal.reason
    assert exit_code_for(signal) == EXIT_INTERRUPTED
    budget = ReadStopped("--max-seconds 2 spent", Reason.TIME_BUDGET.value)
    assert exit_code_for(budget) == EXIT_USAGE
