"""The read of everything: every unit in file (or random) order, then the streams (EDGE).

``read_everything`` counts every unit in batches while Router-Mem's
``FullReadGuard`` still watches budgets, memory and signals: they stop it with
a partial answer and a checkpoint (``stop_partial``). ``Counted`` books what is
in the counts, as ranges where it can. Split from ``engine.reading``, which
chooses between this and the early-stop read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator

import numpy as np
import polars as pl

from logagent.engine.loops import reapply_steps, take_step
from logagent.engine.run import ParsePool, ProgressEvent, Run
from logagent.engine.sampled import FullReadGuard
from logagent.errors import InputCorrupt
from logagent.formats.batchlines import line_ends_at_most
from logagent.formats.extract import Scanned
from logagent.log import get_logger
from logagent.questions import counts_events
from logagent.result import DecisionRecord
from logagent.routermem.router import Reason
from logagent.sources import (
    Batch,
    Order,
    Source,
    UnitPlan,
    iter_seekable_batches,
    iter_stream_batches,
    unit_order,
)
from logagent.sources.batches import I64
from logagent.sources.files import InputChanged, ReadStopped
from logagent.sources.prefetch import iter_prefetched
from logagent.sources.prescan import Prescan
from logagent.sources.scanworkers import ScanWorkers, workers_for

log = get_logger("logagent.engine")

#: Batches per batch of a prescanned read of everything (``sources.prescan``): 64 MiB.
PRESCAN_BATCHES = 8
#: Average line length (bytes) from which a batch is scanned ahead (``scanned_ahead``).
AHEAD_BYTES_PER_LINE = 128


def read_everything(
    run: Run,
    plan: UnitPlan,
    seekable: list[Source],
    pool: ParsePool,
    known: int,
    order: Order,
    phase: str,
    done: I64 | None,
) -> None:
    """Read every unit (in ``order``), then streams, in batches; budgets and memory still apply.

    ``done``: units already counted (a resumed run), skipped. Checkpoints are
    written every ``checkpoint.every`` batches and when the read stops early.
    """
    if run.reading != "stream":
        run.reading = "random_units" if order is Order.RANDOM else "sequential"
    guard = FullReadGuard(run, plan.total_units, len(done) if done is not None else 0)
    if done is not None:
        reapply_steps(run)  # a resumed read: its counts stay as bounded as they were
    counted = Counted(done)
    resumed = run.acc.snapshot() if done is not None else None
    nbytes = resumed.bytes_read if resumed is not None else 0
    nlines = resumed.lines if resumed is not None else 0  # so far: the progress shows a total
    every = run.settings.checkpoint.every

    def flush() -> None:
        run.acc.add(pool.flush())
        counted.flushed()

    def stop(why: str, reason: str = "interrupted") -> None:
        flush()
        run.save(phase, order.value, done=counted.units())  # before the stop enters the trace
        stop_partial(run, why, reason)

    prescan = pool.prescan()
    workers = None
    if prescan is not None and order is Order.SEQUENTIAL:
        reader = run.settings.reader
        workers = workers_for(
            seekable,
            prescan,
            cap=reader.line_cap,
            nbytes=known,
            processes=reader.scan_processes,
            parallel_from=reader.scan_parallel_from,
        )
    try:
        batches = iter_batches(
            run, plan, seekable, order, skip=counted.skip, prescan=prescan, workers=workers
        )
        ahead = scanned_ahead(batches, pool)  # in the reader thread
        for i, (batch, lines_of) in enumerate(iter_prefetched(ahead, depth=1), start=1):
            nbytes += batch.bytes_read
            nlines += pool.add(batch, lines_of)
            counted.add(batch.units)
            if pool.due():
                flush()
            if run.env.on_progress:
                run.env.on_progress(ProgressEvent(nbytes, known or None, nlines))
            decision = guard.check(batch)
            if decision is not None and decision.step:
                take_step(run, decision.step, _heaviest(run))
            elif decision is not None:
                stop(decision.detail, decision.reason.value)
                break
            if run.env.checkpoint is not None and i % every == 0:
                flush()
                run.save(phase, order.value, done=counted.units())
    except ReadStopped as exc:  # inside a batch (one very long line): stop now
        stop(exc.message, exc.reason)
    except InputChanged as exc:
        stop(str(exc), Reason.INPUT_CHANGED.value)
    except InputCorrupt as exc:
        stop(str(exc), Reason.INPUT_DAMAGED.value)
    except MemoryError:
        stop("out of memory while reading (MemoryError)", Reason.MEMORY.value)
    finally:
        if workers is not None:
            workers.close()
    flush()


def scanned_ahead(
    batches: Iterator[Batch], pool: ParsePool
) -> Iterator[tuple[Batch, Scanned | None]]:
    """Each batch with its lines found (``ParsePool.scan``), for the reader thread: the
    newline search and line views of the next batch then overlap the parse of this one. Not
    for a batch of short lines (under ``AHEAD_BYTES_PER_LINE`` on average, None: the pool
    scans it when it is added): a scanned batch holds ~40 bytes a line (views, starts,
    units), more than the batch itself for blank or tiny lines, and three are held at once
    (a review found a budgeted run of 2-byte lines stopped partial at 930 MiB, not 710).
    A pool that keeps only a prefilter's candidates (``ParsePool.selective``) scans short
    lines ahead too until a scan keeps one line in less than ``AHEAD_BYTES_PER_LINE`` bytes
    of its batch (the ERROR lines of a log4j log of ~125-byte lines: the scan was a third
    of the main thread's time)."""
    every = not pool.selective  # a scan keeps every line (and searches every newline)
    dense = every  # a scan keeps (about) every line
    for batch in batches:
        ends = None
        if every:
            # the scan's own newline search decides, stopped once too many are found (the
            # lines had been counted first, a second pass over the batch: 0.25 s a GB of
            # -q status in the reader thread)
            ends = line_ends_at_most(batch.data, batch.size, batch.size // AHEAD_BYTES_PER_LINE)
            if ends is None:
                yield batch, None
                continue
        elif dense and batch.size < AHEAD_BYTES_PER_LINE * batch.lines:
            yield batch, None
            continue
        scanned = pool.scan(batch, ends)
        ends = None  # the scan holds what it needs: not kept while the batch waits
        # a selective scan's count: found by its newline search where it made one (the lines
        # of a batch are counted only when asked, ``Batch.lines``)
        short = not dense and batch.size < AHEAD_BYTES_PER_LINE * scanned.lines
        if short and len(scanned.text) * AHEAD_BYTES_PER_LINE > batch.size:
            dense = True  # this one is held already; the pool scans the next ones
        yield batch, scanned


def count_remotely(run: Run, plan: UnitPlan, pool: ParsePool) -> None:
    """Every unit and stream counted by the backend's workers, tallies tree-merged (exact)."""
    backend = run.env.backend
    assert backend is not None
    run.reading = "sequential"
    batch_units = max(1, run.batch_bytes // plan.unit_size)
    if any(not s.seekable for s in run.sources):
        run.warnings.append(
            "compressed inputs cannot be split: each was read whole, in order, by one task "
            f"({backend.description})"
        )
    most = _fraction_units(run, plan)
    try:
        run.acc.add(
            backend.count_all(
                run.sources,
                plan,
                pool,
                batch_units=batch_units,
                cap=run.settings.reader.line_cap,
                most_units=most,
            )
        )
    except ReadStopped as exc:  # a signal or budget: nothing of the tree is kept
        stop_partial(run, exc.message, exc.reason)
        return
    except InputCorrupt as exc:  # a damaged stream or a changed input on a worker
        stop_partial(run, str(exc), Reason.INPUT_DAMAGED.value)
        return
    if most is not None and most < plan.total_units:  # where the local guard stops (router)
        stop_partial(run, f"{most / plan.total_units:.2%} read", Reason.FRACTION_BUDGET.value)


def _fraction_units(run: Run, plan: UnitPlan) -> int | None:
    """The units a ``--max-fraction`` lets a remote read count: the first ones, in file order,
    as a local read of everything reads them. None without a budget, or with a stream (whose
    whole is unknown: the local guard does not stop one by its fraction either)."""
    fraction = run.settings.budget.max_fraction
    if fraction is None or any(not s.seekable for s in run.sources):
        return None
    return fraction_units(fraction, plan.total_units)


def fraction_units(fraction: float, total: int) -> int:
    """The first units that make ``fraction`` of ``total``: at least one, rounded up (after
    rounding off float noise: 0.07 x 100 is 7.000000000000001, and a local read stops at 7)."""
    return max(1, math.ceil(round(fraction * total, 9)))


def _heaviest(run: Run) -> tuple[str, ...]:
    """A full read's "candidates" for the memory ladder: its heaviest routes so far."""
    counts = run.acc.snapshot().counts
    if counts_events(run.question.kind):
        counts = counts.filter(pl.col("status").is_between(500, 599))
    per_route = (
        counts.group_by("route")
        .agg(pl.col("n").sum())
        .sort(["n", "route"], descending=[True, False])
    )
    return tuple(per_route["route"].head(run.settings.analysis.max_candidates * 2).to_list())


class Counted:
    """Units whose counts are in the accumulator (pending ones wait in the parse pool).

    A batch of neighbouring units (file order) is kept as its range, not its array: a
    read of 10 GB in 64 B units counts 1.6·10^8 of them, 1.2 GB as arrays.
    """

    def __init__(self, done: I64 | None) -> None:
        self.skip = done if done is not None and len(done) else None
        self._groups: list[I64 | tuple[int, int]] = [self.skip] if self.skip is not None else []
        self._pending: list[I64 | tuple[int, int]] = []

    def add(self, units: I64) -> None:
        """A batch was handed to the parse pool."""
        n = len(units)
        if n and int(units[-1]) - int(units[0]) == n - 1 and _increasing(units):
            lo, hi = int(units[0]), int(units[-1]) + 1
            last = self._pending[-1] if self._pending else None
            if isinstance(last, tuple) and last[1] == lo:
                self._pending[-1] = (last[0], hi)
            else:
                self._pending.append((lo, hi))
        else:
            self._pending.append(units)

    def flushed(self) -> None:
        """The pool was parsed: its batches are counted."""
        self._groups.extend(self._pending)
        self._pending = []

    def units(self) -> I64:
        """Every counted unit."""
        parts = [np.arange(*g, dtype=np.int64) if isinstance(g, tuple) else g for g in self._groups]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _increasing(units: I64) -> bool:
    """Whether a batch's units are n neighbours in file order (first to last span n - 1)."""
    return len(units) < 3 or bool(np.all(np.diff(units) == 1))


def iter_batches(
    run: Run,
    plan: UnitPlan,
    seekable: list[Source],
    order: Order,
    skip: I64 | None = None,
    prescan: Prescan | None = None,
    workers: ScanWorkers | None = None,
) -> Iterator[Batch]:
    """Batches of every unit in ``order``, then of the streams; units in ``skip`` are left out.

    ``prescan``: runs of neighbouring units hand on only their candidate lines.
    """
    reader = run.settings.reader
    unit_size = plan.unit_size
    seed = run.seed if run.seed is not None else fresh_seed(run)
    batch_units = run.budget_units(plan.total_units, max(1, run.batch_bytes // unit_size))
    # a prescanned batch holds only its candidate lines: larger ones cost no memory and
    # spare the per-batch work (parse call, memory reading, progress) of a fast read; still
    # an eighth of the input at most, so that budgets, signals and progress act between them
    prescan_units = None
    if order is Order.SEQUENTIAL:
        most = min(PRESCAN_BATCHES * batch_units, plan.total_units // 8)
        prescan_units = run.budget_units(plan.total_units, max(batch_units, most))
    units = unit_order(plan.total_units, order, seed)
    if skip is not None:
        every = units[0 : len(units)]  # a resumed full read: only what is left (materialized)
        units = every[~np.isin(every, skip)]
    yield from iter_seekable_batches(
        seekable,
        plan,
        units,
        batch_units=batch_units,
        cap=reader.line_cap,
        scale=run.batch_scale,
        prescan=prescan,
        prescan_units=prescan_units,
        workers=workers,
    )
    next_unit = plan.total_units
    for source in (s for s in run.sources if not s.seekable):
        for batch in iter_stream_batches(
            source,
            unit_size=unit_size,
            first_unit=next_unit,
            batch_bytes=run.batch_bytes,
            cap=reader.line_cap,
        ):
            next_unit = int(batch.units[-1]) + 1 if len(batch.units) else next_unit
            if skip is not None and len(batch.units) and np.isin(batch.units, skip).all():
                continue  # counted before the checkpoint: read again (a stream), not counted
            yield batch


def draw_seed(run: Run) -> int:
    """The run's seed: ``--seed``, else a random one (drawn once, kept on the run)."""
    if run.seed is None:
        run.seed = fresh_seed(run)
    return run.seed


def fresh_seed(run: Run) -> int:
    seed = run.settings.analysis.seed
    # os.urandom, as secrets.randbits reads it: secrets imports hmac and hashlib, whose
    # OpenSSL would be 3.3 MiB of every run's RSS
    return seed if seed is not None else int.from_bytes(os.urandom(8), "little") >> 1


def stop_partial(run: Run, why: str, reason: str = "interrupted") -> None:
    run.partial = True
    run.warnings.append(f"partial answer: {why}; counts cover only what was read")
    tally = run.acc.snapshot()
    total = sum(s.size or 0 for s in run.sources)
    seekable = total and all(s.seekable for s in run.sources)
    fraction = min(1.0, tally.bytes_read / total) if seekable else 0.0  # a pilot's bytes too
    run.decisions.append(
        DecisionRecord(
            units_read=tally.units,
            fraction_read=round(fraction, 6),
            action="STOP_PARTIAL",
            reason=reason,
            detail=why,
        )
    )
    log.warning("stop_partial", reason=why, units_read=tally.units)
    if reason != Reason.INPUT_CHANGED.value:  # resume refuses an input that changed
        run.say_resumable()
