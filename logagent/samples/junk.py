"""PURE module: vectorized junk lines for the ``garbage`` scenario.

Junk is random text (printable ASCII gibberish) and binary noise (any
byte but newline, so NUL bytes and invalid UTF-8 abound), plus rare very
long lines of 10-300 KB.  Every junk line ends with a newline.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .fields import I64

U8 = npt.NDArray[np.uint8]

TEXT_CHARS = np.frombuffer(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    b"            .,:;-_/=[]()\"'!?#%&*+<>@",
    dtype=np.uint8,
)
KIND_WEIGHTS = (0.6, 0.3998, 0.0002)  # text, binary, very long binary
MEAN_LINE_BYTES = 0.6 * 100 + 0.3998 * 200.5 + 0.0002 * 155_000 + 1


def junk_lengths(
    rng: np.random.Generator, n: int, force_long: bool
) -> tuple[I64, npt.NDArray[np.bool_]]:
    """Line lengths (without newline) and which lines are text."""
    kind = rng.choice(3, n, p=np.asarray(KIND_WEIGHTS))
    if force_long and n > 1:
        kind[1] = 2
    lens = np.where(
        kind == 0,
        rng.integers(0, 201, n),
        np.where(kind == 1, rng.integers(1, 401, n), rng.integers(10_000, 300_001, n)),
    )
    return lens.astype(np.int64), kind == 0


def junk_block(rng: np.random.Generator, n: int, force_long: bool = False) -> tuple[U8, I64]:
    """Bytes of n junk lines and each line's start offset."""
    lens, is_text = junk_lengths(rng, n, force_long)
    ends = np.cumsum(lens + 1) - 1
    total = int(ends[-1]) + 1 if n else 0
    raw = np.frombuffer(rng.bytes(total), dtype=np.uint8)
    text = TEXT_CHARS[rng.integers(0, len(TEXT_CHARS), total, dtype=np.uint8)]
    buf = np.where(np.repeat(is_text, lens + 1), text, raw)
    buf[buf == 10] = 0
    buf[ends] = 10
    return buf, ends - lens
