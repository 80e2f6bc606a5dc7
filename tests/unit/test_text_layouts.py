"""logrus's terminal output and Asterisk's log (``formats.textlogs``), from real logs of
probe Q: a ChirpStack network server's (logrus) was refused as no known format; an Asterisk
``messages`` log read as syslog had 46 of 48 lines malformed and was "exact" ERROR 1 (a
NOTICE holding "failed") where it holds NOTICE, SECURITY and WARNING records."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.textlogs import ASTERISK, LOGRUS_TEXT, RABBITMQ_LEGACY

LOGRUS = [
    "INFO[0000] starting ChirpStack Network Server            band=AS_923 version=3.16.1",
    "INFO[0000] storage: setting up storage module",
    "WARN[0003] uplink received by unknown gateway             gateway_id=b827ebfffe",
    'ERRO[0004] gateway: handle stats error                    error="object does not exist"',
    "FATA[2021-01-02T03:04:05+01:00] stopping chirpstack-network-server",
    "DEBU[0005] gateway: stats received",
]
ASTERISK_LINES = [
    "[2012-02-13 17:21:54] NOTICE[1638] chan_sip.c: Registration from '<sip:301@example.com>' "
    "failed for '1.2.3.4' - Wrong password",
    '[2013-11-11 14:33:38] WARNING[6756][C-0000001d] Ext. s: "Rejecting unknown SIP connection"',
    '[2013-06-28 10:01:30] SECURITY[1204] res_security_log.c: SecurityEvent="InvalidAccountID",'
    'Service="SIP"',
    "[Jan 18 17:39:50] NOTICE[12049]: res_pjsip_session.c:2337 new_invite: Call from 'anonymous'",
    "[2016-08-19 11:11:26] NOTICE[12931]: chan_sip.c:28468 handle_request_register: Registration",
    "[2016-06-09 00:01:02] ERROR [22382] manager.c: 192.0.2.1 failed to authenticate as 'admin'",
    "[2019-03-01 12:00:00.123] VERBOSE[2050][C-00000001] pbx.c: Executing [s@default:1] Answer",
]


def test_logrus_text() -> None:
    got = parse_app(LOGRUS_TEXT, pl.Series("line", LOGRUS))
    assert got["level"].to_list() == ["INFO", "INFO", "WARN", "ERROR", "FATAL", "DEBUG"]
    assert got["message"][2].startswith("uplink received by unknown gateway")
    assert got["time"].is_null().to_list() == [True, True, True, True, False, True]
    assert detect_all(LOGRUS * 3).best == "logrus_text"


def test_asterisk() -> None:
    got = parse_app(ASTERISK, pl.Series("line", ASTERISK_LINES))
    assert got["level"].to_list() == ["INFO", "WARN", "WARN", "INFO", "INFO", "ERROR", "INFO"]
    assert got["component"].to_list() == [
        "chan_sip.c",
        "Ext. s",
        "res_security_log.c",
        "res_pjsip_session.c",
        "chan_sip.c",
        "manager.c",
        "pbx.c",
    ]
    assert got["message"][4] == "Registration"
    assert got["time"].is_null().to_list() == [False, False, False, True, False, False, False]
    assert detect_all(ASTERISK_LINES * 3).best == "asterisk"


def _run(log: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off", *args])
    return json.loads(out.output)


def test_an_asterisk_log_is_no_syslog(tmp_path: Path) -> None:
    log = tmp_path / "messages"
    log.write_text("\n".join(ASTERISK_LINES * 4) + "\n")
    got = _run(log, "--level", "warn", "--full")
    assert got["input"]["format"] == "asterisk"
    top = {t["key"]: t["count"] for t in got["answer"]["top"]}
    assert top == {"Ext. s": 4, "res_security_log.c": 4, "manager.c": 4}


def test_a_logrus_log_after_a_shell_prompt(tmp_path: Path) -> None:
    """The prompt lines before the first record are no records (and not malformed)."""
    log = tmp_path / "ns.log"
    log.write_text("\n".join(["pi@raspberrypi:~ $ sudo chirpstack-network-server", *LOGRUS * 4]))
    got = _run(log, "-q", "status", "--full")
    assert got["input"]["format"] == "logrus_text"
    top = {t["key"]: t["count"] for t in got["answer"]["top"]}
    assert top == {"INFO": 8, "WARN": 4, "ERROR": 4, "FATAL": 4, "DEBUG": 4}
    assert got["progress"]["malformed_lines"] == 0


RABBIT = [
    "=INFO REPORT==== 22-Mar-2021::12:19:07 ===",
    "accepting AMQP connection <0.26296.60> (52.29.119.55:48059 -> 10.84.5.201:5672)",
    "",
    "=WARNING REPORT==== 22-Mar-2021::12:19:14 ===",
    "closing AMQP connection <0.26296.60> (52.29.119.55:48059 -> 10.84.5.201:5672):",
    "connection_closed_abruptly",
    "",
    "=CRASH REPORT==== 2-Apr-2021::01:02:03 ===",
    "  crasher:",
    "    initial call: rabbit_reader:init/2",
    "",
]


def test_rabbitmq_before_3_9(tmp_path: Path) -> None:
    """Probe R: its reports were refused; their message lines continue them."""
    got = parse_app(RABBITMQ_LEGACY, pl.Series("line", RABBIT[:1] + RABBIT[3:4] + RABBIT[7:8]))
    assert got["level"].to_list() == ["INFO", "WARN", "ERROR"]
    assert got["time"].dt.day().to_list() == [22, 22, 2]
    log = tmp_path / "rabbit@host.log"
    log.write_text("\n".join(RABBIT * 5) + "\n")
    got = _run(log, "-q", "status", "--full")
    assert got["input"]["format"] == "rabbitmq_legacy"
    assert {t["key"]: t["count"] for t in got["answer"]["top"]} == {
        "INFO": 5,
        "WARN": 5,
        "ERROR": 5,
    }
    assert got["progress"]["malformed_lines"] == 0


def test_one_old_report_does_not_take_a_newer_rabbitmq_log(tmp_path: Path) -> None:
    """A review: its message lines were any line, so RabbitMQ 3.7's dated lines after one old
    report were "part of it": detection scored it 1.0 and the 10 errors were one record."""
    newer = [
        f"2021-03-22 12:19:{i:02d}.000 [{'error' if i < 10 else 'info'}] <0.{i}.0> accepting AMQP"
        for i in range(60)
    ]
    assert detect_all([*RABBIT[:3], *newer]).best != "rabbitmq_legacy"
