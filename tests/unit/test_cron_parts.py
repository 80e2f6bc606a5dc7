"""The parts of `logagent cron`: slices, identity, state transactions, tallies as rows, alerts."""

from __future__ import annotations

import gzip
import os
import sqlite3
import time
from pathlib import Path

import polars as pl
import pytest

from logagent.config import load_settings
from logagent.counters import merge
from logagent.cron.alerts import CRITICAL, WARNING, evaluate, nagios, parse_alert
from logagent.cron.rotation import find_old, identify, plan_path
from logagent.cron.state import FileState, RunRecord, StateError, StateLocked, open_state
from logagent.cron.tallies import BucketTap, window_bounds, window_tally
from logagent.engine.exact import count_exactly
from logagent.errors import ConfigError
from logagent.result import Question
from logagent.sources.slices import complete_end, open_slice
from logagent.testing import combined_line


def _log(n: int, status: int = 500) -> bytes:
    return "".join(combined_line(f"/r/{i % 3}", status) + "\n" for i in range(n)).encode()


def test_slice_ends_at_the_last_complete_line(tmp_path: Path) -> None:
    """A plain slice stops after the last newline; a half-written line is left out."""
    path = tmp_path / "a.log"
    path.write_bytes(b"one\ntwo\nthr")
    source = open_slice(str(path), 4)
    try:
        assert source.size == 4
        assert source.read_at(0, 4) == b"two\n"
        assert complete_end(source, 0, 4) == 4
    finally:
        source.close()


def test_slice_to_end_keeps_the_last_line_and_reads_gzip_content(tmp_path: Path) -> None:
    """``whole_lines=False`` reads to the end; a .gz slice is taken of its decompressed bytes."""
    path = tmp_path / "a.log.1.gz"
    path.write_bytes(gzip.compress(b"one\ntwo\nthree"))
    source = open_slice(str(path), 4, whole_lines=False)
    try:
        assert not source.seekable
        assert source.read_at(0, 100) == b"two\nthree"
    finally:
        source.close()


