"""WindowView: a byte range of a file seen as a whole file."""

from __future__ import annotations

from pathlib import Path

from logagent.sources.files import open_source
from logagent.sources.window import WindowView


def test_view_reads_inside_and_past_its_end(tmp_path: Path) -> None:
    """Offsets are relative to the start; reads past the end return the real following bytes."""
    path = tmp_path / "f.log"
    path.write_bytes(b"aaa\nbbb\nccc\nddd\n")
    base = open_source(str(path))
    try:
        view = WindowView.of(base, 4, 10)
        assert view.size == 6 and view.seekable and view.path == str(path)
        assert view.read_at(0, 4) == b"bbb\n"
        assert view.read_at(4, 8) == b"ccc\nddd\n"  # the line the range cuts is completed
        view.close()  # does not close the base
        assert base.read_at(0, 3) == b"aaa"
    finally:
        base.close()
