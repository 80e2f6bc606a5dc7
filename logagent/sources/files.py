"""Open log inputs: plain files, compressed files and stdin (EDGE).

A plain file is *seekable*: it is read with positional reads (``os.pread``),
in any unit order. Compressed files (gzip, zstd, bzip2, found by magic bytes)
and stdin are *streams*: they are read forwards only, through
``ForwardReader``, which offers the same ``read_at`` as a file but refuses to
go back. Third-party decoding errors become ``InputCorrupt`` here, once.
"""

from __future__ import annotations

import bz2
import glob
import gzip
import os
import stat
import sys
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from logagent.errors import (
    InputCorrupt,
    InputError,
    InputIsDirectory,
    InputNotFound,
    InputPermissionError,
)

MAGIC = {b"\x1f\x8b": "gzip", b"\x28\xb5\x2f\xfd": "zstd", b"BZh": "bzip2"}
STDIN = "-"
FEED_BYTES = 16 << 10  # compressed bytes fed to zstd at a time: a damaged feed yields nothing


#: plain files kept open at once; the rest are reopened on demand (a glob of 2,000 files
#: must not hit the usual 1,024 open-file limit)
MAX_OPEN_FILES = 128
_OPEN: OrderedDict[int, Source] = OrderedDict()  # id(source) -> source holding an fd, LRU


class InputChanged(InputCorrupt):
    """A file shrank, or was replaced, while it was read: what was read is kept, not the rest."""


class ReadStopped(InputError):
    """A read was cut short by a signal or a time budget; ``reason`` is Router-Mem's word for it."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


#: asked before each read: None to go on, else (reason, why) to stop (a signal, a time budget)
StopCheck = Callable[[], "tuple[str, str] | None"]


@dataclass
class Source:
    """One opened input. ``size`` is None for streams (unknown until read).

    A plain file's descriptor is opened lazily and closed when more than
    ``MAX_OPEN_FILES`` are open; it is reopened by path only if the path still
    names the same file (device and inode), else the read stops with
    ``InputChanged``. A read that ends before the planned ``size`` (the file
    was truncated while read) raises ``InputChanged`` too: never a silent
    short count called exact.
    """

    path: str
    seekable: bool
    size: int | None
    compression: str | None
    _fd: int | None = None
    _stream: ForwardReader | None = None
    _closers: list[Any] = field(default_factory=list)
    _ident: tuple[int, int] | None = None  # (st_dev, st_ino) of a plain file
    stop_check: StopCheck | None = None  # set by the engine: signals and budgets mid-batch

    def read_at(self, offset: int, n: int) -> bytes:
        """Read up to ``n`` bytes at ``offset`` (forwards only for streams).

        ``stop_check`` is asked first: skipping one 10 GB line is thousands of
        reads inside one batch, and a signal or a time budget must not wait for it.
        """
        if self.stop_check is not None and (stop := self.stop_check()) is not None:
            raise ReadStopped(stop[1], stop[0])
        if self.seekable:
            fd = self._file()
            try:
                data = os.pread(fd, n, offset)
            except OSError as exc:
                raise InputError(f"read failed: {exc.strerror}", path=self.path) from exc
            if len(data) < n:
                self._check_short(offset + len(data))
            return data
        assert self._stream is not None
        return self._stream.read_at(offset, n)

    def read_into(self, offset: int, view: memoryview) -> int:
        """Read into ``view`` at ``offset`` (seekable files only); returns the bytes read."""
        fd = self._file()
        try:  # a short read is not the end (network file systems, reads over 2 GiB)
            got = os.preadv(fd, [view], offset)  # the sampled read's many small reads: one call
            while 0 < got < len(view):
                n = os.preadv(fd, [view[got:]], offset + got)
                if n == 0:
                    break
                got += n
        except OSError as exc:
            raise InputError(f"read failed: {exc.strerror}", path=self.path) from exc
        if got < len(view):
            self._check_short(offset + got)
        return got

    def _check_short(self, end: int) -> None:
        """A read ended at ``end``: fine at the planned size, an ``InputChanged`` before it."""
        if self.size is not None and end < self.size:
            raise InputChanged(
                f"the file shrank while it was read (it held {self.size:,} bytes, the read "
                f"ended at {end:,}): it was truncated or rotated by copy",
                path=self.path,
                offset=end,
            )

    def _file(self) -> int:
        """The open descriptor of a plain file, reopened if it was closed to bound the count."""
        if self._fd is not None:
            if len(_OPEN) > 1:  # the least recently read file is closed first
                _OPEN.move_to_end(id(self))
            return self._fd
        try:
            fd = _open_fd(self.path)
        except InputError as exc:
            raise InputChanged(
                f"the file cannot be opened again ({exc.message}): it vanished or was rotated",
                path=self.path,
            ) from exc
        st = os.fstat(fd)
        if self._ident is not None and (st.st_dev, st.st_ino) != self._ident:
            os.close(fd)
            raise InputChanged(
                "the path names another file than when the run began (rotated or replaced)",
                path=self.path,
            )
        self._hold(fd)
        return fd

    def _hold(self, fd: int) -> None:
        """Keep ``fd`` open, closing the least recently read file's past the bound."""
        self._fd = fd
        _OPEN[id(self)] = self
        while len(_OPEN) > MAX_OPEN_FILES:
            _, oldest = _OPEN.popitem(last=False)
            oldest._release()

    def _release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @property
    def error(self) -> InputCorrupt | None:
        """The damage that ended a compressed stream early, if any (what came before was read)."""
        return self._stream.error if self._stream else None

    def close(self) -> None:
        """Release the file descriptor or stream."""
        _OPEN.pop(id(self), None)
        self._release()
        for closer in reversed(self._closers):
            closer.close()
        self._closers.clear()


