"""A seekable source seen only from one byte to another (EDGE: reads the file it wraps).

A time window found by bisection is a byte range ``[start, end)`` whose
``start`` is a line start. ``WindowView`` makes it look like a whole file of
``end - start`` bytes, so planning, sampling and reading need no change. A
read past the view's end still returns the real bytes that follow, so the
last line of the range is completed as it would be in the whole file.
"""

from __future__ import annotations

from dataclasses import dataclass

from logagent.errors import InputCorrupt
from logagent.sources.files import Source


@dataclass
class WindowView(Source):
    """``base`` from ``start`` (a line start) to ``start + size``; the base stays open."""

    base: Source | None = None
    start: int = 0

    @classmethod
    def of(cls, base: Source, start: int, end: int) -> WindowView:
        """The view of ``base`` over ``[start, end)``."""
        return cls(base.path, True, end - start, base.compression, base=base, start=start)

    def read_at(self, offset: int, n: int) -> bytes:
        """Up to ``n`` bytes at ``offset`` of the view (real bytes past its end)."""
        assert self.base is not None
        return self.base.read_at(self.start + offset, n)

    def read_into(self, offset: int, view: memoryview) -> int:
        """Read into ``view`` at ``offset`` of the view (the pooled read of the base)."""
        assert self.base is not None
        return self.base.read_into(self.start + offset, view)

    @property
    def error(self) -> InputCorrupt | None:
        """A plain file is never damaged mid-stream."""
        return None

    def close(self) -> None:
        """Nothing to release: the base source is closed by whoever opened it."""
