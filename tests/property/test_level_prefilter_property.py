"""The JSON level prefilter lets through every line the parser calls an event (a superset).

Lines are built to attack it: level words in any case with blanks (ASCII and
Unicode) around them, escapes, letters that upper-case to ASCII, numbers next
to other digits, spacing around the colon, nested objects and CRLF endings.
Both forms are checked: Python's ``re`` on the bytes and Polars' regex on the
lines (``sources.locate.polars_pattern``), which the engine uses.
"""

from __future__ import annotations

import json
import re

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.adapter import THRESHOLDS
from logagent.formats.app import LEVEL
from logagent.formats.jsonlayouts import JSON_LAYOUTS
from logagent.formats.levelfilter import level_prefilter
from logagent.formats.structured import JsonAppFormat
from logagent.sources.locate import polars_pattern

WORDS = ["error", "ERROR", "Err", "fatal", "crit", "E", "e", "severe", "info", "warn", "Warning"]
ODD = ["\u017fevere", "crit\u0131cal", "\u0045RROR", "50", "3", "60", "30", "0", "7", ""]
#: Layouts' own words: Nextcloud's 1-4 (4 is its FATAL), MongoDB's letters and D1..D5.
OWN = ["1", "2", "4", "F", "w", "D1", "d5", "D6"]
BLANKS = ["", " ", "\t", "\u00a0", "\u3000", "  "]
VALUE = st.one_of(
    st.tuples(
        st.sampled_from(BLANKS), st.sampled_from(WORDS + ODD + OWN), st.sampled_from(BLANKS)
    ).map(lambda t: json.dumps(t[0] + t[1] + t[2], ensure_ascii=False)),
    st.tuples(st.sampled_from(WORDS + ODD + OWN), st.booleans()).map(
        lambda t: json.dumps(t[0], ensure_ascii=t[1])  # ensure_ascii: \\u escapes
    ),
    st.sampled_from(["50", "60", "3", "0", "30", "3.0", "50e0", "500", "-3", "true", "null"]),
    st.sampled_from(["4", "1", "4.0", "40", "-4"]),
    st.just('{"x": 1}'),
)
SPACE = st.sampled_from(["", " ", "\t"])


@st.composite
def record(draw: st.DrawFn, key: str) -> str:
    value = draw(VALUE)
    pair = f'"{key}"{draw(SPACE)}:{draw(SPACE)}{value}'
    other = draw(st.sampled_from(['"msg": "x"', '"message": "ERROR in 50 ways"', '"n": 50']))
    body = f"{pair}, {other}" if draw(st.booleans()) else f"{other}, {pair}"
    return "{" + body + "}" + draw(st.sampled_from(["", "\r"]))


def _check(fmt: object, key: str, lines: list[str]) -> None:
    for level, wanted in THRESHOLDS.items():
        pre = level_prefilter(fmt, wanted)
        assert pre is not None
        series = pl.Series("line", lines, dtype=pl.String)
        cols = pl.DataFrame({"line": series}).select(**fmt.fields(pl.col("line")))  # type: ignore[attr-defined]
        events = cols[LEVEL].is_in(list(wanted)).fill_null(False).to_list()
        text = polars_pattern(pre)
        assert text is not None
        by_polars = series.str.contains(text).to_list()
        for line, event, fast in zip(lines, events, by_polars, strict=True):
            if event:
                assert pre.search(line.encode()) is not None, (level, line)
                assert fast, (level, line)


@settings(max_examples=200, deadline=None)
@given(st.lists(record("level"), min_size=1, max_size=20))
def test_jsonapp_prefilter_keeps_every_event(lines: list[str]) -> None:
    fmt = JsonAppFormat(mapping={"level": "level", "message": "msg", "component": "logger"})
    _check(fmt, "level", lines)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_json_layout_prefilters_keep_every_event(data: st.DataObject) -> None:
    for layout in JSON_LAYOUTS:
        if level_prefilter(layout, THRESHOLDS["error"]) is None:
            continue  # a layout without a level key of its own (level from the message)
        # its level key, and the one read where that one is absent (CloudNativePG's wrapper)
        second = [layout.fallback[LEVEL]] if LEVEL in layout.fallback else []
        keys = [layout.mapping[LEVEL], *second]
        for key in keys:
            path = _parts(key)
            written = path[-1]
            signature = ", ".join(f'"{k}": "s"' for k in layout.signature if k != written)
            lines = []
            for line in data.draw(st.lists(record(written), min_size=1, max_size=8)):
                for outer in reversed(path[:-1]):  # a nested key: the record inside its objects
                    line = f'{{"{outer}": {line}}}'
                lines.append(line.replace("{", "{" + signature + ", " if signature else "{", 1))
            _check(layout, written, lines)


def _parts(key: str) -> list[str]:
    """A JSONPath's keys (``$['a']['b']``, ``$.a.b``), or the plain key itself."""
    if not key.startswith("$"):
        return [key]
    return [a or b for a, b in re.findall(r"\['([^']*)'\]|\.([A-Za-z0-9_@]+)", key)]


def test_prefilter_is_tight_on_plain_levels() -> None:
    """It is a prefilter worth having: info lines without escapes are left out."""
    fmt = JsonAppFormat(mapping={"level": "level", "message": "msg"})
    pre = level_prefilter(fmt, THRESHOLDS["error"])
    assert pre is not None
    assert pre.search(b'{"level":"info","msg":"ERROR 50"}') is None
    assert pre.search(b'{"level": 30, "msg": "fatal"}') is None
    assert pre.search(b'{"level":"error","msg":"x"}') is not None
