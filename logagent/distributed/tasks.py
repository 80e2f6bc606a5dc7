"""What a worker runs: read units or a stream itself, count them as the local engine does (EDGE).

Module-level functions of plain, picklable arguments, so any scheduler can
ship them. Each reads its byte ranges on the worker (``inputs.worker_source``)
and runs the engine's own per-batch extraction (``tallied.tally_units``,
``ParsePool``); tallies merge in any order (a commutative monoid), which is
what ``merge_tallies`` relies on for the tree-merge of a full read.

Each task runs its worker's memory ladder (``workermem.count_in_pieces``):
whole when its memory is LOW or MEDIUM, in smaller pieces when HIGH, and a
counted prefix (a sampled read) or ``WorkerMemoryStop`` (a full read) when
the next piece would break the worker's limit. ``TaskOptions.delay_s`` makes
a task sleep first (the calibration's out-of-order completions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from logagent.counters import Accumulator, Tally
from logagent.counters.tally import merge
from logagent.distributed.inputs import InputSpec, RemoteSource, worker_source
from logagent.distributed.workermem import Counted, TaskMemory, WorkerMemoryStop, count_in_pieces
from logagent.engine.run import ParsePool
from logagent.engine.tallied import Tallied, tally_units
from logagent.sources import Source, UnitPlan, iter_stream_batches
from logagent.sources.batches import I64
from logagent.sources.framing import TAIL_SLACK


@dataclass(frozen=True)
class TaskOptions:
    """What a task is told besides its units: memory (limit fallback, probe) and a delay."""

    memory: TaskMemory = field(default_factory=TaskMemory)
    delay_s: float = 0.0  # sleep before counting (the calibration: completions out of order)


def count_slice(
    specs: tuple[InputSpec, ...],
    plan: UnitPlan,
    units: I64,
    pool: ParsePool,
    cap: int,
    needs: tuple[bool, bool],
    options: TaskOptions | None = None,
) -> Counted:
    """One batch of a sampled read: ``units`` of the seekable inputs ``specs``, counted
    under the worker's memory ladder (a prefix of ``units`` when it stopped)."""
    options = options or TaskOptions()
    if options.delay_s > 0:
        time.sleep(options.delay_s)
    sources = [worker_source(s) for s in specs]

    def count(piece: I64) -> Tallied:
        return _count_units(sources, plan, piece, pool, cap, needs)

    return count_in_pieces(units, count, options.memory, unit_size=plan.unit_size)


def _count_units(
    sources: list[Source],
    plan: UnitPlan,
    units: I64,
    pool: ParsePool,
    cap: int,
    needs: tuple[bool, bool],
) -> Tallied:
    """``units`` read as one batch and counted.

    Remote inputs first fetch every unit's range (with its look-back byte and tail
    slack) in one concurrent round, instead of one request after another.
    """
    remote = _prefetch(sources, plan, units)
    try:
        return tally_units(sources, plan, units, pool.fresh(), cap=cap, needs=needs)
    finally:
        for source in remote:
            source.forget()


def _prefetch(sources: list[Source], plan: UnitPlan, units: I64) -> list[RemoteSource]:
    """Fetch the ranges of ``units`` held by remote sources; returns those sources."""
    which = np.searchsorted(np.asarray(plan.bases), units, side="right") - 1
    size = plan.unit_size
    remote = []
    for s, source in enumerate(sources):
        mine = units[which == s]
        if not isinstance(source, RemoteSource) or len(mine) < 2 or _contiguous(mine):
            continue
        starts = (mine - plan.bases[s]) * size
        source.prefetch([(max(0, a - 1), a + size + TAIL_SLACK) for a in starts.tolist()])
        remote.append(source)
    return remote


def _contiguous(units: I64) -> bool:
    return bool(np.all(np.diff(units) == 1))


def count_range(
    specs: tuple[InputSpec, ...],
    plan: UnitPlan,
    lo: int,
    hi: int,
    pool: ParsePool,
    cap: int,
    options: TaskOptions | None = None,
) -> Tally:
    """Units ``[lo, hi)`` in file order (one source's neighbours: one framing pass), counted.

    A full read keeps no prefix: a stop of the ladder is ``WorkerMemoryStop``.
    """
    units = np.arange(lo, hi, dtype=np.int64)
    counted = count_slice(specs, plan, units, pool, cap, (False, False), options)
    if counted.tallied is None or counted.note.stopped is not None:
        raise WorkerMemoryStop(counted.note.describe())
    return counted.tallied.tally


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
