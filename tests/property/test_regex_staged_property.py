"""A regex format's staged parse equals its ``fields`` (``AppRegexFormat.staged_fields``).

The staged parse computes each pattern's captures once a line, and where a
pattern's message is the rest of the line (``app.message_tail``) it captures
only the head and takes the message as the text after it. Whatever the line
(each format's example and the bundled samples, cut, with words, blanks,
separators and non-ASCII text put in), every column of every view must be
what the unstaged expressions give.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.adapter import AppAsAccess
from logagent.formats.app import HEAD_GROUP, SPACE_GROUP, AppRegexFormat, message_tail
from logagent.formats.base import staged_fields
from logagent.formats.bucketed import Bucketed
from logagent.formats.catalog import APP_NAMES, SERVER_LAYOUTS, build_any_format
from logagent.formats.windowed import Windowed, time_of

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
NAMES = dict.fromkeys((*APP_NAMES, *(s.name for s in SERVER_LAYOUTS)))
REGEX = [f for f in map(lambda n: build_any_format(n, []), NAMES) if isinstance(f, AppRegexFormat)]
PIECES = [" ", "  ", ": ", " - ", "-", ":", "[x] ", "]", "\t", "é", "ERROR", " : msg", "\r", ""]


@functools.cache
def _sample_lines() -> tuple[str, ...]:
    """Up to 30 lines of each bundled sample."""
    out: list[str] = []
    for path in sorted(SAMPLES.glob("*.log")):
        out.extend(path.read_text(errors="replace").splitlines()[:30])
    return tuple(out)


@st.composite
def mutated(draw: st.DrawFn, fmt: AppRegexFormat) -> str:
    line = draw(st.one_of(st.just(fmt.example), st.sampled_from(_sample_lines())))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(st.sampled_from(PIECES)) + line[at:]
    if draw(st.booleans()):
        line = line[: draw(st.integers(0, len(line)))]
    return line


def _views(fmt: AppRegexFormat) -> list[object]:
    view = AppAsAccess(fmt, level="warn")
    time = time_of(view)
    assert time is not None
    since = datetime(2020, 1, 1, tzinfo=UTC)
    return [fmt, view, Bucketed(view, time, 3600), Windowed(view, time, since, None)]


def _assert_equal(fmt: AppRegexFormat, lines: list[str]) -> None:
    for view in _views(fmt):
        frame = pl.LazyFrame({"line": pl.Series(lines, dtype=pl.String)})
        plain = frame.select(**view.fields(pl.col("line"))).collect()  # type: ignore[attr-defined]
        stages, fields = staged_fields(view, pl.col("line"))
        for stage in stages:
            frame = frame.with_columns(**stage)
        staged = frame.select(**fields).collect()
        assert staged.equals(plain), (fmt.name, type(view).__name__, lines)


@pytest.mark.parametrize("fmt", REGEX, ids=lambda f: f.name)
def test_staged_equals_fields_on_the_example_and_the_samples(fmt: AppRegexFormat) -> None:
    _assert_equal(fmt, [fmt.example, *_sample_lines()])


@pytest.mark.parametrize("fmt", REGEX, ids=lambda f: f.name)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_staged_equals_fields_on_mutated_lines(fmt: AppRegexFormat, data: st.DataObject) -> None:
    _assert_equal(fmt, [data.draw(mutated(fmt)) for _ in range(16)])


def test_the_message_tail_is_taken_where_the_message_ends_the_line() -> None:
    """The two endings become a head group; anything else stays as it is."""
    assert message_tail(r"^(?P<level>[A-Z]+) (?P<message>.*)$") == (
        f"^(?P<{HEAD_GROUP}>(?P<level>[A-Z]+) )"
    )
    assert message_tail(r"^(?P<level>[A-Z]+):(?: (?P<message>.*))?$") == (
        f"^(?P<{HEAD_GROUP}>(?P<level>[A-Z]+):(?:(?P<{SPACE_GROUP}> )|$))"
    )
    kept = [
        r"(?P<level>[A-Z]+) (?P<message>.*)$",  # not anchored
        r"^a|(?P<level>[A-Z]+) (?P<message>.*)$",  # an alternation at the top
        r"^(?P<level>[A-Z]+) (?P<message>[^\t]*)$",  # a message that is not the rest
        r"^(?P<level>[A-Z]+) (?P<message>.*)$|x(?P<message>.*)$",
        r"^[|(](?P<level>[A-Z]+)(?P<message>.*)$x(?P<message>.*)$",
    ]
    for pattern in kept[:4]:
        assert message_tail(pattern) == pattern
    assert message_tail(r"^[|(](?P<level>[A-Z]+) (?P<message>.*)$").startswith(
        f"^(?P<{HEAD_GROUP}>"
    )
    assert message_tail(kept[4]) == kept[4]  # the tail inside the head too


def test_the_staged_message_of_a_rewritten_pattern_is_the_rest_of_the_line() -> None:
    fmt = AppRegexFormat(
        name="t",
        patterns=(r"^(?P<level>[A-Z]+)(?P<component>[^:]*):(?: (?P<message>.*))?$",),
        min_line_bytes=1,
    )
    lines = ["ERROR: a b ", "ERROR:", "ERROR: ", "ERROR:x", "ERROR é€: é:z", "error: x"]
    _assert_equal(fmt, lines)
    stages, fields = fmt.staged_fields(pl.col("line"))
    frame = pl.LazyFrame({"line": lines})
    for stage in stages:
        frame = frame.with_columns(**stage)
    got = frame.select(fields["message"]).collect().to_series().to_list()
    assert got == ["a b ", "", "", None, "é:z", None]


@pytest.mark.parametrize(
    ("pattern", "lines"),
    [
        # every named group optional: a line where none took part is no record, rewritten too
        (r"^(?:(?P<level>[A-Z]+) )?\S*(?: (?P<message>.*))?$", ["foo", "ERROR foo bar", "x y"]),
        (r"^(?:(?P<level>[A-Z]+) )?\S*(?P<message>.*)$", ["foo", "ERROR foo bar", ""]),
        # (?x) comments may hide a "|" at the top from the text's parser: not rewritten
        (
            "^(?x) (?P<level>ERROR) # [\n | (?P<component>\\w+): # ]\n (?P<message>.*)$",
            ["ERROR boom", "db: down", "xx ERROR boom"],
        ),
    ],
)
def test_staged_equals_fields_on_patterns_a_review_broke(pattern: str, lines: list[str]) -> None:
    _assert_equal(AppRegexFormat(name="t", patterns=(pattern,), min_line_bytes=1), lines)


# log4j's one-pass fast pattern (``AppRegexFormat.fast``): where it matches, the staged parse
# takes its captures instead of the layout's patterns', which must then say the same.
_STAMPS = [
    "2026-11-28 01:00:00,011",
    "2026-11-28T01:00:00.123456789Z",
    "2026-11-28 01:00:00+01:00",
    "2026-11-28 01:00:00.5-0130",
    "2026-11-28 01:00:00",
    "01:00:00,011",
    "01:00:00.011",
    "01:00:00",
    "2026-11-28 01:00:00,0123456789",
    "Jul-13 15:12:40.926",
]
_LEVELS = ["ERROR", "WARN", "WARNING", "WARNINGS", "INFO", "FATAL", "ERR", "DEBUG"]
_THREADS = [
    "[main] ", "[http-nio-8080-exec-1] ", "[a b] ", "[] ", "[x]", "[-] ",
    # a thread named Name:N, Liferay's [%c{1}:%L] and its [%t][%c{1}:%L] (probe Q, a review)
    "[SyncThread:0] ", "[EasyConf:122] ", "[Img.load:7]", "[exec-3][Img:181] ", "[a:1][b:2] ",
]  # fmt: skip
_SEPARATORS = [" - ", "- ", " -", ":", ": ", " : ", "-", " -- ", "", " ", ":12 - ", ":12: ", ":x"]
_MESSAGES = ["", "msg", "- msg", ": x", "-x", "b : c", " ", "é ERROR"]
_LOGGERS = st.text(alphabet="aB.$_-:1 ", max_size=8)


@st.composite
def log4j_line(draw: st.DrawFn) -> str:
    """A line from log4j's parts, and the pieces where its patterns have choices: stamps
    of both kinds, WARN/WARNING, Spring Boot's pid ``---``, loggers with "-" and ":"."""
    parts = [draw(st.sampled_from(_STAMPS)), draw(st.sampled_from([" ", "  "]))]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(_THREADS)))
    parts += [draw(st.sampled_from(_LEVELS)), draw(st.sampled_from([" ", "  "]))]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["123 --- ", "1 ---  ", "12 -- "])))
    parts += draw(st.lists(st.sampled_from(_THREADS), max_size=2))
    parts += [draw(_LOGGERS), draw(st.sampled_from(_SEPARATORS)), draw(st.sampled_from(_MESSAGES))]
    return "".join(parts)


