"""`make bench` (time windows): how much of a 30-day log `--since 24h` has to read.

Generates a 30-day combined log (``logagent.samples.timespread``, ~300 MB by
default), bisects the last 24 h before its last line, and prints the window's
true bytes, the bytes of the range bisection chose, their ratio (the issue
asks <= 1.2), the probes, and whether filtering that range by time gives the
truth's lines and 5xx per route. Exits 1 when the ratio or the answer is off.
The generated file is deleted unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

from logagent.samples.timespread import generate
from logagent.sources.files import open_source
from logagent.timewindow import (
    WindowConfig,
    in_window_expr,
    last_line_time,
    line_time_for,
    parse_bound,
    parse_timestamps,
    window_for_source,
)

MAX_RATIO = 1.2


def count_window(data: bytes, since: object) -> tuple[int, int, dict[str, int]]:
    """Lines, bytes and 5xx per route of the lines in ``data`` at or after ``since``."""
    lines = pl.Series(data.decode("utf-8", "replace").splitlines())
    frame = pl.DataFrame({"line": lines}).with_columns(
        ts=parse_timestamps(lines.str.extract(r"\[([^\]]+)\]"), "clf"),
        status=pl.col("line").str.extract(r'" (\d{3}) ').cast(pl.Int32),
        route=pl.col("line").str.extract(r'"GET (\S+) ').str.replace_all(r"/\d+", "/{id}"),
    )
    inside = frame.filter(in_window_expr(pl.col("ts"), since, None))  # type: ignore[arg-type]
    errors = inside.filter(pl.col("status") >= 500).group_by("route").len()
    nbytes = int(inside["line"].str.len_bytes().sum()) + inside.height
    return inside.height, nbytes, {str(r): int(n) for r, n in errors.iter_rows()}


def run(path: Path, size_mb: float, seed: int) -> int:
    """Generate, bisect, check; print one report; return the exit status."""
    t0 = time.perf_counter()
    truth = generate(path, size_mb=size_mb, days=30, seed=seed)
    print(
        f"generated {truth['bytes'] / 1e6:.0f} MB, {truth['lines']} lines in {time.perf_counter() - t0:.1f} s"
    )
    source = open_source(str(path))
    try:
        line_time = line_time_for("combined")
        assert source.size is not None
        now = last_line_time(source.read_at, source.size, line_time, WindowConfig())
        assert now is not None, "no time on the last lines"
        since = parse_bound("24h", now=now)
        t1 = time.perf_counter()
        window = window_for_source(source, line_time, since=since, until=None)
        secs = time.perf_counter() - t1
        a, b = window.byte_range
        lines, nbytes, errors = count_window(source.read_at(a, b - a), since)
    finally:
        source.close()
    want = truth["window"]
    ratio = (b - a) / want["bytes"]
    want_errors = {k: v for k, v in want["errors_5xx"].items() if v}
    same = (lines, nbytes, errors) == (want["lines"], want["bytes"], want_errors)
    print(json.dumps(window.to_dict()))
    print(f"window bytes (truth)   {want['bytes']:>12,}")
    print(f"bisected range bytes   {b - a:>12,}")
    print(f"ratio                  {ratio:>12.4f}   (must be <= {MAX_RATIO})")
    print(f"probes                 {window.probes:>12}   ({secs * 1000:.0f} ms)")
    print(f"answer equals truth    {same!s:>12}   (lines {lines}, 5xx by route {errors})")
    return 0 if ratio <= MAX_RATIO and same else 1


def main() -> int:
    """Parse flags and run once."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size-mb", type=float, default=300.0, help="log size in MB (default 300)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", metavar="FILE", help="write the log here and keep it")
    args = p.parse_args()
    if args.keep:
        return run(Path(args.keep), args.size_mb, args.seed)
    with tempfile.TemporaryDirectory(prefix="window_bench") as tmp:
        return run(Path(tmp) / "month.log", args.size_mb, args.seed)


if __name__ == "__main__":
    sys.exit(main())
