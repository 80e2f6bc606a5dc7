"""``batchlines.line_ends`` in steps through a reused scratch finds each newline once, in order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats import batchlines

CHUNKS = st.lists(st.sampled_from([b"\n", b"a", b"\r\n", b"\xff", b"\x00", b"xyz\n"]), max_size=200)


def _reference(data: bytes | bytearray, size: int) -> list[int]:
    return [i for i in range(size) if data[i] == 10]


@settings(max_examples=200, deadline=None)
@given(CHUNKS, st.integers(1, 64), st.integers(0, 8))
def test_small_steps_find_every_newline(parts: list[bytes], step: int, pad: int) -> None:
    """Any bytes, any step, a buffer longer than the size asked: the newlines of the size."""
    data = bytearray(b"".join(parts) + b"\n" * pad)
    size = len(data) - pad
    original = batchlines.NEWLINE_STEP
    batchlines.NEWLINE_STEP = step
    try:
        ends = batchlines.line_ends(data, size)
    finally:
        batchlines.NEWLINE_STEP = original
    assert ends.dtype == np.int64
    assert ends.tolist() == _reference(data, size)


@pytest.mark.parametrize("delta", [-1, 0, 1, batchlines.NEWLINE_STEP + 7])
def test_sizes_around_the_real_step(delta: int) -> None:
    """At and across the real step's boundary (newlines placed on both sides of it)."""
    size = batchlines.NEWLINE_STEP + delta
    rng = np.random.default_rng(delta + 2)
    buf = rng.integers(0, 256, size, dtype=np.uint8)
    step = batchlines.NEWLINE_STEP
    buf[[min(i, size - 1) for i in (0, step - 1, step, size - 1)]] = 10
    data = bytearray(buf.tobytes())
    assert batchlines.line_ends(data, size).tolist() == np.flatnonzero(buf == 10).tolist()
