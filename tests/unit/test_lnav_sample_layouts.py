"""Layouts of real systems' logs, checked on the sample lines lnav's format definitions carry.

The lines are from tstack/lnav (BSD-2-Clause), ``src/formats/*.json``, each format's
``sample`` list (``sample_logs/SOURCES.md``): PostgreSQL under the ``log_line_prefix``
settings people use, ZooKeeper 3.5+ (``[myid:N]``), logcat's ``-v uid`` and ``-v time``, glog
0.7 (the year in the stamp), spdlog (Envoy's pattern and spdlog's default) and Redis. Before
these layouts learned them, each line was unrecognized or read by ``generic``.
"""

from __future__ import annotations

import polars as pl
import pytest

from logagent.formats.app import AppRegexFormat, parse_app
from logagent.formats.applogs import golog, logcat, redis
from logagent.formats.detect import detect_all
from logagent.formats.levelfilter import level_prefilter
from logagent.formats.records import fold_records
from logagent.formats.serverlogs import POSTGRES, SPDLOG, ZOOKEEPER

#: (line, level, component) of each prefix; a component the line does not name is the error
#: kind (the head of the message).
POSTGRES_LINES = [
    (  # the default since PostgreSQL 10: '%m [%p] '
        "2025-08-13 01:45:01.127 PDT [12347] LOG:  database system was shut down at "
        "2025-08-13 01:44:58 PDT",
        "INFO",
        "database system was shut",
    ),
    (  # Debian's '%m [%p] %q%u@%d ' with %l (lnav's sample has one blank after the level;
        # PostgreSQL writes two, elog.c's "%s:  ")
        "2025-06-05 17:10:04 MSK [608647-3] [local] postgres@postgres WARNING:  terminating "
        "connection because of crash of another server process",
        "WARN",
        "postgres@postgres",
    ),
    (
        "2021-02-14 01:34:02 CET [30291]: db=[unknown],user=[unknown],app=[unknown],"
        "client=[local] LOG:  connection received: host=[local]",
        "INFO",
        "connection received",  # the words before the colon (was "connection": a word lost)
    ),
    (  # pgBadger's '%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h '
        "2017-09-06 08:40:10 UTC [20]: [1-1] user=,db=,app=,client= LOG:  database system was "
        "shut down at 2017-09-06 08:40:08 UTC",
        "INFO",
        "database system was shut",
    ),
    (
        "2017-09-06 08:41:43 UTC [44]: [371-1] user=postgres,db=postgres,app=pgbench,"
        'client=172.23.0.1 ERROR:  relation "pgbench_x" does not exist',
        "ERROR",
        "relation",
    ),
    (
        "2021-12-03 07:14:48.591 UTC [4913] user=user1,db=mydb FATAL:  password authentication "
        'failed for user "user1"',
        "FATAL",
        "password authentication failed for",
    ),
    (
        "2022-02-17 06:45:10.440 -0800 [691] [queryid=1081270519976314062] postgres@stackoverflow"
        " LOG:  duration: 0.140 ms  statement: set log_min_duration_statement to 0;",
        "INFO",
        "postgres@stackoverflow",
    ),
    (  # '%t:%r:%u@%d:[%p]:' (RDS's): user@db before the process id is the component
        "2020-03-11 20:40:45 CET:[local]:postgres@template1:[12777]:ERROR:  syntax error at or "
        'near "selec"',
        "ERROR",
        "postgres@template1",
    ),
    (
        "2017-03-05 20:41:41 CET:192.168.1.201(50906):gilles@pgbench:[12795]:FATAL:  no "
        'pg_hba.conf entry for host "192.168.1.201", user "gilles", database "pgbench"',
        "FATAL",
        "gilles@pgbench",
    ),
    (  # an IPv6 client, and Azure's user@server login (a review: split from the above)
        "2017-03-05 20:41:42 CET:::1(54321):alice@myserver@orders:[12796]:ERROR:  duplicate "
        "key value violates unique constraint",
        "ERROR",
        "alice@myserver@orders",
    ),
    (
        "2020-03-11 20:40:43 CET::@:[12760]:LOG:  starting PostgreSQL 12.2 on x86_64-pc-linux-gnu",
        "INFO",
        "starting PostgreSQL",
    ),
]


