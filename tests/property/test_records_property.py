"""Multi-line records and units: every record is read by exactly one unit, in any order."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logagent.formats.app import AppRegexFormat
from logagent.formats.applogs import LOG4J, syslog3164
from logagent.formats.batchlines import all_lines, line_ends
from logagent.formats.records import fold_query, fold_records
from logagent.sources import Order, open_source, plan_units, unit_order
from logagent.sources.readers import iter_seekable_batches
from logagent.sources.records import compile_start

START = b"2024-01-02 03:04:05,678 "
RECORD_LINES = st.sampled_from(
    [
        START + b"ERROR [main] com.a.Pay - declined",
        START + b"INFO [io-1] com.a.Web - ok",
        START + b"WARN  org.b.Db: slow \xff",
        START + b"bogus record start",
    ]
)
CONTINUATION = st.sampled_from(
    [
        b"java.lang.IllegalStateException: boom",
        b"\tat com.a.Pay.run(Pay.java:42)",
        b"Caused by: java.io.IOException: reset\r",
        b"\t... 12 more",
        b"",
        b"2024-01-0",
        b"\xef\xbb\xbf" + START + b"ERROR [x] bom.Led - y",
    ]
)
# syslog: tab-indented lines continue a record (macOS); junk and blank lines do not start one
SYSLOG_RECORDS = st.sampled_from(
    [
        b"Aug 16 00:32:15 Tims-Air syslogd[314]: Configuration Notice:",
        b"Apr  7 05:49:53 mac.local Daemon[17212]: request failed \xff",
        b"<11>Oct 11 22:14:15 web01 sshd[4721]: error: too many attempts",
        b"garbage that starts no syslog record",
        b"2024-03-05 1",
    ]
)
SYSLOG_CONTINUATION = st.sampled_from(
    [b"\tASL Module claims selected messages.", b"\t\turl=x\r", b"  indented", b"", b"\t>"]
)
CASES: dict[str, tuple[AppRegexFormat, st.SearchStrategy[bytes]]] = {
    name: (fmt, st.lists(st.one_of(records, more), max_size=40).map(b"\n".join))
    for name, fmt, records, more in [
        ("log4j", LOG4J, RECORD_LINES, CONTINUATION),
        ("syslog3164", syslog3164(2024), SYSLOG_RECORDS, SYSLOG_CONTINUATION),
    ]
}
Row = tuple[object, ...]


def reference(
    data: bytes, unit_size: int, cap: int, fmt: AppRegexFormat
) -> tuple[Counter[Row], int]:
    """Records of a sequential whole-file parse, each with the unit of its first line."""
    raw = data.split(b"\n")
    if data.endswith(b"\n") or not data:
        raw = raw[:-1]
    offsets = np.cumsum([0] + [len(r) + 1 for r in raw])[:-1]
    text = [
        r[:cap].decode("utf-8", "replace").removesuffix("\r").removeprefix("\ufeff") for r in raw
    ]
    units = pl.Series("unit", (offsets // unit_size).astype(np.int64))
    folded = fold_records(pl.Series("line", text, dtype=pl.String), fmt, units)
    orphans = int(folded.filter(~pl.col("start"))["lines"].sum())
    return Counter(map(tuple, folded.filter(pl.col("start")).rows())), orphans


def by_units(
    path: Path, unit_size: int, cap: int, seed: int, batch: int, fmt: AppRegexFormat
) -> tuple[Counter[Row], int]:
    """Records read unit by unit in a seeded random order, folded batch by batch."""
    src = open_source(str(path))
    assert src.size is not None
    plan = plan_units([src.size], unit_size)
    order = unit_order(plan.total_units, Order.RANDOM, seed)
    rows: Counter[Row] = Counter()
    skipped = 0
    start = compile_start(fmt.record_start or "")
    for b in iter_seekable_batches(
        [src], plan, order, batch_units=batch, cap=cap, record_start=start
    ):
        skipped += b.lines_skipped
        lines = all_lines(b, line_ends(b.data, b.size))
        frame = pl.LazyFrame({"line": lines.text, "unit": b.units_of(lines.starts)})
        rows.update(map(tuple, fold_query(frame, fmt).collect().rows()))
    src.close()
    return rows, skipped


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@pytest.mark.parametrize("case", sorted(CASES))
@given(
    draw=st.data(),
    unit_size=st.integers(4, 300),
    cap=st.sampled_from([12, 30, 1 << 16]),
    seed=st.integers(0, 2**32),
    batch=st.integers(1, 5),
)
def test_records_are_counted_once_in_any_order(
    tmp_path_factory: object,
    case: str,
    draw: st.DataObject,
    unit_size: int,
    cap: int,
    seed: int,
    batch: int,
) -> None:
    """Any unit size, order, batching and line cap give the records of a sequential parse
    (the unit reader cuts on the format's record start in bytes, the fold in Polars)."""
    fmt, files = CASES[case]
    data = draw.draw(files)
    path = Path(tmp_path_factory.mktemp("r")) / "app.log"  # type: ignore[attr-defined]
    path.write_bytes(data)
    want, orphans = reference(data, unit_size, cap, fmt)
    got, skipped = by_units(path, unit_size, cap, seed, batch, fmt)
    assert got == want
    assert skipped == orphans
