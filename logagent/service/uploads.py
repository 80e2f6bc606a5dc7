"""An HTTP upload streamed to a file on disk, never held in memory (EDGE: files).

The body arrives in chunks (Starlette's ``request.stream()``); each chunk goes
through at most three small stages and is written out before the next one is
read:

    chunks ──► MultipartFile (one ``file`` part; optional) ──► Decoder ──► LimitedFile ──► disk
                                                            (gzip/zstd by
                                                             Content-Encoding or magic)

The stored file is always the *plain* log, so the engine reads it as a
seekable file and can stop early (a compressed file can only be read in
order). ``--max-upload`` bounds both the bytes received and the bytes stored
(a small gzip bomb is cut off like a large body); going over raises
``UploadTooLarge`` at once, so the caller stops reading. A full disk raises
``DiskFull``. The caller removes the partial file on any failure.
"""

from __future__ import annotations

import errno
import re
import zlib
from collections.abc import AsyncIterator, Callable
from typing import IO, Any, NamedTuple

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
OUT_CHUNK = 1 << 20  # decompressed bytes produced per step: bounds what one chunk can expand to
MAX_PART_HEADERS = 16 << 10
MAX_NAME = 255  # longest client-given file name kept (the result shows it as the input's path)
_FILE_PART = re.compile(r'(?:^|[;\s])name\s*=\s*"file"', re.IGNORECASE)
_FILENAME = re.compile(r'filename\s*=\s*(?:"([^"]*)"|([^;\s]+))', re.IGNORECASE)


