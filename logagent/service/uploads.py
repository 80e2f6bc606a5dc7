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

import re
from collections.abc import AsyncIterator, Callable
from typing import IO, NamedTuple

from logagent.service.decoding import (
    GZIP_MAGIC,
    OUT_CHUNK,
    ZSTD_MAGIC,
    BadUpload,
    Decoder,
    DiskFull,
    Into,
    LimitedFile,
    ShuttingDown,
    UploadError,
    UploadTooLarge,
)

MAX_PART_HEADERS = 16 << 10
MAX_NAME = 255  # longest client-given file name kept (the result shows it as the input's path)
_FILE_PART = re.compile(r'(?:^|[;\s])name\s*=\s*"file"', re.IGNORECASE)
_FILENAME = re.compile(r'filename\s*=\s*(?:"([^"]*)"|([^;\s]+))', re.IGNORECASE)


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
    body = Decoder(Into(stage), gzip=True) if encoding == "gzip" else None  # the body's coding
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


__all__ = [
    "GZIP_MAGIC",
    "OUT_CHUNK",
    "ZSTD_MAGIC",
    "BadUpload",
    "Decoder",
    "DiskFull",
    "LimitedFile",
    "MultipartFile",
    "Received",
    "ShuttingDown",
    "UploadError",
    "UploadTooLarge",
    "boundary_of",
    "filename_of",
    "receive",
]
