"""A layout's fast split parses every line as its whole staged parse does (``extract._parse``).

Where a layout has ``fast`` patterns, the parse computes their captures first,
then parses the lines they read by the layout's ``fast_only`` variant (no other
pattern tested) and the rest by the whole layout. Whatever the lines (each
layout's example, the bundled samples, cut and with words put in) and whatever
the view (levels over a threshold, every level, a timeline's buckets, a time
window), the rows must be the ones the unsplit parse gives, and the variant's
timeline must take its time from the staged columns: over the line it parsed
each line again with every pattern (10x the parse).
"""

from __future__ import annotations

import importlib
from datetime import UTC, datetime

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.adapter import AppAsAccess
from logagent.formats.app import AppRegexFormat
from logagent.formats.base import fast_variant, staged_fields
from logagent.formats.bucketed import Bucketed
from logagent.formats.catalog import build_any_format
from logagent.formats.stagedtime import Timed, staged_time
from logagent.formats.windowed import Windowed, time_of
from tests.property.test_regex_staged_property import _sample_lines, mutated

extract = importlib.import_module("logagent.formats.extract")  # the package's name is a function

LAYOUTS = ("log4j", "syslog3164", "mixed(log4j+tomcat)", "mixed(log4j+jul)")
SPLIT = [build_any_format(n, []) for n in LAYOUTS]


def _views(fmt: AppRegexFormat) -> list[object]:
    out: list[object] = []
    for view in (AppAsAccess(fmt, level="error"), AppAsAccess(fmt, every_level=True)):
        time = time_of(view)
        assert time is not None
        since = datetime(2020, 1, 1, tzinfo=UTC)
        out += [view, Bucketed(view, time, 3600), Bucketed(view, time, 60, events_only=True)]
        out += [Windowed(view, time, since, None)]
    return out


def _assert_split_equal(fmt: AppRegexFormat, lines: list[str]) -> None:
    for view in _views(fmt):
        split = extract._split(view)
        assert split is not None, (fmt.name, type(view).__name__)
        stages, fields = extract._staged(view)
        frame = pl.LazyFrame(
            {"line": pl.Series(lines, dtype=pl.String), "unit": range(len(lines))},
            schema={"line": pl.String, "unit": pl.Int64},
        )
        whole = extract._parse(frame, len(lines), fields, stages)
        parts = extract._parse(frame, len(lines), fields, stages, split)
        assert parts.sort("unit").equals(whole.sort("unit")), (fmt.name, type(view).__name__)


@pytest.mark.parametrize("fmt", SPLIT, ids=lambda f: f.name)
def test_the_split_parse_equals_the_whole_on_the_example_and_the_samples(
    fmt: AppRegexFormat,
) -> None:
    lines = [fmt.example, *_sample_lines()]
    split = extract._split(AppAsAccess(fmt, level="error"))
    assert split is not None
    read = pl.LazyFrame({"line": lines}).with_columns(**extract._staged(AppAsAccess(fmt))[0][0])
    taken = read.select(split.read.sum()).collect().item()
    assert 0 < taken < len(lines)  # both halves of the split are parsed here
    _assert_split_equal(fmt, lines)


@pytest.mark.parametrize("fmt", SPLIT, ids=lambda f: f.name)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_split_parse_equals_the_whole_on_mutated_lines(
    fmt: AppRegexFormat, data: st.DataObject
) -> None:
    lines = data.draw(st.lists(mutated(fmt), min_size=1, max_size=40))
    _assert_split_equal(fmt, lines)


@pytest.mark.parametrize("fmt", SPLIT, ids=lambda f: f.name)
def test_a_timed_variant_takes_its_time_from_its_own_stages(fmt: AppRegexFormat) -> None:
    view = AppAsAccess(fmt, level="error")
    time = time_of(view)
    assert time is not None
    for wrapper in (Bucketed(view, time, 3600), Windowed(view, time, None, None)):
        found = fast_variant(wrapper)
        assert found is not None
        variant = found[0]
        assert isinstance(variant, Timed)
        line = pl.col("line")
        stages, _ = staged_fields(variant.inner, line)
        assert staged_time(variant.time, line, stages) is not None, type(wrapper).__name__


def test_a_layout_without_fast_patterns_has_no_split() -> None:
    assert extract._split(AppAsAccess(build_any_format("python", []), level="error")) is None
    assert extract._split(AppAsAccess(build_any_format("tomcat", []), level="error")) is None
