"""Open log inputs: plain files, compressed files and stdin (EDGE).

A plain file is *seekable*: it is read with positional reads (``os.pread``),
in any unit order. Compressed files (gzip, zstd, bzip2, xz, found by magic bytes),
UTF-16 and UTF-32 text (found by its byte-order mark, read as UTF-8) and stdin
are *streams*: they are read forwards only, through ``ForwardReader``, which
offers the same ``read_at`` as a file but refuses to go back. Third-party
decoding errors become ``InputCorrupt`` here, once.
"""

from __future__ import annotations

import functools
import os
import resource
import stat
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, cast

from logagent.errors import (
    InputCorrupt,
    InputError,
    InputIsDirectory,
    InputNotFound,
    InputPermissionError,
    ReadStopped,
)
from logagent.magic import MAGIC, kind_of, pinned_codec
from logagent.sources.paths import STDIN, resolve_paths
from logagent.sources.polled import Eager, open_waiting
from logagent.sources.streams import (
    ForwardReader,
    InputChanged,
    Opened,
    decompressing,
)

__all__ = [
    "MAGIC",
    "STDIN",
    "ForwardReader",
    "InputChanged",
    "ReadStopped",
    "Source",
    "open_source",
    "resolve_paths",
]


#: Files (plain or compressed) kept open at once; the rest are reopened on demand (a glob
#: of 2,000 files must not hit the usual 1,024 open-file limit). Fewer under a lower limit.
MAX_OPEN_FILES = 128
_OPEN: OrderedDict[int, Source] = OrderedDict()  # id(source) -> source holding an fd, LRU
#: Guards ``_OPEN`` and the sources' pins: the service's jobs read in threads of one process,
#: and a descriptor closed under another thread's read could be reused by another file.
_LOCK = threading.Lock()


def _fresh_lock_in_child() -> None:
    """A forked child (a scan worker) starts with a lock of its own: it has one thread."""
    global _LOCK
    _LOCK = threading.Lock()


# Held across a fork, so no other thread is inside it then (the child's copy is replaced).
os.register_at_fork(
    before=lambda: _LOCK.acquire(),
    after_in_parent=lambda: _LOCK.release(),
    after_in_child=_fresh_lock_in_child,
)


