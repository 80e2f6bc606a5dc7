"""The level of a line that writes none (syslog without ``<PRI>``, Thunderbird, a JSON layout
reading its message): a level the message starts with wins over its words; counts of none
(``errors=0``) are no error. Lines from real logs (a probe of logpai/loghub and ossec-hids'
``etc/rules/log-entries``): ganglia's ``Warning:`` lines were 35 of Thunderbird's 45 "errors"
and its top error component."""

from __future__ import annotations

import polars as pl
import pytest

from logagent.formats.applogs import syslog3164
from logagent.formats.levels import level_from_message
from tests.real_reference import message_level

CASES = [
    # loghub Thunderbird_2k: ganglia's gmetad
    ("Warning: we failed to resolve data source name tbird-sm1", "WARN"),
    # loghub Mac_2k: Dropbox's Chromium-style log line
    ("[0701/114930:WARNING:dns_config_service_posix.cc(306)] Failed to read DnsConfig.", "WARN"),
    # ossec proftpd.log
    ("warning: can't verify hostname: gethostbyname(designstudio) failed", "WARN"),
    # loghub Mac_2k: GoogleSoftwareUpdateAgent's state dump
    ("processor=<KSActionProcessor:0x1> isProcessing=NO errors=0 currentActionErrors=0", "INFO"),
    ("Sync done: 0 errors, no failures", "INFO"),
    ("failures: 0, retries: 2", "INFO"),
    # systemd, a Rocky Linux journal (probe P): a unit not needed here is no failure
    (
        "Load AppArmor profiles was skipped because of a failed condition check "
        "(ConditionSecurity=apparmor).",
        "INFO",
    ),
    ("Failed to start Load AppArmor profiles.", "ERROR"),
    ("Repartition Root Disk was skipped because all trigger condition checks failed.", "INFO"),
    ("Errors: 3 found in the index", "ERROR"),  # a count of some; "Errors:" is no tag
    ("connect() failed (111: Connection refused)", "ERROR"),
    ("ERROR:root:could not open the socket", "ERROR"),  # Python's basicConfig
    ("[error] client denied by server configuration", "ERROR"),
    ("<info>  [1499] device (eth0): state change: failed -> disconnected", "INFO"),
    ("(notice) job failed, retrying", "INFO"),
    ("fatal: not a git repository", "FATAL"),
    ("kernel panic - not syncing", "FATAL"),
    ("session opened for user root", "INFO"),
    ("disk almost full, warning threshold reached", "WARN"),
    # no tag (a word ends no bracket), and no level word: a hyphenated word is one word (a
    # job named error-cleanup; kubelet's --fail-swap-on flag had been an ERROR, probe L)
    ("[error-cleanup] started", "INFO"),
    ('FLAG: --fail-swap-on="true"', "INFO"),
    ("non-fatal: retry scheduled", "INFO"),
    ("non-fatal error, retrying", "ERROR"),
    # ... but the last word of a hyphenated one is a word (a review)
    ("read-error on socket 7", "ERROR"),
    ("upstream-error: connect timed out", "ERROR"),
    ("Device: /dev/sda, ATA-error count increased from 3 to 4", "ERROR"),
    # klog's letter opening the message (a kubelet in a journal, probe L)
    ('E0512 04:54:38.885907    2473 kubelet.go:2359] "Skipping pod synchronization"', "ERROR"),
    ('I0512 04:54:38.461366    2473 prober.go:107] "Probe failed" probeType="Liveness"', "INFO"),
    ("W0512 04:54:39.000001    2473 x.go:1] slow", "WARN"),
    ("errors=2 processed=10", "ERROR"),
    # Windows Update's counts, blanks around "=" (probe U); a code 0x... is no count
    ("Download call complete (succeeded = 1, succeeded with errors = 0, failed = 0)", "INFO"),
    ("Install call failed = 0x80240022", "ERROR"),
    ("WU client calls back to download call {1} with code Call progress and error 0", "INFO"),
    ("Install failed with error 0x80240022", "ERROR"),
    # counters of none only: these are failures (a review)
    ("Connection failed: 0 bytes received", "ERROR"),
    ("request failed: 0", "ERROR"),
    ("Login failed: 0 attempts left, account locked", "ERROR"),
    ("errors: 0, warnings: 3", "INFO"),
    ("[x:y:info] connection failed", "INFO"),  # a tag after two colons in the bracket
    ("[a b:info] x failed", "ERROR"),  # a blank before the colon: no Chromium bracket
    # an address or URL names no failure (kdent/postfix_log_analysis' mail logs, probe H)
    ("3B2C1: from=<High.Power.Emergency.Flashlight@ftsmt.top>, size=1234, nrcpt=1", "INFO"),
    ("7F0A2: from=<Heart-Attack-Warning@vixds.pw>, size=99, nrcpt=1 (queue active)", "INFO"),
    ("GET https://example.org/error/failed.html", "INFO"),
    ("delivery to bob@example.org failed: mailbox full", "ERROR"),  # a word outside them
    ("fatal: open database /etc/postfix/x.db: No such file or directory", "FATAL"),
    # routine lines of every Linux boot, ACPI, sensors and D-Bus (probe S: a kern.log's 22
    # ERROR records and three logs' FATAL ones were all such lines)
    ("[    2.881388] RAS: Correctable Errors collector initialized.", "INFO"),
    ("[    7.159329] EXT4-fs (sda6): re-mounted. Opts: errors=remount-ro", "INFO"),
    ("pcieport 0000:00:1c.6: DPC: error containment capabilities: Int Msg #0, RPExt+", "INFO"),
    ("i915 0000:00:02.0: registered panic notifier", "INFO"),
    ("ACPI Exception: AE_NOT_FOUND, No or invalid critical threshold (20090903/thermal)", "INFO"),
    ("                      (emerg = +135.0°C, hyst =  +5.0°C)", "INFO"),
    (
        '[system] Rejected send message, 1 matched rules; type="error", sender=":1.35" '
        'interface="(unset)" member="(unset)" error name="(unset)" requested_reply="0"',
        "INFO",
    ),
    # ... which leave the same words elsewhere alone
    ("EXT4-fs error (device sda6): ext4_find_entry: reading directory", "ERROR"),
    ("Kernel panic - not syncing: Fatal exception", "FATAL"),
    ("critical temperature reached (105 C), shutting down", "FATAL"),
    ("PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer", "FATAL"),
    # GLib's own level marker wins over its words (probe S: GNOME's warnings were errors)
    ("(gnome-software:33880): Gs-WARNING **: Failed to create permission", "WARN"),
    ("** (process:33664): WARNING **: Failed to register client: GDBus.Error", "WARN"),
    ("(process:33884): indicator-application-service-WARNING **: Name Lost", "WARN"),
    ("GLib-GIO-CRITICAL **: g_dbus_proxy_get_object_path: assertion failed", "ERROR"),
    ("(nautilus:2211): GLib-ERROR **: out of memory", "FATAL"),
    ("(gedit:9): Gtk-Message **: Failed to load module", "INFO"),
    ("(Web Content:4242): Gtk-CRITICAL **: gtk_widget_get_scale_factor: assertion", "ERROR"),
    # a review: the same words in other messages are failures
    ("Device: /dev/sda [SAT], Temperature above critical threshold", "FATAL"),
    ("ACPI: Critical trip point reached, shutting down", "FATAL"),
    ('<result type="error">payment gateway unreachable</result>', "ERROR"),
]


