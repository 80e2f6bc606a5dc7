"""What real logs of probe Q showed: a Liferay catalina.out (log4j ``%d{ABSOLUTE} %-5p
[%c{1}:%L] %m``) whose bracketed logger was read as a thread's name, so a record parsed
only when its message began ``Word:`` and that word was its component: the ERROR records
ranked under ``NoSuchFileException`` (576) instead of their logger ``ImageProcessorImpl``,
and the INFO records without such a message were malformed."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.applogs import LOG4J

LIFERAY = [
    "15:54:07,115 INFO  [EasyConf:122] Refreshed the configuration of all components",
    "15:54:13,539 INFO  [DialectDetector:80] Determine dialect for PostgreSQL 8",
    "15:54:50,047 ERROR [MainServlet:198] com.liferay.portal.kernel.events.ActionException: "
    "com.liferay.portal.kernel.upgrade.UpgradeException: boom",
    "16:01:02,003 ERROR [ImageProcessorImpl:181] com.liferay.portlet.documentlibrary."
    "NoSuchFileException: /opt/liferay/data/x.png",
    "16:01:02,004 WARN  [ImageProcessorImpl:181] plain warning",
    "2012-03-01 16:01:02,005 ERROR [Img.load:7]",
]
TRACE = [
    "com.liferay.portlet.documentlibrary.NoSuchFileException: /opt/liferay/data/x.png",
    "\tat com.liferay.portlet.documentlibrary.store.FileSystemStore.getFile(FileSystemStore.java)",
]


def test_the_logger_in_brackets_with_its_line_is_the_component() -> None:
    got = parse_app(LOG4J, pl.Series("line", LIFERAY))
    assert got["level"].to_list() == ["INFO", "INFO", "ERROR", "ERROR", "WARN", "ERROR"]
    assert got["component"].to_list() == [
        "EasyConf",
        "DialectDetector",
        "MainServlet",
        "ImageProcessorImpl",
        "ImageProcessorImpl",
        "Img.load",
    ]
    assert got["message"][0] == "Refreshed the configuration of all components"
    assert got["message"][3].startswith("com.liferay.portlet.documentlibrary.NoSuchFileException")


def test_a_thread_in_brackets_is_still_a_thread() -> None:
    lines = [
        "2024-01-02 03:04:05,678 ERROR [main] com.foo.Bar - msg: x",
        "2024-01-02 03:04:05,678 ERROR [pool-1-thread-1] com.foo.Baz: msg",
        "12:00:00.001 [main] ERROR io.javalin.Javalin - boom",
        # threads named Name:N before the logger (a review: Cassandra's, ZooKeeper's)
        "2024-01-02 03:04:05,678 ERROR [CompactionExecutor:1] org.apache.cassandra.Daemon - x",
        "2024-01-02 03:04:05,678 WARN  [SyncThread:0] org.apache.zookeeper.FileTxnLog - fsync",
        # Liferay 6.1+: the thread, then the logger and its line
        "2024-01-02 03:04:05,678 ERROR [http-nio-8080-exec-3][ImageProcessorImpl:181] a.B: c",
    ]
    got = parse_app(LOG4J, pl.Series("line", lines))
    assert got["component"].to_list() == [
        "com.foo.Bar",
        "com.foo.Baz",
        "io.javalin.Javalin",
        "org.apache.cassandra.Daemon",
        "org.apache.zookeeper.FileTxnLog",
        "ImageProcessorImpl",
    ]


def _run(log: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", *args])
    return json.loads(out.output)


def test_a_liferay_log_ranks_its_loggers(tmp_path: Path) -> None:
    """Through the staged parse (its one-pass patterns first) and the level prefilter."""
    log = tmp_path / "catalina.out"
    body = [*LIFERAY[:2], *(LIFERAY[3:5] + TRACE) * 30, LIFERAY[2], *TRACE]
    log.write_text("\n".join(body) + "\n")
    got = _run(log, "--full")
    assert got["input"]["format"] == "log4j"
    top = [(t["key"], t["count"]) for t in got["answer"]["top"]]
    assert top == [("ImageProcessorImpl", 30), ("MainServlet", 1)]
    status = _run(log, "-q", "status", "--full")
    assert {t["key"]: t["count"] for t in status["answer"]["top"]} == {
        "ERROR": 31,
        "WARN": 30,
        "INFO": 2,
    }
    assert status["progress"]["malformed_lines"] == 0


NEXTFLOW = [
    "Jul-13 15:12:40.926 [main] DEBUG nextflow.cli.Launcher - $> nextflow run main.nf",
    "Jul-13 15:12:41.362 [main] INFO  nextflow.cli.CmdRun - N E X T F L O W  ~  version 21.10.6",
    "Jul-13 15:13:10.396 [main] WARN  nextflow.Nextflow - Found unexpected parameters:",
    "* --foo: bar",
    "Jul-13 15:13:14.023 [main] ERROR nextflow.cli.Launcher - /data/samplesheet.csv",
    "java.nio.file.NoSuchFileException: /data/samplesheet.csv",
    "\tat nextflow.cli.Launcher.run(Launcher.groovy:1)",
]


def test_nextflow_month_day_stamps_are_log4j(tmp_path: Path) -> None:
    """Nextflow's ``.nextflow.log`` (logback ``MMM-dd HH:mm:ss.SSS``) was refused."""
    got = parse_app(LOG4J, pl.Series("line", NEXTFLOW))
    assert got["level"].to_list() == ["DEBUG", "INFO", "WARN", None, "ERROR", None, None]
    assert got["component"][4] == "nextflow.cli.Launcher"
    assert got["time"].null_count() == len(NEXTFLOW)  # no year, no date: no time
    log = tmp_path / ".nextflow.log"
    log.write_text("\n".join(NEXTFLOW * 5) + "\n")
    status = _run(log, "-q", "status", "--full")
    assert status["input"]["format"] == "log4j"
    assert {t["key"]: t["count"] for t in status["answer"]["top"]} == {
        "DEBUG": 5,
        "INFO": 5,
        "WARN": 5,
        "ERROR": 5,
    }
    assert status["progress"]["malformed_lines"] == 0


