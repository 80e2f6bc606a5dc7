"""``--by client`` (and ident, user, ts) on ``combined``/``common``: the short head reading
(``fieldsets.clf_head_value``) gives what the whole-line capture groups give.

Lines are built to attack the head: brackets, quotes and blanks in every
token, a vhost or not, an address list first, a second bracketed block after
the stamp, truncation.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.fieldsets import _HEAD3, _HEAD4, clf_head_value, clf_value
from logagent.testing import combined_line
from tests.property.test_access_fast_property import lines

HEAD = ["client", "ident", "user", "ts"]
SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
TRICKY = [
    'a b c [ts] [x] "GET / HTTP/1.1" 200 5',  # the strict regex reads a vhost and user "[ts]"
    'a b c [10/Oct/2000:13:55:36 -0700] [x] "GET / HTTP/1.1" 200 5 "-" "ua"',
    'v a b c [ts] "GET / HTTP/1.1" 200 5',
    'a b c [ts] "GET / HTTP/1.1" 200 5',
    'a b [c] [ts] "GET / HTTP/1.1" 200 5',
    'a  b c [ts] "GET / HTTP/1.1" 200 5',
    'a b c [t"s] "GET / HTTP/1.1" 200 5',
    'v a b c d [ts] "GET / HTTP/1.1" 200 5',
    '\u00a0a b c [ts] "GET / HTTP/1.1" 200 5',
    'a b c [ts] "GET / HTTP/1.1" 2000 5',
    'a, b c d [ts] "GET / HTTP/1.1" 200 5',  # an address list, then ident and user: no vhost
    'a, b, c d e [ts] "GET / HTTP/1.1" 200 5',
    'a, b v c d [ts] "GET / HTTP/1.1" 200 5',
    '"a, b" v c d [ts] "GET / HTTP/1.1" 200 5',
    '"a" c d [ts] "GET / HTTP/1.1" 200 5',
    'a, c d [ts] "GET / HTTP/1.1" 200 5',
    "",
]


def _compare(sample: list[str]) -> None:
    frame = pl.DataFrame({"line": pl.Series(sample, dtype=pl.String)})
    line = pl.col("line")
    for name in HEAD:
        fast = frame.select(v=clf_head_value(line, name))["v"]
        full = frame.select(v=clf_value(line, name))["v"]
        assert fast.equals(full), (name, fast.to_list(), full.to_list(), sample)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(lines(), st.sampled_from(TRICKY)), min_size=1, max_size=30))
def test_head_fields_equal_the_whole_line_groups(sample: list[str]) -> None:
    """Random access-like lines: each head field equals the capture groups' value."""
    _compare(sample)


@pytest.mark.parametrize("name", ["nginx_access.log", "apache_access.log"])
def test_head_fields_equal_on_bundled_access_logs(name: str) -> None:
    """The bundled access logs (their odd lines included) read the same both ways."""
    _compare((SAMPLES / name).read_text(errors="replace").splitlines())


def test_typical_lines_take_the_short_reading() -> None:
    """Generated and bundled combined lines have a plain head, so the short reading serves."""
    typical = [combined_line("/api/x", 200), combined_line("/a?b=c", 503)]
    typical += (SAMPLES / "nginx_access.log").read_text().splitlines()[:50]
    frame = pl.DataFrame({"line": typical})
    line = pl.col("line")
    plain = frame.select((line.str.contains(_HEAD3) | line.str.contains(_HEAD4)).mean()).item()
    assert plain > 0.9
