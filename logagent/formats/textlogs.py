"""Built-in layouts of more text logs (PURE): logrus's terminal output, Asterisk's and
RabbitMQ's before 3.9; loguru, etcd's capnslog, the kernel's ring buffer (dmesg), Xorg,
Phusion Passenger, Squid's cache.log and npm's debug log (probes S and T: each refused as
no known format). More daemons' logs are in ``daemonlogs``.

* ``logrus_text``: logrus's ``TextFormatter`` writing to a terminal (colours or not), as
  ``docker logs`` and a service started by hand show it (ChirpStack, Docker's own CLI):
  ``ERRO[0012] msg   key=value``: the level's four letters (PANI FATA ERRO WARN INFO DEBU
  TRAC), then in brackets the seconds since start or, with ``FullTimestamp``, the stamp
  (read when it is RFC 3339). Component = the error kind (the message's head). Without a
  terminal logrus writes ``time=... level=... msg=...``, which ``logfmt`` reads. Refused as
  no known format before (probe Q: a ChirpStack log, 98 records).
* ``asterisk``: Asterisk's ``full``/``messages`` log, ``[2012-02-13 17:21:54]
  NOTICE[1638][C-00000001] chan_sip.c: msg``: the level and thread (a call id after it on
  newer versions), the source file the component. Its levels: ERROR, WARNING, NOTICE and
  VERBOSE (INFO), SECURITY (the security events, failed logins: WARN), DEBUG and DTMF
  (DEBUG). An older ``[Feb 13 17:21:54]`` stamp has no year: it gives no time. Read as
  syslog before (probe Q), 46 of 48 lines were malformed and a NOTICE with "failed" in it
  was its one "ERROR".
* ``rabbitmq_legacy``: RabbitMQ before 3.9, ``=WARNING REPORT==== 22-Mar-2021::12:19:14 ===``
  and the message on the lines below it, up to a blank line: the head is the record (level,
  time), its message lines continue it, so the record has no message of its own and ranks
  under ``-``. CRASH and SUPERVISOR reports are ERROR, PROGRESS ones INFO. Refused before
  (probe R: 106 INFO and 103 WARNING reports, their 312 message lines "malformed").
* ``loguru`` (``ts | LEVEL    | module:function:line - msg``), ``capnslog`` (``ts I |
  package: msg``), ``passenger`` (``[ N ts pid/T8 file.cpp:671 ]: msg``): their levels and
  components; ``xorg`` (``[  9.833] (WW) msg``) and ``dmesg`` (``[    0.000000] msg``, its
  ``-T`` and ``-x`` forms) stamp the time since boot, which is no time of day: only
  ``dmesg -T`` places its records. dmesg and ``squid_cache`` (``ts kid1| msg``) write no
  level (``dmesg -x`` does): it is read from the message (``levels.level_from_message``).
"""

from __future__ import annotations

import re

from logagent.formats.app import AppRegexFormat
from logagent.formats.apptimes import DAY, HMS

_LOGRUS_LEVELS = (
    ("PANI", "FATAL"),
    ("FATA", "FATAL"),
    ("ERRO", "ERROR"),
    ("WARN", "WARN"),
    ("INFO", "INFO"),
    ("DEBU", "DEBUG"),
    ("TRAC", "TRACE"),
)


def _words(levels: tuple[tuple[str, str], ...]) -> str:
    """A ``level_map``'s words as a regex alternation, for the layout's level group (escaped:
    Xorg's are marks such as ``**`` and ``??``)."""
    return "|".join(re.escape(word) for word, _ in levels)


_LOGRUS_LEVEL = _words(_LOGRUS_LEVELS)
LOGRUS_TEXT = AppRegexFormat(
    name="logrus_text",
    patterns=(rf"^(?P<level>{_LOGRUS_LEVEL})\[(?P<ts>[^\]]*)\] (?P<message>.*)$",),
    min_line_bytes=7,
    time_formats=("%Y-%m-%dT%H:%M:%S%.f%#z", "%Y-%m-%dT%H:%M:%S%#z"),
    level_map=_LOGRUS_LEVELS,
    record_start=rf"(?:{_LOGRUS_LEVEL})\[[^\]]*\] ",
    head_component=True,
    description="logrus text on a terminal (Docker, ChirpStack): ERRO WARN INFO ...; component "
    "= error kind",
    example="ERRO[0012] failed to connect to redis   error=timeout",
)