@pytest.mark.parametrize(("message", "want"), CASES)
def test_a_level_named_first_wins_and_counts_of_none_are_no_error(message: str, want: str) -> None:
    got = pl.select(level_from_message(pl.lit(message))).item()
    assert got == want
    assert message_level(message) == want  # the independent reference reads it so too


def test_syslog_lines_take_those_levels() -> None:
    """Through the syslog layout's parse: the level follows the message's tag."""
    lines = [
        "Nov  9 12:01:01 tbird-admin1 gmetad[1682]: Warning: we failed to resolve data source",
        "Jun  2 15:07:14 host proftpd[458]: warning: can't verify hostname: x failed",
        "Jun  2 15:07:15 host proftpd[458]: connect failed",
        # a tag in brackets (Elastic Beanstalk's; probe L: such lines had been malformed)
        "Aug 16 10:05:57 ip-172-31-17-26 [eb-cfn-init]: 2020-08-16 10:05:34,500 [ERROR] Timeout",
    ]
    fields = syslog3164().fields(pl.col("line"))
    got = pl.DataFrame({"line": lines}).select(
        fields["level"].alias("l"), fields["component"].alias("c")
    )
    assert got["l"].to_list() == ["WARN", "WARN", "ERROR", "ERROR"]
    assert got["c"].to_list() == ["gmetad", "proftpd", "proftpd", "eb-cfn-init"]


def test_proftpd_names_its_host_between_its_pid_and_the_colon() -> None:
    """ProFTPD 1.2 writes ``proftpd[25557] host (ip[ip]): message``: 11 of the 40 records of
    ossec-hids' ProFTPD entries were malformed, their failed logins lost."""
    lines = [
        "May 21 20:22:44 slacker proftpd[25557] slacker.lab.ossec.net (192.168.2.10"
        "[192.168.2.10]): USER dcid (Login failed): Incorrect password.",
        "May 21 20:20:44 slacker proftpd[25526] slacker.lab.ossec.net: ProFTPD 1.2.10 STARTUP",
    ]
    fields = syslog3164().fields(pl.col("line"))
    got = pl.DataFrame({"line": lines}).select(
        fields["component"].alias("c"), fields["level"].alias("l")
    )
    assert got.rows() == [("proftpd", "ERROR"), ("proftpd", "INFO")]
