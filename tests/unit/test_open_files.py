"""A bounded number of open files: many plain and compressed inputs, low limits, threads."""

from __future__ import annotations

import bz2
import gzip
import os
import resource
import sys
import threading
from pathlib import Path

import pytest

from logagent.sources import files
from logagent.sources.files import InputChanged, open_bound, open_source


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
        for other in others:  # both are let go
            other.read_at(0, 10)
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