_ASTERISK_LEVELS = (
    ("ERROR", "ERROR"),
    ("WARNING", "WARN"),
    ("SECURITY", "WARN"),
    ("NOTICE", "INFO"),
    ("VERBOSE", "INFO"),
    ("DEBUG", "DEBUG"),
    ("DTMF", "DEBUG"),
)
_ASTERISK_LEVEL = _words(_ASTERISK_LEVELS)
_ASTERISK_STAMP = rf"(?:{DAY}|[A-Z][a-z]{{2}} [ 0-9][0-9]) {HMS}(?:\.[0-9]{{1,6}})?"
ASTERISK = AppRegexFormat(
    name="asterisk",
    patterns=(
        rf"^\[(?P<ts>{_ASTERISK_STAMP})\] (?P<level>{_ASTERISK_LEVEL}) ?\[[0-9]+\]"
        # "chan_sip.c:", "chan_sip.c:23417 in handle_request_register:", "file.c:2337 func:"
        # or the dialplan's Log() "Ext. s:"
        r"(?:\[[^\]]*\])?:? (?P<component>[^ :]+(?: [^ :]+)?):(?:[0-9]+(?: in)? [^ :]+:)? ?"
        r"(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S%.f",),
    level_map=_ASTERISK_LEVELS,
    record_start=rf"\[{_ASTERISK_STAMP}\] ",
    description="Asterisk full/messages log: component = source file; SECURITY is WARN, "
    "NOTICE and VERBOSE INFO",
    example="[2012-02-13 17:21:54] NOTICE[1638] chan_sip.c: Registration from '<sip:301@x>' "
    "failed for '1.2.3.4' - Wrong password",
)

_REPORTS = (
    ("INFO", "INFO"),
    ("WARNING", "WARN"),
    ("ERROR", "ERROR"),
    ("CRASH", "ERROR"),
    ("SUPERVISOR", "ERROR"),
    ("PROGRESS", "INFO"),
)
_REPORT = _words(_REPORTS)
_REPORT_STAMP = rf"[0-9]{{1,2}}-[A-Z][a-z]{{2}}-[0-9]{{4}}::{HMS}"
RABBITMQ_LEGACY = AppRegexFormat(
    name="rabbitmq_legacy",
    patterns=(rf"^=(?P<level>{_REPORT}) REPORT==== (?P<ts>{_REPORT_STAMP}) ===(?P<message>)$",),
    min_line_bytes=30,
    time_formats=("%d-%b-%Y::%H:%M:%S",),
    level_map=_REPORTS,
    record_start=r"=[A-Z]+ REPORT==== ",
    # a report's message: its lines up to the blank one after it (Erlang terms, "** ..."
    # lines, words); not a dated line, another layout's record (a review: RabbitMQ 3.7's
    # lines after one old report were "part of it", and detection scored it 1.0)
    continuation=r"[^=0-9]",
    description="RabbitMQ before 3.9 (=LEVEL REPORT==== head, message below): no component "
    "(-); CRASH and SUPERVISOR reports are ERROR",
    example="=WARNING REPORT==== 22-Mar-2021::12:19:14 ===",
)

#: loguru's levels (SUCCESS is its own, between INFO and WARNING).
_LOGURU_LEVELS = (
    ("TRACE", "TRACE"),
    ("DEBUG", "DEBUG"),
    ("INFO", "INFO"),
    ("SUCCESS", "INFO"),
    ("WARNING", "WARN"),
    ("ERROR", "ERROR"),
    ("CRITICAL", "FATAL"),
)
_LOGURU_STAMP = rf"{DAY} {HMS}(?:\.[0-9]{{1,6}})?"
LOGURU = AppRegexFormat(
    name="loguru",
    patterns=(
        rf"^(?P<ts>{_LOGURU_STAMP}) \| (?P<level>[A-Z]+) *\| "
        r"(?P<component>[^ :|]+:[^ :|]+):[0-9]+ - (?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S%.f",),
    level_map=_LOGURU_LEVELS,
    record_start=rf"{_LOGURU_STAMP} \| ",
    # its "diagnose" traceback marks the failing frame with "> File" and draws the values
    # under each line (indented, "│ └ <value>")
    continuation=r"> File |[│└]",
    description="Python loguru (ts | LEVEL | module:function:line - msg): component = "
    "module:function; its diagnose tracebacks folded",
    example="2023-08-21 22:59:38.123 | ERROR    | core.chat:chat:65 - no response from the server",
)

