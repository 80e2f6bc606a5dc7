"""The unit size for the question asked, chosen from a pilot's estimate of the binding gaps (PURE).

Stats note §10-11: a unit of S bytes can hide ``M = ceil(S / l_min)`` events,
and a race over a gap G needs at least ``1 - exp(-M ln(thr) / (c G))`` of the
input (the cap binds); beyond that, sampling variance needs about
``2 ln(thr) (a + b) / (a - b)^2`` (with the finite-population correction).
Small units cost per read: ``READ_OVERHEAD_BYTES`` of a full read's time per
positional read, until the sample is dense enough that reading through is as
cheap (``SEQUENTIAL_SHARE``: the bare byte read's share of a full read).

``choose`` takes the largest S in [64 B, 1 MiB] whose forecast cost is within
``SLACK`` of the best. The pilot's data only choose S: the main phase reads a
fresh permutation of the new units with e-processes started afresh, so the
guarantee does not depend on the pilot (it is a stopping-time choice of the
design, made before any of the main phase's draws).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MIN_UNIT = 64
MAX_UNIT = 1 << 20
SLACK = 1.2
TRUNCATION = 0.9
#: A positional read (syscall, Python, numpy placing) costs about this many bytes of a full
#: read (measured: ~8 us a unit gathered vs ~3.2 ns a byte of a full read, page cache).
READ_OVERHEAD_BYTES = 2048
#: Share of a full read's time that is moving bytes (the rest is the parse of every line).
SEQUENTIAL_SHARE = 0.15


@dataclass(frozen=True)
class Gap:
    """A pair the answer must separate: estimated full-input totals ``a > b``."""

    a: float
    b: float


@dataclass(frozen=True)
class UnitChoice:
    """The chosen unit size and why."""

    unit_size: int
    bound: float  # M
    fraction: float  # forecast fraction of units read at the stop
    cost: float  # forecast cost, in full reads
    gaps: tuple[Gap, ...]

    def describe(self) -> str:
        """One line for the trace."""
        g = min(self.gaps, key=lambda x: x.a - x.b) if self.gaps else None
        gap = f"{g.a:,.0f} vs {g.b:,.0f}" if g else "none"
        return (
            f"unit size {self.unit_size} B chosen after the pilot (M = {self.bound:.0f}, binding "
            f"gap {gap}, forecast {self.fraction:.1%} read, cost {self.cost:.2f} of a full read); "
            "the pilot only chose S: a fresh permutation of the new units is read and the "
            "e-processes start afresh, so the guarantee holds"
        )


def fraction_needed(gap: Gap, *, bound: float, threshold: float, f0: float) -> float:
    """Forecast fraction of units read to separate ``gap`` (the larger of cap and variance)."""
    g = gap.a - gap.b
    if g <= 0:
        return 1.0
    log_thr = math.log(threshold)
    cap = 1 - (1 - f0) * math.exp(-bound * log_thr / (TRUNCATION * g))
    var = 2 * log_thr * (gap.a + gap.b) / g**2
    return min(1.0, max(cap, var / (1 + var), f0))


def read_cost(fraction: float, unit_size: int) -> float:
    """Cost of reading ``fraction`` of the units of ``unit_size`` bytes, in full reads."""
    scattered = fraction * (1 + READ_OVERHEAD_BYTES / unit_size)
    return min(1.0, scattered, fraction + SEQUENTIAL_SHARE)


def top_k_gaps(
    totals: Mapping[str, float], k: int, *, candidates: int, ranked: bool = False
) -> list[Gap]:
    """Gaps binding a top-k set: the k-th against the (k+1)-th and against REST; ``ranked``: each
    adjacent pair too. REST is all of what lies outside the top ``candidates`` (with small
    units one unit holds at most one event, so REST's per-unit maximum is their sum)."""
    ranked_totals = sorted(totals.values(), reverse=True)
    if len(ranked_totals) < k or k <= 0:
        return [Gap(1.0, 1.0)]
    kth = ranked_totals[k - 1]
    nxt = ranked_totals[k] if len(ranked_totals) > k else 0.0
    rest = sum(ranked_totals[candidates:])
    gaps = [Gap(kth, max(nxt, rest))]
    if ranked:
        gaps += [Gap(a, b) for a, b in itertools.pairwise(ranked_totals[:k])]
    return gaps


def sizes() -> list[int]:
    """The unit sizes considered: powers of two in [MIN_UNIT, MAX_UNIT]."""
    return [1 << p for p in range(MIN_UNIT.bit_length() - 1, MAX_UNIT.bit_length())]


def choose(
    gaps: Sequence[Gap],
    *,
    total_bytes: int,
    min_event_bytes: int,
    threshold: float,
    pilot_units: int = 500,
    default: int | None = None,
) -> UnitChoice:
    """The largest unit size whose forecast cost is within ``SLACK`` of the best.

    When no size is forecast to beat a full read (the pilot could not see the gap),
    ``default`` is kept: no information is no reason for the largest units.
    """
    options = []
    for size in sizes():
        units = max(1, math.ceil(total_bytes / size))
        bound = float(math.ceil(size / max(min_event_bytes, 1)))
        f0 = min(1.0, min(max(50, math.ceil(0.01 * units)), pilot_units) / units)
        frac = max(
            (fraction_needed(g, bound=bound, threshold=threshold, f0=f0) for g in gaps),
            default=f0,
        )
        options.append(UnitChoice(size, bound, frac, read_cost(frac, size), tuple(gaps)))
    best = min(o.cost for o in options)
    if best >= 1.0 and default is not None:
        return next((o for o in options if o.unit_size == default), options[-1])
    return max((o for o in options if o.cost <= SLACK * best), key=lambda o: o.unit_size)