def open_bound() -> int:
    """``MAX_OPEN_FILES``, or an eighth of a lower open-file limit (``ulimit -n``), at least 4."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):  # pragma: no cover - every POSIX system has the limit
        return MAX_OPEN_FILES
    if soft == resource.RLIM_INFINITY:
        return MAX_OPEN_FILES
    return max(4, min(MAX_OPEN_FILES, soft // 8))


#: asked before each read: None to go on, else (reason, why) to stop (a signal, a time budget)
StopCheck = Callable[[], "tuple[str, str] | None"]


#: The first bytes of a plain file kept when it is opened, compared once its read is done
#: (``Source.changed``).
HEAD_CHECK = 4096


@dataclass
class Source:
    """One opened input. ``size`` is None for streams (unknown until read).

    A file's descriptor (a compressed file's stream) is closed when more than
    ``open_bound()`` are open: never one a read is using (``_pins``), the
    cheapest to open again first (``_touch``). It is reopened by path only if
    the path still names the same file (device and inode), else the read stops
    with ``InputChanged`` (a stream is decompressed again up to where it was:
    ``streams.ForwardReader``). A read that ends before the planned ``size``
    (the file was truncated while read) raises ``InputChanged`` too: never a
    silent short count called exact.
    """

    path: str
    seekable: bool
    size: int | None
    compression: str | None
    _fd: int | None = None
    _stream: ForwardReader | None = None
    _ident: tuple[int, int] | None = None  # (st_dev, st_ino) of a plain file
    stop_check: StopCheck | None = None  # set by the engine: signals and budgets mid-batch
    _pins: int = 0  # reads using the descriptor now: it is not closed under them
    _closed: bool = False  # closed (while pinned: the last read done closes it)
    _head: bytes = b""  # a plain file's first bytes when opened (``changed``)

    def read_at(self, offset: int, n: int) -> bytes:
        """Read up to ``n`` bytes at ``offset`` (forwards only for streams).

        ``stop_check`` is asked first: skipping one 10 GB line is thousands of
        reads inside one batch, and a signal or a time budget must not wait for it.
        """
        stream = self._stream
        if stream is not None and stream.stopped:  # what came before the stop: read, and the
            return self._stream_read(offset, n)  # run stops after that batch
        self.check_stop()
        if not self.seekable:
            return self._stream_read(offset, n)
        fd = self._pin()
        try:
            data = os.pread(fd, n, offset)
        except OSError as exc:
            raise InputError(f"read failed: {exc.strerror}", path=self.path) from exc
        finally:
            self._unpin()
        if len(data) < n:
            self._check_short(offset + len(data))
        return data

    def read_into(self, offset: int, view: memoryview) -> int:
        """Read into ``view`` at ``offset`` (seekable files only); returns the bytes read."""
        fd = self._pin()
        try:  # a short read is not the end (network file systems, reads over 2 GiB)
            got = os.preadv(fd, [view], offset)  # the sampled read's many small reads: one call
            while 0 < got < len(view):
                n = os.preadv(fd, [view[got:]], offset + got)
                if n == 0:
                    break
                got += n
        except OSError as exc:
            raise InputError(f"read failed: {exc.strerror}", path=self.path) from exc
        finally:
            self._unpin()
        if got < len(view):
            self._check_short(offset + got)
        return got

    def changed(self) -> str | None:
        """Why a plain file is no longer the one opened, by its first bytes (``HEAD_CHECK``),
        or None (a stream, a compressed file: None). A rotation by copy while the file was
        read (``copytruncate``) empties it, and a writer that goes on at its old offset makes
        it as long as before at once, its start a run of zero bytes: no read ends short,
        and the lines read there were no lines (a review: "exact" on 12 % of them)."""
        if not self.seekable or self.compression is not None or not self._head:
            return None
        try:
            fd = self._pin()
        except InputChanged:  # the path names another file now (rotated by rename): the one
            return None  # read keeps its bytes, and a read that needed it again said so
        try:
            now = os.pread(fd, len(self._head), 0)
        except OSError as exc:
            return f"the file cannot be read again ({exc.strerror})"
        finally:
            self._unpin()
        if now == self._head:
            return None
        return (
            "the file changed while it was read: its first bytes are not those it held when "
            "the run began (emptied and written again, as a rotation by copy does, or edited)"
        )

    def check_stop(self) -> None:
        """Raise ``ReadStopped`` when ``stop_check`` says to stop (a signal, a budget)."""
        _raise_if(self.stop_check)

    def _stream_read(self, offset: int, n: int) -> bytes:
        """A stream's ``read_at``; a compressed file's stream counts as an open file."""
        stream = self._stream
        assert stream is not None
        if not stream.reopenable or stream.eof:  # stdin, a pipe; or a stream that let go
            return stream.read_at(offset, n)
        with _LOCK:
            self._pins += 1
        try:
            with _LOCK:
                self._touch()
            return stream.read_at(offset, n)
        finally:
            self._unpin()
            if stream.eof:  # it let its file go at its end (or its damage)
                with _LOCK:
                    _OPEN.pop(id(self), None)

    def _check_short(self, end: int) -> None:
        """A read ended at ``end``: fine at the planned size, an ``InputChanged`` before it."""
        if self.size is not None and end < self.size:
            raise InputChanged(
                f"the file shrank while it was read (it held {self.size:,} bytes, the read "
                f"ended at {end:,}): it was truncated or rotated by copy",
                path=self.path,
                offset=end,
            )

    def _pin(self) -> int:
        """The open descriptor of a plain file, kept open until ``_unpin``; reopened (its
        identity checked) if it was closed to bound the count."""
        with _LOCK:
            self._pins += 1
            if self._fd is not None:
                if not self._closed:
                    _OPEN[id(self)] = self
                    _OPEN.move_to_end(id(self))
                return self._fd
        try:
            fd = _reopen_fd(self.path, self._ident)
            with _LOCK:
                if self._fd is not None:  # another thread opened it meanwhile
                    os.close(fd)
                    return self._fd
                self._fd = fd
                self._touch()
            return fd
        except BaseException:
            self._unpin()
            raise

    def _unpin(self) -> None:
        """The read is done; a close asked for meanwhile happens now (``close``)."""
        with _LOCK:
            self._pins -= 1
            if self._pins or not self._closed:
                return
        self._shut()

    def _hold(self, fd: int) -> None:
        """Keep ``fd`` open, closing the least recently read file's past the bound."""
        with _LOCK:
            self._fd = fd
            self._touch()

    def _touch(self) -> None:
        """Count this source's descriptor as the most recently used, and close others past
        the bound (``_LOCK`` held): none a read is using, the cheapest to open again first
        (a plain file; a stream decompressed the least so far), the least recently used
        among equals. So a stream deep into its read is the last to go: opening it again
        decompresses everything before its place again."""
        if self._closed:  # a read racing ``close``: its descriptor goes with its last unpin
            return
        _OPEN[id(self)] = self
        _OPEN.move_to_end(id(self))
        excess = len(_OPEN) - open_bound()
        if excess <= 0:
            return
        idle = [
            (o._reopen_cost(), i, k)
            for i, (k, o) in enumerate(_OPEN.items())
            if not o._pins and o is not self
        ]
        for _, _, key in sorted(idle)[:excess]:
            _OPEN.pop(key)._release()

    def _reopen_cost(self) -> int:
        """Bytes a reopening decompresses again (0 for a plain file)."""
        return self._stream.produced if self._stream is not None else 0

    def _release(self) -> None:
        fd, self._fd = self._fd, None  # never left set on a descriptor that may be closed
        if fd is not None:
            os.close(fd)
        if self._stream is not None:
            self._stream.suspend()

    @property
    def error(self) -> InputCorrupt | None:
        """The damage that ended a compressed stream early, if any (what came before was read)."""
        return self._stream.error if self._stream else None

    def close(self) -> None:
        """Release the file descriptor or stream; a read using it in another thread (a
        reader abandoned after a stop) finishes first: the last ``_unpin`` closes it."""
        with _LOCK:
            self._closed = True
            _OPEN.pop(id(self), None)
            if self._pins:
                return
        self._shut()

    def _shut(self) -> None:
        self._release()
        if self._stream is not None:
            self._stream.close()


