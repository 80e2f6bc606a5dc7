"""--since/--until through the engine: bisected reads, time filtering, and the window's report."""

from __future__ import annotations

import gzip
import json
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.engine.run import RunEnv
from logagent.report.markdown import render
from logagent.report.words import size
from logagent.result import QuestionKind, Status
from logagent.samples.timespread import generate
from logagent.testing import fake_env

ROOT = Path(__file__).resolve().parents[2]
CLF = re.compile(rb'\[([^\]]+)\] "[A-Z]+ \S+ [^"]*" (\d{3}) ')
LOG4J = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),\d+ (\w+)\s+\[[^\]]*\] (\S+) - ")


def ask(path: Path, now: datetime, **question: Any) -> Any:
    settings = load_settings(analysis={"seed": 3, "full": True})
    env = replace(fake_env(), wall_clock=lambda: now)
    return analyze([str(path)], Question(top=50, **question), settings, env)


def errors_since(path: Path, since: datetime) -> int:
    """5xx lines at or after ``since``, by a plain line-by-line parse (the test's own truth)."""
    opener = gzip.open if path.suffix == ".gz" else open
    count = 0
    with opener(path, "rb") as fh:
        for line in fh:
            m = CLF.search(line)
            assert m is not None
            t = datetime.strptime(m.group(1).decode(), "%d/%b/%Y:%H:%M:%S %z")
            count += t >= since and m.group(2).startswith(b"5")
    return count


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


