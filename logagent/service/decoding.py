"""The bytes of an upload's body made the bytes of its log: gzip and zstd undone as they
arrive, in bounded steps, into a file that refuses to grow past its limit (EDGE: files).

Split from ``service.uploads`` (the stream, the multipart and the file's name), which
re-exports what its callers use.
"""

from __future__ import annotations

import errno
import zlib
from collections.abc import Callable
from typing import IO, Any

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
OUT_CHUNK = 1 << 20  # decompressed bytes produced per step: bounds what one chunk can expand to


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
        self, out: LimitedFile | Into, *, gzip: bool = False, lenient: bool = False
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
                Into(self._put),  # type: ignore[arg-type]  # it only calls write()
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


class Into:
    """A ``write`` that hands the bytes to the next stage (a decoded body to the multipart)."""

    def __init__(self, stage: Callable[[bytes], None]) -> None:
        self._stage = stage

    def write(self, data: bytes) -> int:
        """Pass ``data`` on."""
        self._stage(data)
        return len(data)
