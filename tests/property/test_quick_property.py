"""The quick status count (``formats.quick``) gives the records and line counters the full
parse gives, on lines built to attack it (``test_access_fast_property.lines``).

A line the quick regex accepts is counted by the three bytes after its first
``" `` without being parsed; that is right only if every such line is a valid,
plain record, no 5xx, whose status is exactly those bytes. The tests check
that claim line by line against the per-line reference, and whole extractions
(records, valid, malformed) with the quick count and without it.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.counters import Accumulator
from logagent.engine.run import ParsePool
from logagent.formats import quick
from logagent.formats.access import COMBINED, COMMON, AccessFormat
from logagent.formats.bucketed import Bucketed
from logagent.formats.extract import Scanned, count_quick, extract_scanned
from logagent.formats.quick import OWN_BYTES, quick_pattern
from logagent.formats.routes import DEFAULT_RULES, RouteRule
from logagent.formats.windowed import Windowed, time_of
from logagent.sources import Order, iter_seekable_batches, open_source, plan_units, unit_order
from logagent.testing import combined_line
from tests.property.test_access_fast_property import _reference, lines

# Lines the quick count takes: plain, ASCII status, blank-free request start; and l_min.
PLAIN = st.builds(
    lambda user, req, status, tail: (
        f'1.2.3.4 - {user} [10/Oct/2000:13:55:36 -0700] "{req}" {status} 12 "-" "ua"{tail}'
    ),
    st.sampled_from(["-", "frank", "é", "a\\b"]),
    st.sampled_from(["GET /a/1 HTTP/1.1", "", "-", " GET /x", "GET /q\\x", "POST /é"]),
    st.sampled_from(["200", "404", "302", "000", "503", "599", "\u0665\u0660\u0663"]),
    st.sampled_from(["", " 0.1", ' "x"']),
)
# Valid and plain but under l_min (50 bytes for combined, 44 for common): malformed.
SHORT = st.builds(
    lambda status, tail: f'1 - - [t] "" {status} 1{tail}',
    st.sampled_from(["200", "404", "503"]),
    st.sampled_from(["", ' "" ""', ' "-" "-" ' + "x" * 30]),
)
LINES = st.one_of(lines(), PLAIN, SHORT, st.sampled_from(["", "x", '" 200 1 "a" "b"']))


def _no_quick(fmt: AccessFormat) -> AccessFormat:
    """The same format without a quick regex: every line takes the full parse."""
    return dataclasses.replace(fmt, tail=None)


@pytest.mark.parametrize("fmt", [COMBINED, COMMON], ids=lambda f: f.name)
@settings(max_examples=300, deadline=None)
@given(batch=st.lists(LINES, max_size=30))
def test_a_line_the_quick_regex_takes_is_a_plain_record_with_that_status(
    fmt: AccessFormat, batch: list[str]
) -> None:
    pattern = fmt.quick_status
    assert pattern is not None
    reference = _reference(fmt, batch)["status"].to_list()
    for line, status in zip(batch, reference, strict=True):
        if re.search(pattern, line) is None:
            continue
        data = line.encode()
        at = data.find(b'" ') + 2
        assert status == int(data[at : at + 3]), line
        assert not 500 <= status <= 599, line
        assert re.match(fmt.pattern, line), line


#: No folding, the default rules, and a rule of the configuration that also folds ``*``.
RULES = [None, list(DEFAULT_RULES), [RouteRule("segment", r"[^/]+", "{segment}")]]


def _scanned(batch: list[str], units: list[int]) -> Scanned:
    return Scanned(
        pl.Series("line", batch, dtype=pl.String), np.asarray(units, dtype=np.int64), len(batch), 0
    )


def _extract(
    fmt: object,
    batch: list[str],
    units: list[int],
    rules: list[RouteRule] | None = None,
    scans: list[Scanned] | None = None,
) -> tuple[list[dict], dict]:
    """Records and line counters of a status question over ``batch`` (or over ``scans``)."""
    scans = scans if scans is not None else [_scanned(batch, units)]
    ex = extract_scanned(scans, fmt, errors_only=False, rules=rules, keyed=False)  # type: ignore[arg-type]
    records = ex.records.collect()
    keys = [c for c in records.columns if c != "n"]
    records = records.group_by(keys).agg(pl.col("n").sum()).sort(keys, nulls_last=True)
    valid = ex.valid.collect().row(0, named=True)
    return records.to_dicts(), {k: int(v) for k, v in valid.items()} | {"parsed": ex.parsed}


@pytest.mark.parametrize("fmt", [COMBINED, COMMON], ids=lambda f: f.name)
@pytest.mark.parametrize("bucketed", [False, True])
@settings(max_examples=150, deadline=None)
@given(batch=st.lists(LINES, max_size=40), data=st.data())
def test_extraction_with_the_quick_count_equals_the_full_parse(
    fmt: AccessFormat, bucketed: bool, batch: list[str], data: st.DataObject
) -> None:
    units = data.draw(st.lists(st.integers(0, 3), min_size=len(batch), max_size=len(batch)))
    rules = data.draw(st.sampled_from(RULES))
    quick, full = fmt, _no_quick(fmt)
    if bucketed:  # the timeline of a status run: a bucket for the 5xx records alone
        time = time_of(fmt)
        assert time is not None
        quick, full = (Bucketed(f, time, 300, events_only=True) for f in (fmt, full))
    assert quick_pattern(quick) is not None and quick_pattern(full) is None
    assert _extract(quick, batch, units, rules) == _extract(full, batch, units, rules)


def test_a_format_that_needs_more_than_the_status_has_no_quick_count() -> None:
    time = time_of(COMBINED)
    assert time is not None
    assert quick_pattern(Bucketed(COMBINED, time, 300, events_only=True)) == COMBINED.quick_status
    assert quick_pattern(Bucketed(COMBINED, time, 300)) is None  # cron: every record's bucket
    assert quick_pattern(Windowed(COMBINED, time, None, None)) is None  # every record's time
    # a pattern that is not head + request + status + tail: no claim about its lines
    assert dataclasses.replace(COMBINED, pattern=COMBINED.pattern + "x").quick_status is None


@pytest.mark.parametrize("fmt", [COMBINED, COMMON], ids=lambda f: f.name)
@settings(max_examples=150, deadline=None)
@given(batches=st.lists(st.lists(LINES, max_size=15), min_size=1, max_size=5), data=st.data())
def test_lines_counted_batch_by_batch_extract_as_one_full_parse(
    fmt: AccessFormat, batches: list[list[str]], data: st.DataObject
) -> None:
    """A status pool counts each batch's quick lines as it comes (``count_quick``) and parses
    the lines left of several batches at once: the same records, valid, malformed and parsed
    lines as the full parse of every line, whichever batches were counted first."""
    scans, every, every_unit = [], [], []
    for batch in batches:
        units = data.draw(st.lists(st.integers(0, 3), min_size=len(batch), max_size=len(batch)))
        scanned = _scanned(batch, units)
        if data.draw(st.booleans()):
            scanned = count_quick(scanned, fmt.quick_status or "", fmt.min_line_bytes)
            assert scanned.counted is not None
            assert len(scanned.text) + int(scanned.counted["n"].sum()) == len(batch)
        scans.append(scanned)
        every += batch
        every_unit += units
    rules = data.draw(st.sampled_from(RULES))
    full = _extract(_no_quick(fmt), every, every_unit, rules)
    assert _extract(fmt, [], [], rules, scans=scans) == full


def test_lines_counted_unparsed_are_refused_where_the_question_needs_them_parsed() -> None:
    line = '1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 12 "-" "ua"'
    scanned = count_quick(_scanned([line], [0]), COMBINED.quick_status or "", 50)
    assert scanned.counted is not None and scanned.counted.rows() == [(200, 1)]
    with pytest.raises(ValueError, match="counted unparsed"):
        extract_scanned([scanned], COMBINED, errors_only=False, rules=None, keyed=True)


def _status_file(path: Path, lines: int) -> Path:
    """A combined log of mostly quick lines, with 5xx lines and junk for the full parse."""
    rows = []
    for i in range(lines):
        if i % 97 == 0:
            rows.append("junk " * (i % 7))
        else:
            rows.append(combined_line(f"/p/{i % 13}", [200, 404, 503, 302][i % 4]))
    path.write_text("\n".join(rows) + "\n")
    return path


def _pool_read(
    path: Path, fmt: AccessFormat, *, pooled: bool, held_before_flush: bool = False
) -> tuple[dict, int, list[int]]:
    """A status pool's tallies over ``path`` in small batches: flushed when due (``pooled``)
    or after every batch; with the flushes made and the references to each batch's buffer
    once the pool had it (and had parsed, if it did then; ``held_before_flush``: before)."""
    source = open_source(str(path))
    held = []
    flushes = 0
    try:
        plan = plan_units([source.size or 0], 4096)
        order = unit_order(plan.total_units, Order.SEQUENTIAL, 0)
        pool = ParsePool(fmt, errors_only=False, rules=None, keyed=False, track_units=False)
        acc = Accumulator()
        for batch in iter_seekable_batches([source], plan, order, batch_units=4, cap=1 << 16):
            pool.add(batch)
            data = batch.data
            del batch
            if held_before_flush:  # whether the pool holds the buffer until it parses
                held.append(sys.getrefcount(data))
            if not pooled or pool.due():
                acc.add(pool.flush())
                flushes += 1
            if not held_before_flush:  # 3: this name's, the call's, the buffer pool's
                held.append(sys.getrefcount(data))
            del data
        acc.add(pool.flush())
    finally:
        source.close()
    snap = acc.snapshot()
    counts = {(r, s): n for r, s, n in snap.counts.iter_rows()}
    return {"counts": counts, **snap.scalars()}, flushes, held


def test_a_status_pool_keeps_only_the_lines_left_to_parse(tmp_path: Path, monkeypatch: Any) -> None:
    """Batches of mostly quick lines: the pool keeps their few leftovers, copied out of the
    batch's buffer (free for the next read), and parses when enough of *them* wait; the
    tally is the full parse's, batch by batch."""
    path = _status_file(tmp_path / "a.log", 6000)
    monkeypatch.setattr(ParsePool, "MIN_LINES", 300)
    pooled, flushes, held = _pool_read(path, COMBINED, pooled=True)
    full, batches, _ = _pool_read(path, _no_quick(COMBINED), pooled=False)
    _, every_flushes, _ = _pool_read(path, _no_quick(COMBINED), pooled=True)
    assert pooled == full
    blank = sum(not line.strip() for line in path.read_text().splitlines())  # no line to parse
    assert blank > 0 and pooled["lines"] == 6000 and pooled["parsed"] == 6000 - blank
    assert pooled["malformed"] == sum(i % 97 == 0 for i in range(6000)) - blank  # the junk
    assert batches > 10 and flushes > 0 and flushes * 3 < every_flushes  # leftovers weigh
    assert held == [3] * batches  # a batch's buffer: held by nothing the pool kept of it
    assert path.stat().st_size < OWN_BYTES  # no batch's leftovers too long to be copied


def test_leftovers_too_long_to_copy_are_parsed_as_soon_as_every_line_was(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Leftovers over ``OWN_BYTES`` stay views into their batch's buffer: the pool then counts
    the batch's every line toward a parse, so it holds as many buffers, for as long, as a
    pool holding every line (a review found 64 buffers pinned, 165 MB -> 971 MB of RSS, and
    a run under a memory budget stopped partial)."""
    path = _status_file(tmp_path / "a.log", 6000)
    monkeypatch.setattr(ParsePool, "MIN_LINES", 300)
    monkeypatch.setattr(quick, "OWN_BYTES", 0)
    pooled, flushes, held = _pool_read(path, COMBINED, pooled=True, held_before_flush=True)
    every, every_flushes, every_held = _pool_read(
        path, _no_quick(COMBINED), pooled=True, held_before_flush=True
    )
    assert pooled == every
    assert flushes == every_flushes > 10  # flushed with the same cadence
    assert held == every_held and max(held) == 4  # the same buffers held, one at a time