def rows(fmt: AppRegexFormat, lines: list[str]) -> list[tuple[object, ...]]:
    return parse_app(fmt, pl.Series("line", lines)).select("level", "component", "message").rows()


@pytest.mark.parametrize(("line", "level", "component"), POSTGRES_LINES)
def test_postgres_reads_the_prefixes_people_set(line: str, level: str, component: str) -> None:
    """Each prefix: the level, user@db where the line names it (else the error kind), and the
    message after the level; ``detect`` names the layout."""
    ((got_level, got_component, message),) = rows(POSTGRES, [line])
    assert (got_level, got_component) == (level, component)
    assert line.endswith(message) and not message.startswith(" ")
    assert detect_all([line] * 20).best == "postgres"


def test_postgres_folds_its_notes_under_any_prefix() -> None:
    """STATEMENT and DETAIL lines, and a statement's own lines, continue the record before
    them under the general prefix too; the next record starts on its level."""
    p = "2017-09-06 08:41:43 UTC [44]: [371-1] user=app,db=shop,app=psql,client=10.0.0.1 "
    lines = [
        p + 'ERROR:  relation "orders" does not exist at character 15',
        p + "STATEMENT:  select *",
        "\t  from orders",
        p + "DETAIL:  more",
        p + "LOG:  checkpoint starting: time",
    ]
    got = fold_records(pl.Series("line", lines), POSTGRES).select("level", "lines", "valid")
    assert got.rows() == [("ERROR", 4, True), ("INFO", 1, True)]
    # ... and detection counts those notes as what they are, not as lines it cannot read
    assert detect_all([lines[0], lines[1], lines[3], lines[4]] * 5).scores[0] == ("postgres", 1.0)


def test_a_timestamped_line_without_a_process_id_is_no_postgres_record() -> None:
    """The general prefix needs PostgreSQL's ``[%p]``: a plain ``stamp LEVEL: msg`` line of
    another program is not taken for PostgreSQL's."""
    lines = ["2024-01-02 03:04:05 ERROR: disk full", "2024-01-02 03:04:06 LOG:  ok go on"]
    assert rows(POSTGRES, lines) == [(None, None, None), (None, None, None)]
    assert detect_all(lines * 10).best != "postgres"


def test_python_logging_with_a_process_id_stays_generic() -> None:
    """``%(asctime)s [%(process)d] %(levelname)s: %(message)s`` writes one blank after the
    level, PostgreSQL two: such a log is not PostgreSQL's, and its CRITICAL lines (no
    PostgreSQL level) are records of their own, not folded into the one before."""
    lines = [
        "2024-01-02 03:04:05 [4242] ERROR: worker step 3 failed",
        "2024-01-02 03:04:06 [4242] INFO: worker step 4 ok",
        "2024-01-02 03:04:07 [4242] CRITICAL: worker gone",
        "2024-01-02 03:04:08 myapp [42] ERROR: failed to open file",
    ]
    assert rows(POSTGRES, lines) == [(None, None, None)] * 4
    found = detect_all(lines * 10)
    assert found.best == "generic"


def test_a_level_inside_a_notes_text_is_no_record() -> None:
    """A DETAIL or STATEMENT whose text holds ``ERROR:`` or ``LOG:  `` continues its record:
    the level is the first word after the prefix, whose text has no two blanks in a row."""
    p = "2024-01-02 03:00:00.123 UTC [1234] app@jobs "
    lines = [
        p + 'ERROR:  null value in column "x" violates not-null constraint',
        p + "DETAIL:  Failing row contains (0, null, ERROR: upstream timeout).",
        p + "STATEMENT:  insert into t values ('LOG:  x', '[1] ERROR:  y')",
    ]
    got = fold_records(pl.Series("line", lines), POSTGRES).select("level", "component", "lines")
    assert got.rows() == [("ERROR", "app@jobs", 3)]


