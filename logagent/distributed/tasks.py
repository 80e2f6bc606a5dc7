"""What a worker runs: read units or a stream itself, count them as the local engine does (EDGE).

Module-level functions of plain, picklable arguments, so any scheduler can
ship them. Each reads its byte ranges on the worker (``inputs.worker_source``)
and runs the engine's own per-batch extraction (``tallied.tally_units``,
``ParsePool``); tallies merge in any order (a commutative monoid), which is
what ``merge_tallies`` relies on for the tree-merge of a full read.
"""

from __future__ import annotations

import numpy as np

from logagent.counters import Accumulator, Tally
from logagent.counters.tally import merge
from logagent.distributed.inputs import InputSpec, worker_source
from logagent.engine.run import ParsePool
from logagent.engine.tallied import Tallied, tally_units
from logagent.sources import UnitPlan, iter_stream_batches
from logagent.sources.batches import I64


def count_slice(
    specs: tuple[InputSpec, ...],
    plan: UnitPlan,
    units: I64,
    pool: ParsePool,
    cap: int,
    needs: tuple[bool, bool],
) -> Tallied:
    """One batch of a sampled read: ``units`` of the seekable inputs ``specs``, counted."""
    sources = [worker_source(s) for s in specs]
    return tally_units(sources, plan, units, pool.fresh(), cap=cap, needs=needs)


def count_range(
    specs: tuple[InputSpec, ...], plan: UnitPlan, lo: int, hi: int, pool: ParsePool, cap: int
) -> Tally:
    """Units ``[lo, hi)`` in file order (one source's neighbours: one framing pass), counted."""
    units = np.arange(lo, hi, dtype=np.int64)
    return count_slice(specs, plan, units, pool, cap, (False, False)).tally


def count_stream(
    spec: InputSpec, pool: ParsePool, cap: int, unit_size: int, first_unit: int, batch_bytes: int
) -> Tally:
    """A compressed input, read forwards whole by this one task (it cannot be split)."""
    source = worker_source(spec)
    pool, acc = pool.fresh(), Accumulator()
    try:
        for batch in iter_stream_batches(
            source, unit_size=unit_size, first_unit=first_unit, batch_bytes=batch_bytes, cap=cap
        ):
            pool.add(batch)
            if pool.due():
                acc.add(pool.flush())
        acc.add(pool.flush())
        if source.error is not None:  # what came before the damage is not an exact count
            raise source.error
    finally:
        source.close()
    return acc.snapshot()


def merge_tallies(*tallies: Tally) -> Tally:
    """One node of the tree-merge."""
    return merge(tallies)
