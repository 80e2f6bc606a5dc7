"""Write a 30-day access log in nginx ``combined`` format and the truth of its last day.

Usage: python -m logagent.samples.timespread --size-mb 300 --days 30 -o month.log

EDGE module (writes files); the rendering is vectorized Polars on blocks of
records. Times are spread evenly over ``days`` days that end on
2026-11-28T00:00Z and are written in America/New_York, so the file crosses
the November DST change (-0400 to -0500) while UTC stays in order. One line in
ten is written up to 60 s late (multi-threaded servers do that), so the log is
time-ordered only within a tolerance.

``FILE.truth.json`` holds, for the window ``[t_last - 24h, ...)`` where
``t_last`` is the time written on the file's last line: its lines, bytes, first
byte offset and 5xx per route, counted from the generated columns.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

END = datetime(2026, 11, 28, tzinfo=UTC)
TIME_ZONE = "America/New_York"
ROUTES = (
    "/api/v1/users/{id}",
    "/api/v1/orders/{id}",
    "/api/v1/pay/{id}",
    "/api/v2/search",
    "/health",
)
ROUTE_WEIGHTS = np.asarray([30, 20, 10, 15, 25], dtype=float)
ERROR_ROUTE_WEIGHTS = np.asarray([1, 2, 6, 1, 0.2])  # relative 5xx odds per route
LATE_SHARE, LATE_MAX_S = 0.1, 60
BLOCK = 200_000
MEAN_LINE = 133  # bytes, about what a block renders; only sizes the file


def render(
    rng: np.random.Generator, seconds: np.ndarray
) -> tuple[pl.Series, np.ndarray, np.ndarray]:
    """Lines for records at ``seconds`` (UTC epoch), with each record's route and status."""
    n = len(seconds)
    route = rng.choice(len(ROUTES), n, p=ROUTE_WEIGHTS / ROUTE_WEIGHTS.sum())
    odds = 0.01 * ERROR_ROUTE_WEIGHTS[route]
    status = np.where(rng.random(n) < odds, rng.choice([500, 502, 503, 504], n), 200)
    ids = rng.integers(1, 10**7, n).astype(str)
    path = np.char.replace(np.asarray(ROUTES)[route], "{id}", ids)
    stamp = (
        pl.Series(seconds * 1_000_000)
        .cast(pl.Datetime("us", "UTC"))
        .dt.convert_time_zone(TIME_ZONE)
        .dt.strftime("%d/%b/%Y:%H:%M:%S %z")
    )
    frame = pl.DataFrame(
        {
            "ip": pl.Series(rng.integers(1, 255, (n, 4)).astype(str).tolist()).list.join("."),
            "ts": stamp,
            "path": path,
            "status": status,
            "size": rng.integers(100, 20_000, n),
            "rt": np.round(rng.lognormal(-3, 1, n), 3),
        }
    )
    line = pl.format(
        '{} - - [{}] "GET {} HTTP/1.1" {} {} "-" "Mozilla/5.0 (X11; Linux x86_64)" {}',
        *[pl.col(c) for c in ("ip", "ts", "path", "status", "size", "rt")],
    )
    return frame.select(line).to_series(), route, status


def record_seconds(rng: np.random.Generator, n: int, days: float) -> np.ndarray:
    """Sorted uniform times over ``days`` days ending at END; 10 % written up to 60 s late."""
    start = END.timestamp() - days * 86400
    t = np.sort(rng.integers(int(start), int(END.timestamp()), n))
    late = rng.random(n) < LATE_SHARE
    return t - late * rng.integers(0, LATE_MAX_S + 1, n)


def generate(
    path: str | os.PathLike[str], *, size_mb: float, days: float = 30, seed: int = 1
) -> dict[str, Any]:
    """Write the log and its truth sidecar; return the truth."""
    if not size_mb > 0 or not days > 0:
        raise ValueError(f"need size_mb > 0 and days > 0, got {size_mb}, {days}")
    rng = np.random.default_rng([seed, 30])
    seconds = record_seconds(rng, max(2, round(size_mb * 1e6 / MEAN_LINE)), days)
    lengths, routes, statuses = [], [], []
    with open(path, "wb") as fh:
        for a in range(0, len(seconds), BLOCK):
            lines, route, status = render(rng, seconds[a : a + BLOCK])
            fh.write(("\n".join(lines.to_list()) + "\n").encode())
            lengths.append(lines.str.len_bytes().to_numpy() + 1)
            routes.append(route)
            statuses.append(status)
    truth = window_truth(
        seconds, np.concatenate(lengths), np.concatenate(routes), np.concatenate(statuses)
    )
    truth.update(seed=seed, days=days)
    with open(f"{os.fspath(path)}.truth.json", "w", encoding="utf-8") as fh:
        json.dump(truth, fh, indent=1)
        fh.write("\n")
    return truth


def window_truth(
    seconds: np.ndarray, lengths: np.ndarray, route: np.ndarray, status: np.ndarray
) -> dict[str, Any]:
    """Facts about the last 24 h before the last line's time."""
    now = int(seconds[-1])
    inside = seconds >= now - 86400
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    errors = np.bincount(route[inside & (status >= 500)], minlength=len(ROUTES))
    return {
        "bytes": int(lengths.sum()),
        "lines": len(seconds),
        "now": datetime.fromtimestamp(now, UTC).isoformat(),
        "since": datetime.fromtimestamp(now - 86400, UTC).isoformat(),
        "window": {
            "lines": int(inside.sum()),
            "bytes": int(lengths[inside].sum()),
            "first_offset": int(starts[np.argmax(inside)]),
            "errors_5xx": {ROUTES[i]: int(errors[i]) for i in range(len(ROUTES))},
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; print one summary line to stderr."""
    p = argparse.ArgumentParser(
        prog="python -m logagent.samples.timespread", description=__doc__.split("\n")[0]
    )
    p.add_argument(
        "--size-mb", type=float, default=300.0, help="approximate size in MB (default 300)"
    )
    p.add_argument("--days", type=float, default=30.0, help="days the log spans (default 30)")
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="log file to write")
    args = p.parse_args(argv)
    try:
        truth = generate(args.output, size_mb=args.size_mb, days=args.days, seed=args.seed)
    except (ValueError, OSError) as err:
        p.error(str(err))
    print(f"wrote {truth['bytes']} bytes, {truth['lines']} lines to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