class UploadError(Exception):
    """An upload that cannot be stored; ``status`` is the HTTP status it maps to."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UploadTooLarge(UploadError):
    """More bytes than ``--max-upload`` (received or after decompression)."""

    status = 413


class DiskFull(UploadError):
    """No space left under the data directory."""

    status = 507


class ShuttingDown(UploadError):
    """The service began to drain while the body came in: nothing is kept, send it again."""

    status = 503


class BadUpload(UploadError):
    """A body that is not what its headers say (damaged gzip, broken multipart)."""

    status = 400


class LimitedFile:
    """A binary file that counts what is written and refuses to pass ``max_bytes``."""

    def __init__(self, file: IO[bytes], max_bytes: int) -> None:
        self._file, self.max_bytes, self.written = file, max_bytes, 0

    def write(self, data: bytes) -> int:
        """Write ``data``; UploadTooLarge past the limit, DiskFull when the disk is."""
        if self.written + len(data) > self.max_bytes:
            raise UploadTooLarge(f"the log is larger than the limit of {self.max_bytes:,} bytes")
        try:
            self._file.write(data)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise DiskFull("no space left on the server's disk for this upload") from exc
            raise
        self.written += len(data)
        return len(data)


class Decoder:
    """Bytes of the body -> bytes of the log: gzip or zstd undone as they arrive.

    Gzip is decoded when the request says ``Content-Encoding: gzip`` or the
    body starts with its magic; zstd by its magic. Output comes in steps of at
    most ``OUT_CHUNK`` bytes, so a highly compressed chunk never expands in memory.

    ``lenient``: a gzip or zstd log cut short or damaged is kept up to its damage, and ``damaged``
    says where (the job's answer is then partial, as ``logagent analyze`` answers of such a
    ``.gz``: it had been a 400 and nothing analyzed); a body whose Content-Encoding is cut
    is a broken request, ``BadUpload``.
    """

    def __init__(
        self, out: LimitedFile | _Into, *, gzip: bool = False, lenient: bool = False
    ) -> None:
        self._out = out
        self._head = b""
        self._kind: str | None = "gzip" if gzip else None
        self._zlib: Any = None
        self._zstd: Any = None
        self._lenient = lenient
        self._produced = 0
        self._zstd_error: Any = Exception
        self._frames: Any = None  # where the zstd frames fed so far end (``FrameEnds``)
        #: Why the log ends before its compressed stream does (``lenient``), else None.
        self.damaged: str | None = None
        if gzip:
            self._start(b"")

    @property
    def kind(self) -> str:
        """plain, gzip or zstd (plain until the first bytes are seen)."""
        return self._kind or "plain"

    def feed(self, data: bytes) -> None:
        """Decode and store one chunk of the body."""
        if self._kind is None:
            self._head += data
            if len(self._head) < len(ZSTD_MAGIC):
                return
            data, self._head = self._head, b""
            self._start(data)
        self._write(data)

    def finish(self) -> None:
        """The body ended: store what waits; BadUpload when a compressed stream is cut."""
        if self._kind is None:
            data, self._head = self._head, b""
            self._start(data)
            self._write(data)
        if self._zlib is not None and not self._zlib.eof and self.damaged is None:
            if not self._lenient:
                raise BadUpload("the gzip body is truncated")
            self.damaged = (
                f"the gzip log is truncated after {self._produced:,} bytes of decompressed data"
            )
        if self._zstd is not None and self.damaged is None and not self._frames.at_boundary:
            if not self._lenient:
                raise BadUpload("the zstd body is truncated")
            self.damaged = (
                f"the zstd log is truncated after {self._produced:,} bytes of decompressed data"
            )

    def _start(self, head: bytes) -> None:
        if self._kind is None:
            if head.startswith(GZIP_MAGIC):
                self._kind = "gzip"
            elif head.startswith(ZSTD_MAGIC):
                self._kind = "zstd"
            else:
                self._kind = "plain"
        if self._kind == "gzip":
            self._zlib = zlib.decompressobj(wbits=31)
        elif self._kind == "zstd":
            import zstandard

            from logagent.sources.zstdframes import FrameEnds  # (imports the sources package)

            self._frames = FrameEnds()
            # its writer bounds what one call expands to (OUT_CHUNK at a time: decompressobj
            # returned a whole feed's output, 512 MiB of 16 KiB of a zstd "bomb"); it takes
            # a cut frame for a whole one, so the frames' ends are followed by their headers
            self._zstd = zstandard.ZstdDecompressor().stream_writer(
                _Into(self._put),  # type: ignore[arg-type]  # it only calls write()
                write_size=OUT_CHUNK,
                closefd=False,
            )
            self._zstd_error = zstandard.ZstdError

    def _write(self, data: bytes) -> None:
        if self._kind == "plain":
            self._out.write(data)
        elif self._kind == "zstd":
            self._unzstd(data)
        else:
            self._gunzip(data)

    def _gunzip(self, data: bytes) -> None:
        """Inflate ``data`` in bounded steps, member after member (concatenated gzip; zeros
        after a member are padding, as ``gzip`` reads them)."""
        while data and self.damaged is None:  # after the damage, nothing more is decoded
            d = self._zlib
            saved, before = d.copy(), self._produced
            try:
                self._put(d.decompress(data, OUT_CHUNK))
                while d.unconsumed_tail:
                    self._put(d.decompress(d.unconsumed_tail, OUT_CHUNK))
            except zlib.error as exc:
                if not self._lenient:
                    raise BadUpload(f"the gzip body is damaged ({exc})") from exc
                # the failing call's output was lost with it (a wrong CRC after a whole
                # member: all of it): the same bytes again, in small pieces, up to the damage
                self._salvage(saved, data, self._produced - before)
                self.damaged = (
                    f"the gzip log is damaged after {self._produced:,} bytes of decompressed "
                    f"data ({exc})"
                )
                return
            data = d.unused_data.lstrip(b"\0") if d.eof else b""
            if data:
                self._zlib = zlib.decompressobj(wbits=31)

    def _salvage(self, d: Any, data: bytes, stored: int) -> None:
        """Decode ``data`` again with ``d`` (the decompressor as it was before it failed on
        them), 256 bytes at a time and the failing piece byte by byte, storing what comes
        before the damage beyond the ``stored`` bytes of that output already written."""
        skip = stored

        def keep(piece: bytes) -> None:
            nonlocal skip
            if skip >= len(piece):
                skip -= len(piece)
                return
            self._put(piece[skip:])
            skip = 0

        step = 256
        at = 0
        while at < len(data) and not d.eof:
            saved = d.copy()
            try:
                out = [d.decompress(data[at : at + step], OUT_CHUNK)]
                while d.unconsumed_tail:
                    out.append(d.decompress(d.unconsumed_tail, OUT_CHUNK))
            except zlib.error:
                if step == 1:
                    return
                d, step = saved, 1  # the damage is in this piece: byte by byte
                continue
            for piece in out:
                keep(piece)
            at += step

    def _unzstd(self, data: bytes) -> None:
        """Decompress ``data`` (its output written ``OUT_CHUNK`` at a time); a damaged frame
        as ``_gunzip``'s damage."""
        if self.damaged is not None:  # after the damage, nothing more is decoded
            return
        self._frames.feed(data)
        try:
            self._zstd.write(data)
        except self._zstd_error as exc:
            if not self._lenient:
                raise BadUpload(f"the zstd body is damaged ({exc})") from exc
            self.damaged = (
                f"the zstd log is damaged after {self._produced:,} bytes of decompressed "
                f"data ({exc})"
            )

    def _put(self, data: bytes) -> None:
        self._out.write(data)
        self._produced += len(data)


