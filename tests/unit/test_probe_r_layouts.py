"""What real logs of probe R showed: a Windows kubelet's glog file, whose header names the
day it was created (``Log file created at: 2019/08/20 20:28:26``), had its year-less stamps
placed in the year of the run, so a window on its real dates held nothing, and that empty
window was refused as an unrecognized format ("none of the 4 lines parsed is a record of
golog": the header lines)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from logagent.cli import main

HEADER = [
    "Log file created at: 2019/12/30 20:28:26",
    "Running on machine: node-1",
    "Binary: Built with gc go1.12.9 for windows/amd64",
    "Log line format: [IWEF]mmdd hh:mm:ss.uuuuuu threadid file:line] msg",
]


def _glog(tmp_path: Path) -> Path:
    lines = [*HEADER]
    for day in ("1230", "1231", "0101", "0102"):
        lines += [f"I{day} 21:00:0{i}.508550    3312 flags.go:33] FLAG: x" for i in range(3)]
        lines.append(f"E{day} 21:30:00.000001    3312 kubelet.go:9] sync failed")
    log = tmp_path / "kubelet.log"
    log.write_text("\n".join(lines) + "\n")
    return log


def _run(log: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", *args])
    return json.loads(out.output)


def test_the_glog_header_names_the_year(tmp_path: Path) -> None:
    log = _glog(tmp_path)
    window = ["--since", "2020-01-01T00:00:00Z", "--until", "2020-01-02T23:59:59Z"]
    got = _run(log, "-q", "status", *window)
    assert got["input"]["format"] == "golog"
    assert {t["key"]: t["count"] for t in got["answer"]["top"]} == {"INFO": 6, "ERROR": 2}
    assert any("header names" in w for w in got["warnings"])
    whole = _run(log, "-q", "status")
    assert whole["progress"]["malformed_lines"] == 0 and whole["answer"]["total"] == 16


def test_a_window_with_no_record_is_no_unknown_format(tmp_path: Path) -> None:
    log = _glog(tmp_path)
    got = _run(
        log, "-q", "status", "--since", "2019-12-30T00:00:00Z", "--until", "2019-12-30T01:00:00Z"
    )
    assert got["status"] == "recused"
    assert got["recuse"]["reason_code"] == "NO_MATCHING_EVENTS"


def test_the_requests_advice_names_the_format_where_it_must() -> None:
    """Probe R: "-q top-errors ranks their 5xx" sent a Traefik debug log read as zerolog to a
    question that refused it; a layout that does not give way by itself needs --format."""
    from logagent.engine.recusal import requests_advice
    from logagent.formats.detect import Detection
    from logagent.result import Question

    question = Question(kind="top-error-components")
    wrapped = Detection((("syslog3164", 0.6), ("combined", 0.3)), 100)
    assert "--format" not in (requests_advice(question, wrapped) or "-")
    own = Detection((("log4j", 0.6), ("combined", 0.3)), 100)
    advice = requests_advice(question, own) or ""
    assert "--format combined -q top-errors" in advice


def test_traefik_stdout_answers_a_request_question(tmp_path: Path) -> None:
    """Traefik v3's console log (zerolog) with its access log on the same stdout."""
    app = [f"2024-11-08T07:31:{i:02d}+01:00 DBG github.com/x/fw.go:187 > msg" for i in range(20)]
    request = '"GET /a HTTP/1.1"'
    access = [
        f'10.0.0.{i} - - [08/Nov/2024:07:31:{i:02d} +0100] {request} {500 + i % 2} 5 "-" "-"'
        for i in range(12)
    ]
    log = tmp_path / "traefik.log"
    log.write_text("\n".join([*app, *access]) + "\n")
    got = _run(log, "-q", "top-errors", "--full")
    assert got["input"]["format"] == "combined"
    assert got["answer"]["top"][0]["key"] == "/a" and got["answer"]["top"][0]["count"] == 12


def test_activemq_and_flume_name_their_loggers() -> None:
    """Probe R: both were generic, ranked by message heads (six under "-") and by thread."""
    import polars as pl

    from logagent.formats.app import parse_app
    from logagent.formats.applogs import LOG4J

    lines = [
        "2018-03-10 22:49:09,256 | WARN  | Exception thrown from LifecycleProcessor on context "
        "close | org.apache.activemq.xbean.XBeanBrokerFactory$1 | main",
        "2018-03-10 23:06:36,253 | INFO  | No Spring WebApplicationInitializer types | /admin | "
        "WrapperSimpleAppMain",
        "2018-03-10 23:06:37,000 | ERROR | a | b | c | org.eclipse.jetty.http.HttpParser | qtp-1",
        "05 Nov 2017 08:24:47,534 WARN  [conf-file-poller-0] (org.apache.flume.node."
        "AbstractConfigurationProvider.getConfiguration:135)  - No configuration found for a1",
        "05 Nov 2017 08:24:47,518 INFO  [conf-file-poller-0] (org.apache.flume.conf."
        "FlumeConfiguration$AgentConfiguration.addProperty:1016)  - Processing:loggerSink",
    ]
    got = parse_app(LOG4J, pl.Series("line", lines))
    assert got["level"].to_list() == ["WARN", "INFO", "ERROR", "WARN", "INFO"]
    assert got["component"].to_list() == [
        "org.apache.activemq.xbean.XBeanBrokerFactory$1",
        "/admin",
        "org.eclipse.jetty.http.HttpParser",
        "org.apache.flume.node.AbstractConfigurationProvider",
        "org.apache.flume.conf.FlumeConfiguration$AgentConfiguration",
    ]
    assert got["message"][2] == "a | b | c"
    assert got["time"][3] is not None and got["time"][3].year == 2017
    from logagent.formats.detect import detect_all

    assert detect_all(lines[:3] * 4).best == "log4j"
    assert detect_all(lines[3:] * 4).best == "log4j"


def test_level_on_an_access_question_is_said_to_do_nothing(tmp_path: Path) -> None:
    """Probe R: ``--level warn`` on an access log answered the 5xx question without a word."""
    sample = Path(__file__).parents[2] / "sample_logs" / "nginx_access.log"
    said = _run(sample, "--level", "warn")
    assert said["question"]["kind"] == "top-errors"
    assert any("--level" in w and "ignores it" in w for w in said["warnings"])
    unsaid = _run(sample)
    assert not any("--level" in w for w in unsaid["warnings"])
