"""Gunicorn's and lighttpd's error logs (probe H: one read by ``generic`` as its traceback
tails, "exact"; one refused; lighttpd's 95 % malformed under ``generic``)."""

from __future__ import annotations

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.records import fold_records
from logagent.formats.webservers import GUNICORN, LIGHTTPD

GUNICORN_LINES = [
    "[2021-04-27 23:21:05 +0000] [297750] [DEBUG] Current configuration:",
    "  config: ./gunicorn.conf.py",
    "  bind: ['unix:/home/app/gunicorn.sock']",
    "[2021-04-28 02:54:19 +0200] [330114] [INFO] Starting gunicorn 20.1.0",
    "[2021-04-28 02:54:20 +0000] [330120] [ERROR] Exception in worker process",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/site-packages/gunicorn/arbiter.py", line 589, in spawn_worker',
    "ValueError: Empty module name",
    "[2021-04-28 02:54:21 +0000] [330114] [WARNING] Worker with pid 330120 was terminated",
    "[2021-04-28 02:54:22 +0000] [330114] [CRITICAL] WORKER TIMEOUT (pid:330121)",
]
LIGHTTPD_LINES = [
    "2014-03-24 10:51:28: (server.c.1558) server stopped by UID = 0 PID = 5750 ",
    "2014-03-24 10:51:28: (log.c.166) server started ",
    "2014-03-24 10:52:01: (mod_fastcgi.c.1103) the fastcgi-backend /usr/bin/php-cgi failed "
    "to start: ",
    "2014-03-24 10:52:01: (server.c.964) Configuration of plugins failed. Going down. ",
]


def test_gunicorn_levels_zones_and_folded_tracebacks() -> None:
    out = fold_records(pl.Series("line", GUNICORN_LINES), GUNICORN)
    assert out.select("level", "component", "lines").rows() == [
        ("DEBUG", "Current configuration", 3),  # its configuration dump folded
        ("INFO", "Starting gunicorn", 1),
        ("ERROR", "Exception in worker process", 4),  # the traceback folded
        ("WARN", "Worker with pid", 1),
        ("FATAL", "WORKER TIMEOUT", 1),
    ]
    got = parse_app(GUNICORN, pl.Series("line", GUNICORN_LINES[3:4]))
    assert str(got["time"][0]) == "2021-04-28 00:54:19+00:00"  # +0200 placed in UTC
    assert detect_all(GUNICORN_LINES * 5).best == "gunicorn"


def test_lighttpd_source_files_and_levels_from_words() -> None:
    got = parse_app(LIGHTTPD, pl.Series("line", LIGHTTPD_LINES))
    assert got.select("component").to_series().to_list() == [
        "server.c",
        "log.c",
        "mod_fastcgi.c",
        "server.c",
    ]
    levels = got["level"].to_list()
    assert levels[0] == levels[1] == "INFO" and levels[2] in ("ERROR", "FATAL")
    assert levels[3] in ("ERROR", "FATAL")  # "failed": no level is written, words tell
    assert detect_all(LIGHTTPD_LINES * 5).best == "lighttpd"


def test_elasticsearch_1_and_2_stamps_with_a_blank() -> None:
    """Elasticsearch before 5 (log4j 1's ISO8601: a blank, not a "T") was refused (probe H,
    yangcvo/ELK_config: 75 records, 660 trace lines); its stack traces fold."""
    from logagent.formats.serverlogs import ELASTICSEARCH

    lines = [
        "[2015-09-10 00:31:04,552][DEBUG][action.bulk              ] [es-node1] "
        "[access-log-2015-09-10][0] failed to execute bulk item (index)",
        "org.elasticsearch.index.mapper.MapperParsingException: failed to parse",
        "\tat org.elasticsearch.index.mapper.DocumentMapper.parse(DocumentMapper.java:560)",
        "[2015-09-10 00:32:01,001][WARN ][monitor.jvm              ] [es-node1] [gc][old][1] "
        "duration [12s]",
        "[2018-05-17T08:20:18,871][WARN ][o.e.c.r.a.DiskThresholdMonitor] [node-1] low disk",
    ]
    out = fold_records(pl.Series("line", lines), ELASTICSEARCH)
    assert out.select("level", "component", "lines").rows() == [
        ("DEBUG", "action.bulk", 3),
        ("WARN", "monitor.jvm", 1),
        ("WARN", "o.e.c.r.a.DiskThresholdMonitor", 1),
    ]
    got = parse_app(ELASTICSEARCH, pl.Series("line", lines[:1]))
    assert str(got["time"][0]) == "2015-09-10 00:31:04.552000+00:00"
    assert detect_all(lines * 5).best == "elasticsearch"


def test_postgres_without_a_log_line_prefix() -> None:
    """An empty ``log_line_prefix`` (the default before PostgreSQL 10) opens each line with
    its level: it had been read as MySQL's, 15 LOG records folded into two ERRORs (probe H,
    chobostar/demo-single-1rt-statement-timeout). STATEMENT notes fold, as with a prefix."""
    from logagent.formats.serverlogs import POSTGRES

    lines = [
        "LOG:  connection received: host=127.0.0.1 port=48870",
        "LOG:  statement: SELECT pg_sleep(2)",
        "ERROR:  canceling statement due to statement timeout",
        "STATEMENT:  SELECT pg_sleep(2)",
        "LOG:  duration: 0.157 ms",
        '2019-03-24 13:44:25.484 UTC [1234] ERROR:  relation "x" does not exist',
    ]
    out = fold_records(pl.Series("line", lines), POSTGRES)
    assert out.select("level", "lines").rows() == [
        ("INFO", 1),
        ("INFO", 1),
        ("ERROR", 2),  # its STATEMENT folded
        ("INFO", 1),
        ("ERROR", 1),
    ]
    assert detect_all([line for line in lines[:5]] * 5).best == "postgres"