class MultipartFile:
    """The content of the one ``file`` part of a ``multipart/form-data`` body, streamed.

    Keeps at most a delimiter's length of the body between chunks (and one
    part's headers, up to ``MAX_PART_HEADERS``); other parts are skipped.
    """

    def __init__(self, boundary: str, out: Callable[[bytes], None]) -> None:
        self._delim = b"\r\n--" + boundary.encode("latin-1")
        self._buf = b"\r\n"  # the first boundary has no CRLF before it
        self._state = "skip"  # skip -> after -> headers -> body|skip -> ... -> end
        self._out = out
        self.found = False
        self.filename: str | None = None  # the ``file`` part's filename, as the client gave it

    def feed(self, data: bytes) -> None:
        """Parse one chunk of the body."""
        self._buf += data
        while self._step():
            pass

    def finish(self) -> None:
        """The body ended: BadUpload unless a whole ``file`` part was read."""
        if not self.found or self._state not in ("end", "skip", "after"):
            raise BadUpload("the multipart body has no complete part named 'file'")

    def _step(self) -> bool:
        """Advance the state machine once; False when it needs more bytes."""
        buf, delim = self._buf, self._delim
        if self._state in ("skip", "body"):
            at = buf.find(delim)
            if at < 0:
                keep = len(delim) - 1
                if self._state == "body" and len(buf) > keep:
                    self._out(buf[:-keep])
                self._buf = buf[-keep:]
                return False
            if self._state == "body":
                self._out(buf[:at])
                self.found = True
            self._buf, self._state = buf[at + len(delim) :], "after"
            return True
        if self._state == "after":
            if len(buf) < 2:
                return False
            if buf.startswith(b"--"):
                self._state, self._buf = "end", b""
                return False
            self._state = "headers"
            return True
        if self._state == "headers":
            return self._headers()
        self._buf = b""  # the epilogue after the closing boundary
        return False

    def _headers(self) -> bool:
        end = self._buf.find(b"\r\n\r\n")
        if end < 0:
            if len(self._buf) > MAX_PART_HEADERS:
                raise BadUpload("a multipart part has headers longer than 16 KiB")
            return False
        head = self._buf[:end].decode("latin-1")
        self._buf = self._buf[end + 4 :]
        named = _FILE_PART.search(head) is not None  # not filename="file"
        if named and self.found:  # one analysis, one log: a second was silently dropped
            raise BadUpload(
                "the multipart body has more than one part named 'file': send one log per "
                "analysis (or concatenate them)"
            )
        wanted = named
        self._state = "body" if wanted else "skip"
        if wanted:
            self.filename = filename_of(head)
        return True


