"""A batch once counted, wherever it was counted; the protocol of a backend that counts them.

The sampled loop consumes ``Tallied`` items in reading order. The local engine
makes them from the batches it reads (``iter_tallied``); a backend (Dask)
makes them on its workers with ``tally_units``, the same reading and the same
extraction over the same units, and hands them back in the same order. So the
evidence, the share checks and Router-Mem never know where a batch was read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from logagent.counters import Tally
from logagent.engine.healthy import measure
from logagent.engine.run import ParsePool
from logagent.evidence.matrix import F64
from logagent.formats import Format
from logagent.sources import Batch, Source, UnitPlan, iter_seekable_batches
from logagent.sources.batches import I64

#: What the share checks need of the next batch: (lines per unit, records per unit).
Needs = Callable[[], tuple[bool, bool]]


@dataclass(frozen=True)
class Tallied:
    """One batch's counts and what the loop needs to know of it (no line data)."""

    units: I64
    bytes_read: int
    lines: int
    tally: Tally
    unit_lines: F64 | None = None  # lines starting in each unit (when the checks asked)
    unit_records: F64 | None = None  # records of the format per unit (when asked)


#: A source of tallied batches in reading order, given what the checks need.
Feed = Callable[[Needs], Iterator[Tallied]]


def tally_one(batch: Batch, pool: ParsePool, fmt: Format, needs: tuple[bool, bool]) -> Tallied:
    """Extract and count one batch (the local engine's per-batch work, and a worker's)."""
    lines, records = measure(batch, fmt, needs)
    pool.add(batch)
    return Tallied(batch.units, batch.bytes_read, batch.lines, pool.flush(), lines, records)


def iter_tallied(
    batches: Iterator[Batch], pool: ParsePool, fmt: Format, needs: Needs
) -> Iterator[Tallied]:
    """The local feed: each batch counted as it comes, in this thread."""
    for batch in batches:
        item = tally_one(batch, pool, fmt, needs())
        del batch  # its buffer is free for the next batch's read (``buffers.POOL``)
        yield item


def tally_units(
    sources: Sequence[Source],
    plan: UnitPlan,
    units: I64,
    pool: ParsePool,
    *,
    cap: int,
    needs: tuple[bool, bool] = (False, False),
) -> Tallied:
    """Read ``units`` (a slice of the reading order) as one batch and count it.

    The very batch ``iter_seekable_batches`` would read for that slice, so a
    worker's counts of it equal the local engine's.
    """
    fmt = pool.fmt
    (batch,) = iter_seekable_batches(sources, plan, units, batch_units=max(1, len(units)), cap=cap)
    return tally_one(batch, pool, fmt, needs)


class Backend(Protocol):
    """Where inputs are opened and batches counted (``--engine dask``); None: this process."""

    def open_inputs(self, paths: Sequence[str]) -> list[Source]:
        """Resolve and open the inputs (local paths, URLs) for the driver's own small reads."""
        ...

    def sampled_feed(
        self,
        sources: Sequence[Source],
        plan: UnitPlan,
        slices: Iterator[I64],
        pool: ParsePool,
        *,
        cap: int,
    ) -> SampledFeed:
        """Count ``slices`` of the reading order elsewhere; hand them back in that order."""
        ...

    def count_all(
        self,
        sources: Sequence[Source],
        plan: UnitPlan,
        pool: ParsePool,
        *,
        batch_units: int,
        cap: int,
        most_units: int | None = None,
    ) -> Tally:
        """Count every unit and every stream: a tree-merge of per-task tallies (exact);
        ``most_units``: only the units before it (``--max-fraction``)."""
        ...

    @property
    def description(self) -> str:
        """Where it ran, for the result's warnings (e.g. "dask, 2 workers")."""
        ...


class SampledFeed(Protocol):
    """A backend's feed of a sampled read, which must be closed (outstanding tasks cancelled)."""

    def __call__(self, needs: Needs) -> Iterator[Tallied]:
        """The tallied batches, in the order of the slices."""
        ...

    def close(self) -> None:
        """Cancel what is still outstanding (Router-Mem stopped)."""
        ...
