"""``combined``/``common`` with an X-Forwarded-For list first (formats/access.py, fieldsets.py):
both list forms read like any line, by every path a line can take (plain, quick count,
capture groups, greedy), their client as the README says, and near-misses still refused."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from logagent.formats import quick
from logagent.formats.access import (
    _PLAIN_HEAD,
    ACCESS_5XX_PREFILTER,
    COMBINED,
    COMMON,
    AccessFormat,
)
from logagent.formats.base import parse, staged_fields
from logagent.formats.fieldsets import clf_head_value, clf_value
from logagent.testing import combined_line, common_line

#: nginx's $proxy_add_x_forwarded_for first (beats' nginx fixture), bare.
BARE = "10.0.0.2, 10.0.0.1, 127.0.0.1"
#: "$http_x_forwarded_for" $remote_addr first, quoted.
QUOTED = '"10.5.102.222, 199.96.1.1, 204.246.1.1" 10.2.1.185'
#: IPv6 addresses in a bare list, then $remote_addr.
IPV6 = "2a03:0000:10ff:f00f:0000:0000:0:8000, ::1 10.2.2.121"
#: (first fields, the client ``--by client`` counts): the list's first address in the
#: client's place; the next field when the list leads one more field.
HEADS: list[tuple[str, str]] = [
    (BARE, "10.0.0.2"),
    (QUOTED, "10.2.1.185"),
    (IPV6, "10.2.2.121"),
    ("2001:db8::7, fe80::1", "2001:db8::7"),
    ("10.0.0.2, 10.0.0.1", "10.0.0.2"),  # two fields: read as a vhost and a client before
    ('"10.0.0.2, unknown"', "10.0.0.2"),
    ('"10.0.0.2"', "10.0.0.2"),  # a quoted single address in the client's place
    ("203.0.113.7", "203.0.113.7"),  # one address: as before
    ("10.0.0.2,10.0.0.1", "10.0.0.2,10.0.0.1"),  # no blank: one token, as before
    ('"-" 10.2.1.185', "10.2.1.185"),
    # nginx's "$host $remote_addr ..." when the request named no host: an empty first field
    # (a real honeypot log, probe F: 3,739 of 3,888 lines had been malformed)
    (" 111.75.193.96", "111.75.193.96"),
]
#: First fields that are no address list, on lines refused before and still: a trailing
#: comma, an unclosed or unopened quote, a comma without its blank, two blanks, a list
#: after the first field, too many fields after a list.
NEAR_MISSES = [
    "10.0.0.2, 10.0.0.1, 127.0.0.1,",
    '"10.0.0.2, 10.0.0.1, 127.0.0.1',
    '10.0.0.2, 10.0.0.1, 127.0.0.1"',
    "10.0.0.2,10.0.0.1, 127.0.0.1 10.2.1.185",
    "10.0.0.2,  10.0.0.1, 127.0.0.1",
    "10.2.1.185 10.0.0.2, 10.0.0.1, 127.0.0.1",
    "10.0.0.2, 10.0.0.1 10.2.1.185 10.2.1.186",
    '"10.0.0.2, 10.0.0.1" 10.2.1.185 10.2.1.186',
    ", 10.0.0.2, 10.0.0.1",
    "-, 10.0.0.2, 10.0.0.1",
]


Build = Callable[..., str]


def _combined(head: str, path: str = "/a/1", status: int = 200) -> str:
    return combined_line(path, status, client=head)


def _common(head: str, path: str = "/a/1", status: int = 200) -> str:
    return common_line(path, status, client=head)


def _rows(fmt: AccessFormat, lines: list[str]) -> list[tuple[str | None, int | None]]:
    """(path, status) of each line, by ``fields`` and by the staged parse, which must agree."""
    series = pl.Series("line", lines, dtype=pl.String)
    got = parse(fmt, series).rows()
    stages, fields = staged_fields(fmt, pl.col("line"))
    frame = pl.DataFrame({"line": series}).lazy()
    for stage in stages:
        frame = frame.with_columns(**stage)
    assert frame.select(**fields).collect().rows() == got
    return got


@pytest.mark.parametrize(("fmt", "build"), [(COMBINED, _combined), (COMMON, _common)])
def test_lines_with_an_address_list_first_are_records(fmt: AccessFormat, build: Build) -> None:
    """Bare, quoted and IPv6 lists give the path and status any line gives; so does a 5xx."""
    heads = [h for h, _ in HEADS]
    lines = [build(h, "/x/7?q=1", s) for h in heads for s in (404, 503)]
    want = [("/x/7?q=1", s) for _ in heads for s in (404, 503)]
    assert _rows(fmt, lines) == want


@pytest.mark.parametrize(("fmt", "build"), [(COMBINED, _combined), (COMMON, _common)])
@pytest.mark.parametrize("head", NEAR_MISSES)
def test_near_misses_stay_malformed(fmt: AccessFormat, build: Build, head: str) -> None:
    """A first field that is no ``a, b, c`` list leaves the line refused (no widening)."""
    assert _rows(fmt, [build(head)]) == [(None, None)]


def test_bare_quotes_in_the_request_of_a_list_line_are_read_greedily() -> None:
    """The greedy reading (a bare quote in the request) applies after a list of either form."""
    request = '"GET /a"b HTTP/1.1" 503 12 "-" "ua"'
    lines = [f"{h} - - [10/Oct/2000:13:55:36 -0700] {request}" for h in (BARE, QUOTED, IPV6)]
    assert _rows(COMBINED, lines) == [('/a"b', 503)] * 3


def test_a_bare_list_keeps_the_fast_paths_and_a_quoted_one_does_not_use_them() -> None:
    """A bare list's head is plain and the quick count takes its line; a quoted list's first
    ``" `` closes the list, not the request, so neither does (its groups read it)."""
    lines = [_combined(BARE), _combined(IPV6), _combined(QUOTED)]
    heads = pl.Series(lines).str.splitn('"', 2).struct.field("field_0")
    assert heads.str.contains(_PLAIN_HEAD).to_list() == [True, True, False]
    pattern = COMBINED.quick_status
    assert pattern is not None
    units = pl.Series([0, 0, 0], dtype=pl.Int64).to_numpy()
    found = quick.split(pl.Series("line", lines), units, pattern, COMBINED.min_line_bytes)
    assert found.counts.rows() == [(200, 2)]
    assert found.rest.to_list() == [lines[2]]


