"""What real logs of probe P showed: an older Tomcat's catalina.out (qms, Tomcat 6), its
app's log4j 1.x records (``%d %p [%c] - <%m>``) beside java.util.logging's two-line records
(a date and class line, then ``SEVERE: msg``): generic read the log4j lines, and the 73
SEVERE records were continuation lines, "exact" 5 errors of 78."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.applogs import LOG4J
from logagent.formats.detect import detect_all
from logagent.formats.javalogs import JUL
from logagent.formats.records import fold_records

JUL_LINES = [
    "Nov 20, 2012 3:02:00 AM org.apache.catalina.core.AprLifecycleListener init",
    "INFO: The APR based Apache Tomcat Native library was not found",
    "Nov 20, 2012 3:15:34 AM org.apache.catalina.loader.WebappClassLoader clearReferencesThreads",
    "SEVERE: The web application [/qms] appears to have started a thread named [Timer-0]",
    "java.lang.IllegalStateException: boom",
    "\tat org.apache.catalina.loader.WebappClassLoader.loadClass(WebappClassLoader.java:1600)",
    "Nov 20, 2012 3:15:35 AM org.apache.coyote.AbstractProtocol pause",
    "WARNING: Failed to pause the connector",
]
APP = [
    "2012-11-20 03:09:26,975 INFO [com.adobe.qms.cloud.CloudServer] - <Start Cloud Server...>",
    "2012-11-20 03:09:27,001 ERROR [com.adobe.qms.cloud.CloudServer] - <Cannot reach cloud>",
]


def test_jul_records_are_their_level_lines() -> None:
    found = detect_all(JUL_LINES * 3)
    assert found.best == "jul" and found.confidence == 1.0
    folded = fold_records(pl.Series("line", JUL_LINES), JUL).filter(pl.col("start"))
    assert folded["level"].to_list() == ["INFO", "ERROR", "WARN"]
    assert folded["component"].to_list() == [
        "The APR based Apache",
        "The web application",
        "Failed to pause the",
    ]


def test_log4j_with_its_logger_in_brackets() -> None:
    got = parse_app(LOG4J, pl.Series("line", APP))
    assert got["component"].to_list() == ["com.adobe.qms.cloud.CloudServer"] * 2
    assert got["level"].to_list() == ["INFO", "ERROR"]
    assert got["message"].to_list() == ["<Start Cloud Server...>", "<Cannot reach cloud>"]


def test_old_catalina_out_counts_both_layouts(tmp_path: Path) -> None:
    log = tmp_path / "catalina.out"
    log.write_text("\n".join([*APP, *JUL_LINES, *APP * 3, *JUL_LINES]) + "\n")
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", "--full"])
    got = json.loads(out.output)
    assert got["input"]["format"] in ("mixed(log4j+jul)", "mixed(jul+log4j)"), got["input"]
    assert {r["key"]: r["count"] for r in got["answer"]["top"]} == {
        "com.adobe.qms.cloud.CloudServer": 4,
        "The web application": 2,
    }
    assert got["progress"]["malformed_lines"] == 0


def test_dnf_levels_below_debug_are_debug() -> None:
    """dnf.log (CentOS 9): its 319 DDEBUG lines had been malformed, ``-q status`` 562 of 889."""
    from logagent.formats.catalog import build_any_format

    lines = [
        "2023-04-22T15:08:46-0700 INFO --- logging initialized ---",
        "2023-04-22T15:08:46-0700 DDEBUG timer: config: 1 ms",
        "2023-04-22T15:08:46-0700 DEBUG Loaded plugins: builddep, changelog",
        "2023-04-22T15:08:47-0700 SUBDEBUG Upgrade: kernel-5.14.0-284.el9.x86_64",
        "2023-04-22T15:08:48-0700 WARNING Failed to resolve the repository",
    ] * 4
    fmt = build_any_format(detect_all(lines).best, lines)
    got = parse_app(fmt, pl.Series("line", lines[:5]))
    assert got["level"].to_list() == ["INFO", "DEBUG", "DEBUG", "DEBUG", "WARN"]
