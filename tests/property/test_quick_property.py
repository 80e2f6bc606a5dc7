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

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.access import COMBINED, COMMON, AccessFormat
from logagent.formats.bucketed import Bucketed
from logagent.formats.extract import Scanned, extract_scanned
from logagent.formats.quick import quick_pattern
from logagent.formats.routes import DEFAULT_RULES, RouteRule
from logagent.formats.windowed import Windowed, time_of
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


def _extract(
    fmt: object, batch: list[str], units: list[int], rules: list[RouteRule] | None = None
) -> tuple[list[dict], dict]:
    scanned = Scanned(
        pl.Series("line", batch, dtype=pl.String), np.asarray(units, dtype=np.int64), len(batch), 0
    )
    ex = extract_scanned([scanned], fmt, errors_only=False, rules=rules, keyed=False)  # type: ignore[arg-type]
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
