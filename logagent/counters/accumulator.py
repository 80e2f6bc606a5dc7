"""The running total of a run (PURE, mutable by design).

Adding a tally per batch and re-aggregating everything each time would cost
O(total) per batch. The accumulator keeps new tallies pending and compacts
them with ``merge`` only when they outgrow the compacted total (or when a
snapshot is asked for), so the amortized cost per batch stays small.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from logagent.counters import sketch
from logagent.counters.tally import ROUTE, Tally, merge
from logagent.formats.base import BUCKET

MIN_PENDING_ROWS = 50_000


class Accumulator:
    """Sum of the tallies added so far; ``snapshot()`` returns it as one canonical Tally."""

    def __init__(self, start: Tally | None = None) -> None:
        self._total = start or Tally()
        self._pending: list[Tally] = []
        self._pending_rows = 0
        self._capacity: int | None = None
        self._errors_only = True
        self._protect: frozenset[str] = frozenset()
        self._collapse = False
        self._by_status = False

    def limit(
        self, capacity: int, *, errors_only: bool, protect: Collection[str], by_status: bool = False
    ) -> None:
        """From now on keep per-route counts of the heaviest ``capacity`` routes only (sketch.py).

        ``by_status``: the answer needs per-status totals only, kept exactly, without routes.
        """
        self._capacity, self._errors_only = capacity, errors_only
        self._protect, self._by_status = frozenset(protect), by_status
        self._compact(force=True)

    def drop_detail(self, protect: Collection[str]) -> None:
        """From now on collapse per-status and per-unit rows of routes not in ``protect``."""
        self._collapse, self._protect = True, frozenset(protect)
        self._compact(force=True)

    def add(self, tally: Tally) -> None:
        """Add one batch's tally."""
        self._pending.append(tally)
        self._pending_rows += _rows(tally)
        total_rows = _rows(self._total)
        if self._pending_rows > max(MIN_PENDING_ROWS, total_rows) or len(self._pending) > 256:
            self._compact()

    def snapshot(self) -> Tally:
        """Everything added so far, merged."""
        self._compact()
        return self._total

    def _compact(self, *, force: bool = False) -> None:
        if not self._pending and not force:
            return
        total = merge([self._total, *self._pending]) if self._pending else self._total
        self._pending = []
        self._pending_rows = 0
        if self._by_status:
            total = replace(total, counts=sketch.merge_routes(total.counts))
            total = replace(total, timeline=sketch.collapse_units(total.timeline, (), BUCKET))
        elif self._capacity is not None:
            counts, t, dropped = sketch.prune_counts(
                total.counts, self._capacity, errors_only=self._errors_only, protect=self._protect
            )
            kept = set(counts[ROUTE].to_list())
            total = replace(
                total,
                counts=counts,
                timeline=sketch.collapse_units(total.timeline, kept, BUCKET),
                count_error=total.count_error + t,
                dropped_errors=total.dropped_errors + dropped,
            )
        if self._collapse:
            total = replace(
                total,
                counts=sketch.collapse_detail(total.counts, self._protect),
                unit_errors=sketch.collapse_units(total.unit_errors, self._protect),
                unit_requests=sketch.collapse_units(total.unit_requests, self._protect),
                timeline=sketch.collapse_units(total.timeline, self._protect, BUCKET),
            )
        self._total = total


def _rows(tally: Tally) -> int:
    """Rows a tally holds (what compaction is paced by)."""
    frames = (
        tally.counts,
        tally.unit_errors,
        tally.unit_requests,
        tally.timeline,
        tally.unit_buckets,
    )
    return sum(f.height for f in frames)
