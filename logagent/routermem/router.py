"""Router-Mem: what to do after a batch (PURE).

``decide(evidence, memory, budget, progress) -> Decision``. No I/O, clock or
globals: everything comes in as arguments. Rules, in this precedence (the
first that applies wins):

1. RECUSE UNRECOGNIZED_FORMAT — the format check (``evidence.format_check``, a
   one-sided WoR test at its own ``alpha`` = delta_abort) proves that fewer than
   ``budget.min_parse_rate`` of the lines are records of the format: do not
   read the rest. Without a proof the run keeps reading (a point estimate never
   aborts); the bound used goes into the trace.
2. RECUSE NO_MATCHING_EVENTS — every unit was read and no event matched.
3. STOP_SETTLED EXHAUSTED — every unit was read: the answer is exact.
4. STOP_SETTLED SETTLED — the evidence settles the answer at delta (after the pilot).
4b. STOP_SETTLED NEGLIGIBLE — ``--negligible``: the share test
   (``evidence.negligible``) proves the matching events are under its rate of
   the lines, at its ``alpha``: nothing worth reporting, said with that bound.
5. STOP_PARTIAL INTERRUPTED — SIGINT/SIGTERM/SIGHUP or the caller asked to stop.
6. STOP_PARTIAL TIME / CPU / FRACTION budget exhausted.
7. Memory HIGH (RSS + the next batch's forecast ≥ 85 % of the budget): DEGRADE
   MEMORY_STEP with the next step of the ladder not yet taken — ``smaller_batches``
   (batches a quarter the size), ``sketch`` (per-key counts outside the
   candidates go into a bounded heavy-hitters summary whose error bound enters
   the evidence), ``drop_detail`` (per-unit and per-status detail of keys
   outside the candidates is dropped) — one step per decision, in that order;
   once every step is taken and the next batch is forecast to break the
   budget: STOP_PARTIAL MEMORY (the engine writes a checkpoint).
8. DEGRADE FULL_READ_CHEAPER — the evidence is forecast (stats note §6) to need
   more than ``budget.degrade_above`` of the input *beyond what is already read*:
   an exact read in file order, without evidence, is the cheaper method. (What
   is read is not wasted late in a run: only the remaining forecast counts.)
   With a cost model (``evidence.cost_factor``, large inputs): when the rest,
   read by units, is forecast to take longer than reading everything
   (``degrade_above`` = 1 still means never).
9. CONTINUE NOT_SETTLED.

A settled or exact answer wins over an exhausted budget: it is the better
answer and costs nothing more. More memory pressure never turns a stop into
CONTINUE (rule 7 only ever stops).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class Action(StrEnum):
    """What the engine does next."""

    CONTINUE = "CONTINUE"
    STOP_SETTLED = "STOP_SETTLED"
    DEGRADE = "DEGRADE"
    PAUSE = "PAUSE"
    STOP_PARTIAL = "STOP_PARTIAL"
    RECUSE = "RECUSE"


class Reason(StrEnum):
    """Why."""

    NOT_SETTLED = "not_settled"
    SETTLED = "settled"
    EXHAUSTED = "exhausted"
    INTERRUPTED = "interrupted"
    INPUT_CHANGED = "input_changed"  # the engine's: the input shrank or was replaced while read
    INPUT_DAMAGED = "input_damaged"  # the engine's, not a rule's: an input ended early, damaged
    TIME_BUDGET = "time_budget"
    CPU_BUDGET = "cpu_budget"
    FRACTION_BUDGET = "fraction_budget"
    MEMORY = "memory_forecast"
    MEMORY_STEP = "memory_step"
    FULL_READ_CHEAPER = "full_read_cheaper"
    UNRECOGNIZED_FORMAT = "UNRECOGNIZED_FORMAT"
    NO_MATCHING_EVENTS = "NO_MATCHING_EVENTS"
    NEGLIGIBLE = "negligible"
    UNIT_SIZE = "unit_size"  # the engine's: the unit size chosen after the pilot


@dataclass(frozen=True)
class ShareView:
    """A one-sided share test in plain values: is ``events / lines`` of the input under ``rate``?

    ``log_wealth`` is the largest log-wealth its WoR e-process reached; the
    claim "under ``rate``" is proved at ``alpha`` once it reaches ``ln(1/alpha)``.
    """

    rate: float
    alpha: float
    log_wealth: float
    events: float  # seen in the units read
    lines: float  # seen in the units read
    proved_above: bool = False  # the mirror test proved the share is over ``rate``

    @property
    def proved_below(self) -> bool:
        """Whether the e-process crossed ``1/alpha`` (Ville: wrong at most ``alpha``)."""
        return self.log_wealth >= math.log(1 / self.alpha)

    def describe(self, events: str) -> str:
        """The bound and what it rests on, for the trace."""
        seen = self.events / self.lines if self.lines else 0.0
        return (
            f"{events} < {self.rate:.4%} of lines at alpha {self.alpha:g} "
            f"(log e-value {self.log_wealth:.2f} vs {math.log(1 / self.alpha):.2f}; "
            f"seen {self.events:,.0f} of {self.lines:,.0f} lines = {seen:.4%})"
        )


@dataclass(frozen=True)
class EvidenceView:
    """What the evidence says after the last batch."""

    settled: bool
    pilot_done: bool
    parse_rate: float  # share of parsed (sampled) lines that are records of the format
    events: int  # matching events seen so far
    unsettled_pairs: int = 0
    forecast_fraction: float | None = None  # §6 forecast of the fraction read at the stop
    negligible: ShareView | None = None  # --negligible: matching events vs lines
    format_check: ShareView | None = None  # records of the format vs lines (the abort)
    #: full reads' worth of time per unit of fraction still read by units (evidence.unitsize);
    #: None: no cost model (small inputs), the fraction itself is weighed against degrade_above
    cost_factor: float | None = None


class MemoryLevel(StrEnum):
    """How close the run is to its memory budget, counting the next batch."""

    LOW = "LOW"  # under 60 % of the budget
    MEDIUM = "MEDIUM"  # under 85 %
    HIGH = "HIGH"  # 85 % or more


@dataclass(frozen=True)
class MemoryView:
    """A memory snapshot and the forecast cost of the next batch."""

    rss_bytes: int
    budget_bytes: int
    next_batch_bytes: int
    steps_taken: tuple[str, ...] = ()  # ladder steps already taken, in order

    @property
    def level(self) -> MemoryLevel:
        """LOW / MEDIUM / HIGH by the forecast use (RSS + next batch) over the budget."""
        use = (self.rss_bytes + self.next_batch_bytes) / max(self.budget_bytes, 1)
        if use < 0.60:
            return MemoryLevel.LOW
        return MemoryLevel.MEDIUM if use < 0.85 else MemoryLevel.HIGH

    def describe(self) -> str:
        """One line for the trace."""
        return (
            f"memory {self.level.value} (RSS {self.rss_bytes >> 20} MiB + next batch "
            f"~{self.next_batch_bytes >> 20} MiB of {self.budget_bytes >> 20} MiB)"
        )


@dataclass(frozen=True)
class Budget:
    """Limits of the run (None: no limit)."""

    max_seconds: float | None = None
    max_cpu_seconds: float | None = None
    max_fraction: float | None = None
    min_parse_rate: float = 0.01
    degrade_above: float = 0.5


@dataclass(frozen=True)
class ProgressView:
    """How far the run is."""

    units_read: int
    units_total: int
    elapsed_s: float
    cpu_s: float  # 0.0 when no CPU budget is set (the engine does not read the clock then)
    interrupted: str | None = None

    @property
    def fraction(self) -> float:
        """Share of units read."""
        return self.units_read / self.units_total if self.units_total else 1.0


@dataclass(frozen=True)
class Decision:
    """The router's answer."""

    action: Action
    reason: Reason
    detail: str = ""
    step: str = ""  # DEGRADE MEMORY_STEP: the ladder step to take


