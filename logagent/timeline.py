"""Errors over time: the bucket width, the bucketed format, and the timeline answer (PURE).

The engine wraps the run's format in ``formats.bucketed.Bucketed`` when the
format has timestamps, so each counted event carries its time bucket; the
tally keeps matching events per (bucket, key) (``Tally.timeline``, bounded
like the counts by the memory ladder: pruned keys fold into one REST row per
bucket, so every bucket's total stays exact). ``timeline_answer`` turns that
into ``answer.timeline``: every bucket from the first to the last, its total
and each top key's count.

``--bucket auto`` takes the width from the time range of the format-detection
sample (it spans each seekable file from its start to its end) or of the time
window: the smallest round width giving at most 100 buckets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from statistics import NormalDist

import polars as pl

from logagent.counters.tally import ROUTE, UNIT, N, Tally
from logagent.formats.base import BUCKET, Format
from logagent.formats.bucketed import Bucketed, TimeOf, choose_bucket_s, parse_bucket
from logagent.result import Timeline, TimelineBucket


def bucket_width(
    setting: str, time: TimeOf, sample: Sequence[str], window: tuple[datetime | None, ...]
) -> int | None:
    """Seconds per bucket: the setting's, or (auto) one fitted to the window or the sample."""
    if setting == "off":
        return None
    fixed = parse_bucket(setting)
    if fixed is not None:
        return fixed
    since, until = window
    if since is not None and until is not None:
        return choose_bucket_s((until - since).total_seconds())
    stamps = pl.DataFrame({"line": list(sample)}, schema={"line": pl.String}).select(
        time(pl.col("line")).alias("t")
    )["t"]
    first, last = stamps.min(), stamps.max()
    if not isinstance(first, datetime) or not isinstance(last, datetime):
        return None  # no line of the sample has a time: no timeline
    lo = since or first
    return choose_bucket_s(max((last - lo).total_seconds(), 1.0))


def bucketed(fmt: Format, time: TimeOf, bucket_s: int) -> Format:
    """``fmt`` whose records carry their bucket."""
    return Bucketed(fmt, time, bucket_s)


def timeline_answer(
    tally: Tally,
    keys: Sequence[str],
    bucket_s: int,
    *,
    exact: bool,
    population: int | None = None,
    delta: float = 0.01,
    bound: float = 1.0,
) -> Timeline | None:
    """Every bucket from the first to the last event, its total and each of ``keys``' counts;
    for a sampled run (``population`` units, ``tally.units`` read) each bucket's interval."""
    rows = tally.timeline
    if rows.is_empty():
        return None
    totals = dict(rows.group_by(BUCKET).agg(pl.col(N).sum()).iter_rows())
    wanted = rows.filter(pl.col(ROUTE).is_in(list(keys)))
    per: dict[int, dict[str, int]] = {}
    for bucket, route, n in wanted.iter_rows():
        per.setdefault(bucket, {})[route] = int(n)
    first, last = min(totals), max(totals)
    starts = range(first, last + bucket_s, bucket_s)
    sampled = not exact and population is not None and not tally.unit_buckets.is_empty()
    bands = _bands(tally, starts, population or 0, delta, bound) if sampled else {}
    buckets = [
        TimelineBucket(
            start=_iso(b),
            total=int(totals.get(b, 0)),
            counts={k: per.get(b, {}).get(k, 0) for k in keys},
            **dict(zip(("estimate", "low", "high"), bands.get(b, ()), strict=False)),
        )
        for b in starts
    ]
    return Timeline(
        bucket_s=bucket_s,
        basis="exact" if exact else "seen",
        buckets=buckets,
        interval=INTERVAL_METHOD if sampled else None,
    )


def _bands(
    tally: Tally, starts: range, population: int, delta: float, bound: float
) -> dict[int, tuple[float, float, float]]:
    """Each bucket's interval from the per-unit counts of the units read (empty buckets too)."""
    per_unit: dict[int, list[int]] = {b: [] for b in starts}
    for _, bucket, n in tally.unit_buckets.select(UNIT, BUCKET, N).iter_rows():
        per_unit.setdefault(bucket, []).append(int(n))
    return bucket_intervals(
        per_unit, read=tally.units, population=population, delta=delta, bound=bound
    )


def _iso(epoch_s: int) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


#: How a sampled run's per-bucket intervals are made: an approximation, said in the result.
INTERVAL_METHOD = (
    "approximate (not anytime-valid): the wider of a normal interval (finite-population "
    "correction, variance at least M times the mean) and a Poisson (Garwood) interval, "
    "simultaneous over buckets by Bonferroni at delta"
)


def bucket_intervals(
    per_unit: dict[int, list[int]], *, read: int, population: int, delta: float, bound: float = 1
) -> dict[int, tuple[float, float, float]]:
    """(estimate, low, high) of each bucket's full-input total from the units read.

    ``per_unit[b]`` lists the nonzero counts the read units hold in bucket b
    (every other read unit holds 0). A sampled unit is a draw without
    replacement from ``population`` units, ``read`` of them drawn. A unit holds
    at most ``bound`` events (M), so its variance is at most ``M`` times its
    mean: the normal part uses the larger of that and the sample variance,
    since a burst no read unit caught leaves the sample variance too small.
    """
    if read <= 0 or not per_unit:
        return {}
    alpha = delta / len(per_unit)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    scale = population / read
    fpc = max(0.0, 1 - read / population)
    out = {}
    for bucket, values in per_unit.items():
        seen = float(sum(values))
        squares = float(sum(v * v for v in values))
        var = (squares - seen * seen / read) / (read - 1) if read > 1 else 0.0
        var = max(var, bound * seen / read)  # Var(X) <= M E[X] for X in [0, M]
        half = z * population * math.sqrt(max(var, 0.0) * fpc / read)
        est = seen * scale
        p_low, p_high = _garwood(seen, alpha)
        low = max(seen, min(est - half, p_low * scale))
        high = max(est + half, p_high * scale, low)
        out[bucket] = (est, low, high) if fpc > 0 else (seen, seen, seen)
    return out


def _garwood(count: float, alpha: float) -> tuple[float, float]:
    """The exact Poisson interval of a count (chi-square quantiles, Wilson-Hilferty)."""
    low = 0.0 if count == 0 else _chi2(alpha / 2, 2 * count) / 2
    return low, _chi2(1 - alpha / 2, 2 * count + 2) / 2


def _chi2(p: float, k: float) -> float:
    """The p-quantile of chi-square with k degrees of freedom (Wilson-Hilferty, k >= 1)."""
    z = NormalDist().inv_cdf(p)
    c = 2 / (9 * k)
    return float(k * max(0.0, 1 - c + z * math.sqrt(c)) ** 3)
