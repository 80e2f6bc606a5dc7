"""The share checks of a sampled read: "nothing worth reporting" and "not this format".

Two one-sided WoR share tests (``evidence.share``) run beside the question's
evidence, on per-unit counts taken from each batch as it is read:

* ``--negligible RATE`` (top-errors, top-error-components): the matching
  events of a unit (its 5xx, or its error records) against its lines. Proved
  under RATE at ``alpha = NEGLIGIBLE_SHARE * delta``, Router-Mem stops with a
  settled "nothing worth reporting". The question's own evidence then runs at
  ``(1 - NEGLIGIBLE_SHARE) delta`` so that all claims together stay within delta.
* the format check (the detection sample parsed below ``CHECK_BELOW``): the
  records of the format in a unit against its lines. Proved under
  ``min_format_confidence`` at ``delta_abort = ABORT_SHARE * delta``, Router-Mem
  recuses UNRECOGNIZED_FORMAT; until then the run reads on. Each batch is
  parsed once more in full for it, only while the check is open: once the
  mirror test proves the records are *over* the threshold it stops (which is
  no claim, only a saving).

Either test also stops being kept once its mirror test proves the opposite
(the events are over RATE: no negligible claim can follow). Pure given the
batch: no I/O, clock or globals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from logagent.counters.tally import UNIT, N
from logagent.evidence import share
from logagent.evidence.matrix import F64, unit_counts
from logagent.formats import Format
from logagent.formats.batchlines import line_ends, line_starts
from logagent.formats.extract import extract_scanned, scan
from logagent.result import QuestionKind
from logagent.routermem.router import ShareView
from logagent.sources import Batch
from logagent.sources.batches import I64

NEGLIGIBLE_SHARE = 0.25  # of delta, for the --negligible claim
ABORT_SHARE = 0.1  # of delta: delta_abort, the most often a readable input is recused
CHECK_BELOW = 0.9  # the format check runs when the detection sample parsed less than this
NEGLIGIBLE_KINDS = (QuestionKind.TOP_ERRORS, QuestionKind.TOP_ERROR_COMPONENTS)


@dataclass(frozen=True)
class ChecksPlan:
    """Which checks a run keeps, and the evidence delta left for the question."""

    negligible: share.SharePlan | None
    format_check: share.SharePlan | None

    @property
    def question_share(self) -> float:
        """The share of delta the question's own evidence keeps."""
        return (
            1.0
            - (NEGLIGIBLE_SHARE if self.negligible else 0.0)
            - (ABORT_SHARE if self.format_check else 0.0)
        )


def plan_checks(
    *,
    kind: QuestionKind,
    delta: float,
    negligible: float,
    min_parse_rate: float,
    parse_rate: float,
    population: int,
    unit_size: int,
    bound: float,
    windowed: bool,
    abort_left: float = 1.0,
) -> ChecksPlan:
    """The checks of a random-units read (a window's records are not the lines' records).

    ``abort_left``: the share of ``delta_abort`` not spent before the read (the detection
    cascade spends half of it)."""
    neg = None
    if negligible > 0 and kind in NEGLIGIBLE_KINDS and not windowed:
        neg = share.SharePlan(negligible, NEGLIGIBLE_SHARE * delta, population, bound, unit_size)
    fmt = None
    if parse_rate < CHECK_BELOW and min_parse_rate > 0 and not windowed:
        alpha = ABORT_SHARE * delta * abort_left
        fmt = share.SharePlan(min_parse_rate, alpha, population, bound, unit_size)
    return ChecksPlan(neg, fmt)


def negligible_alpha(delta: float) -> float:
    """The error level of a --negligible claim."""
    return NEGLIGIBLE_SHARE * delta