def test_count_exactly_of_slices_adds_up_to_the_whole(tmp_path: Path) -> None:
    """Tallies of consecutive line-aligned slices merge to the tally of the whole file."""
    path = tmp_path / "a.log"
    data = _log(40, 500) + _log(25, 200) + _log(9, 503)
    path.write_bytes(data)
    settings = load_settings(None, analysis={"bucket": "1h"})
    question = Question()
    cut = data.index(b"\n", len(data) // 3) + 1
    parts = []
    for start, end in ((0, cut), (cut, len(data))):
        source = open_slice(str(path), start, end=end)
        try:
            counted = count_exactly([source], question, settings)
        finally:
            source.close()
        assert counted.tally is not None
        parts.append(counted.tally)
    whole_source = open_slice(str(path), 0)
    try:
        whole = count_exactly([whole_source], question, settings).tally
    finally:
        whole_source.close()
    assert whole is not None
    merged = merge(parts)
    assert merged.counts.equals(whole.counts)
    assert merged.lines == whole.lines == 74


def _records(rows: list[tuple[int, str, int, int | None, int]]) -> pl.LazyFrame:
    """Records as a parse hands them over: (unit, route, status, bucket, n)."""
    schema = {"unit": pl.Int64, "route": pl.String, "status": pl.Int32, "bucket": pl.Int64}
    return pl.LazyFrame(rows, schema={**schema, "n": pl.Int64}, orient="row")


def test_bucket_tap_keeps_records_by_their_own_bucket() -> None:
    """Parses summed by (bucket, key, status); a record without a time goes to the run's bucket."""
    tap = BucketTap()
    tap(_records([(-1, "/a", 500, 0, 2), (-1, "/a", 500, 3600, 1), (-1, "/b", 200, None, 4)]))
    tap(_records([(-1, "/a", 500, 0, 5), (7, "/a", 500, 0, 1)]))
    rows, untimed = tap.rows(7200)
    assert rows == [(0, "/a", 500, 8), (3600, "/a", 500, 1), (7200, "/b", 200, 4)]
    assert untimed == 4
    assert BucketTap().rows(0) == ([], 0)


def test_bucket_tap_without_a_timeline_puts_everything_at_the_run() -> None:
    """Records with no bucket column at all (``--bucket off``) are all counted at the run's time."""
    tap = BucketTap()
    tap(_records([(-1, "/a", 500, 0, 2)]).drop("bucket"))
    assert tap.rows(3600) == ([(3600, "/a", 500, 2)], 2)


@pytest.mark.parametrize(
    ("now_s", "window_s", "bucket_s", "bounds"),
    [
        (7200, 3600, 3600, (7200, 10800)),  # the bucket holding now is the window's last
        (7199, 3600, 3600, (3600, 7200)),
        (9000, 7200, 3600, (3600, 10800)),
        (9000, 5400, 3600, (3600, 10800)),  # 1.5 h is rounded up to whole hours
        (9000, 600, 300, (8700, 9300)),
    ],
)
def test_window_bounds(now_s: int, window_s: int, bucket_s: int, bounds: tuple[int, int]) -> None:
    """The window is whole buckets, ending with the one that holds now."""
    assert window_bounds(now_s, window_s, bucket_s) == bounds


def test_window_tally_merges_the_rows_into_counts_and_timeline() -> None:
    """A window's rows give the counts by key x status and the 5xx timeline, with its counters."""
    rows = [(0, "/a", 500, 3), (3600, "/a", 503, 1), (3600, "/a", 200, 9), (0, "/b", 502, 2)]
    tally = window_tally(rows, {"lines": 15, "parsed": 15, "untimed": 3})
    assert tally.counts.rows() == [("/a", 200, 9), ("/a", 500, 3), ("/a", 503, 1), ("/b", 502, 2)]
    assert tally.timeline.rows() == [(0, "/a", 3), (0, "/b", 2), (3600, "/a", 1)]
    assert (tally.lines, tally.parsed, tally.malformed) == (15, 15, 0)
    assert window_tally([], {}).counts.is_empty()


def test_identity_finds_a_renamed_or_compressed_copy(tmp_path: Path) -> None:
    """The old file is found by inode (rename) or by its content head (compressed copy)."""
    log = tmp_path / "access.log"
    log.write_bytes(_log(30))
    ident = identify(str(log))
    stored = FileState(str(log), ident.dev, ident.ino, ident.head_hash, ident.head_size, 1000)
    os.rename(log, f"{log}.1")
    log.write_bytes(_log(3, 200))
    assert find_old(str(log), stored) == f"{log}.1"
    with open(f"{log}.1", "rb") as f:
        Path(f"{log}.1.gz").write_bytes(gzip.compress(f.read()))
    os.unlink(f"{log}.1")
    assert find_old(str(log), stored) == f"{log}.1.gz"
    plan = plan_path(str(log), stored)
    assert plan.rotation == "rename"
    assert [(s.path, s.start, s.role) for s in plan.slices] == [
        (f"{log}.1.gz", 1000, "rotated"),
        (str(log), 0, "new"),
    ]


def test_another_file_with_another_head_is_not_the_old_one(tmp_path: Path) -> None:
    """A sibling whose head differs is never taken for the rotated file (it would double count)."""
    log = tmp_path / "access.log"
    Path(f"{log}.2").write_bytes(_log(30, 200))  # an older rotation, there before the last run
    log.write_bytes(_log(30))
    stored = _followed(log, 10)
    log.unlink()
    plan = plan_path(str(log), stored)
    assert plan.rotation == "vanished"
    assert plan.slices == []
    assert "read up to byte 10 is gone and is not found" in plan.warnings[0]
    log.mkdir()  # something else at the path: not "vanished" in words
    assert "replaced by something not a regular file" in plan_path(str(log), stored).warnings[0]


def _record(n: int, bucket: int = 0, time_s: float = 1.0) -> RunRecord:
    return RunRecord(time_s, [], {}, [(bucket, "/a", 500, n)], {"lines": n})


def test_a_failed_commit_leaves_nothing(tmp_path: Path) -> None:
    """Counts and offsets go in one transaction: a failure inside it stores neither."""
    path = str(tmp_path / "s.sqlite")
    bad = FileState("x", 1, 2, "h", 4, 10)
    with open_state(path) as state:
        state.db.execute(
            "CREATE TRIGGER boom BEFORE INSERT ON files BEGIN SELECT RAISE(ABORT, 'x'); END"
        )
        with pytest.raises(sqlite3.IntegrityError):
            state.commit_run(_record(3), [bad])
        assert state.runs() == []
        assert state.window_rows() == []
        assert state.scalars([1]) == {}
        state.db.execute("DROP TRIGGER boom")
        run_id = state.commit_run(_record(3), [bad])
        assert state.window_rows() == [(0, "/a", 500, 3)]
        assert state.scalars([run_id]) == {"lines": 3}
        assert state.files()["x"].offset == 10


def test_a_state_made_before_the_ends_table_gains_it(tmp_path: Path) -> None:
    """A state of the same schema made before finished files' ends were kept opens, gains the
    table, and keeps its offsets; ends are kept by head, the newest ``KNOWN_KEPT``."""
    path = str(tmp_path / "s.sqlite")
    with open_state(path) as state:
        state.commit_run(_record(3), [FileState("x", 1, 2, "h", 4, 10)])
        state.db.execute("DROP TABLE ends")
    with open_state(path) as state:
        assert state.ends() == {} and state.files()["x"].offset == 10
        state.commit_run(_record(1, 2.0), [], ends=[("h1", 10, 10, 1), ("h1", 20, 20, 2)])
        state.commit_run(_record(1, 3.0), [], ends=[("h1", 20, 25, 3)])
        assert state.ends() == {("h1", 10): 10, ("h1", 20): 25}


def test_a_full_disk_is_said_and_leaves_the_state_as_it_was(tmp_path: Path) -> None:
    """SQLITE_FULL while a run commits (SQLite's max_page_count stands in for a full disk): a
    StateError that says so and never advises --reset, the state as it was; once there is
    room the same commit goes through."""
    path = str(tmp_path / "s.sqlite")
    with open_state(path) as state:
        state.commit_run(_record(3), [FileState("x", 1, 2, "h", 4, 10)])
    big = RunRecord(1.0, [], {}, [(b, f"/r{b}", 500, 1) for b in range(3000)], {"lines": 3000})
    with pytest.raises(StateError) as raised, open_state(path) as state:
        pages = state.db.execute("PRAGMA page_count").fetchone()[0]
        state.db.execute(f"PRAGMA max_page_count = {pages}")
        state.commit_run(big, [FileState("x", 1, 2, "h", 4, 99)])
    assert "cannot write the state file" in raised.value.message
    assert "full" in raised.value.message and "--reset" not in raised.value.message
    with open_state(path) as state:
        assert state.window_rows() == [(0, "/a", 500, 3)]
        assert state.files()["x"].offset == 10
        state.commit_run(big, [FileState("x", 1, 2, "h", 4, 99)])
        assert state.files()["x"].offset == 99


def test_buckets_add_up_over_runs_and_old_ones_are_pruned(tmp_path: Path) -> None:
    """Two runs' rows of one bucket are summed; a window picks buckets; pruning drops old ones."""
    with open_state(str(tmp_path / "s.sqlite")) as state:
        first = state.commit_run(_record(3, bucket=0, time_s=100.0), [])
        second = state.commit_run(_record(4, bucket=0, time_s=4000.0), [])
        state.commit_run(_record(5, bucket=3600, time_s=4000.0), [])
        assert state.window_rows() == [(0, "/a", 500, 7), (3600, "/a", 500, 5)]
        assert state.window_rows(3600, 7200) == [(3600, "/a", 500, 5)]
        assert state.scalars([first, second]) == {"lines": 7}
        state.prune(3600.0, 3600)
        assert state.window_rows() == [(3600, "/a", 500, 5)]
        assert state.scalars([first, second]) == {"lines": 4}


def test_the_lock_is_exclusive(tmp_path: Path) -> None:
    """While one holder has the state, opening it again raises StateLocked."""
    path = str(tmp_path / "s.sqlite")
    with open_state(path), pytest.raises(StateLocked), open_state(path):
        pass
    with open_state(path):  # released with its holder
        pass


def test_a_sqlite_file_of_another_app_is_refused(tmp_path: Path) -> None:
    """A SQLite database that is not a cron state is a StateError, and is left as it was."""
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StateError, match="not a logagent cron state"), open_state(str(path)):
        pass
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "text",
    ["rate>", "rate<0.1", "speed>3", "count>1,2,3", "rate>1", "share>1.5", "rate>0.01,0.001"],
)
def test_bad_alerts_are_usage_errors(text: str) -> None:
    """A condition that does not parse is a ConfigError naming it."""
    with pytest.raises(ConfigError, match="--alert"):
        parse_alert(text)


