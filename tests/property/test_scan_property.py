"""The full-read scanner's tallies equal a plain per-line Python reference on awkward inputs."""

from __future__ import annotations

import re
import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from logagent.engine.run import ParsePool
from logagent.formats.access import ACCESS_5XX_PREFILTER, COMBINED
from logagent.sources import (
    Order,
    iter_seekable_batches,
    locate,
    open_source,
    plan_units,
    prescan,
    unit_order,
)
from logagent.sources.files import MAGIC
from logagent.testing import combined_line

_RECORD = re.compile(COMBINED.pattern)
_GREEDY = re.compile(COMBINED.greedy or "(?!)")  # a bare quote in the request: read greedily

LINE = st.one_of(
    st.tuples(
        st.sampled_from(["/a/1", "/b", '/c?q=" 503 ', "/d/" + "x" * 300]),
        st.sampled_from([200, 404, 500, 503, 599]),
    ).map(lambda t: combined_line(*t).encode()),
    st.sampled_from([b"", b"\xef\xbb\xbf", b"\x00", b"\xff\xfe", b'" 5', b'" 500 ', "é".encode()]),
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")),
)
ENDING = st.sampled_from([b"\n", b"\r\n"])
LINES = st.lists(
    st.tuples(st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff"]), LINE, ENDING), max_size=40
)


def _reference(data: bytes, cap: int) -> tuple[Counter[tuple[str, int]], dict[str, int]]:
    """Count by hand: split, cut at ``cap``, prefilter, decode, strip, match the format's regex."""
    raw = data.split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()  # the final newline ends the last line; none: the last line is still a line
    counts: Counter[tuple[str, int]] = Counter()
    scalars = Counter(lines=len(raw), bytes_read=len(data))
    for line in raw:
        if len(line) > cap:
            line, scalars["truncated"] = line[:cap], scalars["truncated"] + 1
        if not ACCESS_5XX_PREFILTER.search(line + b"\n"):
            continue
        scalars["parsed"] += 1
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            text, scalars["invalid_utf8"] = (
                line.decode("utf-8", "replace"),
                scalars["invalid_utf8"] + 1,
            )
        text = text.removesuffix("\r").removeprefix("\ufeff")
        m = _RECORD.match(text)
        path = m["path"] if m is not None else None
        if m is None and (m := _GREEDY.match(text)) is not None:
            req = re.fullmatch(r"[A-Za-z]+ ([^ ]+)(?: [^ ]+)?", m["request"])
            path = req.group(1) if req else None
        if m is None or len(text.encode()) < COMBINED.min_line_bytes:
            scalars["malformed"] += 1
        elif 500 <= int(m["status"]) <= 599:
            counts[(path if path is not None else "(invalid request)", int(m["status"]))] += 1
    return counts, dict(scalars)


def _scan(
    path: Path, *, unit_size: int, batch_units: int, cap: int, prescanned: bool = False
) -> tuple[Counter[tuple[str, int]], dict[str, int]]:
    """The engine's full read: batches in file order, scanned and tallied by the parse pool.

    ``prescanned``: the reader keeps only the candidate lines (``sources.prescan``), as the
    engine's read of everything does; every batch that holds lines is then checked to have
    been prescanned.
    """
    source = open_source(str(path))
    try:
        plan = plan_units([source.size or 0], unit_size)
        order = unit_order(plan.total_units, Order.SEQUENTIAL, 0)
        pool = ParsePool(COMBINED, errors_only=True, rules=None, track_units=False)
        find = pool.prescan() if prescanned else None
        assert (find is not None) == prescanned
        tallies = []
        batches = iter_seekable_batches(
            [source], plan, order, batch_units=batch_units, cap=cap, prescan=find
        )
        for batch in batches:
            # a unit where no line starts (inside a long line) is an empty batch either way
            assert (batch.found is not None) == prescanned or batch.lines == 0
            pool.add(batch)
            tallies.append(pool.flush())
    finally:
        source.close()
    counts: Counter[tuple[str, int]] = Counter()
    scalars: Counter[str] = Counter()
    for t in tallies:
        for route, status, n in t.counts.iter_rows():
            counts[(route, status)] += n
        for name in ("lines", "bytes_read", "truncated", "parsed", "invalid_utf8", "malformed"):
            scalars[name] += t.scalars()[name]
    return counts, {k: v for k, v in scalars.items() if v}


@settings(max_examples=160, deadline=None)
@given(
    lines=LINES,
    final_newline=st.booleans(),
    unit_size=st.sampled_from([64, 100, 256, 4096]),
    batch_units=st.integers(1, 5),
    cap=st.sampled_from([80, 200, 1 << 16]),
    chunk=st.sampled_from([1, 50, 300, 1 << 18]),
    prescanned=st.booleans(),
)
def test_full_scan_tallies_equal_a_per_line_reference(
    lines: list[tuple[bytes, bytes, bytes]],
    final_newline: bool,
    unit_size: int,
    batch_units: int,
    cap: int,
    chunk: int,
    prescanned: bool,
) -> None:
    """Counts, lines, bytes, cut, parsed, malformed and invalid-UTF-8 lines match line by line,
    whether the batches are scanned after the read or prescanned while read (any read size)."""
    data = b"".join(head + body + end for head, body, end in lines)
    if not final_newline and data.endswith(b"\n"):
        data = data[:-1]
    # a plain file's scan: bytes that open with a compression magic are read as that stream
    # (tests/integration/test_truncated_streams.py covers those)
    assume(not any(data.startswith(magic) for magic in MAGIC))
    expected_counts, expected = _reference(data, cap)
    expected = {k: v for k, v in expected.items() if v}
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(locate, "CHUNK_BYTES", chunk),
        mock.patch.object(prescan, "CHUNK", chunk),
    ):
        path = Path(tmp) / "access.log"
        path.write_bytes(data)
        counts, scalars = _scan(
            path, unit_size=unit_size, batch_units=batch_units, cap=cap, prescanned=prescanned
        )
    assert counts == expected_counts
    assert scalars == expected


