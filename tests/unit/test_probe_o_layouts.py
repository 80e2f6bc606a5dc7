"""What real logs of probe O showed, each fix with the lines that showed it.

- PostgreSQL's jsonlog (``log_destination = jsonlog``): its ``error_severity`` was no level,
  ``-q status`` "(no level)" 3,544, exact.
- logcat ``-v brief`` (no stamp): no known format, 21,049 lines; and a tag holding
  parentheses (``V/AllShare(ASF-DMSLIB)( 4553): ...``) was malformed in ``-v time`` too.
- PgBouncer's log: no known format, 100,000 lines malformed.
- A GitHub Actions job log: syslog, a third of it malformed, its ``##[error]`` no error.
"""

from __future__ import annotations

import json

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.appkeys import auto_app_mapping
from logagent.formats.applogs import logcat
from logagent.formats.cilogs import GITHUB_ACTIONS
from logagent.formats.detect import detect_all
from logagent.formats.structured import JsonAppFormat
from logagent.formats.systemlogs import PGBOUNCER


def test_postgres_jsonlog_severity_is_the_level() -> None:
    lines = [
        json.dumps({"timestamp": "2024-06-27 00:00:07.369 CEST", "pid": 58151,
                    "error_severity": sev, "message": msg, "backend_type": "autovacuum worker"})
        for sev, msg in [("LOG", "automatic analyze of table"), ("ERROR", "deadlock detected"),
                         ("FATAL", "terminating connection"), ("WARNING", "skipping vacuum")]
    ]  # fmt: skip
    mapping = auto_app_mapping(lines)
    assert mapping["level"] == "error_severity"
    got = parse_app(JsonAppFormat(mapping=mapping), pl.Series("line", lines))
    assert got["level"].to_list() == ["INFO", "ERROR", "FATAL", "WARN"]


BRIEF = [
    "--------- beginning of main",
    "E/QCameraHWI_Record(  303): Releasing video frames:2",
    "D/QCameraHWI_Record(  303): Timestamp: 1535008 44754000",
    "V/AllShare(ASF-DMSLIB)( 4553): (Service)MediaServerService: .onCreate - ",
    "W/ActivityManager(  481): Launch timeout has expired, giving up wake lock!",
    "F/libc    ( 1234): Fatal signal 11 (SIGSEGV)",
]


def test_logcat_brief_and_tags_with_parentheses() -> None:
    found = detect_all(BRIEF * 4)
    assert found.best == "logcat" and found.confidence > 0.8
    got = parse_app(logcat(), pl.Series("line", BRIEF))
    assert got["level"].to_list() == [None, "ERROR", "DEBUG", "TRACE", "WARN", "FATAL"]
    assert got["component"].to_list()[1:] == [
        "QCameraHWI_Record",
        "QCameraHWI_Record",
        "AllShare(ASF-DMSLIB)",
        "ActivityManager",
        "libc",
    ]
    assert got["time"].null_count() == len(BRIEF)  # brief writes no stamp
    timed = parse_app(logcat(2024), pl.Series("line", ["01-02 03:04:05.678 " + BRIEF[3]]))
    assert timed["component"].to_list() == ["AllShare(ASF-DMSLIB)"]


PGB = [
    "2023-12-19 03:06:13.586 CET [10384] LOG C-0x7f3bd6c47f40: retail/game_api@192.168.0.80:38296 "
    "closing because: client close request (age=5s)",
    "2023-12-19 03:06:13.855 CET [10384] LOG got SIGHUP, re-reading config",
    "2023-12-19 03:06:37.241 CET [10384] LOG stats: 4874 xacts/s, 7318 queries/s",
    "2017-01-05 10:00:00.123 4711 WARNING C-0x1a2b: web/api@10.0.0.8:5000 pooler error: no more "
    "connections allowed (max_client_conn)",
    "2023-12-19 03:07:00.000 +01:00 [10384] ERROR S-0x55d0: web/api@10.0.0.9:5432 server conn "
    "crashed?",
]


def test_pgbouncer_levels_and_db_user() -> None:
    found = detect_all(PGB * 4)
    assert found.best == "pgbouncer" and found.confidence == 1.0
    got = parse_app(PGBOUNCER, pl.Series("line", PGB))
    assert got["level"].to_list() == ["INFO", "INFO", "INFO", "WARN", "ERROR"]
    assert got["component"].to_list() == [
        "retail/game_api",
        "got",  # the error kind stops at a word with a comma
        "stats",
        "web/api",
        "web/api",
    ]
    assert got["time"].null_count() == 0


GHA = [
    "2021-09-28T03:48:04.2964206Z Found online and idle hosted runner in the current "
    "repository's organization account that matches the required labels: 'ubuntu-latest'",
    "2021-09-28T03:48:11.9165133Z ##[group]Operating System",
    "2021-09-28T03:48:11.9167891Z ##[endgroup]",
    "2021-09-28T03:49:02.0000001Z hint: Using 'master' as the name for the initial branch.",
    "2021-09-28T03:50:00.1000000Z ##[warning]Node.js 12 actions are deprecated.",
    "2021-09-28T03:52:40.1191010Z ##[error]Process completed with exit code 5.",
]


def test_github_actions_workflow_commands_are_the_levels() -> None:
    found = detect_all(GHA * 4)
    assert found.best == "github_actions" and found.confidence == 1.0
    got = parse_app(GITHUB_ACTIONS, pl.Series("line", GHA))
    assert got["level"].to_list() == [None, None, None, None, "WARN", "ERROR"]
    assert got["component"][5] == "Process completed with exit"
    assert got["time"][5].isoformat().startswith("2021-09-28T03:52:40.119101")


def test_nginx_errors_naming_a_file_first_rank_by_the_words_after_it() -> None:
    from logagent.formats.serverlogs import NGINX_ERROR

    lines = [
        '2022/12/03 11:42:31 [error] 7#7: *1 "/etc/nginx/html/index.html" is not found (2: No '
        'such file or directory), client: 172.18.0.1, server: localhost, request: "GET / HTTP/1.1"',
        '2022/12/03 11:42:32 [error] 7#7: *2 "/srv/www/" is forbidden (13: Permission denied)',
        '2022/12/03 11:42:33 [error] 7#7: *3 open() "/srv/favicon.ico" failed (2: No such file '
        "or directory)",
    ]
    got = parse_app(NGINX_ERROR, pl.Series("line", lines))
    assert got["component"].to_list() == ["is not found", "is forbidden", "open()"]
