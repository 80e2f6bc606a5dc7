"""What becomes of a job a stopped server left running (PURE: plain values in and out).

The runner (``runner.Runner.recover``) reads the job, its upload and its
checkpoint, asks ``verdict``, and does what it says: a job goes on from its
last checkpoint, or from the beginning when it had none (its upload is kept
until it ends), unless its cancel was asked for, its input is gone, or it has
not got any further over more than ``MAX_RESTARTS`` restarts in a row (or
was carried over ``MAX_RESTARTS_IN_ALL`` times) — a job
that kills the server (the OOM killer, a crash) must not kill it at every
start, while a job beside it that gets on does go on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CANCEL = "cancel"  # a trace entry's reason: DELETE asked for the job's cancel
RESTART = "restart"  # a trace entry's reason: the job was carried over a restart
#: Restarts in a row a running job is carried over while its saved progress does not
#: advance; the next one fails it.
MAX_RESTARTS = 2
#: Restarts a job is carried over in all, however far each got (a job that saves a
#: checkpoint, then kills the server, must not do it forever).
MAX_RESTARTS_IN_ALL = 10


@dataclass(frozen=True)
class Verdict:
    """``status`` (cancelled, failed or queued), with the error of a final one or the trace
    note of a queued one; ``fresh``: it starts again from the beginning."""

    status: str
    message: str
    fresh: bool = False


def verdict(trace: Sequence[dict[str, Any]], *, input_there: bool, saved: int | None) -> Verdict:
    """The fate of a job found running at start; ``saved``: the units its usable checkpoint
    holds (None: no usable checkpoint)."""
    if cancel_asked(trace):
        return Verdict("cancelled", "cancelled; the server stopped meanwhile")
    if not input_there:
        return Verdict("failed", "the server stopped while the job ran, and its upload is gone")
    stalled = stalled_restarts(trace, saved or 0)
    if stalled > MAX_RESTARTS:
        return Verdict(
            "failed",
            f"the server stopped {stalled} times in a row while the job ran without getting "
            "further; it is not started again (see the server log)",
        )
    restarts = 1 + sum(1 for t in trace if t.get("reason") == RESTART)
    if restarts > MAX_RESTARTS_IN_ALL:
        return Verdict(
            "failed",
            f"the server stopped {restarts} times while the job ran; it is not started again "
            "(see the server log)",
        )
    if saved is not None:
        return Verdict(
            "queued", "the server stopped while the job ran: resumed from its last checkpoint"
        )
    return Verdict(
        "queued",
        "the server stopped while the job ran, before a checkpoint was saved: started again "
        "from the beginning",
        fresh=True,
    )


def cancel_asked(trace: Sequence[dict[str, Any]]) -> bool:
    """Whether DELETE asked for the job's cancel (its trace keeps the ask)."""
    return any(t.get("reason") == CANCEL for t in trace)


def stalled_restarts(trace: Sequence[dict[str, Any]], saved: int) -> int:
    """Restarts in a row, this one included, after which the job's saved progress (units in
    its checkpoint, ``saved`` now) was no further than at the restart before."""
    previous, stalled = 0, 0
    for entry in [*(t for t in trace if t.get("reason") == RESTART), {"units_saved": saved}]:
        units = int(entry.get("units_saved") or 0)
        stalled = stalled + 1 if units <= previous else 0
        previous = max(previous, units)
    return stalled
