"""A format whose records carry their time bucket, for the timeline (PURE).

``Bucketed`` wraps any access ``Format`` (or a ``Windowed`` one) and adds the
optional ``bucket`` column that ``extract`` groups records by: the start of
the record's time bucket in epoch seconds (UTC), null for a record without a
time. Only the lines the question parses pay for it (for top-errors, the 5xx
candidates), in the same vectorized query.

``choose_bucket_s`` picks the width of ``--bucket auto``: the smallest of a
ladder of round widths that cuts the time range into at most ``MAX_BUCKETS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from logagent.formats.base import BUCKET, Wrapped

MAX_BUCKETS = 100
#: Round bucket widths in seconds, smallest first: 1m 5m 10m 15m 30m 1h 3h 6h 12h 1d 7d.
LADDER_S = (60, 300, 600, 900, 1800, 3600, 10800, 21600, 43200, 86400, 604800)
TimeOf = Callable[[pl.Expr], pl.Expr]


@dataclass(frozen=True)
class Bucketed(Wrapped):
    """``inner`` with each record's time bucket (see module doc)."""

    time: TimeOf
    bucket_s: int

    def added(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``bucket``."""
        epoch = self.time(line).dt.epoch("s")
        return {BUCKET: (epoch // self.bucket_s) * self.bucket_s}


def choose_bucket_s(span_s: float) -> int:
    """The smallest ladder width giving at most ``MAX_BUCKETS`` buckets over ``span_s``."""
    return next((w for w in LADDER_S if span_s / w <= MAX_BUCKETS), LADDER_S[-1])


def parse_bucket(text: str) -> int | None:
    """``5m``, ``1h``, ``1d``, ``90s`` as seconds; ``auto`` as None; ValueError otherwise."""
    if text == "auto":
        return None
    m = re.fullmatch(r"\s*(\d+)\s*([smhd])\s*", text)
    if not m or int(m.group(1)) == 0:
        raise ValueError(f"--bucket {text!r}: use auto or a width such as 5m, 1h, 1d")
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
