"""Forward-only inputs read by offset: compressed files, UTF-16 text, pipes, stdin (EDGE).

``ForwardReader`` offers the ``read_at`` of a file over a stream that only
goes forwards, keeping at most one request buffered. A damaged or truncated
compressed stream ends early instead of raising, so the bytes before the
damage are still counted; ``error`` says what happened. UTF-16 and UTF-32
text (a byte-order mark first, also inside a compressed file) is read as
the UTF-8 it holds (``Transcoded``, ``Sniffed``).

A compressed *file* can be let go between reads (``suspend``) and opened
again (``reopen``): decompressed from its start, the bytes already produced
skipped. So a run over 2,000 rotated ``.gz`` files holds a bounded number of
descriptors (``files.MAX_OPEN_FILES``), not one per file: format detection
reads every file's head before the read proper starts.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import zlib
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from logagent.errors import InputCorrupt, InputError, ReadStopped
from logagent.magic import BYTE_ORDER_CODECS, pinned_codec, text_kind

if TYPE_CHECKING:
    from logagent.sources.polled import Eager

MAX_READ = 1 << 20  # decompressed bytes a ``read()`` of everything asks at a time
STEP = 64 << 10  # decompressed bytes a zstd read takes at a time (``ZstdFrames.read``)
FEED_BYTES = 16 << 10  # compressed bytes fed to zstd at a time: a damaged feed yields nothing
#: The last bytes of a stream let go that must come out the same when it is opened again.
TAIL_CHECK = 4096


class InputChanged(InputCorrupt):
    """A file shrank, or was replaced, while it was read: what was read is kept, not the rest."""


#: A decompressed stream and what closing it means closing (the stream, then its file).
Opened = tuple[IO[bytes], list[Any]]


#: Text a Windows tool writes with a byte-order mark (SQL Server's ERRORLOG, PowerShell's
#: Out-File), read as the UTF-8 it holds: ``Transcoded``.
TEXT_ENCODINGS = frozenset({"utf-16", "utf-32", *BYTE_ORDER_CODECS})


def decompressing(kind: str | None, raw: IO[bytes], text: str | None = None) -> Opened:
    """``raw`` decompressed as ``kind`` (gzip, bzip2, xz, zstd), or decoded (``TEXT_ENCODINGS``);
    None: as it is. ``text``: the codec of a decompressed content without a mark of its own
    (``Sniffed``)."""
    stream: Any
    if kind in TEXT_ENCODINGS:
        stream = Transcoded(raw, kind)
    elif kind == "gzip":
        stream = Sniffed(gzip.GzipFile(fileobj=raw, mode="rb"), text)
    elif kind == "bzip2":
        stream = Sniffed(bz2.BZ2File(raw, mode="rb"), text)
    elif kind == "xz":
        stream = Sniffed(lzma.LZMAFile(raw, mode="rb"), text)  # noqa: SIM115 - closed by its closers
    elif kind == "zstd":
        stream = Sniffed(ZstdFrames(raw), text)
    else:
        return raw, [raw]
    return stream, [stream, raw]


class ForwardReader:
    """``read_at`` over a forward-only stream, keeping at most one request buffered.

    ``closers``: what ``close`` (and ``suspend``) closes, in order; ``reopen``:
    the same stream from its start again, or None where that cannot be (a pipe).
    """

    def __init__(
        self,
        raw: IO[bytes],
        path: str,
        *,
        closers: list[Any] | None = None,
        reopen: Callable[[], Opened] | None = None,
    ) -> None:
        self._raw: IO[bytes] | None = raw
        self._path = path
        self._closers = list(closers or [])
        self._reopen = reopen
        self._buf = b""
        self._start = 0  # stream offset of _buf[0]
        self.eof = False
        self.error: InputCorrupt | None = None
        self._produced = 0  # bytes the stream gave so far
        #: called between pieces of a long ``_resume`` (raises to stop: a signal, a budget)
        self.check_stop: Callable[[], None] | None = None
        self._tail = b""  # its last TAIL_CHECK bytes (``_resume`` checks them)
        self.stopped = False  # ended by a stop while it waited (``_ended_at_last_line``)
        #: the raw pipe under a decoder (``polled.Eager``): its ``stop`` ends this stream
        self.raw_stop: Eager | None = None

    @property
    def produced(self) -> int:
        """Bytes the stream gave so far (what opening it again decompresses again)."""
        return self._produced

    @property
    def reopenable(self) -> bool:
        """Whether the stream may be let go between reads and opened again (a file's)."""
        return self._reopen is not None

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
        try:
            while have < n and not self.eof:
                chunk = self._read(n - have)
                parts.append(chunk)
                have += len(chunk)
        except ReadStopped as exc:  # a signal or budget while a pipe waited for its writer
            self._buf = self._ended_at_last_line(b"".join(parts), exc)
            return self._buf[:n]
        self._buf = b"".join(parts)
        return self._buf[:n]

    def _ended_at_last_line(self, got: bytes, stop: ReadStopped) -> bytes:
        """A pipe stopped while it waited (``polled``): it ends after the last whole line
        it gave, so what came is read (the run stops partial on the same signal or budget
        after that batch); a line half written is not. With no whole line, or for a file's
        stream (never waiting), the stop is raised as it came."""
        cut = got.rfind(b"\n") + 1
        if self._reopen is not None or not cut:
            raise stop
        self.eof = True
        self.stopped = True
        self.close()
        return got[:cut]

    def suspend(self) -> None:
        """Close the stream until the next read needs it (a reopenable one only)."""
        if self._reopen is not None:
            self.close()

    def close(self) -> None:
        """Release the stream and its file."""
        self._raw = None
        for closer in self._closers:
            closer.close()
        self._closers = []

    def _fail(self, exc: Exception) -> bytes:
        self.eof = True
        self.close()  # nothing more can be read: its descriptor is not needed any more
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
        if self._raw is None:
            self._resume()
        assert self._raw is not None
        read = getattr(
            self._raw, "read1", self._raw.read
        )  # read1: what is there, no waiting for more
        try:
            chunk = read(n)
        except (EOFError, OSError, zlib.error, lzma.LZMAError, ValueError) as exc:
            self._stopped_raw()  # an end the decoder saw because its pipe was stopped
            return self._fail(exc)
        except Exception as exc:  # zstandard raises its own ZstdError
            if type(exc).__name__ != "ZstdError":
                raise
            self._stopped_raw()
            return self._fail(exc)
        if not chunk:
            self._stopped_raw()
            self.eof = True
            self.close()  # nothing more to read: its descriptor is not needed any more
        self._produced += len(chunk)
        if self._reopen is not None:
            keep = chunk if len(chunk) >= TAIL_CHECK else self._tail + chunk
            self._tail = keep[-TAIL_CHECK:]
        return chunk

    def _stopped_raw(self) -> None:
        """Raise the stop that ended the raw pipe under a decoder (``polled.Eager``), if any."""
        if self.raw_stop is not None and self.raw_stop.stop is not None:
            raise self.raw_stop.stop

    def _resume(self) -> None:
        """Open the stream again and skip what it gave before (``suspend``): its last bytes
        must come out the same, or the file is another one now."""
        if self._reopen is None:
            raise ValueError(f"stream {self._path} was closed")
        self._raw, self._closers = self._reopen()
        read = getattr(self._raw, "read1", self._raw.read)
        skip = self._produced - len(self._tail)
        got, tail = 0, bytearray()
        try:  # bytes that decoded before and do not now: the file is another one
            while got < self._produced and (chunk := read(min(self._produced - got, 1 << 20))):
                if got + len(chunk) > skip:
                    tail += chunk[max(0, skip - got) :]
                got += len(chunk)
                if self.check_stop is not None:
                    self.check_stop()
        except InputError:  # stopped (a signal, a budget): let go again, resumed next time
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise self._changed(got) from exc
        if got < self._produced or tail != self._tail:
            self.close()
            raise self._changed(got)

    def _changed(self, got: int) -> InputChanged:
        return InputChanged(
            f"the file changed while it was read: opened again, it gave {got:,} bytes where "
            f"{self._produced:,} were read before, or other bytes",
            path=self._path,
            offset=self._produced,
        )


class ZstdFrames:
    """Decompress concatenated zstd frames; input that ends inside a frame is an error.

    ``zstandard``'s ``stream_reader`` bounds each read (``decompressobj`` returned all a
    16 KiB feed expands to: 512 MiB of a stream of zeros) but reports a cut file as a clean
    end of stream, so the raw bytes it reads are followed by ``zstdframes.FrameEnds``,
    which says whether they end at a frame's end. The bytes decoded before a cut are
    handed out before the error is raised (what ``zstd -dc`` recovers); a damaged block
    raises the decoder's own error, after the reads before it.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        import zstandard

        from logagent.sources.zstdframes import FrameEnds

        self._frames = FrameEnds()
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            _Followed(raw, self._frames),  # type: ignore[arg-type]  # it only calls read()
            read_size=FEED_BYTES,
            read_across_frames=True,
        )
        self._damage = zstandard.ZstdError
        self._done = False
        self._error: Exception | None = None  # raised once the bytes before it are out

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` decompressed bytes (b"" at the end), read ``STEP`` at a time: a damaged
        block loses at most a step of what decodes before it."""
        if n < 0:  # everything, as asked
            return b"".join(iter(lambda: self.read(MAX_READ), b""))
        out = bytearray()
        while len(out) < n and not self._done:
            try:
                piece: bytes = self._reader.read(min(n - len(out), STEP))
            except self._damage as exc:  # the bytes decoded before the damage stay
                self._done, self._error = True, exc
                break
            if not piece:
                self._done = True
                if self._frames.broken is not None or not self._frames.at_boundary:
                    why = self._frames.broken or "zstd input ends inside a frame (truncated)"
                    self._error = EOFError(why)
                break
            out += piece
        if not out and self._error is not None:
            error, self._error = self._error, None
            raise error
        return bytes(out)

    def close(self) -> None:
        """Nothing of its own to release (the raw file is closed by its owner)."""


class _Followed:
    """A raw file whose bytes, as they are read, are fed to ``frames`` too."""

    def __init__(self, raw: IO[bytes], frames: Any) -> None:
        self._raw, self._frames = raw, frames

    def read(self, n: int = -1) -> bytes:
        data = self._raw.read(n)
        self._frames.feed(data)
        return data


class Transcoded:
    """UTF-16 or UTF-32 text (byte-order mark first) as UTF-8 bytes, read forwards.

    The mark says the byte order and is not handed on. What does not decode (a
    lone surrogate, damage) becomes the byte 0xFF, never valid UTF-8: its line
    is counted as a line of invalid UTF-8 (``invalid_utf8_lines``) like any
    other. A code unit cut at the end is not handed on: a live log caught
    mid-character (``cron``) reads it whole next time, and its content (and
    head hash) never changes once read.
    """

    def __init__(self, raw: Any, encoding: str) -> None:
        self._raw = raw
        self._decoder = codecs.getincrementaldecoder(encoding)(errors=_INVALID)
        self._buf = b""
        self._done = False

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes of UTF-8 (b"" at the end)."""
        parts, have = [self._buf], len(self._buf)
        while (n < 0 or have < n) and not self._done:
            want = max(FEED_BYTES, 2 * (n - have)) if n >= 0 else 1 << 20
            chunk = self._raw.read(want)
            self._done = not chunk
            data = self._decoder.decode(chunk).encode("utf-8", "surrogateescape")
            parts.append(data)
            have += len(data)
        buf = b"".join(parts)
        size = len(buf) if n < 0 else n
        out, self._buf = buf[:size], buf[size:]
        return out

    def close(self) -> None:
        """Nothing of its own to release (the raw file is closed by its owner)."""


def _invalid(exc: UnicodeError) -> tuple[str, int]:
    """Undecodable UTF-16/32 as U+DCFF, which ``surrogateescape`` writes as the byte 0xFF."""
    assert isinstance(exc, UnicodeDecodeError)
    return "\udcff", exc.end


_INVALID = "logagent.transcoded"
codecs.register_error(_INVALID, _invalid)


class Sniffed:
    """A decompressed stream whose content may start with a byte-order mark (a SQL Server
    ERRORLOG rotated to ``.gz``): decoded (``Transcoded``) when it does, else as it is;
    ``text``: the codec of a content without a mark whose first bytes read as it
    (``magic.reads_as``: a UTF-16 log's part after a ``copytruncate``, compressed)."""

    def __init__(self, inner: Any, text: str | None = None) -> None:
        self._inner = inner
        self._text = text
        self._reader: Any = None

    def read(self, n: int = -1) -> bytes:
        """Up to ``n`` bytes of the content (b"" at the end)."""
        if self._reader is None:
            want = 4 if self._text is None else 64
            head = b""
            while len(head) < want and (more := self._inner.read(want - len(head))):
                head += more
            kind = text_kind(head) or pinned_codec(self._text, head)
            prefixed = _Prefixed(head, self._inner)
            self._reader = Transcoded(prefixed, kind) if kind else prefixed
        out: bytes = self._reader.read(n)
        return out

    def close(self) -> None:
        """Close the decompressor (its raw file is closed by its owner)."""
        self._inner.close()


class _Prefixed:
    """``head``, then the rest of ``inner``."""

    def __init__(self, head: bytes, inner: Any) -> None:
        self._head, self._inner = head, inner
        self._read = getattr(inner, "read1", inner.read)

    def read(self, n: int = -1) -> bytes:
        if self._head:
            out, self._head = (self._head, b"") if n < 0 else (self._head[:n], self._head[n:])
            return out
        data: bytes = self._read(n)
        return data