_LOG4J_EDGES = [
    "2026-11-28 01:00:00,011 ERROR [main] a.B- - m",  # the pattern's logger takes the "-"
    "2026-11-28 01:00:00,011 ERROR [main] a.B- m",
    "2026-11-28 01:00:00,011 ERROR [main] a-b.C - m",
    "2026-11-28 01:00:00,011 ERROR 1 --- [m] a - b : c",  # Spring Boot's, not the fast one's
    "2026-11-28 01:00:00,011 ERROR 1 --- [m] a : c",
    "2026-11-28 01:00:00,011 WARNING [main] a.B:12 - m",
    "2026-11-28 01:00:00,011 WARN [main] a.B:12: m",
    "2026-11-28 01:00:00,011 WARNINGS [main] a.B - m",
    "01:00:00.011 [x] INFO  [t] a.B:",
    "2026-11-28 01:00:00,011 ERROR [main] a.B:12",
    "2026-11-28T01:00:00.1+0100 FATAL a.B  -  m",
    "2026-11-28 01:00:00,011 ERROR [SyncThread:0] a.B - m",  # a thread named Name:N
    "01:00:00,011 INFO  [EasyConf:122] a.B: m",  # Liferay's logger line
    "2026-11-28 01:00:00,011 ERROR [t][Img:181] m",
    "15:54:07,115 INFO  [EasyConf:122] my-portlet - x",  # a review: staged and plain differed
]


