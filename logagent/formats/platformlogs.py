"""Built-in layouts of platforms' own logs: Tomcat (JULI), Jenkins, Cassandra, MongoDB before
4.4, Celery, PHP's error log, Airflow, RabbitMQ, .NET's console logger, ClickHouse and Uvicorn
(PURE).

Each is an ``AppRegexFormat`` with an example line and what becomes its component and level;
stack traces and tracebacks continue the record before them (``record_start``).

* ``tomcat``: JULI's ``OneLineFormatter`` (``catalina.out``, ``catalina.YYYY-MM-DD.log`` since
  Tomcat 8.5): ``06-Dec-2026 02:40:38.123 SEVERE [thread] class.method msg``; component =
  ``class.method``, java.util.logging's levels (SEVERE is ERROR).
* ``jenkins``: ``2026-12-06 02:40:38.123+0000 [id=42]<TAB>SEVERE<TAB>class#method: msg``;
  component = the class.
* ``cassandra``: its logback pattern ``%-5level [%thread] %date{ISO8601} %F:%L - %msg``;
  component = the source file.
* ``mongodb``: the text log of MongoDB before 4.4, ``ts S COMPONENT [ctx] msg`` (severity F E W
  I, D1-D5); component = the component column (NETWORK, STORAGE...).
* ``celery``: a worker's ``[ts: LEVEL/Process] msg``; component = the task where the line names
  one (``task[id]:``, ``Task task[id] raised ...``), else the process kind (``ForkPoolWorker``).
* ``php``: PHP's ``error_log`` file: ``[06-Dec-2026 02:40:38 UTC] PHP Fatal error:  msg in
  /path/f.php:3``; component = the script file, level from PHP's error kind (Fatal, Parse,
  Core, Compile error: FATAL; Recoverable/User error: ERROR; warnings: WARN; notices and
  deprecations: INFO). An ``error_log()`` line of the application is a record with no level;
  ``PHP Stack trace:`` lines continue the error above them. php-fpm's own log (no zone in
  the stamp: ``ERROR: [pool www] msg``) reads too: its levels, the pool as component.
* ``airflow``: ``[ts] {file.py:123} LEVEL - msg``; component = the source file.
* ``rabbitmq``: 3.9+'s ``ts [level] <0.456.0> msg``; the Erlang process names no component:
  the error kind stands in. RabbitMQ writes the prefix on every line of a multi-line message
  (a crash report's ``** ...`` lines), so each of them is a record.
* ``dotnet``: Microsoft.Extensions.Logging's console output, ``fail: Category[EventId]`` and
  the message indented on the lines below (or on the same line, ``SingleLine``), a stamp first
  where ``TimestampFormat`` asks for one; component = the category.
* ``clickhouse``: ``ts [thread] {query id} <Level> Component: msg``; component = Component, up to
  the first ``": "`` (a C++ signature's ``::`` inside it: ``DB::StorageKafka::threadFunc(size_t)``).
* ``uvicorn``: Uvicorn's ``LEVEL:`` padded to ten characters, then the message (its access
  lines are INFO records here); component = the error kind; tracebacks continue.
"""

from __future__ import annotations

from logagent.formats.app import ANSI, AppRegexFormat
from logagent.formats.apptimes import DAY as _D4
from logagent.formats.apptimes import HMS as _HMS
from logagent.formats.apptimes import ZONE
from logagent.formats.levels import (
    DEBUG,
    DOTNET_LEVELS,
    ERROR,
    FATAL,
    INFO,
    JUL_LEVELS,
    JUL_LOCALIZED,
    TRACE,
    WARN,
)
from logagent.formats.selfhosted import GITEA, VAULTWARDEN
from logagent.formats.serverlogs import ISO_TIMES
from logagent.formats.webservers import GUNICORN, LIGHTTPD

_DMY = r"[0-9]{2}-[A-Z][a-z]{2}-[0-9]{4}"  # 06-Dec-2026
#: java.util.logging's levels, English first, then as other locales write them.
_JUL = r"SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST|" + "|".join(
    sorted(JUL_LOCALIZED, key=len, reverse=True)
)

