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


@dataclass
class Source:
    """One opened input. ``size`` is None for streams (unknown until read)."""

    path: str
    seekable: bool
    size: int | None
    compression: str | None
    _fd: int | None = None
    _stream: ForwardReader | None = None
    _closers: list[Any] = field(default_factory=list)

    def read_at(self, offset: int, n: int) -> bytes:
        """Read up to ``n`` bytes at ``offset`` (forwards only for streams)."""
        if self._fd is not None:
            try:
                return os.pread(self._fd, n, offset)
            except OSError as exc:
                raise InputError(f"read failed: {exc.strerror}", path=self.path) from exc
        assert self._stream is not None
        return self._stream.read_at(offset, n)

    def read_into(self, offset: int, view: memoryview) -> int:
        """Read into ``view`` at ``offset`` (seekable files only); returns the bytes read."""
        assert self._fd is not None, "read_into needs a seekable file"
        got = 0
        try:  # a short read is not the end (network file systems, reads over 2 GiB)
            while got < len(view):
                n = os.preadv(self._fd, [view[got:]], offset + got)
                if n == 0:
                    break
                got += n
            return got
        except OSError as exc:
            raise InputError(f"read failed: {exc.strerror}", path=self.path) from exc

    @property
    def error(self) -> InputCorrupt | None:
        """The damage that ended a compressed stream early, if any (what came before was read)."""
        return self._stream.error if self._stream else None

    def close(self) -> None:
        """Release the file descriptor or stream."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
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
        return Source(path, seekable=True, size=os.fstat(fd).st_size, compression=None, _fd=fd)
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
