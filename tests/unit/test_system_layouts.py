"""The Linux audit log (``auditd``), from real logs of probe L.

Read as logfmt, a RHEL audit log (decareano/php_aws ``var/log/audit/audit.log``) had 161 of
431 lines malformed (user-space records with ``msg='...'`` in single quotes, ``auditd start,``
bare words), and no record had a level or a component: every level question recused.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
from click.testing import CliRunner

from logagent.cli import main
from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.systemlogs import AUDITD

AUDIT = [
    "type=DAEMON_START msg=audit(1480339148.979:8587): auditd start, ver=2.2 format=raw "
    "kernel=2.6.32-431.el6.x86_64 auid=4294967295 pid=888 subj=system_u:system_r:auditd_t:s0 "
    "res=success",
    "type=CONFIG_CHANGE msg=audit(1480339149.091:4): audit_backlog_limit=320 old=64 "
    "auid=4294967295 ses=4294967295 subj=system_u:system_r:auditctl_t:s0 res=1",
    "type=USER_AUTH msg=audit(1480339182.240:5): user pid=7124 uid=0 auid=4294967295 "
    "ses=4294967295 subj=system_u:system_r:local_login_t:s0-s0:c0.c1023 "
    'msg=\'op=PAM:authentication acct="root" exe="/bin/login" hostname=? addr=? '
    "terminal=tty1 res=failed'",
    "type=LOGIN msg=audit(1480339182.244:7): pid=7124 uid=0 "
    "subj=system_u:system_r:local_login_t:s0-s0:c0.c1023 old auid=4294967295 new auid=0 "
    "old ses=4294967295 new ses=1",
    "type=AVC msg=audit(1550015492.576:237): avc:  denied  { write } for  pid=18207 "
    'comm="httpd" name="cache" dev="xvda1" ino=1138455 '
    "scontext=system_u:system_r:httpd_t:s0 tcontext=unconfined_u:object_r:httpd_t:s0 "
    "tclass=dir permissive=0",
    "type=SYSCALL msg=audit(1550015492.576:237): arch=c000003e syscall=2 success=no exit=-13 "
    'a0=55d0 items=0 ppid=1 pid=18207 auid=4294967295 uid=48 comm="httpd" '
    'exe="/usr/sbin/httpd" key=(null)',
    "type=PROCTITLE msg=audit(1550015492.576:237): proctitle=2F7573722F7362696E2F6874747064",
    "node=web1 type=USER_LOGIN msg=audit(1550015500.001:240): pid=1 uid=0 auid=1000 ses=3 "
    'msg=\'op=login acct="deploy" exe="/usr/sbin/sshd" hostname=10.0.0.9 addr=10.0.0.9 '
    "terminal=ssh res=success'",
    "type=CONFIG_CHANGE msg=audit(1550015501.002:241): auid=0 ses=3 op=add_rule key=x list=4 res=0",
    "type=SYSCALL msg=audit(11/28/2016 13:19:08.979:8587) : arch=x86_64 syscall=open "
    "success=yes exit=3 a0=0x7ffd items=1 ppid=1 pid=900 auid=unset uid=root comm=cat",
]
LEVELS = ["INFO", "INFO", "ERROR", None, "ERROR", "ERROR", None, "INFO", "ERROR", "INFO"]
TYPES = [
    "DAEMON_START",
    "CONFIG_CHANGE",
    "USER_AUTH",
    "LOGIN",
    "AVC",
    "SYSCALL",
    "PROCTITLE",
    "USER_LOGIN",
    "CONFIG_CHANGE",
    "SYSCALL",
]


def test_audit_records_types_outcomes_and_times() -> None:
    got = parse_app(AUDITD, pl.Series("line", AUDIT))
    assert got["component"].to_list() == TYPES
    assert got["level"].to_list() == LEVELS
    times = got["time"].to_list()
    assert times[0] == datetime(2016, 11, 28, 13, 19, 8, tzinfo=UTC)  # the epoch is UTC
    assert times[-1] == datetime(2016, 11, 28, 13, 19, 8, tzinfo=UTC)  # ausearch -i's date
    assert got["message"].null_count() == 0  # every line a record
    assert got["message"][0].startswith("auditd start, ver=2.2")


def test_anomalies_are_errors_and_ausearch_separators_fold() -> None:
    from logagent.formats.records import fold_records

    lines = [
        "----",
        "time->Mon Nov 28 13:19:08 2016",
        'type=ANOM_ABEND msg=audit(1480339182.240:9): auid=0 uid=0 ses=1 pid=900 comm="app" '
        'reason="memory violation" sig=11 res=1',
        "----",
        "time->Mon Nov 28 13:19:09 2016",
        AUDIT[2],
    ]
    assert detect_all(lines * 4).best == "auditd" and detect_all(lines * 4).confidence == 1.0
    folded = fold_records(pl.Series("line", lines), AUDITD).filter(pl.col("start"))
    assert folded["level"].to_list() == ["ERROR", "ERROR"]
    assert folded["component"].to_list() == ["ANOM_ABEND", "USER_AUTH"]


def test_the_first_outcome_counts_and_words_are_whole() -> None:
    """``res=`` inside another value's text is not read where a word runs on (``xres=``,
    ``success=yesterday``); the first outcome of the record is its level."""
    lines = [
        'type=USER_CMD msg=audit(1480339182.240:9): pid=1 uid=0 msg=\'cwd="/" '
        "cmd=6C73 xres=failed terminal=pts/0 res=success'",
        "type=USER_ERR msg=audit(1480339182.240:10): pid=1 uid=0 msg='op=PAM:bad_ident "
        "success=yesterday res=failed'",
    ]
    got = parse_app(AUDITD, pl.Series("line", lines))
    assert got["level"].to_list() == ["INFO", "ERROR"]


def test_detection_prefers_auditd_to_logfmt() -> None:
    found = detect_all(AUDIT * 3)
    assert found.best == "auditd" and found.confidence == 1.0
    # kernel records alone are logfmt too: the tie goes to the more specific layout
    kernel = [AUDIT[i] for i in (1, 5, 6, 8)]
    tied = detect_all(kernel * 4)
    assert tied.best == "auditd" and tied.scores[1] == ("logfmt", 1.0)
    assert not tied.ambiguous  # an expected tie, not two layouts the run cannot tell apart


def test_cli_ranks_failing_record_types(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    log.write_text("\n".join(AUDIT * 50) + "\n")
    out = CliRunner().invoke(main, ["analyze", str(log), "--json", "--llm", "off"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.output)
    assert got["input"]["format"] == "auditd" and got["status"] == "exact"
    top = {row["key"]: row["count"] for row in got["answer"]["top"]}
    assert top == {"CONFIG_CHANGE": 50, "USER_AUTH": 50, "AVC": 50, "SYSCALL": 50}
    assert got["progress"]["malformed_lines"] == 0


FAIL2BAN_LINES = [
    "2021-11-25 08:27:05,435 fail2ban.filter         [18937]: INFO    [sshd] Found "
    "203.228.100.41 - 2021-11-25 08:27:05",
    "2021-11-25 08:27:07,942 fail2ban.actions        [18937]: NOTICE  [sshd] Ban 203.228.100.41",
    "2014-10-12 07:35:02,876 fail2ban.server : INFO   Changed logging target to "
    "/var/log/fail2ban.log for Fail2ban v0.8.6",
    "2014-10-12 12:58:56,964 fail2ban.actions: WARNING [ssh] Ban 122.225.97.85",
    "2025-10-21 11:43:19,641 fail2ban.server         [3062]: HEAVYDEBUG  Command: ['ping']",
    "2025-10-21 11:43:20,000 fail2ban.transmitter    [3062]: ERROR   Command ['start'] failed",
]


def test_fail2ban_loggers_levels_and_jails() -> None:
    from logagent.formats.fieldsets import getter
    from logagent.formats.systemlogs import FAIL2BAN

    assert detect_all(FAIL2BAN_LINES * 3).best == "fail2ban"
    got = parse_app(FAIL2BAN, pl.Series("line", FAIL2BAN_LINES))
    assert got["level"].to_list() == ["INFO", "INFO", "INFO", "WARN", "DEBUG", "ERROR"]
    assert got["component"].to_list() == [
        "fail2ban.filter",
        "fail2ban.actions",
        "fail2ban.server",
        "fail2ban.actions",
        "fail2ban.server",
        "fail2ban.transmitter",
    ]
    assert got["message"][1] == "Ban 203.228.100.41"
    jails = pl.DataFrame({"line": FAIL2BAN_LINES}).select(
        getter(FAIL2BAN, "jail", {}, pl.col("line"))
    )
    assert jails.to_series().to_list() == ["sshd", "sshd", None, "ssh", None, None]
