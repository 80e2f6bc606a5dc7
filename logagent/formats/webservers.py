"""Error logs of web servers no other layout reads: Gunicorn and lighttpd (PURE).

Both were misread on real logs (probe H), with counts called exact:

* ``gunicorn``: Gunicorn's error log, ``[2021-04-27 23:21:05 +0000] [297750] [INFO] msg``
  (``%(asctime)s`` with its zone, the pid, the level). ``generic`` had read only the
  ``ValueError: ...`` tails of its tracebacks as records (15 of 120), and a log of INFO and
  CRITICAL lines was refused. Its configuration dump and tracebacks continue the record
  above. It names no logger: the error kind stands in for the component.
* ``lighttpd``: lighttpd's error log, ``2014-03-24 10:51:28: (server.c.1558) server
  stopped``: the source file is the component. It writes no level, so levels are read
  from the message's words (as syslog without a ``<PRI>``), and said.
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat

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