#: Router-Mem's memory ladder, cheapest loss first (rule 7).
LADDER = ("smaller_batches", "sketch", "drop_detail")


def decide(
    evidence: EvidenceView, memory: MemoryView, budget: Budget, progress: ProgressView
) -> Decision:
    """Apply the rules above in order."""
    rules = (_format, _finished, _settled, _negligible, _interrupted, _budgets, _memory, _cheaper)
    for rule in rules:
        decision = rule(evidence, memory, budget, progress)
        if decision is not None:
            return decision
    return Decision(
        Action.CONTINUE,
        Reason.NOT_SETTLED,
        f"{evidence.unsettled_pairs} pairs not yet separated; {memory.describe()}",
    )


def _format(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    check = e.format_check
    if check is not None and check.proved_below:
        detail = "proved: " + check.describe("records of the format")
        return Decision(Action.RECUSE, Reason.UNRECOGNIZED_FORMAT, detail)
    return None


def _finished(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    if p.units_read < p.units_total:
        return None
    if e.events == 0:
        return Decision(Action.RECUSE, Reason.NO_MATCHING_EVENTS, "every unit read, no event")
    return Decision(Action.STOP_SETTLED, Reason.EXHAUSTED, "every unit read: exact answer")


def _settled(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    if e.settled and e.pilot_done:
        return Decision(Action.STOP_SETTLED, Reason.SETTLED, f"settled at {p.fraction:.2%} read")
    return None


def _negligible(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    share = e.negligible
    if share is not None and share.proved_below and e.pilot_done:
        detail = f"nothing worth reporting at {p.fraction:.2%} read: " + share.describe("events")
        return Decision(Action.STOP_SETTLED, Reason.NEGLIGIBLE, detail)
    return None


def _interrupted(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    if p.interrupted:
        return Decision(Action.STOP_PARTIAL, Reason.INTERRUPTED, f"interrupted by {p.interrupted}")
    return None


def _budgets(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    if b.max_seconds is not None and p.elapsed_s >= b.max_seconds:
        return Decision(Action.STOP_PARTIAL, Reason.TIME_BUDGET, f"{p.elapsed_s:.1f} s elapsed")
    if b.max_cpu_seconds is not None and p.cpu_s >= b.max_cpu_seconds:
        return Decision(Action.STOP_PARTIAL, Reason.CPU_BUDGET, f"{p.cpu_s:.1f} CPU s used")
    if b.max_fraction is not None and p.fraction >= b.max_fraction:
        return Decision(Action.STOP_PARTIAL, Reason.FRACTION_BUDGET, f"{p.fraction:.2%} read")
    return None


def _memory(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    return memory_rule(m, LADDER)


def memory_rule(
    m: MemoryView, ladder: tuple[str, ...], *, who: str = "", over: str = "over budget"
) -> Decision | None:
    """Rules 5-7 on memory alone: the next step of ``ladder`` when HIGH, STOP_PARTIAL when the
    next batch would break the budget, else None (the driver's ladder; a worker's, ``worker``)."""
    left = [step for step in ladder if step not in m.steps_taken]
    if m.level is MemoryLevel.HIGH and left:
        n = len(ladder) - len(left) + 1
        detail = f"{who}step {n} of {len(ladder)}: {left[0]}; {m.describe()}"
        return Decision(Action.DEGRADE, Reason.MEMORY_STEP, detail, step=left[0])
    if m.rss_bytes + m.next_batch_bytes > m.budget_bytes:
        return Decision(Action.STOP_PARTIAL, Reason.MEMORY, f"{over}: {m.describe()}")
    return None


def _cheaper(e: EvidenceView, m: MemoryView, b: Budget, p: ProgressView) -> Decision | None:
    if e.forecast_fraction is None:
        return None
    left = e.forecast_fraction - p.fraction
    if e.cost_factor is not None and b.degrade_above < 1.0:  # 1: never degrade
        # what the rest would cost, in full reads: 1 is break-even
        cost = left * e.cost_factor
        if cost > 1.0:
            detail = (
                f"the evidence would need ~{e.forecast_fraction:.1%} of the input, read by units "
                f"at ~{cost:.1f}x the time of reading it all: read it all"
            )
            return Decision(Action.DEGRADE, Reason.FULL_READ_CHEAPER, detail)
        return None
    if left > b.degrade_above:
        detail = f"the evidence would need ~{e.forecast_fraction:.0%} of the input: read it all"
        return Decision(Action.DEGRADE, Reason.FULL_READ_CHEAPER, detail)
    return None