@pytest.fixture(scope="module")
def month(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A ~3 MB, 30-day combined log and its truth."""
    path = tmp_path_factory.mktemp("month") / "month.log"
    return path, generate(path, size_mb=3, days=30, seed=5)


def test_since_24h_is_bisected_and_exact(month: tuple[Path, dict[str, Any]]) -> None:
    """--since 24h counts the window's 5xx exactly and reads at most 1.2x its bytes."""
    path, truth = month
    now = datetime.fromisoformat(truth["now"])
    result = ask(path, now, since="24h")
    assert result.status is Status.EXACT
    window = result.input.window
    assert window is not None and window["method"] == "bisection"
    assert window["since"] == (now - timedelta(hours=24)).isoformat()
    own = errors_since(path, now - timedelta(hours=24))
    assert result.answer.total == own == sum(truth["window"]["errors_5xx"].values())
    assert {e.key: e.count for e in result.answer.top} == _nonzero(truth["window"]["errors_5xx"])
    assert result.progress.bytes_read <= 1.2 * truth["window"]["bytes"]
    # the report says the window's part was read, not the whole input ("Read 100 % of
    # 0.4 MB", "the whole input was read", of a 3 MB file: probe G)
    lo, hi = window["byte_range"]
    md = render(result)
    assert "Exact answer (every line of the time window was read)" in md
    assert f"of the time window's {size(hi - lo)} (bytes {lo:,} to {hi:,} of the input" in md
    assert "the whole input was read" not in md
    assert "Exact answer (the whole input was read)" in render(ask(path, now))  # no window


def test_two_bisected_inputs_are_said_to_be_read_in_their_window(
    month: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """Two inputs, each bisected to its window: the report said "the whole input was read"
    of 0.2 MB out of 6 MB (a review)."""
    path, truth = month
    copy = tmp_path / "copy.log"
    copy.write_bytes(path.read_bytes())
    now = datetime.fromisoformat(truth["now"])
    settings = load_settings(analysis={"seed": 3, "full": True})
    env = replace(fake_env(), wall_clock=lambda: now)
    result = analyze([str(path), str(copy)], Question(top=50, since="24h"), settings, env)
    md = render(result)
    assert "Exact answer (every line of the time window was read)" in md
    assert "(found by bisection in 2 of the 2 inputs)" in md
    assert "the whole input was read" not in md


def test_stream_is_filtered_to_the_same_answer(
    month: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """A .gz cannot be bisected: it is read whole, filtered by time, and says so."""
    path, truth = month
    gz = tmp_path / "month.log.gz"
    with open(path, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    now = datetime.fromisoformat(truth["now"])
    result = ask(gz, now, since="24h")
    assert result.input.window is not None and result.input.window["method"] == "filter"
    assert any("filtering every line" in w for w in result.warnings)
    assert {e.key: e.count for e in result.answer.top} == _nonzero(truth["window"]["errors_5xx"])
    # a plain file out of time order is filtered too, all of it read: said so, not "bisection"
    lines = path.read_bytes().splitlines(keepends=True)
    random.Random(4).shuffle(lines)
    shuffled = tmp_path / "shuffled.log"
    shuffled.write_bytes(b"".join(lines))
    result = ask(shuffled, now, since="24h")
    assert result.input.window is not None and result.input.window["method"] == "filter"
    md = render(result)
    assert "found by bisection" not in md and "Exact answer (the whole input was read)" in md


def test_app_log_window_counts_only_its_records() -> None:
    """An absolute window on the log4j sample counts the ERROR+ records inside it, per component."""
    path = ROOT / "sample_logs" / "app_log4j.log"
    since, until = datetime(2024, 3, 5, 10, 2, tzinfo=UTC), datetime(2024, 3, 5, 10, 4, tzinfo=UTC)
    own: Counter[str] = Counter()
    for line in path.read_text(errors="replace").splitlines():
        m = LOG4J.match(line)
        if m and m.group(2) in ("ERROR", "FATAL"):
            t = datetime.fromisoformat(m.group(1)).replace(tzinfo=UTC)
            own[m.group(3)] += since <= t <= until
    result = ask(
        path,
        until,
        kind=QuestionKind.TOP_ERROR_COMPONENTS,
        since=since.isoformat(),
        until=until.isoformat(),
    )
    assert {e.key: e.count for e in result.answer.top} == +own
    assert any("outside the time window" in w for w in result.warnings)


def test_empty_window_is_recused_with_its_scope(month: tuple[Path, dict[str, Any]]) -> None:
    """A window before the log starts holds nothing: NO_MATCHING_EVENTS naming the window."""
    path, _ = month
    result = ask(path, datetime(2026, 1, 1, tzinfo=UTC), until="2026-01-01T00:00:00Z")
    assert result.status is Status.RECUSED
    assert result.recuse is not None and "time window" in result.recuse.detail


def test_empty_window_of_a_status_question_says_no_record(tmp_path: Path) -> None:
    """A status distribution counts every record: a window between its lines holds no
    record (it had said "no 5xx line", which is not what it counts). Compressed: every line
    is read and filtered (a file's bisection finds no line in it, and says so)."""
    path = tmp_path / "syslog.log.gz"
    lines = ["Dec 25 10:00:00 host app[1]: started", "Dec 25 12:00:00 host app[1]: ok"]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    when = datetime(2025, 12, 26, tzinfo=UTC)
    asked = dict(since="2025-12-25T11:00:00Z", until="2025-12-25T11:30:00Z")
    result = ask(path, when, kind=QuestionKind.STATUS, **asked)
    assert result.status is Status.RECUSED and result.recuse is not None
    assert result.recuse.detail == "no record in the time window"


def test_cli_since_with_now_and_bad_since(month: tuple[Path, dict[str, Any]]) -> None:
    """--since/--now reach the result over the CLI; an unreadable --since exits 2."""
    path, truth = month

    def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "logagent", "analyze", str(path), "--llm", "off", *args],
            capture_output=True,
            timeout=120,
            check=False,
        )

    ok = cli("--since", "24h", "--now", truth["now"], "--json", "--full")
    assert ok.returncode == 0, ok.stderr.decode()
    assert json.loads(ok.stdout)["question"]["since"] == "24h"
    bad = cli("--since", "yesterday-ish")
    assert bad.returncode == 2


def test_yearless_syslog_from_late_last_year_is_counted_in_its_window(tmp_path: Path) -> None:
    """Read on 2 December, a year-less syslog line of 25 December is last year's: the records
    are placed there, and a window on last year's dates counts them (the bisection and the
    count place stamps alike; issue 13's review found 0 records, exit 0)."""
    path = tmp_path / "syslog.log"
    lines = [
        "Dec 24 23:59:00 host app[1]: ok",
        "Dec 25 10:00:00 host app[1]: started",
        "Dec 25 10:05:00 host app[1]: error: failed to open",
        "Dec 26 10:00:00 host app[1]: ok",
    ]
    path.write_text("\n".join(lines) + "\n")
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    settings = load_settings(analysis={"seed": 3, "full": True})
    env = replace(fake_env(), wall_clock=lambda: now)
    asked = Question(kind=QuestionKind.STATUS, since="2025-12-25", until="2025-12-26")
    result = analyze([str(path)], asked, settings, env)
    assert result.status is Status.EXACT
    assert {e.key: e.count for e in result.answer.top} == {"INFO": 1, "ERROR": 1}
    # --year places every stamp in that year: the same window then holds nothing
    pinned = load_settings(analysis={"seed": 3, "full": True, "year": 2026})
    assert not analyze([str(path)], asked, pinned, env).answer.top


def _timeline_days(result: Any) -> list[str]:
    return [b.start[:10] for b in result.answer.timeline.buckets]


def _syslog_days(path: Path, days: list[str], message: str) -> tuple[RunEnv, Any]:
    """``path`` with a line a day (``days``: ``Dec 30``), an env read on 7 December at noon,
    and settings of a full read in daily buckets."""
    path.write_text("".join(f"{d} 10:00:00 host app[1]: {message} {d}\n" for d in days))
    now = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
    settings = load_settings(analysis={"seed": 3, "full": True, "bucket": "1d"})
    return replace(fake_env(), wall_clock=lambda: now), settings


def test_yearless_stamps_are_placed_from_the_logs_last_line(tmp_path: Path) -> None:
    """A year-less syslog of Dec 30 to Jan 2 read on 7 December: its last line (Jan 2) is
    this year's, and the December lines, which come after Jan 2 in a year, are the year
    before's; placed from now, each line had taken the year that put it before today (Jan 2
    eleven months before Dec 30, a probe of lnav's syslog.1). Windows and the timeline read
    the one order, and a warning says the year is a guess."""
    path = tmp_path / "syslog.log"
    days = ["Dec 30", "Dec 31", "Jan  1", "Jan  2"]
    env, settings = _syslog_days(path, days, "error: failed")
    status = Question(kind=QuestionKind.STATUS)
    result = analyze([str(path)], status, settings, env)
    assert _timeline_days(result) == ["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"]
    assert any("stamps carry no year" in w and "2026" in w for w in result.warnings)
    window = Question(kind=QuestionKind.STATUS, since="2025-12-31", until="2026-01-02")
    inside = analyze([str(path)], window, settings, env)
    assert {e.key: e.count for e in inside.answer.top} == {"ERROR": 2}  # Dec 31 and Jan 1


def test_a_yearless_log_running_past_todays_date_stays_in_one_year(tmp_path: Path) -> None:
    """Dec 6 to Dec 9 read on Dec 7: the last line cannot be this year's (it would lie ahead),
    so all four days are last year's, one span; placed from now, Dec 6-7 were this year's
    and Dec 8-9 last year's, a timeline of 363 days. A log that ends today keeps its year
    and draws no warning."""
    path = tmp_path / "syslog.log"
    days = ["Dec  6", "Dec  7", "Dec  8", "Dec  9"]
    env, settings = _syslog_days(path, days, "Failed password")
    result = analyze([str(path)], Question(kind=QuestionKind.STATUS), settings, env)
    assert _timeline_days(result) == ["2025-12-06", "2025-12-07", "2025-12-08", "2025-12-09"]
    today = tmp_path / "today.log"
    today.write_text("".join(f"{d} 10:00:00 host sshd[2]: Failed password\n" for d in days[:2]))
    current = analyze([str(today)], Question(kind=QuestionKind.STATUS), settings, env)
    assert _timeline_days(current) == ["2026-12-06", "2026-12-07"]
    assert not any("stamps carry no year" in w for w in current.warnings)


def test_postgres_window_is_in_utc_whatever_zone_the_log_writes(tmp_path: Path) -> None:
    """PostgreSQL writes its stamps in log_timezone (``PDT``): a window given in UTC holds
    the records of that UTC time (01:46 PDT is 08:46Z; the zone had been dropped), and a
    zone logagent does not know is named in a warning."""
    path = tmp_path / "postgresql.log"
    stamps = ["01:45:01.123", "01:46:02.000", "01:46:30.500", "01:47:05.000"]
    levels = ["LOG", "LOG", "ERROR", "LOG"]
    path.write_text(
        "".join(
            f"2025-08-13 {t} PDT [12345] {lv}:  event number {i}\n"
            for i, (t, lv) in enumerate(zip(stamps, levels, strict=True))
        )
    )
    now = datetime(2025, 8, 14, tzinfo=UTC)
    asked = dict(since="2025-08-13T08:46:00Z", until="2025-08-13T08:47:00Z")
    result = ask(path, now, kind=QuestionKind.STATUS, **asked)
    assert {e.key: e.count for e in result.answer.top} == {"INFO": 1, "ERROR": 1}
    assert not any("read as UTC" in w for w in result.warnings)
    odd = tmp_path / "odd.log"
    odd.write_text(path.read_text().replace(" PDT ", " XYZT "))
    result = ask(odd, now, kind=QuestionKind.STATUS)
    assert any("stamps in zone XYZT are read as UTC" in w for w in result.warnings)


@pytest.mark.parametrize("layout", ["hdfs", "postgres"])
def test_layouts_no_stamp_kind_reads_are_bisected_by_their_own_time(
    tmp_path: Path, layout: str
) -> None:
    """HDFS's ``081109 203615`` (read by hadoop, whose probe kind is ISO) and PostgreSQL's
    zoned stamps (no probe kind) were filtered line by line, with a false warning ("no line
    with a parseable timestamp"): the window is now bisected by the format's own time, and
    holds the records a per-line reading of the same stamps finds."""
    start = datetime(2008, 11, 9, 20, 0, tzinfo=UTC)
    lines, truth = [], 0
    since, until = start + timedelta(hours=3), start + timedelta(hours=3, minutes=20)
    for i in range(20_000):
        t = start + timedelta(seconds=2 * i)
        if layout == "hdfs":
            stamp = t.strftime("%y%m%d %H%M%S")
            lines.append(f"{stamp} {i % 500} INFO dfs.DataNode$PacketResponder: block {i} done")
        else:  # written in CET, one hour east of UTC
            local = (t + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S.000")
            lines.append(f"{local} CET [{i % 500}] LOG:  checkpoint {i} complete")
        truth += since <= t <= until
    path = tmp_path / f"{layout}.log"
    path.write_text("\n".join(lines) + "\n")
    asked = dict(since=since.isoformat(), until=until.isoformat())
    result = ask(path, start + timedelta(days=1), kind=QuestionKind.STATUS, **asked)
    assert result.status is Status.EXACT
    assert sum(e.count for e in result.answer.top) == truth == 601
    window = result.input.window
    assert window is not None and window["method"] == "bisection"
    lo, hi = window["byte_range"]
    assert hi - lo < path.stat().st_size // 10
    assert not any("parseable timestamp" in w for w in result.warnings)


def test_haproxy_window_is_filtered_not_bisected_by_the_accept_date(tmp_path: Path) -> None:
    """HAProxy's time is the request's accept date, and its line is written when the request
    ends: a long request accepted inside the window is logged after it. A bisection by the
    format's own time had cut such lines out ("exact"); an access layout's window is filtered
    unless its stamp kind's probes read its lines."""
    start = datetime(2024, 3, 5, tzinfo=UTC)
    since, until = start + timedelta(minutes=20), start + timedelta(minutes=30)
    lines, truth = [], 0
    for i in range(42_000):  # 70 minutes: the long requests accepted in the window end in it
        end = start + timedelta(milliseconds=100 * i)
        took = timedelta(minutes=30) if i % 500 == 123 else timedelta(milliseconds=40)
        accept = end - took
        stamp = accept.strftime("%d/%b/%Y:%H:%M:%S.") + f"{accept.microsecond // 1000:03d}"
        lines.append(
            f"{end:%b %d %H:%M:%S} lb1 haproxy[7]: 10.0.0.{i % 250}:{10000 + i} [{stamp}] fe "
            f"be/s1 0/0/1/2/{int(took.total_seconds() * 1000)} 200 100 - - ---- 1/1/0/0/0 0/0 "
            f'"GET /api/x HTTP/1.1"'
        )
        truth += since <= accept <= until
    path = tmp_path / "haproxy.log"
    path.write_text("\n".join(lines) + "\n")
    asked = dict(since=since.isoformat(), until=until.isoformat())
    result = ask(path, start + timedelta(days=1), kind=QuestionKind.STATUS, **asked)
    assert result.input.format == "haproxy"
    assert sum(e.count for e in result.answer.top) == truth
    assert truth == 6_000  # 12 of them long requests, logged after the window


def test_a_window_of_one_instant_is_said(tmp_path: Path) -> None:
    """``--since D --until D``: bounds are inclusive, so the window holds that second's
    records; a date alone being its midnight, a warning says so (a probe's "--since
    2022-07-26 --until 2022-07-26" came back empty without a word)."""
    from logagent.testing import combined_line

    path = tmp_path / "a.log"
    stamps = ["26/Jul/2022:00:00:00", "26/Jul/2022:10:00:00", "27/Jul/2022:00:00:00"]
    path.write_text(
        "".join(combined_line("/a", 200).replace("28/Nov/2026:13:55:36", t) + "\n" for t in stamps)
    )
    now = datetime(2022, 8, 1, tzinfo=UTC)
    one = ask(path, now, kind=QuestionKind.STATUS, since="2022-07-26", until="2022-07-26")
    assert {e.key: e.count for e in one.answer.top} == {"200": 1}  # the midnight record
    assert any("one instant" in w and "next day" in w for w in one.warnings)
    day = ask(path, now, kind=QuestionKind.STATUS, since="2022-07-26", until="2022-07-27")
    assert not any("one instant" in w for w in day.warnings)


def test_a_window_of_instants_on_zoneless_stamps_is_said(tmp_path: Path) -> None:
    """A journal's syslog stamps are its machine's clock without a zone, read as UTC (probe S:
    a CEST journal windowed with --since ...+02:00 took in 70 records of the day before, with
    no word). Bounds without a zone are on the log's own clock: nothing to say then."""
    path = tmp_path / "journal"
    path.write_text(
        "".join(f"May 08 {h:02d}:30:00 stephen kernel: event {h}\n" for h in range(20, 24))
        + "".join(f"May 09 {h:02d}:30:00 stephen kernel: event {h}\n" for h in range(0, 4))
    )
    now = datetime(2021, 5, 10, tzinfo=UTC)
    zoned = ask(path, now, kind=QuestionKind.STATUS, since="2021-05-09T00:00:00+02:00")
    assert any("stamps carry no time zone" in w for w in zoned.warnings)
    assert zoned.answer.total == 6  # 22:30 and 23:30 of May 08 too: the log's clock as UTC
    local = ask(path, now, kind=QuestionKind.STATUS, since="2021-05-09T00:00:00")
    assert local.answer.total == 4 and not any("time zone" in w for w in local.warnings)
    relative = ask(path, now, kind=QuestionKind.STATUS, since="48h")
    assert any("stamps carry no time zone" in w for w in relative.warnings)


def test_a_level_after_the_clock_is_no_zone_and_w3c_is_utc(tmp_path: Path) -> None:
    """A review: "10:00:00,000 INFO" had been read as a zone named INFO (no warning on log4j
    logs), and IIS's W3C stamps, UTC by definition, drew the warning."""
    now = datetime(2024, 3, 6, tzinfo=UTC)
    app = tmp_path / "app.log"
    app.write_text(
        "".join(
            f"2024-03-05 10:00:{i:02d},000 {'ERROR' if i % 3 else 'INFO '} [main] c.x.Y - m {i}\n"
            for i in range(30)
        )
    )
    got = ask(app, now, kind=QuestionKind.STATUS, since="2024-03-05T10:00:00+02:00")
    assert any("stamps carry no time zone" in w for w in got.warnings)
    iis = tmp_path / "u_ex.log"
    iis.write_text(
        "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip "
        "cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n"
        + "".join(
            f"2024-03-05 10:00:{i:02d} 10.0.0.1 GET /a - 80 - 1.2.3.4 UA - 200 0 0 {i}\n"
            for i in range(30)
        )
    )
    got = ask(iis, now, kind=QuestionKind.STATUS, since="2024-03-05T09:00:00+01:00")
    assert got.input.format == "w3c" and not any("time zone" in w for w in got.warnings)