AUTH = [
    "2026-02-01T13:28:26.207104+05:30 PF5EG5WE gdm-password]: gkr-pam: unlocked login keyring",
    "2026-02-01T13:28:27.100000+05:30 PF5EG5WE gdm-password]: pam_unix(gdm-password:auth): "
    "authentication failure; logname= uid=0 euid=0 tty=/dev/tty1 ruser= rhost=  user=ana",
    "2026-02-01T13:28:28.100000+05:30 PF5EG5WE sudo:      ana : TTY=pts/0 ; PWD=/home/ana ; "
    "USER=root ; COMMAND=/usr/bin/apt update",
    "2026-02-01T13:28:29.100000+05:30 PF5EG5WE gdm-fingerprint]: pam_fprintd(gdm-fingerprint:auth)"
    ": error: no device",
]


def test_gdm_pam_idents_are_programs(tmp_path: Path) -> None:
    """An Ubuntu auth.log's ``gdm-password]:`` lines (1,010 of them) were malformed."""
    log = tmp_path / "auth.log"
    log.write_text("\n".join(AUTH * 10) + "\n")
    got = _run(log, "--full")
    assert got["input"]["format"] == "syslog3164"
    assert got["progress"]["malformed_lines"] == 0
    top = {t["key"]: t["count"] for t in got["answer"]["top"]}
    assert top == {"gdm-password": 10, "gdm-fingerprint": 10}


def _cnpg(severity: str, i: int) -> str:
    record = {
        "log_time": "2022-11-27 18:58:02.096 UTC",
        "error_severity": severity,
        "message": f'relation "t{i % 3}" does not exist',
        "backend_type": "client backend",
    }
    wrapper = {"level": "info", "ts": 1669575482.09 + i, "logger": "postgres", "msg": "record"}
    return json.dumps({**wrapper, "logging_pod": "pg-1", "record": record})


def test_cloudnative_pg_records_carry_postgres_severity(tmp_path: Path) -> None:
    """CloudNativePG's wrapper level is "info" on every PostgreSQL record: its ERROR and
    FATAL records were "no ERROR+ record in the whole input" as zap_json."""
    lines = [_cnpg("LOG", i) for i in range(40)] + [_cnpg("ERROR", i) for i in range(4)]
    lines += [
        _cnpg("FATAL", 0),
        '{"level":"error","ts":1669575499.1,"logger":"wal-archive","msg":"failed to archive",'
        '"logging_pod":"pg-1"}',
    ]
    log = tmp_path / "cnpg.log"
    log.write_text("\n".join(lines) + "\n")
    got = _run(log, "--full")
    assert got["input"]["format"] == "cloudnative_pg"
    assert {t["key"]: t["count"] for t in got["answer"]["top"]} == {"postgres": 5, "wal-archive": 1}
    status = _run(log, "-q", "status", "--full")
    assert {t["key"]: t["count"] for t in status["answer"]["top"]} == {
        "INFO": 40,
        "ERROR": 5,
        "FATAL": 1,
    }
