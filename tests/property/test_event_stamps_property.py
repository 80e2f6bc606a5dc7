"""A timeline of events only parses the events' stamps alone, and buckets them as before.

With ``Bucketed(events_only=True)`` (``-q status`` and ``-q error-rate``: the
timeline counts the events) an application layout's staged parse takes each
event's stamp as written from the layout's own helper column and parses those
stamps only (``StagedTime.stamp``); every line's time had been parsed, then
masked. Whatever the lines, each event's bucket must be the one the unstaged
parse gives it, every other line's null, and every other column unchanged.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.adapter import AppAsAccess
from logagent.formats.app import AppRegexFormat
from logagent.formats.base import BUCKET, STATUS, staged_fields
from logagent.formats.bucketed import _EVENT_STAMP, Bucketed
from logagent.formats.catalog import build_any_format
from logagent.formats.stagedtime import staged_time
from logagent.formats.windowed import time_of
from tests.property.test_app_staged_property import FIXED, LINES
from tests.property.test_regex_staged_property import REGEX, _sample_lines, mutated


def _assert_events_bucketed(fmt: object, lines: list[str]) -> None:
    views = (AppAsAccess(fmt, every_level=True), AppAsAccess(fmt, level="error"))  # type: ignore[arg-type]
    for view in views:
        time = time_of(view)
        assert time is not None
        events = Bucketed(view, time, 3600, events_only=True)
        frame = pl.LazyFrame({"line": pl.Series(lines, dtype=pl.String)})
        full = frame.select(**Bucketed(view, time, 3600).fields(pl.col("line"))).collect()
        stages, fields = staged_fields(events, pl.col("line"))
        # wherever the view's stages hold its time (a layout with no stamp: never)
        held = staged_fields(view, pl.col("line"))[0]
        stamp = getattr(time, "stamp", None)
        stamped = stamp is not None and any(stamp.column in stage for stage in held)
        staged = stamped and staged_time(time, pl.col("line"), held) is not None
        assert any(_EVENT_STAMP in stage for stage in stages) == staged, fmt
        for stage in stages:
            frame = frame.with_columns(**stage)
        got = frame.select(**fields).collect()
        is_event = pl.col(STATUS).is_between(500, 599)
        want = full.select(pl.when(is_event).then(pl.col(BUCKET)).alias(BUCKET))
        assert got.select(BUCKET).equals(want), fmt
        assert got.drop(BUCKET).equals(full.drop(BUCKET)), fmt


@settings(max_examples=15, deadline=None)
@given(LINES)
def test_json_and_logfmt_events_keep_their_buckets(lines: list[str]) -> None:
    for fmt in FIXED:
        _assert_events_bucketed(fmt, lines)


@pytest.mark.parametrize("fmt", REGEX, ids=lambda f: f.name)
def test_regex_layouts_events_keep_their_buckets_on_the_samples(fmt: AppRegexFormat) -> None:
    _assert_events_bucketed(fmt, [fmt.example, *_sample_lines()])


@pytest.mark.parametrize("fmt", REGEX[::4], ids=lambda f: f.name)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_regex_layouts_events_keep_their_buckets_on_mutated_lines(
    fmt: AppRegexFormat, data: st.DataObject
) -> None:
    _assert_events_bucketed(fmt, data.draw(st.lists(mutated(fmt), min_size=1, max_size=30)))


@pytest.mark.parametrize("name", ["log4j", "syslog3164", "jsonapp", "logfmt", "pino", "zap_json"])
def test_the_common_layouts_parse_the_events_stamps_alone(name: str) -> None:
    view = AppAsAccess(build_any_format(name, []), every_level=True)  # type: ignore[arg-type]
    time = time_of(view)
    assert time is not None
    stages, _ = staged_fields(Bucketed(view, time, 60, events_only=True), pl.col("line"))
    assert any(_EVENT_STAMP in stage for stage in stages)
