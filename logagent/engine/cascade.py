"""Detection when the spots parse nothing: a cascade over random units, with a bound.

The detection sample comes from 8 evenly spaced spots: it is no random sample,
so valid lines clustered between the spots are missed, and "nothing parses
there" is no proof that nothing parses. When a read by random units is ahead,
this cascade reads small units (``UNIT_BYTES``) of a *fresh* permutation (keyed by the run's seed,
independent of the main read's order) and, after each batch,

* tests with ``evidence.share`` whether the lines that *any* known format
  reads as a record are under ``min_format_confidence`` of all lines; once
  that is proved at ``alpha = delta_abort / 2`` the run recuses
  UNRECOGNIZED_FORMAT, the e-value and the fraction read in its detail;
* as soon as the units read hold ``ENOUGH`` such lines, detects the format on
  them and hands it back: the run goes on with it, and the main read's own
  format check (``healthy``) keeps the other half of ``delta_abort``. The
  cascade's data only chose the format; the main read's evidence runs on its
  own permutation, so its guarantees hold as for a format named up front.

A cascade that reads every unit without finding a record recuses exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from logagent.counters import Tally
from logagent.engine.healthy import ABORT_SHARE, per_unit
from logagent.engine.run import Run
from logagent.evidence import share
from logagent.formats.access import COMBINED
from logagent.formats.catalog import AnyFormat
from logagent.formats.detect import Detection, any_record, every_format
from logagent.formats.extract import scan
from logagent.result import RecuseCode, Result
from logagent.sources.batches import plan_units
from logagent.sources.permute import Order, unit_order
from logagent.sources.readers import iter_seekable_batches

#: Records found by the cascade that are enough to detect their format on.
ENOUGH = 32
#: The cascade's unit size. The test needs about ln(1/alpha) M / (c g) units, g the margin
#: of one unit and M = S / l_min the most records one unit can hide: both scale with S, so
#: the units needed do not, and the bytes read shrink with S (stats note §1, §10).
UNIT_BYTES = 512
#: Units per batch: the test is checked after each, so a batch bounds the overshoot (1 MiB).
BATCH_UNITS = 2048
#: The cascade's key: its permutation is the run seed's, mixed with this.
_KEY = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class Outcome:
    """What the cascade found: records to detect on, or a proof (or certainty) of none."""

    records: list[str]  # lines some format reads as records (up to 4 ENOUGH of them)
    seen: int  # such lines among those read
    lines: int  # lines read
    units: int  # units read
    bytes_read: int
    total_units: int
    proved: str | None  # the bound that rules the input out, in words (None: not proved)
    truncated: int = 0  # lines read that were cut at the line cap


def cascade_seed(seed: int) -> int:
    """The cascade's permutation seed: the run's, mixed (never the main read's order)."""
    return (seed * _KEY + 1) % (1 << 63)


def search(run: Run, sample: list[str], build: dict[str, object]) -> Outcome:
    """Read random units until ENOUGH records are found or their absence is proved."""
    seekable = [s for s in run.sources if s.seekable]
    unit_size = UNIT_BYTES
    plan = plan_units([s.size or 0 for s in seekable], unit_size)
    fmts = every_format(sample, **build)  # type: ignore[arg-type]
    l_min = max(1, min(f.min_line_bytes for f in fmts.values()))
    theta = run.settings.analysis.min_format_confidence
    alpha = ABORT_SHARE * run.question.delta / 2
    test = share.SharePlan(theta, alpha, plan.total_units, math.ceil(unit_size / l_min), unit_size)
    state = share.begin(test)
    assert run.seed is not None
    order = unit_order(plan.total_units, Order.RANDOM, cascade_seed(run.seed))
    is_record = any_record(fmts, pl.col("line"))
    found: list[str] = []
    lines = units = read = cut = 0
    batches = iter_seekable_batches(
        seekable,
        plan,
        order,
        batch_units=BATCH_UNITS,
        cap=run.settings.reader.line_cap,
        scale=run.batch_scale,
    )
    for batch in batches:
        scanned = scan(batch, COMBINED, errors_only=False)  # every line (no prefilter)
        ok = pl.DataFrame({"line": scanned.text}).select(is_record.alias("ok"))["ok"]
        per_lines = per_unit(batch.units, scanned.units, None)
        ok_np = ok.to_numpy()
        per_records = per_unit(batch.units, scanned.units[ok_np], None)
        state = share.observe(test, state, per_records, per_lines)
        found += scanned.text.filter(ok).to_list()[: max(0, 4 * ENOUGH - len(found))]
        lines, units = lines + scanned.lines, units + len(batch.units)
        cut += batch.lines_truncated
        read += batch.bytes_read
        if len(found) >= ENOUGH:
            break
        if share.below(test, state):
            proved = (
                f"proved: lines any known format reads are < {theta:.2%} of all lines at alpha "
                f"{alpha:g} (log e-value {share.log_wealth(state):.2f} vs "
                f"{math.log(1 / alpha):.2f}), after {units:,} random units of {plan.total_units:,}"
            )
            return Outcome(
                found, int(state.events), lines, units, read, plan.total_units, proved, cut
            )
    return Outcome(found, int(state.events), lines, units, read, plan.total_units, None, cut)


def redetected(
    outcome: Outcome, choose: Callable[[list[str]], tuple[Detection, AnyFormat]]
) -> tuple[Detection, AnyFormat]:
    """The format of the records found, scored as a share of every line the cascade read."""
    detection, fmt = choose(outcome.records)
    share_of_lines = min(1.0, outcome.seen / max(outcome.lines, 1))
    scores = ((detection.best, max(detection.confidence * share_of_lines, 1e-9)),)
    return Detection(scores + detection.scores[1:], outcome.lines), fmt


def after_spots(
    run: Run,
    detection: Detection,
    sample: list[str],
    build: dict[str, object],
    choose: Callable[[list[str]], tuple[Detection, AnyFormat]],
) -> Result | tuple[Detection, AnyFormat]:
    """The spots parsed nothing: search random units; recuse only on a proof (or a full read)."""
    from logagent.engine.fullread import draw_seed
    from logagent.engine.recusal import examples_of, recused

    draw_seed(run)
    found = search(run, sample, build)
    examples = examples_of(sample)
    read = f"{found.units:,} of {found.total_units:,} units ({found.units / found.total_units:.1%})"
    if found.proved is not None or not found.records:  # what the cascade read is the progress
        run.acc.add(
            Tally(
                units=found.units,
                bytes_read=found.bytes_read,
                lines=found.lines,
                parsed=found.lines,
                malformed=found.lines - found.seen,
                truncated=found.truncated,
            )
        )
    if found.proved is not None:
        detail = f"{found.proved}; {examples}"
        return recused(run, detection, RecuseCode.UNRECOGNIZED_FORMAT, detail)
    if not found.records:  # every unit was read: certainty, no bound needed
        detail = (
            f"none of the {found.lines:,} lines of the input is a record of any known format "
            f"(every unit was read); {examples}"
        )
        return recused(run, detection, RecuseCode.UNRECOGNIZED_FORMAT, detail)
    run.abort_left = 0.5  # the cascade's test spent the other half of delta_abort
    chosen, fmt = redetected(found, choose)
    run.warnings.append(
        f"the detection sample (8 spots) parsed no line; {read} read in random order held "
        f"{found.seen:,} records of a known format among {found.lines:,} lines: "
        f"{chosen.best} was detected on them"
    )
    return chosen, fmt
