"""Framing: units, awkward splits, long lines, missing final newline."""

from __future__ import annotations

import pytest

from logagent.sources.framing import (
    iter_pieces,
    iter_unit_pieces,
    read_capped_line,
    split_long_lines,
)


def reader(data: bytes):  # type: ignore[no-untyped-def]
    return lambda offset, n: data[offset : offset + n]


def unit_lines(data: bytes, unit_size: int, cap: int = 1 << 20) -> list[tuple[int, bytes]]:
    out = []
    units = -(-len(data) // unit_size)
    for b in range(units):
        for piece in iter_unit_pieces(reader(data), b, unit_size, len(data), cap=cap):
            out.extend((b, line) for line in piece.data.splitlines())
    return out


def test_unit_holds_lines_whose_first_byte_is_inside() -> None:
    """A line belongs to the unit where its first byte lies."""
    data = b"aaa\nbbbbbb\ncc\n"  # lines start at 0, 4, 11
    assert unit_lines(data, 5) == [(0, b"aaa"), (0, b"bbbbbb"), (2, b"cc")]


def test_line_starting_exactly_on_boundary_goes_to_next_unit() -> None:
    """A line whose first byte is unit b's first byte belongs to unit b."""
    data = b"abc\ndef\n"
    assert unit_lines(data, 4) == [(0, b"abc"), (1, b"def")]


def test_missing_final_newline_is_added() -> None:
    """The last line without a newline is still one line."""
    pieces = list(iter_pieces(reader(b"x\ny"), 0, 3, cap=100, chunk=2))
    assert b"".join(p.data for p in pieces) == b"x\ny\n"
    assert sum(p.span for p in pieces) == 3


def test_long_line_is_cut_and_counted() -> None:
    """A line longer than the cap keeps its first cap bytes and counts as truncated."""
    data = b"ok\n" + b"z" * 1000 + b"\nend\n"
    pieces = list(iter_pieces(reader(data), 0, len(data), cap=10, chunk=64))
    assert b"".join(p.data for p in pieces) == b"ok\n" + b"z" * 10 + b"\nend\n"
    assert sum(p.truncated for p in pieces) == 1
    assert sum(p.span for p in pieces) == len(data)


def test_long_line_without_newline_at_end_of_input() -> None:
    """A huge last line without a newline is cut, counted and ends the input."""
    data = b"a\n" + b"q" * 500
    piece, nxt = read_capped_line(reader(data), 2, cap=8, chunk=16)
    assert piece is not None and piece.data == b"q" * 8 + b"\n" and piece.truncated == 1
    assert nxt == len(data)


def test_split_long_lines_inside_a_piece() -> None:
    """Long lines in the middle of a piece are split out; offsets stay exact."""
    data = b"a\n" + b"b" * 20 + b"\nc\n"
    pieces = split_long_lines(data, 100, 5)
    assert [(p.offset, p.data, p.truncated) for p in pieces] == [
        (100, b"a\n", 0),
        (102, b"bbbbb\n", 1),
        (123, b"c\n", 0),
    ]


@pytest.mark.parametrize("cap", [1, 3, 7])
def test_crlf_lines_keep_their_carriage_return_for_the_parser(cap: int) -> None:
    """Framing does not alter line bytes (CR is stripped by extraction, not here)."""
    data = b"ab\r\ncd\r\n"
    pieces = list(iter_pieces(reader(data), 0, len(data), cap=100, chunk=cap))
    assert b"".join(p.data for p in pieces) == data


def test_unit_inside_a_long_line_has_no_lines() -> None:
    """A unit that no line starts in is empty."""
    data = b"x" * 50 + b"\n"
    assert list(iter_unit_pieces(reader(data), 2, 10, len(data), cap=100)) == []


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_a_nul_hole_longer_than_the_cap_leaves_the_record_after_it(chunk: int) -> None:
    """The hole ``copytruncate`` leaves (NULs where the writer went on at its old offset): a
    line that starts with a run longer than the cap is the record after it, cut only when
    that is longer than the cap; its span is the whole line's (probe T: a uvicorn log's 500
    request behind a 1.4 MB run had been cut away)."""
    data = b"\x00" * 300 + b"rec one\n" + b"ok\n" + b"\x00" * 200 + b"y" * 150 + b"\n"
    data += b"\x00" * 120 + b"\n" + b"\x00" * 130  # a line of NULs alone, then one to the end
    pieces = list(iter_pieces(reader(data), 0, len(data), cap=100, chunk=chunk))
    lines = [line for p in pieces for line in p.data.splitlines()]
    assert lines == [b"rec one", b"ok", b"y" * 100, b"", b""]
    assert sum(p.span for p in pieces) == len(data)
    assert sum(p.truncated for p in pieces) == 1  # the 150 y's only
    got, end = read_capped_line(reader(data), 0, cap=100, chunk=chunk)
    assert got is not None and got.data == b"rec one\n" and got.span == end == 308
    cut = split_long_lines(data, 0, 100, end=len(data) - 130)
    assert [p.data for p in cut if p.truncated] == [b"y" * 100 + b"\n"]