class ForwardReader:
    """``read_at`` over a forward-only stream, keeping at most one request buffered.

    A damaged or truncated compressed stream ends early instead of raising, so
    the bytes before the damage are still counted; ``error`` says what happened.
    """

    def __init__(self, raw: IO[bytes], path: str) -> None:
        self._raw = raw
        self._path = path
        self._buf = b""
        self._start = 0  # stream offset of _buf[0]
        self.eof = False
        self.error: InputCorrupt | None = None
        self._produced = 0  # bytes the stream gave so far

    def read_at(self, offset: int, n: int) -> bytes:
        """Bytes ``[offset, offset+n)`` of the stream; ``offset`` may never move backwards."""
        if offset < self._start:
            raise ValueError(f"stream {self._path} cannot seek back to {offset}")
        drop = offset - self._start
        if drop >= len(self._buf):
            self._skip(drop - len(self._buf))
            self._buf = b""
        else:
            self._buf = self._buf[drop:]
        self._start = offset
        parts = [self._buf]
        have = len(self._buf)
        while have < n and not self.eof:
            chunk = self._read(n - have)
            parts.append(chunk)
            have += len(chunk)
        self._buf = b"".join(parts)
        return self._buf[:n]

    def _fail(self, exc: Exception) -> bytes:
        self.eof = True
        self.error = InputCorrupt(
            f"input truncated or damaged after {self._produced} bytes of decompressed data: {exc}",
            path=self._path,
            offset=self._produced,
        )
        return b""

    def _skip(self, count: int) -> None:
        while count > 0 and not self.eof:
            count -= len(self._read(min(count, 1 << 20)))

    def _read(self, n: int) -> bytes:
        read = getattr(
            self._raw, "read1", self._raw.read
        )  # read1: what is there, no waiting for more
        try:
            chunk = read(n)
        except (EOFError, OSError, zlib.error, ValueError) as exc:
            return self._fail(exc)
        except Exception as exc:  # zstandard raises its own ZstdError
            if type(exc).__name__ != "ZstdError":
                raise
            return self._fail(exc)
        if not chunk:
            self.eof = True
        self._produced += len(chunk)
        return chunk


