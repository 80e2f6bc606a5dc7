"""A file's content from one offset on, as a source the engine reads whole (EDGE: reads files).

Incremental runs (``logagent cron``) read what was appended since the last
run: the *content* bytes ``[start, end)`` of a file, where content means the
decompressed bytes of a ``.gz``/``.zst``/``.bz2`` file. ``open_slice`` gives
that range as a ``Source``:

* a plain file: a ``WindowView`` (seekable, sized ``end - start``); ``end``
  defaults to ``complete_end``, the end of the last complete line, so a
  line half-written at the end is left for the next run;
* a compressed file: a forward-only view of its decompressed stream from
  ``start`` to the end (a rotated, compressed file is finished, so its last
  line is whole, or is the last line there will ever be);
* UTF-16 text (SQL Server's live ERRORLOG): a forward-only view of the UTF-8
  it holds, to the end of its last complete line (one pass finds it), as for
  a plain file.

``start`` must be a line start (0, or where a previous slice ended).
"""

from __future__ import annotations

from dataclasses import dataclass

from logagent.errors import InputCorrupt
from logagent.sources.files import Source, open_source
from logagent.sources.streams import TEXT_ENCODINGS
from logagent.sources.window import WindowView

BACK_CHUNK = 64 << 10  # bytes read at a time when looking back for the last newline


@dataclass
class StreamView(Source):
    """The stream ``base`` from ``start`` on (forward-only, size unknown); closes ``base``."""

    base: Source | None = None
    start: int = 0
    end: int | None = None  # content offset the view stops at (None: the stream's end)

    @classmethod
    def of(cls, base: Source, start: int, end: int | None = None) -> StreamView:
        """The view of the stream ``base`` from content offset ``start`` to ``end``."""
        return cls(base.path, False, None, base.compression, base=base, start=start, end=end)

    def read_at(self, offset: int, n: int) -> bytes:
        """Up to ``n`` content bytes at ``offset`` of the view (forwards only)."""
        assert self.base is not None
        at = self.start + offset
        if self.end is not None:
            n = max(0, min(n, self.end - at))
            if n == 0:
                return b""
        return self.base.read_at(at, n)

    @property
    def error(self) -> InputCorrupt | None:
        """The damage that ended the stream early, if any."""
        return self.base.error if self.base is not None else None

    def close(self) -> None:
        """Close the stream it views."""
        if self.base is not None:
            self.base.close()


@dataclass
class OwnedWindow(WindowView):
    """A ``WindowView`` that closes the file it views (it opened it)."""

    def close(self) -> None:
        """Close the viewed file."""
        if self.base is not None:
            self.base.close()


def complete_end(source: Source, start: int, size: int) -> int:
    """Where the last complete line of ``[start, size)`` ends (``start`` if none is complete)."""
    pos = size
    while pos > start:
        lo = max(start, pos - BACK_CHUNK)
        chunk = source.read_at(lo, pos - lo)
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            return lo + cut + 1
        pos = lo
    return start


def open_slice(
    path: str,
    start: int,
    *,
    end: int | None = None,
    whole_lines: bool = True,
    text: str | None = None,
) -> Source:
    """The content of ``path`` from ``start`` (see the module); the caller closes it.

    ``whole_lines`` (plain files, ``end`` not given): stop at the end of the
    last complete line; else at the end of the file. ``text``: as for ``open_source``.
    """
    source = open_source(path, text=text)
    if not source.seekable:
        live = whole_lines and end is None and source.compression in TEXT_ENCODINGS
        try:
            return StreamView.of(source, start, stream_complete_end(path, text) if live else end)
        except BaseException:
            source.close()
            raise
    size = source.size or 0
    if end is None:
        end = complete_end(source, start, size) if whole_lines else size
    end = max(start, min(end, size))
    return OwnedWindow(source.path, True, end - start, None, base=source, start=start)


def stream_complete_end(path: str, text: str | None = None) -> int:
    """Where the last complete line of the stream at ``path`` ends (one pass over it)."""
    source = open_source(path, text=text)
    try:
        pos = end = 0
        while chunk := source.read_at(pos, BACK_CHUNK):
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                end = pos + cut + 1
            pos += len(chunk)
        return end
    finally:
        source.close()
