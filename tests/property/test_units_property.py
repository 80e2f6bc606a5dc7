"""Units and reading order: each line in exactly one unit; counts never depend on cuts or order."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind
from logagent.sources.framing import iter_unit_pieces
from logagent.testing import combined_line, fake_env

LINE_BYTES = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))
FILES = st.lists(LINE_BYTES, max_size=40).flatmap(
    lambda lines: st.sampled_from(
        [b"\n".join(lines), b"\n".join(lines) + b"\n", b"\r\n".join(lines)]
    )
)


@given(data=FILES, unit_size=st.integers(1, 64))
def test_every_line_belongs_to_exactly_one_unit(data: bytes, unit_size: int) -> None:
    """Concatenating all units' lines gives back the file, each line once, in order."""
    read = lambda offset, n: data[offset : offset + n]  # noqa: E731
    units = -(-len(data) // unit_size)
    joined = b"".join(
        p.data
        for b in range(units)
        for p in iter_unit_pieces(read, b, unit_size, len(data), cap=1 << 20)
    )
    expected = data if data.endswith(b"\n") or not data else data + b"\n"
    assert joined == expected


@given(data=FILES, unit_size=st.integers(1, 64), cap=st.integers(1, 16))
def test_cut_lines_keep_their_prefix(data: bytes, unit_size: int, cap: int) -> None:
    """With a cap, each line appears once, cut to its first cap bytes, and cuts are counted."""
    read = lambda offset, n: data[offset : offset + n]  # noqa: E731
    units = -(-len(data) // unit_size)
    pieces = [
        p for b in range(units) for p in iter_unit_pieces(read, b, unit_size, len(data), cap=cap)
    ]
    got = b"".join(p.data for p in pieces).split(b"\n")[:-1]
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines = lines[:-1]
    assert got == [line[:cap] for line in lines] if data else got == []
    assert sum(p.truncated for p in pieces) == sum(1 for line in lines if len(line) > cap)


STATUSES = st.sampled_from([200, 200, 301, 404, 500, 502, 503, 504])
PATHS = st.sampled_from(
    ["/a/1", "/a/22?x=1", "/b", "/c/550e8400-e29b-41d4-a716-446655440000", "/d/ffffffffffffffff0"]
)
RECORDS = st.lists(st.tuples(PATHS, STATUSES), min_size=1, max_size=120)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=RECORDS,
    junk=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=5),
    sizes=st.tuples(st.integers(1, 2000), st.integers(1, 2000)),
    seed=st.integers(0, 2**32),
)
def test_counts_do_not_depend_on_unit_size_or_order(
    tmp_path_factory: object,
    records: list[tuple[str, int]],
    junk: list[bytes],
    sizes: tuple[int, int],
    seed: int,
) -> None:
    """Any unit size and sequential or random order give the same full-read answers."""
    path = Path(tmp_path_factory.mktemp("p")) / "a.log"  # type: ignore[attr-defined]
    lines = [combined_line(p, s).encode() for p, s in records] + junk
    path.write_bytes(b"\n".join(lines) + b"\n")
    results = []
    for unit_size, order in ((sizes[0], "sequential"), (sizes[1], "random")):
        cfg = load_settings(
            reader={"unit_size": unit_size, "order": order, "batch_bytes": 4096},
            analysis={"seed": seed, "format": "combined"},
        )
        for kind in (QuestionKind.STATUS, QuestionKind.TOP_ERRORS):
            r = analyze([str(path)], Question(kind=kind, top=1000), cfg, fake_env())
            results.append(
                (
                    kind,
                    r.status,
                    r.answer,
                    r.progress.lines_read,
                    r.progress.malformed_lines,
                    r.progress.bytes_read,
                )
            )
    assert results[:2] == results[2:]


@settings(max_examples=200, deadline=None)
@given(
    files=st.lists(FILES, min_size=1, max_size=3),
    unit_size=st.integers(1, 64),
    cap=st.sampled_from([2, 7, 16, 1 << 20]),
    pick=st.lists(st.integers(0, 10_000), max_size=30),
    first_slack=st.sampled_from([1, 5, 17, 1024]),
    widen_at=st.sampled_from([1, 2, 16]),
)
def test_gathered_units_equal_framed_units(
    files: list[bytes],
    unit_size: int,
    cap: int,
    pick: list[int],
    first_slack: int,
    widen_at: int,
) -> None:
    """Units gathered into one buffer hold exactly the lines ``iter_unit_pieces`` frames for
    them, each at its source offset, whatever the units, sources, cap and line endings, and
    however short the first read past a unit's end (crossing lines longer than it take the
    general path; a batch where many do widens its reads)."""
    from logagent.sources import gather
    from logagent.sources.gather import UnitSource, gather_units

    def reader(data: bytes) -> UnitSource:
        def read_at(offset: int, n: int) -> bytes:
            return data[offset : offset + n]

        def read_into(offset: int, view: memoryview) -> int:
            chunk = data[offset : offset + len(view)]
            view[: len(chunk)] = chunk
            return len(chunk)

        return UnitSource(read_at, read_into, len(data), 0)

    sources = [reader(d) for d in files]
    counts = [-(-len(d) // unit_size) for d in files]
    every = [(s, u) for s, n in enumerate(counts) for u in range(n)]
    units = sorted({every[i % len(every)] for i in pick}) if every else []
    saved = gather.FIRST_SLACK, gather.SLACK_WIDEN_AT
    gather.FIRST_SLACK, gather.SLACK_WIDEN_AT = first_slack, widen_at
    try:
        got = gather_units(sources, units, unit_size, cap=cap, acquire=bytearray)
    finally:
        gather.FIRST_SLACK, gather.SLACK_WIDEN_AT = saved
    want_data, want_cut = b"", 0
    want_offsets: list[tuple[int, int]] = []
    for s, u in units:
        for p in iter_unit_pieces(sources[s].read_at, u, unit_size, len(files[s]), cap=cap):
            want_offsets.append((s, p.offset))
            want_data += p.data
            want_cut += p.truncated
    assert bytes(got.data[: got.size]) == want_data
    assert got.truncated == want_cut
    assert got.piece_offset == [offset for _, offset in want_offsets]
    assert got.piece_base == [0] * len(want_offsets)
    assert got.piece_pos == sorted(got.piece_pos) and (not got.piece_pos or got.piece_pos[0] == 0)