def test_user_at_db_is_named_without_a_zone_too() -> None:
    line = "2024-01-02 03:04:05.123 [1234] user@db ERROR:  relation x does not exist"
    assert rows(POSTGRES, [line])[0][:2] == ("ERROR", "user@db")


def test_postgres_record_start_finds_no_start_inside_a_long_statement() -> None:
    """The reader finds record starts with Python's ``re`` (``records.compile_start``): a long
    statement full of ``[n]`` tokens starts no record there (the prefix cannot run past the
    level's two blanks, which also keeps this search linear: 22 s for one such line before)."""
    import re

    start = re.compile(("^(?:" + POSTGRES.record_start + ")").encode(), re.MULTILINE)
    p = b"2024-01-02 03:00:00.123 UTC [1234] app@jobs "
    long_line = p + b"STATEMENT:  insert into t values ('" + b"x = [1] or " * 8000 + b"')\n"
    record = p + b"LOG:  checkpoint starting: time\n"
    assert [m.start() for m in start.finditer(record + long_line * 4)] == [0]


def test_zookeeper_with_and_without_its_server_id() -> None:
    lines = [
        "2024-04-23 09:24:31,484 [myid:] - INFO  [WorkerReceiver[myid=3]:o.a.z.s.q."
        "FastLeaderElection$Messenger$WorkerReceiver@391] - Notification: my state:FOLLOWING",
        "2019-05-02 10:00:01,123 [myid:3] - ERROR [main:QuorumPeerMain@89] - Unexpected exception",
        "2015-07-29 17:41:44,747 - WARN  [QuorumPeer[myid=1]/0.0.0.0:2181:Learner@233] - msg",
    ]
    assert rows(ZOOKEEPER, lines) == [
        (
            "INFO",
            "o.a.z.s.q.FastLeaderElection$Messenger$WorkerReceiver",
            "Notification: my state:FOLLOWING",
        ),
        ("ERROR", "QuorumPeerMain", "Unexpected exception"),
        ("WARN", "Learner", "msg"),
    ]
    assert detect_all(lines[:1] * 20).best == "zookeeper"


def test_logcat_with_a_user_column_and_in_its_time_format() -> None:
    lines = [
        "05-21 15:05:52.808  1047  1116  1240 E FMQ     : MQDescriptor is invalid or queue size "
        "is 0.",
        "05-26 11:18:41.509  root 23402 23402 W VirtualCameraSession: processCaptureRequest",
        "05-26 14:57:03.870 V/Configuration( 1766): Updating configuration, locales updated",
        "05-26 14:57:03.871 E/AndroidRuntime(12345): FATAL EXCEPTION: main",
    ]
    assert rows(logcat(2024), lines) == [
        ("ERROR", "FMQ", "MQDescriptor is invalid or queue size is 0."),
        ("WARN", "VirtualCameraSession", "processCaptureRequest"),
        ("TRACE", "Configuration", "Updating configuration, locales updated"),
        ("ERROR", "AndroidRuntime", "FATAL EXCEPTION: main"),
    ]
    for line in lines[:1] + lines[2:3]:
        assert detect_all([line] * 20).best == "logcat"


def test_glog_stamps_with_their_own_year() -> None:
    """glog 0.7 writes the year; its stamp keeps it whatever year year-less stamps take."""
    lines = [
        "I20200308 23:47:32.089828 400441 config.cc:27] Loading user configuration",
        "E0102 03:04:05.678901    12 ctrl.go:9] sync failed",
    ]
    got = parse_app(golog(2024), pl.Series("line", lines))
    assert got.select("level", "component").rows() == [("INFO", "config.cc"), ("ERROR", "ctrl.go")]
    assert [t.year for t in got["time"]] == [2020, 2024]
    assert parse_app(golog(None), pl.Series("line", lines))["time"][1] is None
    assert detect_all(lines[:1] * 20).best == "golog"