def open_source(path: str, stop: StopCheck | None = None, *, text: str | None = None) -> Source:
    """Open one input; raise an ``InputError`` subclass with a clear message.

    ``stop``: the source's first ``stop_check``, asked while a pipe, a FIFO or
    standard input has no data yet (``polled``; the engine sets its own later).
    ``text``: the codec (``magic.BYTE_ORDER_CODECS``) of a regular file that has no
    mark or magic of its own, when its first bytes read as that codec (``magic.reads_as``:
    cron's UTF-16 log, cut by ``copytruncate``).
    """
    if path == STDIN:
        if sys.stdin is None:  # started with stdin closed (`<&-`)
            raise InputError("standard input is closed: nothing to read from '-'", path=STDIN)
        try:
            fd = sys.stdin.fileno()
        except (OSError, ValueError):  # replaced by an object with no descriptor (tests)
            raw = sys.stdin.buffer
            kind = kind_of(raw.peek(4)[:4]) if hasattr(raw, "peek") else None
            return _open_stream("<stdin>", kind, raw, owned=False)
        return _open_waiting("<stdin>", fd, stop, owned=False)  # stdin is the process's
    fd = _open_fd(path)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, /dev/stdin, <(zcat x.gz): forwards only
        return _open_waiting(path, fd, stop)
    try:
        head = os.pread(fd, 4 if text is None else 64, 0)
    except OSError as exc:
        os.close(fd)
        raise InputError(f"cannot read: {exc.strerror}", path=path) from exc
    kind = kind_of(head) or pinned_codec(text, head)
    if kind is None:
        st = os.fstat(fd)
        source = Source(path, seekable=True, size=st.st_size, compression=None)
        source._ident = (st.st_dev, st.st_ino)
        try:
            source._head = os.pread(fd, HEAD_CHECK, 0)
        except OSError:  # read again at once by the sample, which says what is wrong
            source._head = b""
        source._hold(fd)  # closed again if many files are open; reopened with its identity checked
        return source
    return _open_compressed(path, kind, fd, text)


