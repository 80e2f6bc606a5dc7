"""Parse a whole column of timestamps to UTC with Polars (PURE).

Same kinds and rules as ``stamps`` (see its table), vectorized: one Polars
pass per column, never a Python loop per line. Unparseable values give null.
``stamps.parse_timestamp`` is the reference these must agree with (tested).
"""

from __future__ import annotations

from datetime import datetime

import polars as pl

from .stamps import need_reference

UTC_US = pl.Datetime("us", "UTC")


def parse_timestamps(
    values: pl.Series, kind: str, *, tz: str = "UTC", reference: datetime | None = None
) -> pl.Series:
    """UTC datetimes (``Datetime[us, UTC]``) of a column of ``kind`` stamps; null when bad."""
    need_reference(kind, reference)
    frame = pl.DataFrame({"s": values.cast(pl.String).str.strip_chars()})
    if kind == "syslog" and reference is not None:
        expr = _syslog(pl.col("s"), tz, reference)
    else:
        expr = _EXPRS[kind](pl.col("s"), tz)
    return frame.select(expr.cast(UTC_US).alias(values.name)).to_series()


def _naive_to_utc(naive: pl.Expr, tz: str) -> pl.Expr:
    local = naive.dt.replace_time_zone(tz, ambiguous="earliest", non_existent="null")
    return local.dt.convert_time_zone("UTC")


def _iso(s: pl.Expr, tz: str) -> pl.Expr:
    norm = (
        s.str.replace(r"^(\d{4}-\d{2}-\d{2}) ", "${1}T")
        .str.replace(r"^(\S+),(\d+)", "${1}.${2}")
        .str.replace(r"(\d) ?Z$", "${1}+00:00")
        .str.replace(r"(\d) ([+-]\d{2}:?\d{2})$", "${1}${2}")
        .str.replace(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})([^:\d]|$)", "${1}:00${2}")
    )
    aware = pl.coalesce(
        norm.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%:z", strict=False, time_zone="UTC"),
        norm.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%z", strict=False, time_zone="UTC"),
    )
    naive = norm.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f", strict=False, time_unit="us")
    return pl.coalesce(aware.cast(UTC_US), _naive_to_utc(naive, tz).cast(UTC_US))


def _clf(s: pl.Expr, tz: str) -> pl.Expr:
    """CLF's stamp; Werkzeug's local one without a zone, morgan's RFC 1123 in GMT
    (``stamps._clf``)."""
    bare = s.str.strip_chars("[]")
    clf = bare.str.to_datetime("%d/%b/%Y:%H:%M:%S %z", strict=False, time_zone="UTC")
    local = bare.str.to_datetime("%d/%b/%Y %H:%M:%S", strict=False, time_unit="us")
    gmt = bare.str.to_datetime("%a, %d %b %Y %H:%M:%S GMT", strict=False, time_unit="us")
    return pl.coalesce(
        clf.cast(UTC_US), _naive_to_utc(local, tz).cast(UTC_US), gmt.dt.replace_time_zone("UTC")
    )


def _apache(s: pl.Expr, tz: str) -> pl.Expr:
    bare = s.str.strip_chars("[]")
    naive = bare.str.to_datetime("%a %b %d %H:%M:%S%.f %Y", strict=False, time_unit="us")
    return _naive_to_utc(naive, tz)


def _epoch(s: pl.Expr, _tz: str) -> pl.Expr:
    value = s.str.extract(r"^(\d{9,19}(?:\.\d+)?)$").cast(pl.Float64, strict=False)
    scale = (
        pl.when(value.abs() < 1e11)
        .then(1e6)
        .when(value.abs() < 1e14)
        .then(1e3)
        .when(value.abs() < 1e17)
        .then(1.0)
        .otherwise(1e-3)
    )
    return pl.from_epoch(
        (value * scale).round(0).cast(pl.Int64), time_unit="us"
    ).dt.replace_time_zone("UTC")


def _syslog(s: pl.Expr, tz: str, ref: datetime) -> pl.Expr:
    one = s.str.replace_all(r" +", " ")

    def in_year(year: int) -> pl.Expr:
        naive = (pl.lit(f"{year} ") + one).str.to_datetime(
            "%Y %b %d %H:%M:%S", strict=False, time_unit="us"
        )
        return _naive_to_utc(naive, tz)

    this_year = in_year(ref.year)
    limit = pl.lit(ref).cast(UTC_US) + pl.duration(days=1)
    return pl.when(this_year <= limit).then(this_year).otherwise(in_year(ref.year - 1))


_EXPRS = {"iso8601": _iso, "clf": _clf, "apache_error": _apache, "epoch": _epoch}


def stamp_expr(
    s: pl.Expr, kind: str, *, tz: str = "UTC", reference: datetime | None = None
) -> pl.Expr:
    """``parse_timestamps`` as an expression over a column of ``kind`` stamps (for a lazy query)."""
    need_reference(kind, reference)
    text = s.cast(pl.String).str.strip_chars()
    if kind == "syslog" and reference is not None:
        return _syslog(text, tz, reference).cast(UTC_US)
    return _EXPRS[kind](text, tz).cast(UTC_US)