def test_spdlog_envoy_and_default_patterns() -> None:
    lines = [
        "[2025-04-24 19:51:59.688][8][info][config] [source/server/configuration_impl.cc:168] "
        "loading tracing configuration",
        "[2019-07-11 18:04:10.123][000009][critical][main] [external/envoy/source/server/"
        "server.cc:96] error initializing configuration",
        "[2014-10-31 23:46:59.678] [my_loggername] [error] Some message",
    ]
    assert rows(SPDLOG, lines) == [
        ("INFO", "config", "loading tracing configuration"),
        ("FATAL", "main", "error initializing configuration"),
        ("ERROR", "my_loggername", "Some message"),
    ]
    assert level_prefilter(SPDLOG, ["ERROR", "FATAL"]) is not None
    for line in (lines[0], lines[2]):
        assert detect_all([line] * 20).best == "spdlog"


def test_redis_marks_are_its_levels_and_it_has_no_error_level() -> None:
    """``# * - .``: warning, notice, verbose, debug (Redis writes no error level); the error
    kind stands in for a component; the 2.x stamp takes the year, the signal handler's line
    has none."""
    lines = [
        "1:M 29 Aug 2023 13:47:38.984 * monotonic clock: POSIX clock_gettime",
        "1:M 29 Aug 2023 13:47:39.001 # Background saving error",
        "1:C 29 Aug 2023 13:47:39.002 - Accepted 10.0.0.1:6379",
        "[3574] 13 Apr 12:52:30.731 # Sentinel runid is 2e3b1eed9e95d760e1853e047a33bf4f8ac16c59",
        "1:signal-handler (1693279182) Received SIGTERM scheduling shutdown...",
    ]
    got = parse_app(redis(2024), pl.Series("line", lines))
    assert got["level"].to_list() == ["INFO", "WARN", "DEBUG", "WARN", None]
    assert got["component"].to_list()[1] == "Background saving error"
    assert [t.year if t else None for t in got["time"]] == [2023, 2023, 2023, 2024, None]
    # Marks are no words: no prefilter can hold every WARN record, so none is used.
    assert level_prefilter(redis(), ["WARN", "ERROR", "FATAL"]) is None
    for line in (lines[0], lines[3]):
        assert detect_all([line] * 20).best == "redis"


def test_redis_3_2_and_1_x_stamps_without_a_year_are_records() -> None:
    """Redis 3.x writes ``pid:role`` with no year, 2.4 ``[pid]`` with no milliseconds and 1.x
    no pid at all (elastic/beats' ``filebeat/module/redis/log/test`` fixtures, Apache-2.0): a
    real-log probe found 3.0's lines taken for continuation lines and the answer "exact"."""
    lines = [
        "4961:M 30 May 12:50:13.463 # Server started, Redis version 3.0.2",
        "4961:M 30 May 12:52:41.448 * Saving the final RDB snapshot before exiting.",
        "[2932] 31 May 04:32:08 # Open data file dump.rdb: No such file or directory",
        "30 May 10:03:19 - Server started, Redis version 1.2.6",
        "30 May 10:05:20 . 0 clients connected (0 slaves), 618932 bytes in use",
    ]
    got = parse_app(redis(2024), pl.Series("line", lines))
    assert got["level"].to_list() == ["WARN", "INFO", "WARN", "DEBUG", "DEBUG"]
    assert [str(t) for t in got["time"]] == [
        "2024-05-30 12:50:13.463000+00:00",
        "2024-05-30 12:52:41.448000+00:00",
        "2024-05-31 04:32:08+00:00",
        "2024-05-30 10:03:19+00:00",
        "2024-05-30 10:05:20+00:00",
    ]
    for line in (lines[0], lines[2], lines[3]):
        assert detect_all([line] * 20).best == "redis"


def test_redis_start_up_logo_continues_its_record() -> None:
    lines = [
        "1:M 29 Aug 2023 13:47:38.984 * Running mode=standalone, port=6379.",
        "                _._",
        "           _.-``__ ''-._",
        "1:M 29 Aug 2023 13:47:38.990 # Server initialized",
    ]
    got = fold_records(pl.Series("line", lines), redis(2024)).select("level", "lines")
    assert got.rows() == [("INFO", 3), ("WARN", 1)]
    stop = [lines[3], "1:signal-handler (1693279182) Received SIGTERM scheduling shutdown..."]
    got = fold_records(pl.Series("line", stop), redis(2024)).select("level", "lines")
    assert got.rows() == [("WARN", 1), (None, 1)]  # the handler's line is a record of its own