def test_the_5xx_prefilter_keeps_list_lines() -> None:
    """The byte prefilter of top-errors passes a 5xx line with a list of either form."""
    for head in (BARE, QUOTED, IPV6):
        assert ACCESS_5XX_PREFILTER.search(_combined(head, status=502).encode())
        assert not ACCESS_5XX_PREFILTER.search(_combined(head, status=404).encode())


@pytest.mark.parametrize(("head", "client"), HEADS)
def test_client_is_the_first_address_in_the_clients_place(head: str, client: str) -> None:
    """``--by client``: a list in the client's place gives its first address; a list with one
    more field after it gives that field; the short and the full readings agree."""
    line = pl.col("line")
    frame = pl.DataFrame({"line": [_combined(head), _common(head)]})
    for read in (clf_head_value, clf_value):
        assert frame.select(v=read(line, "client"))["v"].to_list() == [client, client]


def test_ident_user_and_stamp_of_a_list_line() -> None:
    """The other head fields of a list line are its ident, user and stamp."""
    rest = ' - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 1'
    lines = [head + rest for head in (BARE, QUOTED, IPV6)]
    frame = pl.DataFrame({"line": lines})
    for name, want in (("ident", "-"), ("user", "frank"), ("ts", "10/Oct/2000:13:55:36 -0700")):
        got = frame.select(v=clf_head_value(pl.col("line"), name))["v"].to_list()
        assert got == [want] * 3, name


@pytest.mark.parametrize("read", [clf_head_value, clf_value])
def test_the_client_of_a_list_line_takes_one_pass_of_the_capture_groups(read: Callable) -> None:
    """The client, read from several groups, runs the capture groups as often as ident does."""

    def passes(name: str) -> int:
        plan = pl.LazyFrame({"line": [_combined(BARE)]}).select(read(pl.col("line"), name))
        return plan.explain().count("extract_groups")

    assert passes("client") == passes("ident")
