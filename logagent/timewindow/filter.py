"""Keep the rows of a batch that fall in a window (PURE)."""

from __future__ import annotations

from datetime import datetime

import polars as pl


def in_window_expr(ts: pl.Expr, since: datetime | None, until: datetime | None) -> pl.Expr:
    """``since <= ts <= until`` (an absent bound is open); a null time is outside."""
    keep = ts.is_not_null()
    if since is not None:
        keep = keep & (ts >= pl.lit(since).cast(pl.Datetime("us", "UTC")))
    if until is not None:
        keep = keep & (ts <= pl.lit(until).cast(pl.Datetime("us", "UTC")))
    return keep