class ZstdFrames:
    """Decompress concatenated zstd frames; input that ends inside a frame is an error.

    (``zstandard``'s ``stream_reader`` reports a cut file as a clean end of stream.)
    The raw input is fed in small chunks, and everything decoded before a cut or
    a damaged block is handed out before the error is raised, so a truncated
    file yields what ``zstd -dc`` recovers from it.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        import zstandard

        self._raw = raw
        self._dctx = zstandard.ZstdDecompressor()
        self._damage = zstandard.ZstdError
        self._obj = self._dctx.decompressobj()
        self._buf = b""
        self._inside = False  # bytes of an unfinished frame were fed
        self._done = False
        self._error: Exception | None = None  # raised once the bytes before it are out

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` decompressed bytes (b"" at the end)."""
        while (n < 0 or len(self._buf) < n) and not self._done:
            chunk = self._raw.read(FEED_BYTES)
            if not chunk:
                self._done = True
                if self._inside:
                    self._error = EOFError("zstd input ends inside a frame (truncated)")
                break
            try:
                self._feed(chunk)
            except self._damage as exc:  # the bytes decoded before the damage stay
                self._done, self._error = True, exc
        if not self._buf and self._error is not None:
            raise self._error
        size = len(self._buf) if n < 0 else n
        out, self._buf = self._buf[:size], self._buf[size:]
        return out

    def _feed(self, data: bytes) -> None:
        while data:
            if self._obj.eof:
                self._obj = self._dctx.decompressobj()
            self._buf += self._obj.decompress(data)
            self._inside = not self._obj.eof
            data = self._obj.unused_data if self._obj.eof else b""

    def close(self) -> None:
        """Nothing of its own to release (the raw file is closed by its owner)."""


def resolve_paths(patterns: list[str]) -> list[str]:
    """Expand globs; every pattern must match at least one file ('-' is stdin).

    A glob skips the directories it matches (``/var/log/nginx/*`` may hold
    some); a directory named on its own is still an error.
    """
    out: list[str] = []
    for pattern in patterns:
        if pattern == STDIN or os.path.lexists(pattern) or not glob.has_magic(pattern):
            out.append(pattern)
            continue
        matches = sorted(m for m in glob.glob(pattern) if not os.path.isdir(m))
        if not matches:
            raise InputNotFound("no file matches this pattern", path=pattern)
        out.extend(matches)
    return _unique(out)


def _unique(paths: list[str]) -> list[str]:
    """Each input once (overlapping globs would count a file twice), in first-seen order."""
    seen: set[str] = set()
    out = []
    for path in paths:
        key = path if path == STDIN else os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


def open_source(path: str) -> Source:
    """Open one input; raise an ``InputError`` subclass with a clear message."""
    if path == STDIN:
        if sys.stdin is None:  # started with stdin closed (`<&-`)
            raise InputError("standard input is closed: nothing to read from '-'", path=STDIN)
        raw = sys.stdin.buffer
        kind = _kind(raw.peek(4)[:4]) if hasattr(raw, "peek") else None
        source = _open_stream("<stdin>", kind, raw)
        source._closers.remove(raw)  # stdin belongs to the process, not to this run
        return source
    fd = _open_fd(path)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, /dev/stdin, <(zcat x.gz): forwards only
        raw = os.fdopen(fd, "rb")
        return _open_stream(path, _kind(raw.peek(4)[:4]), raw)
    try:
        head = os.pread(fd, 4, 0)
    except OSError as exc:
        os.close(fd)
        raise InputError(f"cannot read: {exc.strerror}", path=path) from exc
    kind = _kind(head)
    if kind is None:
        st = os.fstat(fd)
        source = Source(path, seekable=True, size=st.st_size, compression=None)
        source._ident = (st.st_dev, st.st_ino)
        source._hold(fd)  # closed again if many files are open; reopened with its identity checked
        return source
    os.close(fd)
    return _open_stream(path, kind, open(path, "rb"))  # closed by Source.close


def _kind(head: bytes) -> str | None:
    """Compression named by the magic bytes at the start of the input, if any."""
    return next((k for magic, k in MAGIC.items() if head.startswith(magic)), None)


def _open_fd(path: str) -> int:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError as exc:
        raise InputNotFound("no such file", path=path) from exc
    except PermissionError as exc:
        raise InputPermissionError("permission denied", path=path) from exc
    except IsADirectoryError as exc:
        raise InputIsDirectory("is a directory, not a log file", path=path) from exc
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", path=path) from exc
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputIsDirectory("is a directory, not a log file", path=path)
    return fd


def _open_stream(path: str, kind: str | None, raw: IO[bytes]) -> Source:
    closers: list[Any] = [raw]
    stream: Any = raw
    if kind == "gzip":
        stream = gzip.GzipFile(fileobj=raw, mode="rb")
    elif kind == "bzip2":
        stream = bz2.BZ2File(raw, mode="rb")
    elif kind == "zstd":
        stream = ZstdFrames(raw)
    if stream is not raw:
        closers.append(stream)
    reader = ForwardReader(stream, path)
    return Source(
        path, seekable=False, size=None, compression=kind, _stream=reader, _closers=closers
    )
