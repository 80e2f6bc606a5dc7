"""The line arrays the parsers read equal Polars' own newline, CR, byte-order-mark and
leading-NUL strips.

``batchlines._stripped`` moves each line's bounds instead of copying the lines
three times; this checks it against the three ``strip_*`` calls it replaced,
for every line and for chosen lines, on awkward UTF-8 text.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.batchlines import _stripped, line_ends, line_starts
from logagent.sources.locate import string_series

PIECE = st.one_of(
    st.sampled_from(
        ["", "\r", "\r\r", "\ufeff", "\ufeff\ufeff", "\ufeff\r", "ab\r", "é", "\x00", "\x00\x00\r"]
    ),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=30),
)
LINES = st.lists(st.lists(PIECE, max_size=4).map("".join), min_size=1, max_size=40)


def _reference(data: bytes, ends: np.ndarray) -> pl.Series:
    offsets = np.concatenate([[0], ends + 1]).astype(np.int64)
    lines = string_series(data, offsets, "line")
    lines = lines.str.strip_suffix("\n").str.strip_suffix("\r").str.strip_prefix("\ufeff")
    return lines.str.strip_chars_start("\x00")  # a copytruncate hole before a record


@settings(max_examples=300, deadline=None)
@given(LINES, st.integers(0, 8), st.data())
def test_stripped_lines_equal_polars_strips(
    lines: list[str], pad: int, data: st.DataObject
) -> None:
    text = "".join(line + "\n" for line in lines).encode()
    buf = bytearray(text + b"\xff" * pad)  # a pooled buffer is larger than its batch
    ends = line_ends(buf, len(text))
    want = _reference(text, ends)
    starts = line_starts(ends)
    assert _stripped(buf, starts, ends).to_list() == want.to_list()
    chosen = data.draw(st.lists(st.integers(0, len(ends) - 1), unique=True).map(sorted))
    index = np.asarray(chosen, dtype=np.int64)
    got = _stripped(buf, starts[index], ends[index])
    assert got.to_list() == want.gather(index).to_list()