def test_a_layouts_own_level_words_make_its_prefilter() -> None:
    """A layout whose level words are its own (``level_map``) is prefiltered by those words."""
    fmt = AppRegexFormat(
        name="own",
        patterns=(r"^(?P<level>OOPS|FINE|MEH) (?P<message>.*)$",),
        min_line_bytes=4,
        level_map=(("OOPS", "ERROR"), ("FINE", "INFO"), ("MEH", "WARN")),
    )
    assert rows(fmt, ["OOPS disk", "MEH slow"]) == [("ERROR", "-", "disk"), ("WARN", "-", "slow")]
    prefilter = level_prefilter(fmt, ["ERROR", "FATAL"])
    assert prefilter is not None and prefilter.pattern == b"OOPS"


def test_postgres_times_are_moved_by_the_zone_the_line_writes() -> None:
    """The zone after the stamp (log_timezone) places the record in UTC: an abbreviation it
    knows, or an offset (a real-log probe found PDT and CEST stamps read as UTC, so the
    timeline and --since/--until were off by the zone). One it does not know is read as UTC
    and named (``unknown_zones``); a stamp without a zone is UTC as before."""
    from datetime import datetime

    from logagent.formats.apptimes import unknown_zones

    expected = [  # by hand: PDT -7 h, MSK +3, CET +1, UTC, UTC, UTC, -08:00, CET, CET, CET
        "2025-08-13 08:45:01.127",
        "2025-06-05 14:10:04",
        "2021-02-14 00:34:02",
        "2017-09-06 08:40:10",
        "2017-09-06 08:41:43",
        "2021-12-03 07:14:48.591",
        "2022-02-17 14:45:10.440",
        "2020-03-11 19:40:45",
        "2017-03-05 19:41:41",
        "2017-03-05 19:41:42",
        "2020-03-11 19:40:43",
    ]
    more = [
        ("2025-04-12 00:14:12.837 +02 [1] ERROR:  x", "2025-04-11 22:14:12.837"),
        ("2025-04-12 00:14:12 +05:30 [1] LOG:  x", "2025-04-11 18:44:12"),
        ("2025-04-12 00:14:12 -0330 [1] LOG:  x", "2025-04-12 03:44:12"),
        ("2025-04-12 00:14:12 cest [1] LOG:  x", "2025-04-11 22:14:12"),
        ("2025-04-12 00:14:12 XYZT [1] LOG:  x", "2025-04-12 00:14:12"),
        ("2025-04-12 00:14:12 [1] LOG:  no zone", "2025-04-12 00:14:12"),
        (  # pgBadger's prefix with tzdata's two-digit offset (Sao Paulo)
            "2024-03-05 10:00:00 -03 [123]: [1-1] user=u,db=d,app=psql,client=10.0.0.1 "
            'ERROR:  relation "x" does not exist',
            "2024-03-05 13:00:00",
        ),
    ]
    lines = [line for line, _, _ in POSTGRES_LINES] + [line for line, _ in more]
    times = parse_app(POSTGRES, pl.Series("line", lines))["time"].to_list()
    want = expected + [t for _, t in more]
    assert [t.replace(tzinfo=None) for t in times] == [datetime.fromisoformat(w) for w in want]
    stamps = parse_app(POSTGRES, pl.Series("line", lines))["ts"].to_list()
    assert unknown_zones(stamps, POSTGRES.time_formats) == ["XYZT"]
    # CST is US or China, so CDT is left unknown too: a file crossing the switch stays in order
    both = ["2024-11-03 01:59:00.000 CDT", "2024-11-03 01:00:00.000 CST"]
    assert unknown_zones(both, POSTGRES.time_formats) == ["CDT", "CST"]
