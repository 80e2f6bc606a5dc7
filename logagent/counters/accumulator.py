"""The running total of a run (PURE, mutable by design).

Adding a tally per batch and re-aggregating everything each time would cost
O(total) per batch. The accumulator keeps new tallies pending and compacts
them with ``merge`` only when they outgrow the compacted total (or when a
snapshot is asked for), so the amortized cost per batch stays small.
"""

from __future__ import annotations

from logagent.counters.tally import Tally, merge

MIN_PENDING_ROWS = 50_000


class Accumulator:
    """Sum of the tallies added so far; ``snapshot()`` returns it as one canonical Tally."""

    def __init__(self, start: Tally | None = None) -> None:
        self._total = start or Tally()
        self._pending: list[Tally] = []
        self._pending_rows = 0

    def add(self, tally: Tally) -> None:
        """Add one batch's tally."""
        self._pending.append(tally)
        self._pending_rows += (
            tally.counts.height + tally.unit_errors.height + tally.unit_requests.height
        )
        total = self._total
        total_rows = total.counts.height + total.unit_errors.height + total.unit_requests.height
        if self._pending_rows > max(MIN_PENDING_ROWS, total_rows) or len(self._pending) > 256:
            self._compact()

    def snapshot(self) -> Tally:
        """Everything added so far, merged."""
        self._compact()
        return self._total

    def _compact(self) -> None:
        if self._pending:
            self._total = merge([self._total, *self._pending])
            self._pending = []
            self._pending_rows = 0