class _Into:
    """A ``write`` that hands the bytes to the next stage (a decoded body to the multipart)."""

    def __init__(self, stage: Callable[[bytes], None]) -> None:
        self._stage = stage

    def write(self, data: bytes) -> int:
        """Pass ``data`` on."""
        self._stage(data)
        return len(data)


def filename_of(header: str) -> str | None:
    """The file name a ``Content-Disposition`` gives, without any directory; None if none.

    Only its last path component is kept (a client's ``C:\\logs\\a.log`` or
    ``../../etc/x`` is ``a.log`` or ``x``), without control characters, at
    most ``MAX_NAME`` characters: it is shown, never opened.
    """
    found = _FILENAME.search(header)
    if found is None:
        return None
    raw = found.group(1) if found.group(1) is not None else found.group(2)
    name = raw.replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(c for c in name if c.isprintable()).strip()[:MAX_NAME]
    return name if name not in ("", ".", "..") else None


class Received(NamedTuple):
    """What ``receive`` stored: bytes received and stored, the compression, the file's name."""

    received: int
    stored: int
    kind: str
    filename: str | None
    #: Where a compressed log ends early (cut short or damaged), else None (``Decoder``).
    damaged: str | None = None


def boundary_of(content_type: str) -> str | None:
    """The boundary of a ``multipart/form-data`` content type; None for any other type."""
    kind, _, rest = content_type.partition(";")
    if kind.strip().lower() != "multipart/form-data":
        return None
    for param in rest.split(";"):
        name, _, value = param.strip().partition("=")
        if name.lower() == "boundary" and value.strip('"'):
            return value.strip('"')
    raise BadUpload("multipart/form-data without a boundary")


async def receive(
    chunks: AsyncIterator[bytes],
    file: IO[bytes],
    *,
    max_bytes: int,
    content_type: str = "",
    content_encoding: str = "",
    content_disposition: str = "",
    on_bytes: Callable[[int], None] = lambda n: None,
    stopping: Callable[[], bool] = lambda: False,
) -> Received:
    """Stream the body into ``file``; returns what was received and stored.

    The file's name is the multipart ``file`` part's ``filename``, else the
    request's own ``Content-Disposition`` one (a raw body), else None.

    ``stopping``: whether the service began to drain (``ShuttingDown``, a 503: a SIGTERM
    during an upload had the server's shutdown cancel it, a 500 and a traceback).

    Raises ``UploadError`` (stop reading: the caller answers at once) and lets
    the framework's client-disconnect error through; either way the caller
    removes the file.
    """
    encoding = content_encoding.strip().lower()
    if encoding not in ("", "identity", "gzip"):
        raise BadUpload(f"Content-Encoding {content_encoding!r} is not supported (use gzip)")
    out = LimitedFile(file, max_bytes)
    decoder = Decoder(out, lenient=True)  # the log itself may be .gz or .zst (by magic)
    boundary = boundary_of(content_type)
    parts = MultipartFile(boundary, decoder.feed) if boundary else None
    stage: Callable[[bytes], None] = parts.feed if parts is not None else decoder.feed
    body = Decoder(_Into(stage), gzip=True) if encoding == "gzip" else None  # the body's coding
    received = 0
    async for chunk in chunks:
        if stopping():  # a drain began: answer now, not when the server's shutdown cancels us
            raise ShuttingDown(
                "the service is shutting down: the upload was not kept; send it again"
            )
        received += len(chunk)
        on_bytes(len(chunk))
        if received > max_bytes:
            raise UploadTooLarge(f"the upload is larger than the limit of {max_bytes:,} bytes")
        if body is not None:
            body.feed(chunk)
        else:
            stage(chunk)
    if body is not None:
        body.finish()
    if parts is not None:
        parts.finish()
    decoder.finish()
    name = parts.filename if parts is not None else None
    return Received(
        received,
        out.written,
        decoder.kind,
        name or filename_of(content_disposition),
        decoder.damaged,
    )
