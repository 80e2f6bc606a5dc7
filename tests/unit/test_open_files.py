"""A bounded number of open files: many plain and compressed inputs, low limits, threads."""

from __future__ import annotations

import bz2
import gzip
import os
import resource
import signal
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path

import pytest

from logagent.sources import files
from logagent.sources.files import InputChanged, ReadStopped, open_bound, open_source


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _text(i: int) -> bytes:
    return b"".join(b"file %d line %d %s\n" % (i, j, b"x" * (j % 50)) for j in range(400))


def _write(path: Path, data: bytes) -> Path:
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(data))
    elif path.suffix == ".bz2":
        path.write_bytes(bz2.compress(data))
    else:
        path.write_bytes(data)
    return path


@pytest.fixture(autouse=True)
def own_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test counts only its own open files: sources other tests left open are neither
    closed by its evictions nor counted against its bound."""
    monkeypatch.setattr(files, "_OPEN", OrderedDict())


@pytest.fixture
def bound(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(files, "MAX_OPEN_FILES", 4)
    assert open_bound() == 4
    return 4


@pytest.mark.parametrize("suffix", [".log", ".gz", ".bz2"])
def test_many_inputs_hold_a_bounded_number_of_descriptors(
    tmp_path: Path, bound: int, suffix: str
) -> None:
    """Forty inputs: every head read (detection's sample), then every input read whole in
    pieces; at most ``bound`` are open at once, and every byte is the file's."""
    paths = [_write(tmp_path / f"f{i}{suffix}", _text(i)) for i in range(40)]
    before = open_fds()
    sources = [open_source(str(p)) for p in paths]
    most = open_fds() - before
    try:
        heads = [s.read_at(0, 100) for s in sources]
        most = max(most, open_fds() - before)
        for i, source in enumerate(sources):
            assert heads[i] == _text(i)[:100]
            got, offset = b"", 0
            while chunk := source.read_at(offset, 1000):
                got += chunk
                offset += len(chunk)
                most = max(most, open_fds() - before)
            assert got == _text(i)
    finally:
        for source in sources:
            source.close()
    assert most <= bound
    assert open_fds() == before


def test_a_compressed_file_replaced_while_let_go_stops_the_read(tmp_path: Path, bound: int) -> None:
    """A stream closed to bound the count is opened again only if it is the same file with
    the same bytes: replaced (another inode) or rewritten in place, the read stops."""
    a, b = tmp_path / "a.gz", tmp_path / "b.gz"
    _write(a, _text(1))
    _write(b, _text(1))
    first, second = open_source(str(a)), open_source(str(b))
    others = [open_source(str(_write(tmp_path / f"o{i}.gz", _text(i)))) for i in range(bound)]
    try:
        assert first.read_at(0, 500) == second.read_at(0, 500) == _text(1)[:500]
        for other in others:  # both are let go (the cheapest to open again)
            other.read_at(0, 2000)
        assert files._OPEN.get(id(first)) is None and files._OPEN.get(id(second)) is None
        os.rename(a, tmp_path / "a.gz.1")  # rotated: the path names another file
        _write(a, _text(1))
        with pytest.raises(InputChanged, match="another file"):
            first.read_at(500, 500)
        with open(b, "r+b") as f:  # the same file, other bytes
            f.truncate(0)
            f.write(gzip.compress(_text(2)))
        with pytest.raises(InputChanged, match="changed while it was read"):
            second.read_at(500, 500)
    finally:
        for source in (first, second, *others):
            source.close()


def test_a_low_open_file_limit_lowers_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``ulimit -n 64`` at most 8 inputs are open (an eighth), never fewer than 4."""
    limits = {resource.RLIMIT_NOFILE: (64, 4096)}
    monkeypatch.setattr(resource, "getrlimit", lambda which: limits[which])
    assert open_bound() == 8
    limits[resource.RLIMIT_NOFILE] = (16, 4096)
    assert open_bound() == 4
    limits[resource.RLIMIT_NOFILE] = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
    assert open_bound() == files.MAX_OPEN_FILES


def test_threads_reading_many_files_never_read_through_a_closed_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service's jobs read in threads of one process: one thread opening files must not
    close a descriptor another is reading through (a reused number reads another file), and
    two threads opening one file again at once keep one descriptor (none leaks)."""
    monkeypatch.setattr(files, "MAX_OPEN_FILES", 2)
    before = open_fds()
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        paths = [_write(tmp_path / f"f{i}.log", bytes([65 + i]) * 4096) for i in range(8)]
        sources = [open_source(str(p)) for p in paths]
        errors: list[BaseException] = []

        def read(order: list[int]) -> None:
            try:
                for round_ in range(300):
                    for i in order:
                        offset = (round_ * 7) % 4000
                        assert sources[i].read_at(offset, 64) == bytes([65 + i]) * 64
                        view = memoryview(bytearray(32))
                        assert sources[i].read_into(offset, view) == 32
                        assert view.tobytes() == bytes([65 + i]) * 32
            except BaseException as exc:  # reported by the test thread
                errors.append(exc)

        threads = [
            threading.Thread(target=read, args=([0, 1, 2, 3, 4, 5, 6, 7],)),
            threading.Thread(target=read, args=([7, 6, 5, 4, 3, 2, 1, 0],)),
            threading.Thread(target=read, args=([4, 5, 6, 7],)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for source in sources:
            source.close()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    assert open_fds() == before


def test_a_fork_while_another_thread_holds_the_lock_leaves_the_child_a_working_one(
    tmp_path: Path, bound: int
) -> None:
    """A scan child forked while another thread (another job) held the open-file lock must
    not wait for it forever: the lock is held across the fork and the child gets its own."""
    source = open_source(str(_write(tmp_path / "a.log", _text(1))))
    source._release()  # the child's read must take the lock to open it again
    with files._LOCK:
        files._OPEN.pop(id(source), None)
    held, go = threading.Event(), threading.Event()

    def hold() -> None:
        with files._LOCK:
            held.set()
            go.wait(0.3)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    pid = os.fork()
    if pid == 0:  # the child: one read, then leave without pytest's teardown
        try:
            os._exit(0 if source.read_at(0, 10) == _text(1)[:10] else 1)
        except BaseException:
            os._exit(2)
    go.set()
    holder.join()
    deadline = time.monotonic() + 10
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    source.close()
    assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0


def test_damaged_compressed_files_let_their_descriptor_go(tmp_path: Path, bound: int) -> None:
    """A truncated .gz ends its read early (the bytes before the cut counted) and lets its
    file go: forty of them never hold more than the bound."""
    before = open_fds()
    sources = []
    for i in range(40):
        path = tmp_path / f"cut{i}.gz"
        path.write_bytes(gzip.compress(_text(i))[:-30])
        sources.append(open_source(str(path)))
    most = 0
    try:
        for source in sources:
            offset = 0
            while chunk := source.read_at(offset, 4096):
                offset += len(chunk)
            most = max(most, open_fds() - before)
            assert source.error is not None and 0 < offset < len(_text(0))
    finally:
        for source in sources:
            source.close()
    assert most <= bound


def test_a_stream_deep_into_its_read_is_the_last_to_be_let_go(tmp_path: Path, bound: int) -> None:
    """Other files opening past the bound close plain files and barely read streams first:
    the stream far into its read (opening it again decompresses all that again) stays."""
    deep = open_source(str(_write(tmp_path / "deep.gz", _text(1) * 50)))
    assert len(deep.read_at(0, 200_000)) == 200_000
    fresh = [open_source(str(_write(tmp_path / f"s{i}.gz", _text(i)))) for i in range(3)]
    plain = [open_source(str(_write(tmp_path / f"p{i}.log", _text(i)))) for i in range(10)]
    try:
        for source in [*fresh, *plain]:
            source.read_at(0, 100)
        assert id(deep) in files._OPEN  # never let go: it was the costliest
        assert len(files._OPEN) <= bound
        assert deep.read_at(200_000, 10) == (_text(1) * 50)[200_000:200_010]
    finally:
        for source in [deep, *fresh, *plain]:
            source.close()


def test_opening_a_stream_again_heeds_a_stop(tmp_path: Path, bound: int) -> None:
    """Decompressing a stream again up to its place asks the stop check between pieces: a
    signal stops it (ReadStopped), and a later read still resumes it right."""
    data = os.urandom(3 << 20)
    source = open_source(str(_write(tmp_path / "big.gz", data)))
    assert source.read_at(0, 3 << 20) == data[: 3 << 20]
    source._release()  # let go, as the bound would
    asked: list[int] = []

    def stop() -> tuple[str, str] | None:
        asked.append(1)
        return ("signal", "stopped by SIGTERM") if len(asked) > 1 else None

    source.stop_check = stop
    with pytest.raises(ReadStopped):
        source.read_at(3 << 20, 10)
    source.stop_check = None
    try:
        assert source.read_at(3 << 20, 10) == b""  # its end, reached again
    finally:
        source.close()
    assert len(asked) >= 2


def test_close_waits_for_the_read_in_another_thread(tmp_path: Path) -> None:
    """``close`` while a read holds the descriptor (a reader thread abandoned after a stop)
    closes it when that read is done, never under it (its number could be reused)."""
    source = open_source(str(_write(tmp_path / "a.log", _text(1))))
    fd = source._pin()
    source.close()
    os.fstat(fd)  # still open: the read goes on safely
    source._unpin()
    with pytest.raises(OSError):
        os.fstat(fd)


def test_a_finished_stream_read_again_lets_no_live_one_go(tmp_path: Path, bound: int) -> None:
    """Reading at the end of a stream that let its file go needs no descriptor: the streams
    still open stay open."""
    done = open_source(str(_write(tmp_path / "done.gz", b"x\n")))
    assert done.read_at(0, 10) == b"x\n" and done.read_at(2, 10) == b""
    live = [open_source(str(_write(tmp_path / f"l{i}.gz", _text(i)))) for i in range(bound)]
    try:
        for source in live:
            source.read_at(0, 10)
        assert done.read_at(2, 10) == b""
        assert all(id(s) in files._OPEN for s in live)
    finally:
        for source in [done, *live]:
            source.close()


@pytest.mark.parametrize("suffix", [".log", ".gz"])
def test_a_read_after_close_keeps_no_descriptor(tmp_path: Path, bound: int, suffix: str) -> None:
    """A reader still running after ``close`` (abandoned after a stop) reads, but the file
    it opened again is neither counted as open nor left open."""
    before = open_fds()
    source = open_source(str(_write(tmp_path / f"a{suffix}", _text(1))))
    source.close()
    assert source.read_at(0, 10) == _text(1)[:10]
    assert id(source) not in files._OPEN and open_fds() == before


def test_opening_the_cheapest_file_still_closes_another(tmp_path: Path, bound: int) -> None:
    """A plain file (nothing to decompress again: the cheapest) opened beside ``bound``
    streams read a little: one stream goes, the count stays at the bound."""
    streams = [open_source(str(_write(tmp_path / f"s{i}.gz", _text(i)))) for i in range(bound)]
    for source in streams:
        source.read_at(0, 100)
    plain = open_source(str(_write(tmp_path / "p.log", _text(9))))
    try:
        assert len(files._OPEN) <= bound and plain._fd is not None  # itself never closed
        assert plain.read_at(0, 10) == _text(9)[:10]
    finally:
        for source in [*streams, plain]:
            source.close()
