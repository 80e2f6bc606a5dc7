"""Built-in layouts of daemons' logs (PURE): Suricata's and Snort's fast.log alerts, OpenVPN,
strongSwan's charon, Mosquitto, Windows Update, MongoDB 2.x and SQL Server's ERRORLOG (with
--format generic, 250 of its 273 records had been malformed, the answer "exact"); and the
loghub datasets no other layout read (HealthApp, Proxifier, HPC: refused, or HPC's lines
malformed under generic).

Probe U found each refused as no known format, or worse: generic read "ET INFO" in a fast.log
alert's signature as the level of 233 alerts and left the other 93 malformed, "exact". An
alert's level is its priority (1 ERROR, 2 WARN); the daemons that write no level have theirs
read from the message (``levels.level_from_message``: their ``Error:``/``WARNING:`` tags, else
its words). charon's and MongoDB 2.4's stamps have no year: placed as syslog's (``year``).
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.apptimes import DAY, HMS, YEAR, YearOf

#: An alert's priority (Suricata and Snort: 1 the highest): 1 is an error, 2 a warning.
_ALERT_PRIORITIES = (("1", "ERROR"), ("2", "WARN"), ("3", "INFO"), ("4", "INFO"), ("0", "INFO"))
FAST_ALERTS = AppRegexFormat(
    name="fast_alerts",
    patterns=(
        # Suricata's stamp has a year, Snort's (MM/DD-time) none: its alerts have no time
        r"^(?P<ts>[0-9]{2}/[0-9]{2}/[0-9]{4}-"
        + HMS
        + r"\.[0-9]+|[0-9]{2}/[0-9]{2}-"
        + HMS
        + r"\.[0-9]+) +\[\*\*\] \[[0-9]+:[0-9]+:[0-9]+\] (?P<component>.*?) \[\*\*\] "
        r"(?:\[Classification: [^\]]*\] )?\[Priority: (?P<level>[0-9]+)\] (?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=("%m/%d/%Y-%H:%M:%S%.f",),
    level_map=_ALERT_PRIORITIES,
    record_start=r"[0-9]{2}/[0-9]{2}(?:/[0-9]{4})?-",
    description="Suricata's and Snort's fast.log alerts: component = signature; priority 1 is "
    "ERROR, 2 WARN, 3-4 INFO",
    example="03/02/2025-16:05:10.697055  [**] [1:2001219:20] ET SCAN Potential SSH Scan [**] "
    "[Classification: Attempted Information Leak] [Priority: 2] {TCP} 10.0.0.5:4022 -> 10.0.0.1:22",
)

#: A level written as a column (upper case, then a blank): the logs of the layouts below that
#: read levels from words write none, so a log that does is another layout's (a review: such
#: logs had been read with their level ignored and glued into the component).
_LEVEL_COLUMN = "(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)"
#: A ctime stamp (``Wed Dec 27 01:48:22 2017``).
_CTIME = rf"[A-Z][a-z]{{2}} [A-Z][a-z]{{2}} [ 0-9][0-9] {HMS} [0-9]{{4}}"
OPENVPN = AppRegexFormat(
    name="openvpn",
    patterns=(
        # verb 5 writes a packet's R/W marks before the stamp of the next line
        rf"^[RWrw]*(?P<ts>{_CTIME})(?: us=[0-9]+)? (?P<message>.*)$",
    ),
    min_line_bytes=26,
    time_formats=("%a %b %e %H:%M:%S %Y",),
    record_start=rf"[RWrw]*{_CTIME} ",
    level_words=True,
    head_component=True,
    # a log with a level column after the stamp (its level is no word to guess from) and
    # vsftpd's "[pid 1234]" are no OpenVPN logs (a review)
    ruled_out_by=rf"{_CTIME} (?:{_LEVEL_COLUMN} |\[pid [0-9]+\])",
    description="OpenVPN's log (ctime [us=N] msg): levels from its WARNING:/ERROR: tags and "
    "words; component = error kind",
    example="Wed Dec 27 01:48:22 2017 us=445895 TLS Error: TLS handshake failed",
)


def charon(year: YearOf = None) -> AppRegexFormat:
    """strongSwan's charon filelog (``17 Aug 04:14:35 02[IKE] msg``: its default stamp has no
    year, placed by ``year``); component = the subsystem (IKE, CFG, KNL, ENC, NET, JOB...)."""
    stamp = rf"[0-9]{{2}} [A-Z][a-z]{{2}} {HMS}|[A-Z][a-z]{{2}} [ 0-9][0-9] {HMS}"
    return AppRegexFormat(
        name="charon",
        patterns=(
            rf"^(?P<ts>{stamp}) [0-9]{{2}}\[(?P<component>[A-Z]{{2,4}})\] "
            r"(?:<[^>]*> )?(?P<message>.*)$",
        ),
        min_line_bytes=24,
        time_formats=(f"{YEAR} %d %b %H:%M:%S", f"{YEAR} %b %d %H:%M:%S"),
        year=year,
        record_start=rf"(?:{stamp}) [0-9]{{2}}\[",
        level_words=True,
        description="strongSwan's charon log (ts NN[SUBSYS] msg): component = subsystem; "
        "levels from the message's words",
        example="17 Aug 04:14:35 11[IKE] received AUTHENTICATION_FAILED notify error",
    )


MOSQUITTO = AppRegexFormat(
    name="mosquitto",
    patterns=(rf"^(?P<ts>[0-9]{{10}}|{DAY}T{HMS}): (?P<message>.*)$",),
    min_line_bytes=13,
    time_formats=("%s", "%Y-%m-%dT%H:%M:%S"),
    record_start=rf"(?:[0-9]{{10}}|{DAY}T{HMS}): ",
    level_words=True,
    head_component=True,
    ruled_out_by=rf"(?:[0-9]{{10}}|{DAY}T{HMS}): {_LEVEL_COLUMN}[ :]",  # Mosquitto's: "Error:"
    description="Mosquitto's log (epoch or ISO stamp: msg): levels from its Error:/Warning: "
    "tags and words; component = error kind",
    example="1640062719: Error: Address already in use",
)

WINDOWS_UPDATE = AppRegexFormat(
    name="windows_update",
    patterns=(
        # Get-WindowsUpdateLog (Windows 10+): ts(7 digits) pid tid component msg
        # (its 7-digit fraction and a named agent: logcat -v year's "pid tid I" and TeamViewer's
        # "pid tid S0!!" are no Windows Update lines, a review)
        rf"^(?P<ts>[0-9]{{4}}[-/][0-9]{{2}}[-/][0-9]{{2}} {HMS}\.[0-9]{{7}}) +[0-9]+ +[0-9]+ +"
        r"(?P<component>[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*) +(?P<message>.*)$",
        # Windows 7's WindowsUpdate.log: date, time:ms, pid, tid (hex), component, tabs
        rf"^(?P<ts>{DAY}\t{HMS}):[0-9]{{3}}\t *[0-9]+\t[0-9a-fA-F]+\t(?P<component>[A-Za-z]+)"
        r"\t(?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=("%Y-%m-%d %H:%M:%S%.f", "%Y/%m/%d %H:%M:%S%.f", "%Y-%m-%d %H:%M:%S"),
    record_start=rf"[0-9]{{4}}[-/][0-9]{{2}}[-/][0-9]{{2}}[ \t]{HMS}",
    level_words=True,
    description="Windows Update's log (WindowsUpdate.log, Get-WindowsUpdateLog): component = "
    "its agent (DownloadManager, Agent, ...); levels from the message's words",
    example="2024-04-11 12:48:04.6269606 1980  8444  Agent           * WARNING: Exit code = "
    "0x80240022",
)


def mongodb_legacy(year: YearOf = None) -> AppRegexFormat:
    """MongoDB 2.4 (``Tue May 20 19:07:39.959 [conn12] msg``, no year: placed by ``year``) and
    2.6 (``2014-04-09T23:16:20.437-0400 [initandlisten] msg``): no severity, read from the
    message's words; component = the thread's name without its number (``conn``)."""
    thread = r" \[(?P<component>[A-Za-z_]*[a-z][A-Za-z_]*)[^\]]*\] (?P<message>.*)$"
    old = rf"[A-Z][a-z]{{2}} [ 0-9][0-9] {HMS}\.[0-9]{{3}}"
    iso = rf"{DAY}T{HMS}\.[0-9]{{3}}[+-][0-9]{{4}}"
    return AppRegexFormat(
        name="mongodb_legacy",
        patterns=(rf"^(?P<ts>{iso})" + thread, rf"^[A-Z][a-z]{{2}} (?P<ts>{old})" + thread),
        min_line_bytes=30,
        time_formats=("%Y-%m-%dT%H:%M:%S%.f%z", f"{YEAR} %b %d %H:%M:%S%.f"),
        year=year,
        record_start=rf"{iso} \[|[A-Z][a-z]{{2}} {old} \[",
        level_words=True,
        # hclog's "[INFO]" is no thread, and logback's "[thread] LEVEL logger" writes its level
        # (a review: Vault's and Consul's logs and logback's had been read so)
        ruled_out_by=rf"(?:{iso}|[A-Z][a-z]{{2}} {old}) \[(?:[^\]]*\] +{_LEVEL_COLUMN} |"
        rf"{_LEVEL_COLUMN}\])",
        description="MongoDB 2.4 and 2.6 text log (ts [thread] msg): component = thread name; "
        "levels from the message's words",
        example="2014-04-09T23:16:20.437-0400 [conn12] assertion 13 not authorized on admin",
    )


#: loghub's logs of a kind no other layout reads (logpai/loghub's HealthApp, Proxifier, HPC).
HEALTHAPP = AppRegexFormat(
    name="healthapp",
    patterns=(
        r"^(?P<ts>[0-9]{8}-" + HMS + r":[0-9]{3})\|(?P<component>[^|]*[a-z][^|]*)\|[0-9]+\|"
        r"(?P<message>.*)$",
    ),
    min_line_bytes=26,
    time_formats=("%Y%m%d-%H:%M:%S:%3f",),
    level_words=True,
    description="Huawei's HealthApp (loghub: ts|component|pid|msg): component = its step "
    "counter's part; levels from the message's words",
    example="20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579",
)


def proxifier(year: YearOf = None) -> AppRegexFormat:
    """Proxifier's log (``[10.30 16:49:06] chrome.exe - host:port msg``, loghub): the stamp
    has no year (placed by ``year``); component = the program."""
    return AppRegexFormat(
        name="proxifier",
        patterns=(
            r"^\[(?P<ts>[0-9]{2}\.[0-9]{2} " + HMS + r")\] (?P<component>[^ ]*[a-z][^ ]*)"
            r"(?: \*64)? - "
            r"(?P<message>.*)$",
        ),
        min_line_bytes=22,
        time_formats=(f"{YEAR} %m.%d %H:%M:%S",),
        year=year,
        level_words=True,
        description="Proxifier (loghub: [MM.DD time] program - host:port msg): component = "
        "program; levels from the message's words",
        example="[10.30 16:49:07] chrome.exe - proxy.example.org:5070 error : Could not connect",
    )


HPC = AppRegexFormat(
    name="hpc",
    patterns=(
        r"^[0-9]+ (?P<node>[^ ]+) (?P<component>[^ ]+) [^ ]+ (?P<ts>[0-9]{10}) [0-9]+ "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=24,
    time_formats=("%s",),
    level_words=True,
    description="loghub's HPC cluster log (id node component state epoch flag msg): component "
    "= its component column; levels from the message's words",
    example="134683 node-128 action error 1077804742 1 halt (command 1523) Error: Bad exit code",
)


#: A SQL Server error's severity (0-25): 20 and up end the connection or the server (FATAL),
#: 11-19 are errors; up to 10, informational.
_MSSQL_SEVERITIES = tuple(
    (str(n), "FATAL" if n >= 20 else "ERROR" if n >= 11 else "INFO") for n in range(26)
)
#: SQL Server's sources (a review: any "ts.NN WORD msg" log had been read so, its levels lost).
_MSSQL_HEAD = (
    r"^(?P<ts>" + DAY + " " + HMS + r"\.[0-9]{2}) (?P<component>Server|Logon|Backup|spid)"
    r"(?:[0-9]+s?)? +"
)
MSSQL_ERRORLOG = AppRegexFormat(
    name="mssql_errorlog",
    patterns=(
        # the error's line names its severity; the message is on the line after it
        _MSSQL_HEAD + r"(?P<message>Error: [0-9]+, Severity: (?P<level>[0-9]+), State: .*)$",
        _MSSQL_HEAD + r"(?P<message>.*)$",
    ),
    min_line_bytes=24,
    time_formats=("%Y-%m-%d %H:%M:%S%.f",),
    level_map=_MSSQL_SEVERITIES,
    record_start=DAY + " " + HMS + r"\.[0-9]{2} ",
    description="SQL Server's ERRORLOG (ts source msg; UTF-16 read as text): an 'Error: N, "
    "Severity: S' line is ERROR (S 11-19) or FATAL (20+), the others name no level; component "
    "= source (Server, spid, Logon, Backup)",
    example="2025-06-01 09:32:40.25 Backup      Error: 3041, Severity: 16, State: 1.",
)