@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(
        st.one_of(st.binary(max_size=30), st.sampled_from([b'" 5', b'" 503 ', b'" 599\n', b"\n"])),
        max_size=30,
    ).map(b"".join),
    slack=st.binary(max_size=8),
    chunk=st.integers(1, 64),
)
def test_counts_and_hits_equal_bytes_count_and_finditer(
    data: bytes, slack: bytes, chunk: int
) -> None:
    """Newline count and candidate lines equal ``bytes.count`` and ``re.finditer``, any chunking."""
    data += b"\n"
    buf = bytearray(data + slack)  # a reused buffer runs past the data
    with mock.patch.object(locate, "CHUNK_BYTES", chunk):
        assert locate.count_newlines(buf, len(data)) == data.count(b"\n")
        hits = locate.find_hits(buf, len(data), ACCESS_5XX_PREFILTER)
    if hits is None:  # not UTF-8: the caller uses re
        assert not locate.is_utf8(data, len(data))
        return
    line_of = lambda pos: data.rfind(b"\n", 0, pos) + 1  # noqa: E731
    want = {line_of(m.start()) for m in ACCESS_5XX_PREFILTER.finditer(data)}
    assert {line_of(h) for h in hits} == want
    assert all(ACCESS_5XX_PREFILTER.match(data, h) for h in hits)
    assert np.all(np.diff(hits) > 0) if len(hits) > 1 else True


#: Escaped literals joined by "|" (a level prefilter), one holding an escaped "|" and a dot.
LITERALS = re.compile(b"|".join(re.escape(w) for w in (b"ERROR", b"FATAL", b"a|b", b"x.y")))


@settings(max_examples=200, deadline=None)
@given(
    data=st.lists(
        st.one_of(
            st.binary(max_size=20),
            st.sampled_from([b"ERROR", b"ERRORFATAL", b"a|b", b"a|", b"xzy", b"x.y", b"\n"]),
        ),
        max_size=30,
    ).map(b"".join),
    chunk=st.integers(1, 64),
)
def test_literal_hits_equal_finditer(data: bytes, chunk: int) -> None:
    """A prefilter of literals is searched one literal at a time: the lines it finds, and its
    positions (each a match, ascending), are those ``re.finditer`` gives, any chunking."""
    data += b"\n"
    assert locate.literals_of(LITERALS) == (b"ERROR", b"FATAL", b"a|b", b"x.y")
    with mock.patch.object(locate, "CHUNK_BYTES", chunk):
        hits = locate.find_hits(data, len(data), LITERALS)
    if hits is None:
        assert not locate.is_utf8(data, len(data))
        return
    line_of = lambda pos: data.rfind(b"\n", 0, pos) + 1  # noqa: E731
    assert {line_of(h) for h in hits} == {line_of(m.start()) for m in LITERALS.finditer(data)}
    assert all(LITERALS.match(data, h) for h in hits)
    assert list(hits) == sorted(hits)


def test_only_escaped_literals_joined_by_bars_are_literals() -> None:
    assert locate.literals_of(re.compile(rb"ERROR")) == (b"ERROR",)
    assert locate.literals_of(re.compile(rb"a\\|b")) is None  # a backslash, then a bar
    assert locate.literals_of(re.compile(rb"a|b*")) is None
    assert locate.literals_of(re.compile(rb"a||b")) is None  # an empty alternative
    assert locate.literals_of(re.compile(rb"ERROR", re.IGNORECASE)) is None
    assert locate.literals_of(re.compile(re.escape(b"a\nb") + b"|c")) is None  # a newline
    assert locate.literals_of(ACCESS_5XX_PREFILTER) is None
    assert locate.literals_of(re.compile(re.escape(b"\xff") + b"|c")) is None  # not UTF-8
    assert locate.literals_of(re.compile(re.escape("é".encode()))) == ("é".encode(),)
