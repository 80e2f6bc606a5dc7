"""UTF-16 and UTF-32 logs (a byte-order mark first) are read as the UTF-8 they hold."""

from __future__ import annotations

import bz2
import gzip
import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.sources.files import open_source
from logagent.sources.streams import ForwardReader, Transcoded

MARKS = {
    "utf-16-le": b"\xff\xfe",
    "utf-16-be": b"\xfe\xff",
    "utf-32-le": b"\xff\xfe\x00\x00",
    "utf-32-be": b"\x00\x00\xfe\xff",
}


def _family(encoding: str) -> str:
    return encoding[:6]


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=300),
    encoding=st.sampled_from(sorted(MARKS)),
    reads=st.lists(st.integers(1, 97), min_size=1, max_size=40),
)
def test_any_text_comes_out_as_its_utf8_whatever_the_reads(
    text: str, encoding: str, reads: list[int]
) -> None:
    """Random text (astral characters, CRLF, NUL) in every byte order, read in random
    pieces: the UTF-8 of the text, the mark not handed on."""
    raw = io.BytesIO(MARKS[encoding] + text.encode(encoding))
    reader = ForwardReader(Transcoded(raw, _family(encoding)), "x")
    want = text.encode("utf-8")
    got, offset, i = b"", 0, 0
    while True:
        chunk = reader.read_at(offset, reads[i % len(reads)])
        if not chunk:
            break
        got += chunk
        offset += len(chunk)
        i += 1
    assert got == want


def test_what_does_not_decode_is_invalid_utf8_and_a_cut_unit_waits() -> None:
    """A lone surrogate becomes the byte 0xFF (never valid UTF-8: its line is counted as
    invalid); an odd last byte (a code unit cut by a live writer) is not handed on."""
    lone = b"\xff\xfe" + "a\n".encode("utf-16-le") + b"\x00\xd8" + "b\n".encode("utf-16-le") + b"x"
    out = Transcoded(io.BytesIO(lone), "utf-16").read()
    assert out == b"a\n\xffb\n"


@pytest.mark.parametrize("pack", ["gzip", "bz2", "zstd"])
def test_utf16_inside_a_compressed_file_is_decoded_too(tmp_path: Path, pack: str) -> None:
    """SQL Server's ERRORLOG rotated and compressed: the mark is found in the content."""
    text = "2026-01-01 line one\r\n2026-01-01 \U0001f600 two\r\n"
    data = b"\xff\xfe" + text.encode("utf-16-le")
    path = tmp_path / "errorlog.1"
    if pack == "gzip":
        path.write_bytes(gzip.compress(data))
    elif pack == "bz2":
        path.write_bytes(bz2.compress(data))
    else:
        import zstandard

        path.write_bytes(zstandard.ZstdCompressor().compress(data))
    source = open_source(str(path))
    try:
        got, offset = b"", 0
        while chunk := source.read_at(offset, 7):
            got += chunk
            offset += len(chunk)
    finally:
        source.close()
    assert got == text.encode()


def test_a_file_with_a_mark_opens_as_a_decoded_stream(tmp_path: Path) -> None:
    """Found by its byte-order mark, not its name: a stream of UTF-8."""
    path = tmp_path / "errorlog"
    path.write_bytes(b"\xff\xfe" + "2026-01-01 line\r\n".encode("utf-16-le"))
    source = open_source(str(path))
    try:
        assert (source.seekable, source.compression) == (False, "utf-16")
        assert source.read_at(0, 100) == b"2026-01-01 line\r\n"
    finally:
        source.close()