TOMCAT = AppRegexFormat(
    name="tomcat",
    patterns=(
        r"^(?P<ts>" + _DMY + " " + _HMS + r"\.[0-9]{3}) (?P<level>" + _JUL + r") \[.*?\] "
        r"(?P<component>[A-Za-z_$][A-Za-z0-9_$.<>\-]*) (?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%d-%b-%Y %H:%M:%S%.f",),
    record_start=_DMY + " " + _HMS + r"\.[0-9]{3} (?:" + _JUL + ") ",
    level_map=JUL_LEVELS,
    description="Tomcat (JULI OneLineFormatter): component = class.method; SEVERE is ERROR",
    example="06-Dec-2026 02:40:38.456 SEVERE [http-nio-8080-exec-1] "
    "org.apache.catalina.core.StandardWrapperValve.invoke Servlet.service() threw exception",
)

JENKINS = AppRegexFormat(
    name="jenkins",
    patterns=(
        r"^(?P<ts>" + _D4 + " " + _HMS + r"\.[0-9]{3}[+-][0-9]{4}) \[id=[0-9]+\]\t"
        r"(?P<level>" + _JUL + r")\t(?P<component>[^\t#: ]+)(?:#[^\t: ]*)?: (?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=ISO_TIMES,
    record_start=_D4 + " " + _HMS + r"\.[0-9]{3}[+-][0-9]{4} \[id=[0-9]+\]\t",
    level_map=JUL_LEVELS,
    description="Jenkins controller log: component = class (before #method); SEVERE is ERROR",
    example="2026-12-06 02:40:38.456+0000 [id=42]\tSEVERE\thudson.model.Executor#finish1: boom",
)

_LOGBACK_LEVEL = "TRACE|DEBUG|INFO|WARN|ERROR|FATAL"
CASSANDRA = AppRegexFormat(
    name="cassandra",
    patterns=(
        r"^(?P<level>" + _LOGBACK_LEVEL + r") +\[[^\]]*\] (?P<ts>" + _D4 + " " + _HMS + ",[0-9]{3})"
        r" +(?P<component>[A-Za-z0-9_$.]+?)(?::[0-9]+)? - (?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=("%Y-%m-%d %H:%M:%S,%3f",),
    record_start=r"(?:" + _LOGBACK_LEVEL + r") +\[[^\]\n]*\] " + _D4 + " ",
    description="Cassandra (level [thread] date File.java:line - msg): component = source file",
    example="ERROR [CompactionExecutor:1] 2026-12-06 02:40:38,456 CassandraDaemon.java:228 - boom",
)

#: MongoDB's severities: F E W I, and D1-D5 for its debug verbosities, all DEBUG as MongoDB
#: names them and as ``mongodb_json`` reads them (D2-D5 had been TRACE here: one server's
#: verbosity counted under two levels by its two log formats).
MONGODB_LEVELS = (
    ("F", FATAL),
    ("E", ERROR),
    ("W", WARN),
    ("I", INFO),
    ("D", DEBUG),
    *((f"D{i}", DEBUG) for i in range(1, 6)),
)
MONGODB = AppRegexFormat(
    name="mongodb",
    patterns=(
        r"^(?P<ts>"
        + _D4
        + "T"
        + _HMS
        + r"\.[0-9]{3}(?:[+-][0-9]{4}|Z)) (?P<level>[FEWI]|D[1-5]?) +"
        r"(?P<component>[A-Z_]+|-) +\[[^\]]*\] (?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=ISO_TIMES,
    level_map=MONGODB_LEVELS,
    # a crash's "----- BEGIN BACKTRACE -----" and its JSON lines continue the record before
    record_start=_D4 + "T" + _HMS + r"\.[0-9]{3}(?:[+-][0-9]{4}|Z) ",
    description="MongoDB < 4.4 text log (ts S COMPONENT [ctx] msg): component = COMPONENT",
    example="2019-01-01T12:00:00.100+0000 E STORAGE  [initandlisten] WiredTiger error",
)

_CELERY_HEAD = (
    r"^\[(?P<ts>" + _D4 + " " + _HMS + r",[0-9]{3}): (?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)/"
)
CELERY = AppRegexFormat(
    name="celery",
    patterns=(
        _CELERY_HEAD + r"[^\]]+\] (?:Task )?(?P<component>[A-Za-z_][A-Za-z0-9_.]*)"
        r"\[[0-9A-Za-z\-]+\]:? (?P<message>.*)$",
        _CELERY_HEAD + r"(?P<component>[A-Za-z]+)(?:-[0-9_]+)?\] (?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S,%3f",),
    record_start=r"\[" + _D4 + " " + _HMS + ",[0-9]{3}: ",
    description="Celery worker log: component = task name where named, else process kind",
    example="[2026-12-06 02:40:38,456: ERROR/ForkPoolWorker-1] Task app.tasks.send[1f2e] raised",
)

#: PHP's error kinds as it writes them (``main/main.c``: ``PHP %s:  %s``) and their levels.
_PHP_KINDS = {
    FATAL: ("Fatal error", "Parse error", "Core error", "Compile error"),
    ERROR: ("Recoverable fatal error", "Catchable fatal error", "User error"),
    WARN: ("Warning", "Core warning", "Compile warning", "User warning"),
    INFO: ("Notice", "User notice", "Deprecated", "User deprecated", "Strict Standards"),
}
#: php-fpm's own levels (``[06-Dec-2026 02:40:38] WARNING: [pool www] ...``, no zone).
_FPM_LEVELS = (("ALERT", FATAL), ("ERROR", ERROR), ("WARNING", WARN), ("NOTICE", INFO))
PHP_LEVELS = (
    *((k.upper(), level) for level, kinds in _PHP_KINDS.items() for k in kinds),
    *_FPM_LEVELS,
    ("DEBUG", DEBUG),
)
_PHP_KIND = "|".join(sorted((k for ks in _PHP_KINDS.values() for k in ks), key=len, reverse=True))
_PHP_ZONE = r" [A-Za-z0-9_/+\-]+"
_PHP_STAMP = r"\[(?P<ts>" + _DMY + " " + _HMS + r"(?:" + _PHP_ZONE + r")?)\] "
_PHP_START = r"\[" + _DMY + " " + _HMS + r"(?:" + _PHP_ZONE + r")?\] "
_FPM_START = r"\[" + _DMY + " " + _HMS + r"\] (?:ALERT|ERROR|WARNING|NOTICE|DEBUG): "
#: A worker's output php-fpm relays (``catch_workers_output``): ``[pool www] child 12 said into
#: stderr: "NOTICE: PHP message: PHP Fatal error:  ..."``, one relayed line each.
_FPM_SAID = r"\[pool [^\]\n]*\] child [0-9]+ said into std(?:err|out): "
_FPM_PHP = _FPM_SAID + r'"(?:[A-Z]+: )?PHP message: PHP '
#: Where a script's path sits in a PHP message (``in /srv/a.php:3``, ``on line 3``), or a
#: Windows host's (``in F:\\OpenServer\\...\\single-post.php on line 125``: a WordPress
#: debug.log, probe H, had its records ranked by error kind).
_PHP_FILE = (
    r"(?P<message>.*? in (?P<component>(?:/|[A-Za-z]:\\)[^ :]+?\.(?:php|inc|phtml))"
    r"(?::[0-9]+| on line [0-9]+).*)"
)
#: The start of every record: a PHP error, an application's error_log() line (PHP writes the
#: zone; anything but another "PHP " line: "PHP Stack trace:", "PHP   1. {main}()" continue),
#: and php-fpm's own lines, but not a worker's relayed output other than a PHP message (its
#: "Stack trace:", "#0 ..." and "thrown in" lines continue that message). No class matches a
#: newline (``app.record_start``'s shared syntax).
_PHP_RECORD = (
    "(?:"
    + _PHP_START
    + "PHP (?:"
    + _PHP_KIND
    + "):|"
    + r"\["
    + _DMY
    + " "
    + _HMS
    + _PHP_ZONE
    + r"\] (?:[^P\n]|P[^H\n]|PH[^P\n]|PHP[^ \n])|"
    + _FPM_START
    + r"(?:[^\[\n]|\[[^p\n]|\[pool [^\]\n]*\] (?:[^c\n]|c[^h\n]|ch[^i\n]|chi[^l\n]|chil[^d\n]"
    + r"|child[^ \n]|child [0-9]+ (?:[^s\n]|s[^a\n]))|"
    + _FPM_PHP
    + "))"
)
_PHP_ERROR = "^" + _PHP_STAMP + r"PHP (?P<level>" + _PHP_KIND + r"): +"
#: A PHP error php-fpm relays: its level is PHP's, not the relaying line's.
_FPM_RELAYED = (
    "^"
    + _PHP_STAMP
    + r"(?:ALERT|ERROR|WARNING|NOTICE|DEBUG): "
    + _FPM_PHP
    + r"(?P<level>"
    + _PHP_KIND
    + r"): +"
)
PHP = AppRegexFormat(
    name="php",
    patterns=(
        _PHP_ERROR + _PHP_FILE + "$",
        _PHP_ERROR + r"(?P<message>.*)$",
        _FPM_RELAYED + _PHP_FILE + "$",
        _FPM_RELAYED + r"(?P<message>.*)$",
        # php-fpm's own log: its level, the pool as component
        "^" + _PHP_STAMP + r"(?P<level>ALERT|ERROR|WARNING|NOTICE|DEBUG): "
        r"(?:\[pool (?P<component>[^\]]+)\] )?(?P<message>.*)$",
        # the application's error_log() (PHP writes the zone; php-fpm does not): no level
        r"^\[(?P<ts>" + _DMY + " " + _HMS + _PHP_ZONE + r")\] (?P<message>.*)$",
    ),
    min_line_bytes=24,
    # the zone PHP writes (UTC, Europe/Berlin); php-fpm writes none, its server's local time
    time_formats=("%d-%b-%Y %H:%M:%S" + ZONE, "%d-%b-%Y %H:%M:%S"),
    record_start=_PHP_RECORD,
    # PHP's own trace lines: with the stamp (5.x), raw (7+: "Stack trace:", "#0 ...", "  thrown
    # in"), or relayed by php-fpm
    continuation=_PHP_START
    + r"PHP (?:Stack trace:| +[0-9]+\. )|Stack trace:|#[0-9]+ |"
    + _FPM_START
    + _FPM_SAID,
    head_component=True,
    level_map=PHP_LEVELS,
    description="PHP error_log and php-fpm: component = the script file, level from the error "
    "kind (Fatal/Parse error: FATAL)",
    example="[06-Dec-2026 02:40:38 UTC] PHP Fatal error:  Uncaught Error: x in /srv/a.php:3",
)

_PY_LEVEL = "DEBUG|INFO|WARNING|ERROR|CRITICAL"
AIRFLOW = AppRegexFormat(
    name="airflow",
    patterns=(
        r"^\[(?P<ts>"
        + _D4
        + "(?:[ T]|, )"
        + _HMS
        + r"(?:[,.][0-9]{1,6})?(?:Z|[+-][0-9]{2}:?[0-9]{2}| UTC)?)\] "
        r"\{(?P<component>[^}:]+):[0-9]+\} (?P<level>" + _PY_LEVEL + r") - (?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=(*ISO_TIMES, "%Y-%m-%d, %H:%M:%S UTC"),  # the UI's "[2022-07-18, 17:05:19 UTC]"
    record_start=r"\[" + _D4 + "(?:[ T]|, )" + _HMS + r"[^\]\n]*\] \{",
    description="Apache Airflow (task and scheduler logs): component = source file",
    example="[2026-12-06T02:40:38.456+0000] {taskinstance.py:1890} ERROR - Task failed",
)

RABBITMQ = AppRegexFormat(
    name="rabbitmq",
    patterns=(
        # its console handler colours a line: ESC[38;5;87m before it, ESC[0m after it
        r"^" + ANSI + r"(?P<ts>" + _D4 + " " + _HMS + r"\.[0-9]{3,6}[+-][0-9]{2}:[0-9]{2}) "
        r"\[(?P<level>debug|info|notice|warning|error|critical|alert|emergency)\] <[0-9.]+>"
        r" ?(?P<message>.*?)" + ANSI + "$",
    ),
    min_line_bytes=40,
    time_formats=ISO_TIMES,
    record_start=ANSI + _D4 + " " + _HMS + r"\.[0-9]{3,6}[+-][0-9]{2}:[0-9]{2} \[",
    head_component=True,
    description="RabbitMQ 3.9+ (ts [level] <erlang pid> msg): component = error kind",
    example="2026-12-06 02:40:38.223456+00:00 [error] <0.456.0> Error on AMQP connection",
)

_DOTNET_STAMP = _D4 + "[ T]" + _HMS + r"[0-9.,:+Z\-]*"
#: A TimestampFormat of the time alone (``"HH:mm:ss "``, ``"[HH:mm:ss] "``): no date, no time.
_DOTNET_CLOCK = r"\[?" + _HMS + r"(?:\.[0-9]+)?\]?"
DOTNET = AppRegexFormat(
    name="dotnet",
    patterns=(
        r"^(?:(?P<ts>" + _DOTNET_STAMP + r") |" + _DOTNET_CLOCK + " )?"
        r"(?P<level>trce|dbug|info|warn|fail|crit): "
        r"(?P<component>[^\s\[]+)\[-?[0-9]+\] ?(?P<message>.*)$",
    ),
    min_line_bytes=9,  # "fail: X[1]"
    time_formats=ISO_TIMES,
    record_start=r"(?:"
    + _DOTNET_STAMP
    + " |"
    + _DOTNET_CLOCK
    + r" )?(?:trce|dbug|info|warn|fail|crit): ",
    level_map=DOTNET_LEVELS,
    description=".NET console logger (fail: Category[EventId], message indented below): "
    "component = category; fail is ERROR, crit FATAL",
    example="fail: Microsoft.AspNetCore.Server.Kestrel[13]",
)

_CH_STAMP = r"[0-9]{4}\.[0-9]{2}\.[0-9]{2} " + _HMS + r"\.[0-9]{6}"
CLICKHOUSE = AppRegexFormat(
    name="clickhouse",
    patterns=(
        r"^(?P<ts>" + _CH_STAMP + r") \[ *[0-9]+ *\] \{[^}]*\} "
        r"<(?P<level>Trace|Test|Debug|Information|Notice|Warning|Error|Critical|Fatal)> "
        # ClickHouse's own start-up line names no logger: "<Information> : Starting ..."
        r"(?P<component>(?:[^:]|::)*?): (?P<message>.*)$",
    ),
    min_line_bytes=40,
    time_formats=("%Y.%m.%d %H:%M:%S%.f",),
    record_start=_CH_STAMP + " ",
    description="ClickHouse server log (ts [thread] {query} <Level> Component: msg)",
    example="2026.12.06 02:40:38.123456 [ 123 ] {a1b2} <Error> executeQuery: Code: 60. DB::Excep",
)

#: Uvicorn (FastAPI, Starlette): ``LEVEL:`` padded to ten characters, then the message, access
#: lines (``10.0.0.1:5000 - "GET / HTTP/1.1" 500``) among them; Python's tracebacks continue.
#: The padding is what tells it from pip's or Docker's ``ERROR: msg`` and Python's ``INFO:name:``.
UVICORN_LEVELS = (
    ("INFO:", INFO),
    ("WARNING:", WARN),
    ("ERROR:", ERROR),
    ("DEBUG:", DEBUG),
    ("TRACE:", TRACE),
    ("CRITICAL:", FATAL),
)
_UVICORN_PREFIX = "INFO:     |WARNING:  |ERROR:    |DEBUG:    |TRACE:    |CRITICAL: "
UVICORN = AppRegexFormat(
    name="uvicorn",
    patterns=(r"^(?P<level>" + _UVICORN_PREFIX + r")(?P<message>.*)$",),
    min_line_bytes=11,
    # a line an application's own logging stamps (in the same stream) is no part of the record
    # before it: a record of its own, which this layout does not read (malformed, and said)
    record_start=r"(?:" + _UVICORN_PREFIX + ")|" + _D4 + "[ T]",
    head_component=True,
    level_map=UVICORN_LEVELS,
    description="Uvicorn / FastAPI (LEVEL: padded to 10, access lines too): component = error kind",
    example="ERROR:    Exception in ASGI application",
)

#: Serilog's file and console sinks' default template, ``{Timestamp:yyyy-MM-dd HH:mm:ss.fff zzz}
#: [{Level:u3}] {Message:lj}{NewLine}{Exception}``: the exception's lines follow the record.
_SERILOG_STAMP = _D4 + " " + _HMS + r"(?:\.[0-9]+)?(?: [+-][0-9]{2}:[0-9]{2})?"
SERILOG = AppRegexFormat(
    name="serilog",
    patterns=(
        r"^(?P<ts>" + _SERILOG_STAMP + r") \[(?P<level>VRB|DBG|INF|WRN|ERR|FTL)\] "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=26,  # "2023-05-26 23:33:08 [ERR] "
    time_formats=("%Y-%m-%d %H:%M:%S%.f %:z", "%Y-%m-%d %H:%M:%S%.f"),
    head_component=True,
    record_start=_SERILOG_STAMP + r" \[(?:VRB|DBG|INF|WRN|ERR|FTL)\] ",
    # the exception: its type, "File name: ...", "--- End of inner exception stack trace ---";
    # Entity Framework's SQL command, one clause a line
    continuation=r"[A-Za-z_][A-Za-z0-9_.`]*(?:Exception|Error)\b|--- |File name: |"
    r"(?:SELECT|INSERT|UPDATE|DELETE|VALUES|RETURNING|FROM|WHERE|SET|ORDER BY|GROUP BY|"
    r"LEFT JOIN|INNER JOIN|LIMIT|AND|OR) ",
    description="Serilog's default text template (ts zzz [LVL] msg, the exception below): "
    "names no component, so component = error kind (message head)",
    example="2023-05-26 23:33:08.372 +03:00 [ERR] HTTP GET /api/x responded 500 in 5.2 ms",
)

LOG4JS = AppRegexFormat(
    name="log4js",
    patterns=(
        r"^\[(?P<ts>" + _D4 + "T" + _HMS + r"(?:\.[0-9]{3})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)\] "
        r"\[(?P<level>TRACE|DEBUG|INFO|WARN|ERROR|FATAL|MARK)\] (?P<component>[^ ]+) - "
        r"(?P<message>.*)$",
    ),
    min_line_bytes=34,
    time_formats=ISO_TIMES,
    record_start=r"\[" + _D4 + "T" + _HMS,
    description="log4js (Node.js) basic layout ([ts] [LEVEL] category - msg): component = "
    "category; stack traces folded",
    example="[2020-07-18T15:23:08.446] [ERROR] user - login failed",
)

PLATFORM_LAYOUTS = (
    TOMCAT,
    JENKINS,
    CASSANDRA,
    MONGODB,
    CELERY,
    PHP,
    AIRFLOW,
    RABBITMQ,
    LOG4JS,
    DOTNET,
    CLICKHOUSE,
    UVICORN,
    SERILOG,
    GITEA,
    VAULTWARDEN,
    GUNICORN,
    LIGHTTPD,
)
