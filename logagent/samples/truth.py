"""PURE module: accumulate ground truth from rendered blocks.

Counting happens on the in-memory columns of each block while the file is
being generated (never by re-parsing the written file): a (route x status)
count matrix via ``np.bincount`` and, for the raw-path ranking, the raw
paths of 5xx lines only, grouped with polars at the end.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from ._arrow import ArrowArray, pa
from .fields import DAY_START_MS, I64, record_times_ms
from .render import Block
from .routes import Route

N_CODES = 600
TOP_RAW = 20


class TruthCounter:
    """Running per-route/per-status counts of one generated file."""

    def __init__(self, routes: list[Route], prefix_records: int, n_records: int = 0) -> None:
        """Start empty counts for ``routes``; prefix = first 90 % records; ``n_records`` places
        each record in time (``fields.record_times_ms``) for the per-hour 5xx counts."""
        self.routes = routes
        self.prefix_records = prefix_records
        self.n_records = n_records
        self.hourly = np.zeros((24, len(routes)), dtype=np.int64)  # 5xx per hour of the day
        self.counts = np.zeros((len(routes), N_CODES), dtype=np.int64)
        self.prefix_errors = np.zeros(len(routes), dtype=np.int64)
        self.error_paths: list[ArrowArray] = []

    def add(self, block: Block, first: int) -> None:
        """Count the records of ``block``, which starts at record ``first``."""
        flat = block.routes * N_CODES + block.codes
        size = len(self.routes) * N_CODES
        self.counts += np.bincount(flat, minlength=size).reshape(len(self.routes), N_CODES)
        in_prefix = (np.arange(len(block.routes)) + first) < self.prefix_records
        early = block.routes[in_prefix & (block.codes >= 500)]
        self.prefix_errors += np.bincount(early, minlength=len(self.routes))
        self.error_paths.append(block.error_paths)
        if self.n_records:
            errors = block.codes >= 500
            hours = record_times_ms(first, len(block.routes), self.n_records)[errors] // 3_600_000
            np.add.at(self.hourly, (hours, block.routes[errors]), 1)

    def timeline_1h(self) -> dict[str, dict[str, int]]:
        """5xx per route in each hour of the day (ISO 8601 UTC start -> route -> count)."""
        out: dict[str, dict[str, int]] = {}
        for hour in range(24):
            row = self.hourly[hour]
            start = (DAY_START_MS // 1000) + hour * 3600
            stamp = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            out[stamp] = {self.routes[i].template: int(row[i]) for i in np.flatnonzero(row)}
        return out

    def route_table(self) -> dict[str, dict[str, Any]]:
        """Per-route requests, 4xx, 5xx and status histogram (name order)."""
        table: dict[str, dict[str, Any]] = {}
        for i in np.flatnonzero(self.counts.sum(axis=1)):
            row = self.counts[i]
            codes = np.flatnonzero(row)
            table[self.routes[i].template] = {
                "requests": int(row.sum()),
                "4xx": int(row[400:500].sum()),
                "5xx": int(row[500:600].sum()),
                "status": {str(c): int(row[c]) for c in codes},
            }
        return dict(sorted(table.items()))

    def top_errors(self) -> list[list[Any]]:
        """All routes with 5xx, by count desc then route name asc."""
        errors = self.counts[:, 500:600].sum(axis=1)
        return ranked(self.routes, errors)

    def prefix_top(self) -> str | None:
        """Top 5xx route over the first 90 % of records."""
        ranking = ranked(self.routes, self.prefix_errors)
        return str(ranking[0][0]) if ranking else None

    def top_errors_raw(self) -> list[list[Any]]:
        """Top raw paths (query dropped, not normalized) by 5xx count."""
        paths = pa.concat_arrays(
            [p.cast(pa.string()) for p in self.error_paths] or [pa.array([], type=pa.string())]
        )
        frame = pl.DataFrame({"path": pl.Series("path", paths)})
        return top_counts(frame)


def top_counts(frame: pl.DataFrame) -> list[list[Any]]:
    """Group a one-column ``path`` frame, count desc then path asc."""
    grouped = (
        frame.group_by("path").len().sort(["len", "path"], descending=[True, False]).head(TOP_RAW)
    )
    return [[p, int(n)] for p, n in grouped.iter_rows()]


def ranked(routes: list[Route], counts: I64) -> list[list[Any]]:
    """Routes with a positive count, count desc then name asc."""
    pairs = [(routes[i].template, int(counts[i])) for i in np.flatnonzero(counts)]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return [[name, n] for name, n in pairs]


def truth_dict(counter: TruthCounter, meta: dict[str, Any], with_prefix: bool) -> dict[str, Any]:
    """Assemble the sidecar JSON object (see package docstring)."""
    top = counter.top_errors()
    truth = dict(meta)
    truth["lines_5xx"] = sum(n for _, n in top)
    truth["routes"] = counter.route_table()
    truth["top_errors"] = top
    truth["top_errors_raw"] = counter.top_errors_raw()
    if counter.n_records:
        truth["timeline_5xx_1h"] = counter.timeline_1h()
    if with_prefix:
        truth["prefix_90_lines"] = counter.prefix_records
        truth["prefix_90_top"] = counter.prefix_top()
    return truth
