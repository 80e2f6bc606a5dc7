"""``combined``/``common`` find the same path and status without capture groups as a plain
per-line reader with Python's ``re`` does.

The fast parser (``formats.access.AccessFormat``) trusts the split at the first
two quotes only on "plain" lines; these lines are built to attack that: quotes,
escaped quotes, bare quotes, brackets and spaces in every field, a vhost or
not, an X-Forwarded-For list first (bare, quoted, and near-misses of both),
trailing fields, digits that are not ASCII, truncated lines. The reference
reads a line with the strict regex, else with the greedy one.
"""

from __future__ import annotations

import re

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.access import COMBINED, COMMON, AccessFormat
from logagent.formats.base import parse, staged_fields

# Fragments chosen to move quotes, brackets and blanks around.
BITS = ["a", "-", '"', '\\"', "\\", "[", "]", " ", "5", "\u0665", "/x", "?q=1", "é"]
BITS += ["] [", '" ', ' "']
TEXT = st.lists(st.sampled_from(BITS), max_size=6).map("".join)
# Address lists and near-misses: a trailing comma, a lone quote, no blank, two blanks or a tab
# after a comma, an IPv6 address.
LISTS = ["10.0.0.2, 10.0.0.1", '"1.2.3.4, ::1"', "a, b,", '"a, b', 'a, b"', "a,b, c", '"a"']
LISTS += ["10.0.0.2, unknown, ::1", "a,  b", "a,\tb", '"a,  b"']
WORD = st.one_of(st.sampled_from(["1.2.3.4", "-", "frank", "host:80", *LISTS]), TEXT)
STAMP = st.one_of(st.just("10/Oct/2000:13:55:36 -0700"), TEXT)
REQUEST = st.one_of(
    st.tuples(
        st.sampled_from(["GET", "POST", "get", "G3T"]),
        st.one_of(st.sampled_from(["/a/1", "/b?c=d", "/" + "y" * 300]), TEXT),
        st.sampled_from(["", " HTTP/1.1", " HTTP/1.1 x", ' HTTP/1.1"']),
    ).map(lambda t: f"{t[0]} {t[1]}{t[2]}"),
    TEXT,
)
STATUS = st.one_of(st.sampled_from(["200", "503", "599", "5x3", "\u0665\u0660\u0663", "50"]), TEXT)
SIZE = st.sampled_from(["123", "-", "", "1 2"])
QUOTED = st.one_of(st.sampled_from(['"-"', '"Mozilla/5.0 (X11)"', '"a\\"b"', '""']), TEXT)
TAIL = st.sampled_from(["", " 0.123", ' "x" 1', "\t", " [z]"])


@st.composite
def lines(draw: st.DrawFn) -> str:
    vhost = draw(st.sampled_from(["", "vh:443 ", *(f"{x} " for x in LISTS)]))
    words = " ".join(draw(WORD) for _ in range(3))
    line = (
        f'{vhost}{words} [{draw(STAMP)}] "{draw(REQUEST)}" {draw(STATUS)} {draw(SIZE)}'
        f" {draw(QUOTED)} {draw(QUOTED)}{draw(TAIL)}"
    )
    cut = draw(st.one_of(st.none(), st.integers(0, len(line))))
    return line if cut is None else line[:cut]


def _reference(fmt: AccessFormat, lines: list[str]) -> pl.DataFrame:
    """Path and status of each line, read one by one with Python's ``re``."""
    strict, greedy = re.compile(fmt.pattern), re.compile(fmt.greedy or "(?!)")
    paths: list[str | None] = []
    statuses: list[int | None] = []
    for line in lines:
        m = strict.match(line)
        if m is not None:
            path = m.group("path")
        elif (m := greedy.match(line)) is not None:
            req = re.fullmatch(r"[A-Za-z]+ ([^ ]+)(?: [^ ]+)?", m.group("request"))
            path = req.group(1) if req else None
        paths.append(path if m is not None else None)
        status = m.group("status") if m is not None else None
        if status == "-":  # no response (the client left first): status 0
            statuses.append(0)
            continue
        statuses.append(int(status) if status is not None and status.isascii() else None)
    return pl.DataFrame(
        {"path": pl.Series(paths, dtype=pl.String), "status": pl.Series(statuses, dtype=pl.Int32)}
    )


def _staged(fmt: AccessFormat, series: pl.Series) -> pl.DataFrame:
    """The fields as a batch's parse computes them: helper columns first, stage by stage."""
    stages, fields = staged_fields(fmt, pl.col("line"))
    assert stages, "combined/common parse in stages"
    frame = pl.DataFrame({"line": series}).lazy()
    for stage in stages:
        frame = frame.with_columns(**stage)
    return frame.select(**fields).collect()


@settings(max_examples=300, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=30))
def test_fast_fields_equal_capture_groups(sample: list[str]) -> None:
    series = pl.Series("line", sample, dtype=pl.String)
    for fmt in (COMBINED, COMMON):
        fast = parse(fmt, series)
        reference = _reference(fmt, sample)
        assert fast.equals(reference), (fmt.name, fast, reference, sample)
        staged = _staged(fmt, series)
        assert staged.equals(reference), (fmt.name, staged, reference, sample)


def test_bare_quotes_and_an_unclosed_user_agent_are_records() -> None:
    """Real servers write these (issue 13): read greedily to the last ``" <status> <size>``."""
    head = "1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "
    lines = [
        head + '"GET" /x/?page=\' HTTP/1.0" 501 12 "-" "ua"',
        head + '"GET /a"b HTTP/1.1" 503 12 "-" "ua"',
        head + '"GET /c HTTP/1.1" 500 12 "-" "Mozilla/5.0 (X11',
    ]
    got = parse(COMBINED, pl.Series("line", lines))
    assert got["status"].to_list() == [501, 503, 500]
    assert got["path"].to_list() == [None, '/a"b', "/c"]  # no usable path: counted apart


def test_plain_lines_do_take_the_fast_branch_and_others_do_not_break() -> None:
    """A sanity check that the sample above is not trivially empty of records."""
    plain = '1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a/1 HTTP/1.1" 503 12 "-" "ua"'
    escaped = '1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a\\"b HTTP/1.1" 500 12 "-" "ua"'
    quoted_user = '1.2.3.4 - "x" [10/Oct/2000:13:55:36 -0700] "GET /c HTTP/1.1" 502 1 "-" "u"'
    got = parse(COMBINED, pl.Series("line", [plain, escaped, quoted_user, "junk"]))
    assert got["status"].to_list() == [503, 500, 502, None]
    assert got["path"].to_list() == ["/a/1", '/a\\"b', "/c", None]