#: The letters of syslog's severities that capnslog and Passenger write: crit, error, warn,
#: notice, info, debug.
_SEVERITY_LETTERS = (
    ("C", "FATAL"),
    ("E", "ERROR"),
    ("W", "WARN"),
    ("N", "INFO"),
    ("I", "INFO"),
    ("D", "DEBUG"),
)
#: etcd's capnslog (etcd 3.3 and before, OpenShift 3/4.2): one letter a level, and the words
#: of the gRPC logger inside it.
_CAPNSLOG_LEVELS = (
    *_SEVERITY_LETTERS,
    ("T", "TRACE"),
    ("WARNING", "WARN"),
    ("ERROR", "ERROR"),
    ("INFO", "INFO"),
)
CAPNSLOG = AppRegexFormat(
    name="capnslog",
    patterns=(
        rf"^(?P<ts>{DAY} {HMS}\.[0-9]{{1,9}}) (?P<level>[CEWNIDT]) \| "
        r"(?:(?P<component>[A-Za-z0-9_./-]+): )?(?P<message>.*)$",
        # gRPC's own logger inside etcd: "WARNING: 2019/10/02 02:33:42 Failed to dial ..."
        rf"^(?P<level>WARNING|ERROR|INFO): (?P<ts>[0-9]{{4}}/[0-9]{{2}}/[0-9]{{2}} {HMS}) "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S%.f", "%Y/%m/%d %H:%M:%S"),
    level_map=_CAPNSLOG_LEVELS,
    record_start=rf"{DAY} {HMS}\.[0-9]+ [CEWNIDT] \| |(?:WARNING|ERROR|INFO): [0-9]{{4}}/",
    head_component=True,
    description="etcd's capnslog (ts L | package: msg): component = package; C is FATAL",
    example="2019-10-02 02:20:17.576248 E | rafthttp: failed to dial 8e9e05c52164694d",
)

#: Xorg's markers: probed, config, default, command line, notice, informational (INFO);
#: warning, not implemented (WARN); error (ERROR); unknown.
_XORG_LEVELS = (
    ("--", "INFO"),
    ("**", "INFO"),
    ("==", "INFO"),
    ("++", "INFO"),
    ("!!", "INFO"),
    ("II", "INFO"),
    ("??", "INFO"),
    ("WW", "WARN"),
    ("NI", "WARN"),
    ("EE", "ERROR"),
)
_XORG_MARK = _words(_XORG_LEVELS)
_UPTIME = r"\[ *[0-9]+\.[0-9]+\] "
XORG = AppRegexFormat(
    name="xorg",
    patterns=(
        rf"^{_UPTIME}\((?P<level>{_XORG_MARK})\) "
        r"(?:(?P<component>[A-Za-z][A-Za-z0-9_]*(?:\([0-9]+\))?): )?(?P<message>.*)$",
    ),
    min_line_bytes=12,
    level_map=_XORG_LEVELS,
    record_start=rf"{_UPTIME}\((?:{_XORG_MARK})\) ",
    head_component=True,
    # a line without a marker continues the record above (the server's banner, a module's
    # details), as the unstamped lines of its banner and markers' legend do: a dmesg line
    # (no marker) is then no record of Xorg's
    continuation=rf"{_UPTIME}|[A-Z][A-Za-z.]+ |Markers:",
    description="Xorg.0.log ([uptime] (EE) msg): (EE) ERROR, (WW) WARN; component = driver "
    "(NVIDIA(0)) or error kind; no calendar time",
    example="[    26.427] (EE) NVIDIA(0): Failed to initialize the NVIDIA kernel module",
)

#: Lines that say a log is no kernel ring buffer, though dmesg reads their shape: Xorg's
#: "[uptime] (WW) msg"; and, a review found, Apache 2.2's "[ctime] [error] msg" (-T's stamp),
#: PHP's built-in server's "[ctime] 127.0.0.1:44516 [500]: GET /", journalctl's
#: short-monotonic "[uptime] host prog[pid]: msg". (Not "[uptime] INFO: msg": the kernel's
#: hung-task and WARN_ON lines, "INFO: task ... blocked", "WARNING: CPU: 2 PID: 1234", a review.)
_CTIME_BRACKET = rf"\[[A-Z][a-z]{{2}} [A-Z][a-z]{{2}} [ 0-9][0-9] {HMS}(?:\.[0-9]+)? [0-9]{{4}}\] "
_NOT_DMESG = (
    rf"{_UPTIME}\((?:{_XORG_MARK})\) |{_CTIME_BRACKET}(?:\[|[0-9a-fA-F.:\[\]]+:[0-9]+ )"
    rf"|{_UPTIME}[^ :]+ (?:kernel|[^ \[:]+\[[0-9]+\]): "
)
#: ``dmesg -x``'s facility and level, then the uptime stamp.
_DMESG_X = (
    r"(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local[0-7]) *:"
    r"(?P<level>emerg|alert|crit|err|warn|notice|info|debug) *: "
)
DMESG = AppRegexFormat(
    name="dmesg",
    patterns=(
        rf"^(?:{_DMESG_X})?{_UPTIME}(?P<message>.*)$",
        # dmesg -T: the uptime as a wall-clock time
        rf"^\[(?P<ts>[A-Z][a-z]{{2}} [A-Z][a-z]{{2}} [ 0-9][0-9] {HMS} [0-9]{{4}})\] "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=14,
    time_formats=("%a %b %e %H:%M:%S %Y",),
    record_start=rf"(?:{_DMESG_X})?{_UPTIME}|\[[A-Z][a-z]{{2}} [A-Z][a-z]{{2}} [ 0-9][0-9] ",
    level_words=True,
    head_component=True,
    ruled_out_by=_NOT_DMESG,
    description="the kernel's ring buffer (dmesg, -T, -x): levels from dmesg -x or the "
    "message's words; component = error kind; no calendar time without -T",
    example="[  812.406130] ata1.00: failed command: READ FPDMA QUEUED",
)

#: Phusion Passenger's levels (its debug levels 2 and 3 too).
_PASSENGER_LEVELS = (*_SEVERITY_LETTERS, ("D2", "DEBUG"), ("D3", "DEBUG"))
PASSENGER = AppRegexFormat(
    name="passenger",
    patterns=(
        rf"^\[ (?P<level>[CEWNID][23]?) (?P<ts>{DAY} {HMS}\.[0-9]{{1,6}}) [0-9]+/[A-Za-z0-9]+ "
        r"(?P<component>[^ :]+):[0-9]+ \]: (?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=("%Y-%m-%d %H:%M:%S%.f",),
    level_map=_PASSENGER_LEVELS,
    record_start=rf"\[ [CEWNID][23]? {DAY} ",
    # the application's own output, which Passenger writes below its record
    continuation=r"App [0-9]+ (?:output|stdout|stderr): ",
    description="Phusion Passenger ([ L ts pid/thread file:line ]: msg): component = source "
    "file; C is FATAL",
    example="[ E 2020-08-20 07:15:48.4685 3391/T8 age/Cor/CoreMain.cpp:671 ]: Cannot spawn app",
)

SQUID_CACHE = AppRegexFormat(
    name="squid_cache",
    patterns=(
        # after the stamp a worker ("kid1") or a helper ("sslcrtd_program") may be named
        rf"^(?P<ts>[0-9]{{4}}/[0-9]{{2}}/[0-9]{{2}} {HMS})(?:\.[0-9]{{1,6}})?(?: [A-Za-z0-9_.-]+)?"
        r"\| "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=21,
    time_formats=("%Y/%m/%d %H:%M:%S",),
    record_start=rf"[0-9]{{4}}/[0-9]{{2}}/[0-9]{{2}} {HMS}(?:\.[0-9]+)?(?: [A-Za-z0-9_.-]+)?\| ",
    level_words=True,
    head_component=True,
    description="Squid's cache.log (ts [kidN]| msg): levels from its ERROR:/WARNING:/FATAL: "
    "tags, else the message's words; component = error kind",
    example="2025/08/12 06:01:16 kid1| ERROR: No forward-proxy ports configured.",
)

#: npm's levels, most verbose first.
_NPM_LEVELS = (
    ("SILLY", "TRACE"),
    ("VERBOSE", "DEBUG"),
    ("TIMING", "DEBUG"),
    ("HTTP", "INFO"),
    ("INFO", "INFO"),
    ("NOTICE", "INFO"),
    ("WARN", "WARN"),
    ("ERROR", "ERROR"),
)
NPM_DEBUG = AppRegexFormat(
    name="npm_debug",
    patterns=(
        rf"^[0-9]+ (?P<level>{_words(_NPM_LEVELS).lower()})"
        r"(?: (?P<message>.*))?$",
    ),
    min_line_bytes=6,
    level_map=_NPM_LEVELS,
    head_component=True,
    description="npm's debug log (npm-debug.log, ~/.npm/_logs/*-debug-0.log: N level msg): "
    "component = error kind; no time",
    example="21 error code ERESOLVE",
)
