"""Logs of web servers no other layout reads: Gunicorn's and lighttpd's error logs, HAProxy's
TCP log (PURE).

Both were misread on real logs (probe H), with counts called exact:

* ``gunicorn``: Gunicorn's error log, ``[2021-04-27 23:21:05 +0000] [297750] [INFO] msg``
  (``%(asctime)s`` with its zone, the pid, the level). ``generic`` had read only the
  ``ValueError: ...`` tails of its tracebacks as records (15 of 120), and a log of INFO and
  CRITICAL lines was refused. Its configuration dump and tracebacks continue the record
  above. It names no logger: the error kind stands in for the component.
* ``lighttpd``: lighttpd's error log, ``2014-03-24 10:51:28: (server.c.1558) server
  stopped``: the source file is the component. It writes no level, so levels are read
  from the message's words (as syslog without a ``<PRI>``), and said.
* ``haproxy_tcp``: HAProxy's TCP log (``option tcplog``, ``mode tcp``): ``client:port
  [accept date] frontend backend/server Tw/Tc/Tt bytes state actconn/feconn/beconn/srv_conn/
  retries srv_queue/backend_queue``, a syslog header first or not. A connection has no HTTP
  status: its level is the termination state's first letter (``--`` a normal end, INFO; ``C``
  or ``c``, the client aborted or timed out, WARN; ``S``/``s`` server, ``P`` proxy, ``R``
  resource, ``I`` internal, ``D`` server down, ``K`` killed, ``U``: ERROR), its component the
  ``backend/server``; ``--by client`` and ``--by frontend`` rank the others. Read as plain
  syslog before (probe N), its 100 connections were "exact" INFO 100.
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.levels import ERROR, INFO, WARN

_STAMP = r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}"
#: Python's level names, and Gunicorn's own (it logs through ``logging``).
_GUNICORN_LEVEL = r"(?P<level>CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG)"
GUNICORN = AppRegexFormat(
    name="gunicorn",
    patterns=(
        r"^\[(?P<ts>" + _STAMP + r" [+-][0-9]{4})\] \[[0-9]+\] \[" + _GUNICORN_LEVEL + r"\] "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=32,
    time_formats=("%Y-%m-%d %H:%M:%S %z",),
    record_start=r"\[" + _STAMP + r" [+-][0-9]{4}\] \[[0-9]+\] \[",
    head_component=True,
    description="Gunicorn error log ([ts zone] [pid] [LEVEL] msg): component = error kind; "
    "tracebacks and the configuration dump folded",
    example="[2021-04-28 02:54:19 +0000] [330114] [ERROR] Exception in worker process",
)
LIGHTTPD = AppRegexFormat(
    name="lighttpd",
    patterns=(
        r"^(?P<ts>" + _STAMP + r"): \((?P<component>[A-Za-z0-9_-]+\.[a-z]+)\.[0-9]+\) "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=28,
    time_formats=("%Y-%m-%d %H:%M:%S",),
    record_start=_STAMP + r": \(",
    level_words=True,
    description="lighttpd error log (ts: (source.c.line) msg): component = source file; "
    "levels from the message's words (it writes none)",
    example="2014-03-24 10:51:28: (mod_fastcgi.c.1103) the fastcgi-backend failed to start",
)
WEB_SERVER_LAYOUTS = (GUNICORN, LIGHTTPD)

#: The termination state's first letter (``normalize_level`` keys: upper case).
HAPROXY_TCP_STATES = (
    ("-", INFO),
    ("L", INFO),
    ("C", WARN),
    *((letter, ERROR) for letter in "SPRIDKU"),
)
_SYSLOG_HEAD = (
    r"(?:<[0-9]{1,3}>)?(?:[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8}|[0-9]{4}-[0-9]{2}-[0-9]{2}T\S+) "
    r"\S+ [^\s:\[]+(?:\[[0-9]+\])?: "
)
HAPROXY_TCP = AppRegexFormat(
    name="haproxy_tcp",
    patterns=(
        r"^(?:" + _SYSLOG_HEAD + r")?(?P<message>(?P<client>[^\s\[]+):[0-9]+ "
        r"\[(?P<ts>[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3})\] "
        r"(?P<frontend>\S+) (?P<component>\S+/\S+) -?[0-9]+/-?[0-9]+/\+?-?[0-9]+ \+?[0-9]+ "
        r"(?P<level>[-A-Za-z])[-A-Za-z] [0-9]+/[0-9]+/[0-9]+/[0-9]+/\+?[0-9]+ [0-9]+/[0-9]+)\s*$",
    ),
    min_line_bytes=50,
    time_formats=("%d/%b/%Y:%H:%M:%S%.f",),
    level_map=HAPROXY_TCP_STATES,
    description="HAProxy TCP log (option tcplog): component = backend/server; level from the "
    "termination state (-- INFO, C WARN, S P R I D K U ERROR)",
    example="Jul 12 10:13:23 lb haproxy[30046]: 10.0.0.23:54824 [12/Jul/2018:10:13:12.662] "
    "fe_db be_db/db2 1/1/11103 186 SD 379/379/379/136/0 0/0",
)
