"""The memory forecast of the next batch, learned from the batches done (PURE).

A batch costs memory twice: what stays (the accumulator grows with the keys
and per-unit rows it adds) and what passes (buffers read ahead, the parse's
columns, the allocator's slack), which only the process's *peak* RSS shows.
After each batch the forecast learns both from four readings — RSS and peak
RSS, before and after — and predicts the next batch's peak above the current
RSS as ``per_byte * next_bytes + growth_per_unit * next_units``. The transient
factor only rises when a batch set a new peak (the peak hides smaller
transients), starting from a prior of ``PRIOR_PER_BYTE``, and counts only the
part of the peak above the RSS after the batch: what stays (the pooled
buffers, the accumulator) is already in the RSS and in the growth, and
counting it twice made a full read that peaks at 265 MiB give up under a
300 MiB budget. Growth per unit is the last batch's. Router-Mem compares
``rss + forecast`` with the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Before any batch is measured: three batch buffers (read ahead, being read, being parsed).
PRIOR_PER_BYTE = 3.0


@dataclass
class Forecast:
    """What the batches done say the next one will cost (mutable by design, no I/O)."""

    per_byte: float = PRIOR_PER_BYTE
    growth_per_unit: float = 0.0
    rss: int = 0
    peak: int = 0

    def start(self, rss: int, peak: int) -> None:
        """The readings before the first batch."""
        self.rss, self.peak = rss, peak

    def observe(self, rss: int, peak: int, batch_bytes: int, units: int) -> None:
        """Learn from the batch just done (readings after it)."""
        if units > 0:
            self.growth_per_unit = max(0, rss - self.rss) / units
        if peak > self.peak and batch_bytes > 0:
            transient = peak - max(self.rss, rss)
            self.per_byte = max(self.per_byte, transient / batch_bytes)
        self.rss, self.peak = rss, peak

    def next_batch(self, batch_bytes: int, units: int) -> int:
        """Bytes above the current RSS the next batch of this size is expected to need."""
        return int(self.per_byte * batch_bytes + self.growth_per_unit * units)