def _log4j() -> AppRegexFormat:
    fmt = build_any_format("log4j", [])
    assert isinstance(fmt, AppRegexFormat) and fmt.fast
    return fmt


@settings(max_examples=60, deadline=None)
@given(st.lists(log4j_line(), min_size=1, max_size=24))
def test_log4j_fast_pattern_reads_its_lines_as_the_layout_does(lines: list[str]) -> None:
    _assert_equal(_log4j(), [*lines, *_LOG4J_EDGES])


def test_log4j_fast_pattern_takes_the_common_lines_and_leaves_the_rest() -> None:
    """It must take the usual lines (or it saves nothing) and none of Spring Boot's."""
    fmt = _log4j()
    sample = (SAMPLES / "app_log4j.log").read_text(errors="replace").splitlines()
    common = [fmt.example, *sample[:200]]
    heads = [line for line in common if line[:1].isdigit()]  # not the stack traces
    (fast,) = fmt.fast  # one: each fast pattern after another costs every line a match test
    taken = pl.Series(heads).str.contains(fast)
    assert len(heads) > 50 and taken.all()
    left = pl.Series(_LOG4J_EDGES[:5]).str.contains(fast).to_list()
    assert not any(left)
    # a logger line (Liferay's) is no fast one: its bracket would be read as a thread's
    liferay = "15:54:07,115 INFO  [EasyConf:122] com.x.FooException: bar"
    assert not pl.Series([liferay]).str.contains(fast).item()
    _assert_equal(fmt, _LOG4J_EDGES)
    # and the layout's own patterns (the backtracker) then see none of the lines it took
    stages, _ = fmt.staged_fields(pl.col("line"))
    frame = pl.LazyFrame({"line": [*heads[:20], *_LOG4J_EDGES[:5]]})
    for stage in stages:
        frame = frame.with_columns(**stage)
    rest = frame.select(pl.col("_app_log4j_rest")).collect().to_series().to_list()
    assert rest == [""] * 20 + _LOG4J_EDGES[:5]


# syslog's fast pattern: "stamp host program[pid]: message", the host optional in the layout.
_SYSLOG_STAMPS = ["Oct 11 22:14:15", "Oct  1 22:14:15.123", "2024-10-11T22:14:15.1+02:00", "Oct"]
_SYSLOG_NAMES = st.text(alphabet="ab(): [1]-", min_size=0, max_size=7)
_SYSLOG_EDGES = [
    "Oct 11 22:14:15 web01 sshd[4721]: error: x",
    "Oct 11 22:14:15 sshd[4721]: no host",
    "Oct 11 22:14:15 web01 launchd[1] (com.apple.x[2]): Service exited",
    "Oct 11 22:14:15 web01 Microsoft Word[96]: three words",
    "Oct 11 22:14:15 web01 syslogd 1.4.1: restart",
    "<34>Oct 11 22:14:15 web01 su: 'su root' failed",
    "Oct 11 22:14:15 web01 sshd(pam_unix)[19939]:message",
    "Oct 11 22:14:15 web01 ERROR: a level word in the program's place",
    "Oct 11 22:14:15 a b c: no",
    "Oct 11 22:14:15 web01 a]b: a name ends at a bracket",
    "Oct 11 22:14:15 web01 a:b: and at a colon",
]


@st.composite
def syslog_line(draw: st.DrawFn) -> str:
    """A line from syslog's parts: a PRI, both stamps, a host or none, names holding the
    characters its patterns decide on, a pid, launchd's "(...)", separators."""
    parts = [draw(st.sampled_from(["", "<13>", "<9999>"])), draw(st.sampled_from(_SYSLOG_STAMPS))]
    parts += [" ", draw(_SYSLOG_NAMES), draw(st.sampled_from([" ", "", "  "]))]
    parts += [draw(_SYSLOG_NAMES), draw(st.sampled_from(["", "[12]", "[x]", " 1.4"]))]
    parts += [draw(st.sampled_from(["", " (com.x)"])), draw(st.sampled_from([": ", ":", "", " "]))]
    return "".join(parts) + draw(st.sampled_from(["", "msg", " x", "error: boom", ":"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(syslog_line(), min_size=1, max_size=24))
def test_syslog_fast_pattern_reads_its_lines_as_the_layout_does(lines: list[str]) -> None:
    fmt = build_any_format("syslog3164", [])
    assert isinstance(fmt, AppRegexFormat) and fmt.fast
    _assert_equal(fmt, [*lines, *_SYSLOG_EDGES])
    taken = pl.Series(_SYSLOG_EDGES).str.contains(fmt.fast[0]).to_list()
    assert taken == [True, False, False, False, False, True, True, True, False, False, True]
