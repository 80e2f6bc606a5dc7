"""Built-in layouts of system and infrastructure tools' own logs (PURE): the Linux audit log,
cloud-init, fail2ban and PgBouncer.

* ``auditd``: ``/var/log/audit/audit.log``, one record a line, ``type=KIND
  msg=audit(EPOCH.mmm:SERIAL): key=value ...`` (``node=host`` first where auditd's
  ``name_format`` asks for it), and ``ausearch -i``'s interpreted lines, whose stamp is a
  local date (``msg=audit(11/28/2016 13:19:08.979:8587) :``). Component = the record type
  (``USER_AUTH``, ``AVC``, ``SYSCALL``...). The log writes no level: a record whose outcome
  is a failure (``res=failed``, ``res=0``, ``success=no``, an AVC ``denied``) is ERROR, one
  whose outcome is a success is INFO, and a record with no outcome (``PROCTITLE``, ``PATH``,
  ``CWD``: parts of a syscall's event) has no level; an anomaly (``ANOM_ABEND``, a crash) is
  ERROR. The time is the epoch (UTC). ``ausearch``'s ``----`` and ``time->`` lines fold.
  Read as logfmt before (probe L), a third of a real audit log was malformed: user-space
  records quote their own ``msg='op=... res=failed'`` in single quotes and start with a bare
  ``user`` or ``auditd start,`` word, and no record had a level or a component.
* ``cloud_init``: ``/var/log/cloud-init.log`` of every cloud VM, ``2020-01-16 19:14:48,519 -
  util.py[DEBUG]: msg``; component = the source file, Python's levels; tracebacks folded.
  It had been "proved" no known format (probe N).
* ``fail2ban``: ``/var/log/fail2ban.log``, ``2021-11-25 08:27:07,942 fail2ban.actions
  [18937]: NOTICE  [sshd] Ban 203.228.100.41`` (0.8's ``fail2ban.actions: WARNING [ssh] Ban``
  too); component = the logger (``fail2ban.actions``), ``--by jail`` ranks the jails;
  NOTICE is INFO, as syslog's, and fail2ban's HEAVYDEBUG and TRACEDEBUG are DEBUG. Read by
  generic before, its components were the message's first words (``Ban``, ``Unban``).
* ``pgbouncer``: ``2023-12-19 03:06:13.586 CET [10384] LOG C-0x7f3b...: db/user@10.0.0.8:38296
  closing because: client close request (age=5s)`` (1.x; the zone and the brackets around
  the pid optional); component = ``db/user`` of a client's or server's line, else the error
  kind (``stats``, ``got SIGHUP``). No known format before (probe O).
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.apptimes import DAY as _D4
from logagent.formats.apptimes import HMS as _HMS
from logagent.formats.levels import DEBUG, ERROR, INFO, LEVEL_MAP

#: The outcome words of an audit record and their levels (``normalize_level`` keys: upper case).
AUDIT_OUTCOMES = (
    ("FAILED", ERROR),
    ("NO", ERROR),
    ("0", ERROR),
    ("DENIED", ERROR),
    ("SUCCESS", INFO),
    ("YES", INFO),
    ("1", INFO),
    ("GRANTED", INFO),
)
_NODE_TYPE = r"^(?:node=[^ ]+ )?type=(?P<component>[A-Z][A-Z0-9_]*) msg=audit\("
#: The first outcome the record names: ``res=`` (user space, the kernel's config records),
#: ``success=`` (syscalls), an AVC's ``avc:  denied`` or ``granted``.
_OUTCOME = (
    r"(?P<message>(?:.*?\b(?:res=|success=|avc: +)"
    r"(?P<level>failed|success|no|yes|denied|granted|0|1)\b)?.*)$"
)
_AUDIT_STAMPS = (
    r"(?P<ts>[0-9]{9,11})\.[0-9]{3}:[0-9]+\): ?",
    r"(?P<ts>[0-9]{2}/[0-9]{2}/[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2})\.[0-9]{3}:[0-9]+\) ?: ?",
)
#: An anomaly record (``ANOM_ABEND``: a process crashed, ``ANOM_PROMISCUOUS``...) is ERROR
#: whatever its ``res=``, which says the record was written (a review: a crash was INFO).
_ANOMALY = r"^(?:node=[^ ]+ )?type=(?P<component>(?P<level>ANOM)_[A-Z0-9_]*) msg=audit\("
AUDITD = AppRegexFormat(
    name="auditd",
    patterns=(
        *(_ANOMALY + stamp + r"(?P<message>.*)$" for stamp in _AUDIT_STAMPS),
        *(_NODE_TYPE + stamp + _OUTCOME for stamp in _AUDIT_STAMPS),
    ),
    min_line_bytes=30,
    time_formats=("%s", "%m/%d/%Y %H:%M:%S"),
    record_start=r"(?:node=[^ ]+ )?type=[A-Z][A-Z0-9_]* msg=audit\(",
    continuation=r"----$|time->",  # ausearch's separators and event heads
    level_map=(*AUDIT_OUTCOMES, ("ANOM", ERROR)),
    description="Linux audit log (auditd, ausearch -i): component = record type; ERROR = a "
    "failed outcome (res=failed/0, success=no, AVC denied) or an anomaly (ANOM_*), INFO = a "
    "successful one",
    example="type=USER_AUTH msg=audit(1480339182.240:5): pid=7124 uid=0 auid=4294967295 "
    'ses=4294967295 msg=\'op=PAM:authentication acct="root" exe="/bin/login" hostname=? '
    "addr=? terminal=tty1 res=failed'",
)

#: Python logging's ``%(asctime)s``, as cloud-init and fail2ban write it.
_ASCTIME = _D4 + " " + _HMS + r",[0-9]{3}"
_CLOUD_INIT_HEAD = _ASCTIME + r" - [^\[\] ]+\[[A-Z]+\]: "
CLOUD_INIT = AppRegexFormat(
    name="cloud_init",
    patterns=(
        r"^(?P<ts>" + _ASCTIME + r") - (?P<component>[^\[\] ]+)"
        r"\[(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\]: ?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S,%3f",),
    record_start=_CLOUD_INIT_HEAD,
    description="cloud-init.log (ts - file.py[LEVEL]: msg): component = source file; "
    "tracebacks folded",
    example="2020-01-16 19:15:52,253 - util.py[WARNING]: Getting data from <class "
    "'cloudinit.sources.DataSourceUI.DataSourceUI'> failed",
)

FAIL2BAN = AppRegexFormat(
    name="fail2ban",
    patterns=(
        r"^(?P<ts>" + _ASCTIME + r") (?P<component>fail2ban\.[A-Za-z0-9_.]+) *"
        r"(?:\[[0-9]+\])?: (?P<level>[A-Z]+) +(?:\[(?P<jail>[^\]]+)\] )?(?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=("%Y-%m-%d %H:%M:%S,%3f",),
    record_start=_ASCTIME + r" fail2ban\.",
    level_map=(*LEVEL_MAP.items(), ("HEAVYDEBUG", DEBUG), ("TRACEDEBUG", DEBUG)),
    description="fail2ban.log: component = logger (fail2ban.actions...), --by jail; NOTICE is INFO",
    example="2021-11-25 08:27:07,942 fail2ban.actions        [18937]: NOTICE  [sshd] Ban "
    "203.228.100.41",
)

PGBOUNCER = AppRegexFormat(
    name="pgbouncer",
    patterns=(
        r"^(?P<ts>"
        + _D4
        + " "
        + _HMS
        + r"\.[0-9]{3})(?: [A-Za-z]{2,5}| [+-][0-9]{2}(?::?[0-9]{2})?)?"
        r" (?:\[[0-9]+\]|[0-9]+) (?P<level>LOG|NOISE|DEBUG|WARNING|ERROR|FATAL|PANIC) "
        r"(?:[CS]-0x[0-9a-f]+: (?P<component>[^ /]*/[^ @]*)@\S+ )?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S%.f",),
    head_component=True,
    level_map=(*LEVEL_MAP.items(), ("NOISE", DEBUG)),
    description="PgBouncer log: component = db/user of a connection's line, else the error kind",
    example="2023-12-19 03:06:13.586 CET [10384] WARNING C-0x7f3bd6c47f40: retail/api@10.0.0.8:"
    "38296 pooler error: no more connections allowed (max_client_conn)",
)
