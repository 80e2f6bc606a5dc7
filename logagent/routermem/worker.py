"""Router-Mem on a worker: the memory steps a task takes on its own batch (PURE).

On Dask the driver keeps the evidence and its own budget (``router.decide``);
each worker holds one batch at a time under its own limit. Before each piece
of its batch a task classifies its memory with the driver's very function
(``MemoryView.level``) and takes, one per decision, the steps of
``router.LADDER`` that make sense where no evidence is kept:

- ``smaller_batches``: the task counts its units in pieces a quarter the size
  (the driver's factor, ``Run.batch_scale``), their tallies added (exact: the
  counts of a unit do not depend on the batch it was read in).
- ``sketch`` bounds the driver's accumulator: a worker has none to bound.
- ``drop_detail`` is not taken on a worker: collapsing the rows outside the
  candidates turns a unit's REST statistic (the largest other key) into their
  sum, so the evidence would differ from the local engine's.

Once the steps are taken and the next piece is forecast to break the limit,
the task stops (rule 7's STOP_PARTIAL MEMORY): it returns the pieces it
counted, a prefix of its slice of the reading order, exact for those units.
"""

from __future__ import annotations

import math

from logagent.routermem.router import LADDER, Action, Decision, MemoryView, Reason, memory_rule

#: The ladder steps a worker can take, in the driver's order.
WORKER_LADDER = tuple(step for step in LADDER if step == "smaller_batches")
#: Pieces after ``smaller_batches``: the driver's batch factor.
PIECE_SCALE = 0.25


def decide_on_worker(memory: MemoryView) -> Decision:
    """DEGRADE with the next worker step when HIGH, STOP_PARTIAL over the limit, else CONTINUE."""
    stepped = memory_rule(memory, WORKER_LADDER, who="worker ", over="over the limit")
    return stepped or Decision(Action.CONTINUE, Reason.NOT_SETTLED, memory.describe())


def piece_units(slice_units: int, steps_taken: tuple[str, ...]) -> int:
    """Units per piece of a task's slice of ``slice_units``, given the steps taken."""
    if "smaller_batches" not in steps_taken:
        return max(1, slice_units)
    return max(1, math.ceil(slice_units * PIECE_SCALE))


def worker_budget(limit_bytes: int | None, fallback_bytes: int | None, rss: int, free: int) -> int:
    """The worker's own limit; else the one sent with the task; else what its machine can give."""
    if limit_bytes:
        return limit_bytes
    if fallback_bytes:
        return fallback_bytes
    return rss + free
