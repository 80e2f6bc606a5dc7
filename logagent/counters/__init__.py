"""Tallies and the accumulator (PURE)."""

from logagent.counters.accumulator import Accumulator
from logagent.counters.tally import Tally, merge, same_counts, tally_batch

__all__ = ["Accumulator", "Tally", "merge", "same_counts", "tally_batch"]