def _open_fd(path: str) -> int:
    try:  # a FIFO without its writer yet: opened now, waited for by its reads (``polled``)
        fifo = stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        fifo = False  # os.open says what is wrong
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_NONBLOCK if fifo else 0))
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


def _reopen_fd(path: str, ident: tuple[int, int] | None) -> int:
    """``path`` opened again for a read under way: an ``InputChanged`` (what was read is
    kept) when it is gone or names another file than ``ident`` (device, inode)."""
    try:
        fd = _open_fd(path)
    except InputError as exc:
        gone = ": it vanished or was rotated" if isinstance(exc, InputNotFound) else ""
        message = f"the file cannot be opened again ({exc.message}){gone}"
        raise InputChanged(message, path=path) from exc
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise InputChanged(f"the file cannot be opened again ({exc.strerror})", path=path) from exc
    if ident is not None and (st.st_dev, st.st_ino) != ident:
        os.close(fd)
        raise InputChanged(
            "the path names another file than when the run began (rotated or replaced)",
            path=path,
        )
    return fd


def _open_stream(path: str, kind: str | None, raw: IO[bytes], *, owned: bool = True) -> Source:
    """A stream source over ``raw`` (``owned``: closed with the source; stdin is not)."""
    stream, closers = decompressing(kind, raw)
    if not owned:
        closers.remove(raw)
    reader = ForwardReader(stream, path, closers=closers)
    return Source(path, seekable=False, size=None, compression=kind, _stream=reader)


def _open_waiting(path: str, fd: int, stop: StopCheck | None, *, owned: bool = True) -> Source:
    """A pipe, FIFO, terminal or standard input: a stream whose reads wait for data in
    slices, asking the source's ``stop_check`` (``stop`` until the engine sets its own)."""
    raw, polled = open_waiting(fd, owned=owned)
    polled.check = functools.partial(_raise_if, stop)  # the format's first bytes may wait
    try:
        kind = kind_of(raw.peek(4)[:4])
    except BaseException:
        if owned:
            raw.close()
        raise
    eager = None if kind is None else Eager(raw)  # decoders: what came, not n bytes
    source = _open_stream(
        path, kind, raw if eager is None else cast("IO[bytes]", eager), owned=owned
    )
    if source._stream is not None:
        source._stream.raw_stop = eager
    source.stop_check = stop
    polled.check = source.check_stop  # the engine's later ``stop_check`` is asked
    return source


def _raise_if(stop: StopCheck | None) -> None:
    """Raise ``ReadStopped`` when ``stop`` says to stop."""
    if stop is not None and (why := stop()) is not None:
        raise ReadStopped(why[1], why[0])


def _open_compressed(path: str, kind: str, fd: int, text: str | None = None) -> Source:
    """A compressed (or UTF-16) file: a stream that may be let go and opened again
    (``text``: as for ``open_source``, of the decompressed content)."""
    st = os.fstat(fd)
    ident = (st.st_dev, st.st_ino)

    def reopen() -> Opened:
        return decompressing(kind, os.fdopen(_reopen_fd(path, ident), "rb"), text)

    stream, closers = decompressing(kind, os.fdopen(fd, "rb"), text)
    reader = ForwardReader(stream, path, closers=closers, reopen=reopen)
    source = Source(path, seekable=False, size=None, compression=kind, _stream=reader)
    reader.check_stop = source.check_stop  # a long decompression again must heed a signal
    with _LOCK:
        source._touch()  # closed again if many files are open
    return source
