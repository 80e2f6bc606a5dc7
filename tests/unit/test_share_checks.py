"""Per-unit counts of the share checks, and the checks' plan and split of delta."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from logagent.engine.healthy import (
    ABORT_SHARE,
    NEGLIGIBLE_SHARE,
    Checks,
    lines_per_unit,
    plan_checks,
)
from logagent.formats.access import COMBINED
from logagent.result import QuestionKind
from logagent.sources import Order, iter_seekable_batches, open_source, plan_units, unit_order
from logagent.testing import combined_line


def independent_counts(data: bytes, unit: int) -> tuple[np.ndarray, np.ndarray]:
    """Lines and combined records whose first byte lies in each unit, by a plain loop."""
    units = -(-len(data) // unit)
    lines, records = np.zeros(units), np.zeros(units)
    pos = 0
    for line in data.split(b"\n")[:-1]:
        lines[pos // unit] += 1
        records[pos // unit] += line.startswith(b"203.0.113.7")
        pos += len(line) + 1
    return lines, records


@pytest.mark.parametrize("unit", [64, 100, 4096])
def test_per_unit_lines_and_records_match_a_plain_count(tmp_path: Path, unit: int) -> None:
    """Lines per unit, and records in all, over random-order batches equal a plain count."""
    rng = np.random.default_rng(unit)
    rows = [
        combined_line(f"/a/{i}", 200) if rng.random() < 0.3 else "junk " * int(rng.integers(1, 40))
        for i in range(3000)
    ]
    path = tmp_path / "mixed.log"
    path.write_text("\n".join(rows) + "\n")
    data = path.read_bytes()
    want_lines, want_records = independent_counts(data, unit)
    src = open_source(str(path))
    plan = plan_units([len(data)], unit)
    order = unit_order(plan.total_units, Order.RANDOM, 3)
    got_lines, got_records = np.zeros(plan.total_units), 0.0
    checks = Checks(
        plan_checks(
            kind=QuestionKind.TOP_ERRORS,
            delta=0.01,
            negligible=0.0,
            min_parse_rate=0.9,  # 30 % records is never proved over it: the check stays open
            parse_rate=0.3,
            population=plan.total_units,
            unit_size=unit,
            bound=float(-(-unit // COMBINED.min_line_bytes)),
            windowed=False,
        )
    )
    for batch in iter_seekable_batches([src], plan, order, batch_units=37, cap=1 << 16):
        got_lines[batch.units] += lines_per_unit(batch)
        before = checks.format_check
        checks.account(batch, _no_errors(), COMBINED)
        assert checks.format_check is not None and before is not None
        got_records += checks.format_check.events - before.events
    assert np.array_equal(got_lines, want_lines)
    assert got_records == want_records.sum()


def _no_errors():  # type: ignore[no-untyped-def]
    """An empty per-unit 5xx frame."""
    from logagent.counters.tally import Tally

    return Tally().unit_errors


def test_the_checks_take_their_shares_of_delta_and_skip_what_they_cannot_judge() -> None:
    """Negligible only for count questions outside a window; the format check below 90 %."""
    base = dict(
        delta=0.01, min_parse_rate=0.01, population=1000, unit_size=4096, bound=82.0, windowed=False
    )
    both = plan_checks(kind=QuestionKind.TOP_ERRORS, negligible=1e-4, parse_rate=0.5, **base)
    assert both.negligible and both.format_check
    assert both.negligible.alpha == NEGLIGIBLE_SHARE * 0.01
    assert both.format_check.alpha == ABORT_SHARE * 0.01
    assert both.question_share == pytest.approx(1 - NEGLIGIBLE_SHARE - ABORT_SHARE)
    clean = plan_checks(kind=QuestionKind.TOP_ERRORS, negligible=1e-4, parse_rate=1.0, **base)
    assert clean.format_check is None and clean.question_share == 1 - NEGLIGIBLE_SHARE
    rate = plan_checks(kind=QuestionKind.ERROR_RATE, negligible=1e-4, parse_rate=1.0, **base)
    assert rate.negligible is None and rate.question_share == 1.0
    off = plan_checks(kind=QuestionKind.TOP_ERRORS, negligible=0.0, parse_rate=1.0, **base)
    assert off.negligible is None
    windowed = plan_checks(
        kind=QuestionKind.TOP_ERRORS, negligible=1e-4, parse_rate=0.5, **{**base, "windowed": True}
    )
    assert windowed.negligible is None and windowed.format_check is None