class Checks:
    """The open share tests of a run, fed batch by batch (reading order)."""

    def __init__(self, plan: ChecksPlan, *, active: bool = True) -> None:
        """``active=False`` (a resumed run: a checkpoint holds no per-unit lines) keeps the
        plan's split of delta, so the question's evidence runs at the share it started with,
        but runs no test."""
        self.plan = plan
        self.negligible = share.begin(plan.negligible) if plan.negligible and active else None
        self.format_check = share.begin(plan.format_check) if plan.format_check and active else None
        self.negligible_open = self.negligible is not None
        self.format_open = self.format_check is not None

    def account(self, batch: Batch, unit_errors: pl.DataFrame, fmt: Format) -> None:
        """Update the open tests with this batch's per-unit counts."""
        lines, records = measure(batch, fmt, self.needs())
        self.observe(batch.units, unit_errors, lines, records)

    def needs(self) -> tuple[bool, bool]:
        """What the open tests need of a batch: (lines per unit, records per unit)."""
        return self.negligible_open or self.format_open, self.format_open

    def observe(
        self, units: I64, unit_errors: pl.DataFrame, lines: F64 | None, records: F64 | None
    ) -> None:
        """Update the open tests with per-unit lines and records measured by ``measure``.

        A test closes for good once proved either way, so a batch measured when it was
        still open (a backend measures before the batch is its turn) is never short.
        """
        if not (self.negligible_open or self.format_open):
            return
        assert lines is not None  # measured while a test was open (see needs)
        if self.negligible_open and self.plan.negligible and self.negligible is not None:
            events = unit_counts(unit_errors, units, ()).all_errors
            self.negligible = share.observe(self.plan.negligible, self.negligible, events, lines)
            self.negligible_open = not share.above(self.plan.negligible, self.negligible)
        if self.format_open and self.plan.format_check and self.format_check is not None:
            assert records is not None
            self.format_check = share.observe(
                self.plan.format_check, self.format_check, records, lines
            )
            self.format_open = not share.above(self.plan.format_check, self.format_check)

    def views(self) -> tuple[ShareView | None, ShareView | None]:
        """The negligible and format-check views for Router-Mem (None: not kept)."""
        return (
            _view(self.plan.negligible, self.negligible),
            _view(self.plan.format_check, self.format_check),
        )

    @property
    def holds_degrade(self) -> bool:
        """An open format check: a read in file order (DEGRADE) would end it unproved, and
        answer from an input that may be junk; so the sampled read goes on until it proves."""
        return self.format_open

    def forecast(self) -> float | None:
        """Stats note §6: when the open negligible check is forecast to prove (None: not kept)."""
        if self.negligible_open and self.plan.negligible and self.negligible is not None:
            return share.forecast_fraction(self.plan.negligible, self.negligible)
        return None


def _view(plan: share.SharePlan | None, state: share.ShareState | None) -> ShareView | None:
    if plan is None or state is None:
        return None
    return ShareView(
        rate=plan.rate,
        alpha=plan.alpha,
        log_wealth=share.log_wealth(state),
        events=state.events,
        lines=state.lines,
        proved_above=share.above(plan, state),
    )


def measure(batch: Batch, fmt: Format, needs: tuple[bool, bool]) -> tuple[F64 | None, F64 | None]:
    """Per-unit lines and records of a batch, as far as ``needs`` (``Checks.needs``) asks."""
    want_lines, want_records = needs
    if want_records:
        return _lines_and_records(batch, fmt)
    return (lines_per_unit(batch) if want_lines else None), None


def lines_per_unit(batch: Batch) -> F64:
    """Lines starting in each unit of the batch (order of ``batch.units``), without parsing."""
    ends = line_ends(batch.data, batch.size)
    return per_unit(batch.units, batch.units_of(line_starts(ends)), None)


def _lines_and_records(batch: Batch, fmt: Format) -> tuple[F64, F64]:
    """Lines and records of the format per unit: one full parse of the batch's lines."""
    scanned = scan(batch, fmt, errors_only=False)
    ex = extract_scanned([scanned], fmt, errors_only=False, rules=None, all_units=True)
    per = ex.records.group_by(UNIT).agg(pl.col(N).sum()).collect()
    records = per_unit(
        batch.units,
        per[UNIT].to_numpy().astype(np.int64),
        per[N].to_numpy().astype(np.float64),
    )
    return per_unit(batch.units, scanned.units, None), records


def per_unit(units: I64, where: I64, weight: F64 | None) -> F64:
    """Sum ``weight`` (or count) by unit, in the order of ``units``; other units are dropped."""
    if len(units) == 0:
        return np.zeros(0)
    order = np.argsort(units, kind="stable")
    sorted_units = units[order]
    k = np.clip(np.searchsorted(sorted_units, where), 0, len(units) - 1)
    ok = sorted_units[k] == where
    out = np.zeros(len(units))
    np.add.at(out, order[k[ok]], 1.0 if weight is None else weight[ok])
    return out