def test_alert_levels_and_perfdata() -> None:
    """One threshold is critical; two are warn,crit; perfdata has 'label'=value;warn;crit."""
    from logagent.engine.exact import answer_tally

    tally = window_tally([(0, "/a", 500, 30), (0, "/b", 502, 20)], {"lines": 1000, "parsed": 50})
    settings = load_settings(None)
    result = answer_tally(tally, Question(), settings, fmt="combined", bucket_s=None, paths=[])
    alerts = [parse_alert("rate>0.02,0.1"), parse_alert("share>0.5"), parse_alert("count>60")]
    fired = evaluate(alerts, result, None)
    assert [(f.alert.metric, f.level) for f in fired] == [("rate", WARNING), ("share", CRITICAL)]
    code, line = nagios(alerts, fired, result)
    assert code == CRITICAL
    assert "'rate'=0.05;0.02;0.1 'count'=50;;60 'share'=0.6;;0.5" in line


def _followed(log: Path, offset: int) -> FileState:
    ident = identify(str(log))
    return FileState(
        str(log), ident.dev, ident.ino, ident.head_hash, ident.head_size, offset, time.time_ns()
    )


def test_a_file_born_and_rotated_between_runs_is_read_whole(tmp_path: Path) -> None:
    """The path vanished, a new file came and was rotated before this run: it is read from 0."""
    log = tmp_path / "access.log"
    log.write_bytes(_log(30))
    stored = _followed(log, log.stat().st_size)
    known = [(stored.head_hash, stored.head_size)]
    os.rename(log, f"{log}.1")  # rotated (read to its end already)
    time.sleep(0.01)
    log.write_bytes(_log(5, 503))  # born after the last run ...
    with open(log, "rb") as f:  # ... and rotated (compressed) before this one
        Path(f"{log}.1.gz").write_bytes(gzip.compress(f.read()))
    log.unlink()
    with open(f"{log}.1", "rb") as f:  # the old file moved and compressed again: known
        Path(f"{log}.2.gz").write_bytes(gzip.compress(f.read()))
    os.unlink(f"{log}.1")
    plan = plan_path(str(log), stored, known)
    assert [(Path(s.path).name, s.start, s.role) for s in plan.slices] == [
        ("access.log.2.gz", stored.offset, "rotated"),
        ("access.log.1.gz", 0, "unseen"),
    ]


