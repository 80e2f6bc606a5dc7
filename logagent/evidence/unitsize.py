"""The unit size for the question asked, chosen from a pilot's estimate of the binding gaps (PURE).

Stats note §10: a unit of S bytes can hide ``M = ceil(S / l_min)`` events, and
a race over a gap G needs at least ``1 - exp(-M ln(thr) / (c G))`` of the input
(the cap binds); beyond that, sampling variance needs about
``2 ln(thr) (a + b) / (a - b)^2`` of it, which the betting e-processes here
need ``VARIANCE_FACTOR`` times over (measured, below).

What a fraction costs depends on S: each unit is a positional read and a
column of the evidence (``UNIT_S``), each byte of it is framed and searched
(``SAMPLED_BYTE_S``), while a read of everything costs ``FULL_BYTE_S`` a byte
when only its candidate lines are parsed (``sources.prescan``) and
``PARSE_BYTE_S`` when every line is. So ``cost_factor(S)`` is what reading a
fraction f costs, in full reads, per unit of f; Router-Mem weighs the forecast
fraction with it before choosing DEGRADE.

``choose`` takes the largest S in [64 B, 1 MiB] whose forecast cost is within
``SLACK`` of the best. The pilot's data only choose S: the main phase reads a
fresh permutation of the new units with e-processes started afresh, so its
guarantee does not depend on the pilot (the pilot is independent of the new
order, and the choice is made before any of its draws).
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
#: Measured on this engine (2-core VM, page cache), fitted over 10 GB top-1 reads in 1 KiB and
#: 16 KiB units and a 1 GB read of 74k units of 4 KiB: ~36 us a unit read and ~2.4 ns a byte.
UNIT_S = 36e-6
SAMPLED_BYTE_S = 2.4e-9
#: A read of everything: 1 GB `dominant` top-errors --full in 0.80 s (prescanned) and
#: -q status --full in 15.4 s (every line parsed; a sampled read then parses every line too).
FULL_BYTE_S = 0.8e-9
PARSE_BYTE_S = 15e-9
#: The e-processes settled 10 GB top-1 reads at ~6x the fixed-sample variance estimate
#: (0.1 % read in 64-256 B units where the formula says 0.016 %).
VARIANCE_FACTOR = 6.0


@dataclass(frozen=True)
class Gap:
    """A pair the answer must separate: estimated full-input totals ``a >= b``."""

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

    @property
    def binding(self) -> Gap | None:
        """The narrowest gap (the one that decides the fraction)."""
        return min(self.gaps, key=lambda g: g.a - g.b) if self.gaps else None

    def describe(self) -> str:
        """One line for the trace."""
        g = self.binding
        gap = f"{g.a:,.0f} vs {g.b:,.0f}" if g else "none"
        return (
            f"unit size {self.unit_size:,} B chosen after the pilot (M = {self.bound:.0f}, "
            f"binding gap {gap} estimated, forecast {self.fraction:.2%} read at "
            f"{self.cost:.2f} of a full read's cost); the pilot only chose the size: a fresh "
            "permutation of the new units is read with fresh e-processes, so the guarantee holds"
        )


def fraction_needed(gap: Gap, *, bound: float, threshold: float, f0: float) -> float:
    """Forecast fraction of units read to separate ``gap`` (the larger of cap and variance)."""
    g = gap.a - gap.b
    if g <= 0:
        return 1.0
    log_thr = math.log(threshold)
    cap = 1 - (1 - f0) * math.exp(-bound * log_thr / (TRUNCATION * g))
    var = VARIANCE_FACTOR * 2 * log_thr * (gap.a + gap.b) / g**2
    return min(1.0, max(cap, var / (1 + var), f0))


def cost_factor(unit_size: int, *, prescanned: bool) -> float:
    """Full reads' worth of time per unit of fraction read in units of ``unit_size`` bytes."""
    per_byte = SAMPLED_BYTE_S if prescanned else PARSE_BYTE_S
    full = FULL_BYTE_S if prescanned else PARSE_BYTE_S
    return (UNIT_S / max(unit_size, 1) + per_byte) / full


def top_k_gaps(
    totals: Mapping[str, float], k: int, *, candidates: int, ranked: bool = False
) -> list[Gap]:
    """Gaps binding a top-k set: the k-th against the (k+1)-th and against REST; ``ranked``:
    each adjacent pair too. REST is all of what lies outside the top ``candidates`` (in small
    units one unit holds at most one event, so REST's per-unit maximum is their sum).
    Empty when fewer than k keys were seen: no gap can be estimated."""
    ranked_totals = sorted(totals.values(), reverse=True)
    if len(ranked_totals) < k or k <= 0:
        return []
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


def pilot_units(total_units: int, most: int = 500) -> int:
    """Stats note §4: a pilot of ``min(max(50, 1% of B), most)`` units, at most B."""
    return min(total_units, min(max(50, math.ceil(0.01 * total_units)), most))


def pilot_fraction(units: int, most: int = 500) -> float:
    """The share of ``units`` their pilot reads."""
    return pilot_units(units, most) / units


def choose(
    gaps: Sequence[Gap],
    *,
    total_bytes: int,
    min_event_bytes: int,
    threshold: float,
    prescanned: bool,
    pilot_most: int = 500,
) -> UnitChoice:
    """The largest unit size whose forecast cost is within ``SLACK`` of the best and below a
    full read's.

    Without a gap (``gaps`` empty) every size is forecast to need the whole input.
    """
    options = []
    for size in sizes():
        units = max(1, math.ceil(total_bytes / size))
        bound = float(math.ceil(size / max(min_event_bytes, 1)))
        f0 = pilot_fraction(units, pilot_most)
        frac = max(
            (fraction_needed(g, bound=bound, threshold=threshold, f0=f0) for g in gaps),
            default=1.0,
        )
        cost = frac * cost_factor(size, prescanned=prescanned)
        options.append(UnitChoice(size, bound, frac, cost, tuple(gaps)))
    best = min(o.cost for o in options)
    if best >= 1.0:  # no sampled read pays: the cheapest, to say so
        return min(options, key=lambda o: o.cost)
    # the largest size near the best that still pays: a larger one forecast at a full read's
    # cost or more would be read all instead (1 GB top-1: 1 KiB at 0.95, 4 KiB at 1.07)
    near = (o for o in options if o.cost <= SLACK * best and o.cost < 1.0)
    return max(near, key=lambda o: o.unit_size)