def test_an_empty_file_copied_away_is_read_whole_not_matched_by_its_empty_head(
    tmp_path: Path,
) -> None:
    """Followed while empty, then written and copytruncated: the copy is read from 0."""
    log = tmp_path / "access.log"
    log.write_bytes(b"")
    stored = _followed(log, 0)
    time.sleep(0.01)
    log.write_bytes(_log(8))
    Path(f"{log}.1").write_bytes(log.read_bytes())
    log.write_bytes(b"")  # truncated in place: same inode, same (empty) head
    plan = plan_path(str(log), stored, [])
    assert [(Path(s.path).name, s.start, s.role) for s in plan.slices] == [
        ("access.log.1", 0, "unseen"),
        ("access.log", 0, "new"),
    ]


def test_a_state_of_another_schema_is_refused_with_the_way_out(tmp_path: Path) -> None:
    """A state made by another version (schema 1: tallies by run) is kept and names --reset."""
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('app', 'logagent-cron'), ('schema', '1')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StateError, match=r"schema 1 is not 2.*--reset"), open_state(str(path)):
        pass
    assert path.read_bytes() == before


@pytest.mark.parametrize("seed", range(30))
def test_a_finished_rest_counts_its_lines_and_no_blank_one_as_malformed(
    tmp_path: Path, seed: int
) -> None:
    """``reads.malformed_rest`` on random text (blank and whitespace-only lines, CRLF, lines
    across its 1 MiB reads, a last line without its newline) against a plain split: every
    line counted, the blank ones neither parsed nor malformed."""
    import random

    from logagent.cron.reads import malformed_rest
    from logagent.cron.rotation import Slice

    rng = random.Random(seed)
    pieces = [b"x", b" ", b"\t", b"\r", b"\n", b"\n", b"abc def", b"y" * rng.randint(1, 5000)]
    data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 3000)))
    if seed % 3 == 0:
        data += b"z" * (3 << 20)  # a line longer than the reads, then maybe a newline
        data += b"\n" if seed % 2 else b""
    path = tmp_path / "rest.log"
    path.write_bytes(data)
    tally, end = malformed_rest(Slice(str(path), 0, True, "rotated"), None)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the text ends with a newline: no line after it
    blank = sum(not line.strip() for line in lines)
    assert (tally.lines, tally.parsed, tally.malformed) == (
        len(lines),
        len(lines) - blank,
        len(lines) - blank,
    )
    assert end == len(data) and tally.bytes_read == len(data)
