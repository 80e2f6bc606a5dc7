"""Built-in layouts of servers' own logs: Kafka, ZooKeeper, OpenStack, Elasticsearch,
PostgreSQL, MySQL, the nginx error log, zap's console encoder, CRI container logs, ``docker
compose logs``, PHP's Monolog (Laravel, Symfony) and spdlog (Envoy) (PURE).

Each is an ``AppRegexFormat`` (one vectorized regex per layout, tried in
order) with an example line and what becomes its component and level.
Layouts whose lines name no component (PostgreSQL, nginx, CRI) use the
*error kind* instead: the head of the message (``message_head``), so that a
component question still ranks something meaningful; their descriptions say so.
"""

from __future__ import annotations

from logagent.formats.app import ANSI, REFUSED_WORDS, AppRegexFormat
from logagent.formats.apptimes import DAY as _D4
from logagent.formats.apptimes import HMS as _HMS
from logagent.formats.apptimes import ZONE
from logagent.formats.levels import (
    DEBUG,
    DOTNET_LEVELS,
    ERROR,
    FATAL,
    INFO,
    INNER_BRACKET,
    INNER_ELASTIC,
    INNER_LEVEL_WORDS,
    LEVEL_MAP,
    TRACE,
    WARN,
)

_MS = r"[,.][0-9]{3}"
_LEVEL = r"(?P<level>TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|SEVERE|FATAL|CRITICAL|AUDIT)"
_JAVA_NAME = r"[A-Za-z_$][A-Za-z0-9_$.\-]*"
ISO_TIMES = (  # the ISO 8601 shapes of server logs (generic.py reads them too)
    "%Y-%m-%dT%H:%M:%S%.f%#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%d %H:%M:%S,%3f",
    "%Y-%m-%dT%H:%M:%S,%3f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M:%S%.f",
)

KAFKA = AppRegexFormat(
    name="kafka",
    patterns=(
        # Python's logging in the same head, "[%(asctime)s] %(levelname)s %(name)s:%(lineno)d -
        # %(message)s" (a Django app's): its logger before the line number is the component
        r"^\[(?P<ts>" + _D4 + " " + _HMS + _MS + r")\] " + _LEVEL + r" "
        r"(?P<component>[A-Za-z_][A-Za-z0-9_.]*):[0-9]+ - (?P<message>.*)$",
        r"^\[(?P<ts>" + _D4 + " " + _HMS + _MS + r")\] " + _LEVEL + r" "
        r"(?P<message>.*?)(?: \((?P<component>" + _JAVA_NAME + r")(?::[0-9]+)?\))? *$",
        # state-change.log of 2.2+: [ts] [LEVEL] [thread] [logger] - msg
        r"^\[(?P<ts>" + _D4 + " " + _HMS + _MS + r")\] \[" + _LEVEL + r" *\] \[[^\]]*\] "
        r"\[(?P<component>[^\]]+)\] - (?P<message>.*)$",
    ),
    min_line_bytes=28,
    time_formats=ISO_TIMES,
    record_start=r"\[" + _D4 + " " + _HMS + ",[0-9]{3}\\] ",
    description="Kafka server/controller/state-change: component = logger in (parentheses); "
    "Python's [ts] LEVEL name:line - msg in the same head: component = name",
    example="[2016-12-19 16:31:47,437] WARN message (kafka.controller.KafkaController)",
)

#: ZooKeeper 3.5+ writes the server's id after the stamp (``[myid:3]``, ``[myid:]`` before it
#: is known): ``log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} [myid:%X{myid}] - ...``
_MYID = r"(?: \[myid:[0-9]*\])?"
ZOOKEEPER = AppRegexFormat(
    name="zookeeper",
    patterns=(
        r"^(?P<ts>" + _D4 + " " + _HMS + _MS + r")" + _MYID + " - " + _LEVEL + r" +\[(?:.*:)?"
        r"(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*)@[0-9]+\] - (?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=ISO_TIMES,
    record_start=_D4 + " " + _HMS + ",[0-9]{3}" + _MYID + " - ",
    description="ZooKeeper (log4j 'ts - LEVEL [thread:Class@line] - msg'): component = Class",
    example="2015-07-29 17:41:44,747 - WARN  [QuorumPeer[myid=1]/0.0.0.0:2181:Learner@233] - msg",
)

OSLO = AppRegexFormat(
    name="oslo",
    patterns=(
        r"^(?:[^ ]+ )?(?P<ts>" + _D4 + " " + _HMS + r"\.[0-9]{3,6}) [0-9]+ " + _LEVEL + " "
        r"(?P<component>[A-Za-z_][A-Za-z0-9_.]*) (?:\[[^\]]*\] ?)?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=ISO_TIMES,
    description="OpenStack oslo.log (nova...; a file-name prefix allowed): component = module",
    example="2017-05-16 00:00:00.008 25746 WARNING nova.virt.libvirt.imagecache [req-1] m",
)

ELASTICSEARCH = AppRegexFormat(
    name="elasticsearch",
    patterns=(
        r"^\[(?P<ts>"
        + _D4
        + "[ T]"  # 1.x and 2.x (log4j 1's ISO8601) write a blank: "[2015-09-10 00:31:04,552]"
        + _HMS
        + _MS
        + r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?)\]\["
        + _LEVEL
        + r" *\]\[(?P<component>[^\] ]+) *\] ?(?:\[[^\]]*\] )?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=ISO_TIMES,
    record_start=r"\[" + _D4 + "[ T]" + _HMS + _MS + r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]\[",
    description="Elasticsearch (log4j2 '[ts][LEVEL][logger] [node] msg', 1.x/2.x too): "
    "component = logger",
    example="[2018-05-17T08:20:18,871][WARN ][o.e.c.r.a.DiskThresholdMonitor] [node-1] msg",
)

_PG_LEVELS = "LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?"
_PG_NOTES = "DETAIL|HINT|STATEMENT|CONTEXT|QUERY|LOCATION"
_PG_STAMP = _D4 + " " + _HMS + r"(?:\.[0-9]+)?"
_PG_PREFIX = _PG_STAMP + r" [A-Za-z0-9+\-]+ \[[0-9]+(?:-[0-9]+)?\] "
#: After the stamp, any ``log_line_prefix`` holding the process id in brackets (%p: ``[123]``,
#: ``[123-4]``, ``:[123]:``), a zone perhaps first: Debian's ``%m [%p] %q%u@%d``, pgBadger's
#: ``%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h``, ``%t:%r:%u@%d:[%p]:``; a user@db token
#: (%u@%d) right before the level is the component. The prefix holds no two blanks in a row:
#: the level's ``:  `` is the first (PostgreSQL writes two blanks there, and Python's logging
#: one), so a note's text (``DETAIL:  ... ERROR:  ...``) never reads as a level, and a search
#: stays within the prefix. In the shared syntax of ``app.record_start`` (no ``\d``, ``\s``,
#: ``$``; no class that matches a newline).
_PG_RUN = r"(?:[^ \n]| [^ \n])*?"  # text without two blanks in a row
_PG_ZONE = r"(?: [A-Za-z][A-Za-z0-9+\-/_]*| [+-][0-9]{2}(?::?[0-9]{2})?)?"  # tzdata: ``-03``
_PG_AFTER_ZONE = (
    r"(?:[ :]|[ :]" + _PG_RUN + r"[ :])\[[0-9]+(?:-[0-9]+)?\]:?(?:[ :]" + _PG_RUN + r")??[ :]"
)
_PG_AFTER = _PG_ZONE + _PG_AFTER_ZONE
_PG_USER_DB = r"[^ :@\[\]=,\n]*@[^ :@\[\]=,\n]*"


def _pg_head(words: str) -> str:
    """The start of a line of any prefix (none too) whose level is one of ``words`` (a
    record's, or a note's that continues one)."""
    strict = _PG_PREFIX + "(?:[^ \n]*@[^ \n]* )?(?:" + words + "):  "
    loose = _PG_STAMP + _PG_AFTER + f"(?:{_PG_USER_DB}[ :])?(?:{words}):  "
    return "(?:" + strict + "|" + loose + f"|(?:{words}):  [^ \n])"


POSTGRES = AppRegexFormat(
    name="postgres",
    patterns=(
        r"^(?P<ts>" + _PG_STAMP + r" [A-Za-z0-9+\-]+) \[[0-9]+(?:-[0-9]+)?\] "
        r"(?:(?P<component>[^ ]*@[^ ]*) )?(?P<level>" + _PG_LEVELS + r"):  (?P<message>.*)$",
        # RDS's and others' '%t:%r:%u@%d:[%p]:': user@db before the process id
        # (an empty user or database: the next pattern, the error kind)
        # (%r may hold colons: an IPv6 client, ``::1(54321)``; a user may hold an "@": Azure's
        # ``alice@server``): user@db is the last field before ``:[%p]:``
        r"^(?P<ts>" + _PG_STAMP + _PG_ZONE + r"):[^ ]*?:"
        r"(?P<component>[^ :\[\]=,\n]+@[^ :@\[\]=,\n]+):\[[0-9]+(?:-[0-9]+)?\]:"
        r"(?P<level>" + _PG_LEVELS + r"):  (?P<message>.*)$",
        r"^(?P<ts>"
        + _PG_STAMP
        + _PG_ZONE
        + ")"
        + _PG_AFTER_ZONE
        + r"(?:(?P<component>"
        + _PG_USER_DB
        + r")[ :])?"
        r"(?P<level>" + _PG_LEVELS + r"):  (?P<message>.*)$",
        # an empty log_line_prefix (the default before PostgreSQL 10): the level opens the
        # line (probe H: read as MySQL's, its LOG records folded into two ERRORs); two blanks
        # exactly (uvicorn pads "INFO:     " to a column)
        r"^(?P<level>" + _PG_LEVELS + r"):  (?P<message>[^ ].*)$",
    ),
    min_line_bytes=12,
    # the zone after the stamp (log_timezone: ``PDT``, ``+02``), where the prefix writes one
    time_formats=("%Y-%m-%d %H:%M:%S%.f" + ZONE, "%Y-%m-%d %H:%M:%S%.f"),
    # DETAIL/HINT/STATEMENT/CONTEXT lines belong to the message before them
    record_start=_pg_head(_PG_LEVELS),
    continuation=_pg_head(_PG_NOTES),
    head_component=True,
    description="PostgreSQL stderr log (any log_line_prefix with the stamp first and [%p], or "
    "none): "
    "component = user@db when named, else error kind (msg head)",
    example='2019-03-24 13:44:25.484 UTC [1234] ERROR:  relation "x" does not exist',
)

_SPD_STAMP = r"\[(?P<ts>" + _D4 + " " + _HMS + r"[,.][0-9]{3,6})\]"
_SPD_LEVEL = r"(?P<level>trace|debug|info|warning|warn|error|critical)"
SPDLOG = AppRegexFormat(
    name="spdlog",
    patterns=(
        # Envoy (Istio's sidecars): [%Y-%m-%d %T.%e][%t][%l][%n] [%g:%#] %v
        "^" + _SPD_STAMP + r"\[[0-9]+\]\[" + _SPD_LEVEL + r"\]\[(?P<component>[^\]]+)\] +"
        r"(?:\[[^\]:]+:[0-9]+\] +)?(?P<message>.*)$",
        # spdlog's default pattern: [%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v
        "^" + _SPD_STAMP + r" \[(?P<component>[^\]]+)\] \[" + _SPD_LEVEL + r"\] +(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=ISO_TIMES,
    description="spdlog (Envoy and Istio proxies, C++ services): component = logger name",
    example="[2025-04-24 19:51:59.688][8][error][config] [source/server/x.cc:168] bad config",
)

#: MariaDB pads an hour below 10 with a blank (``2022-11-19  1:00:34``), as 5.x's ``%y%m%d``
#: stamps do: read as continuation lines, a real log's 2,505 such records had been folded
#: into the one before them, its WARN count 3,175 of 5,638 and "exact" (probe M).
_MARIA_HMS = r"  [0-9]:[0-9]{2}:[0-9]{2}"
_MYSQL_TS = (
    r"(?P<ts>"
    + _D4
    + r"(?:[ T]"
    + _HMS
    + r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})?|"
    + _MARIA_HMS
    + r")|[0-9]{6} +[0-9]{1,2}:[0-9]{2}:[0-9]{2})"
)
#: ``Warn``: the docker image's entrypoint script (``ts [Warn] [Entrypoint]: msg``).
_MYSQL_LEVEL = r"\[(?P<level>Note|Warning|Warn|ERROR|Error|System|Info|Debug)\]"
MYSQL = AppRegexFormat(
    name="mysql",
    patterns=(
        r"^" + _MYSQL_TS + r" +(?:[0-9]+ )?" + _MYSQL_LEVEL + r" \[MY-[0-9]+\] "
        r"\[(?P<component>[A-Za-z]+)\] (?P<message>.*)$",
        r"^" + _MYSQL_TS + r" " + _MYSQL_LEVEL + r" \[(?P<component>Entrypoint)\]: "
        r"(?P<message>.*)$",
        r"^" + _MYSQL_TS + r" +(?:[0-9]+ )?" + _MYSQL_LEVEL + r" "
        r"(?:(?P<component>InnoDB|Slave|Plugin|mysqld|WSREP): )?(?P<message>.*)$",
        r"^" + _MYSQL_TS + r" +(?P<component>InnoDB): (?P<message>.*)$",
        r"^(?P<component>InnoDB): (?P<message>.*)$",  # 5.x InnoDB writes no timestamp
        r"^(?P<level>ERROR): (?P<message>.*)$",  # 5.x bootstrap errors
    ),
    min_line_bytes=20,
    # the docker entrypoint's "2023-06-13 07:51:29+00:00" (a review: its records had no time)
    time_formats=(
        "%Y-%m-%dT%H:%M:%S%.f%#z",
        "%Y-%m-%d %H:%M:%S%#z",
        "%Y-%m-%d %H:%M:%S",
        "%y%m%d %H:%M:%S",
    ),
    record_start=r"(?:" + _D4 + r"(?:[ T]" + _HMS + "|" + _MARIA_HMS + ")"
    "|[0-9]{6} +[0-9]{1,2}:[0-9]{2}:[0-9]{2} "
    "|InnoDB: |ERROR: )",
    continuation="Version: ",
    head_component=True,  # 5.x names no subsystem: the error kind stands in
    description="MySQL/MariaDB error log (8.0 [MY-code] [Subsystem], 5.x): component = subsystem",
    example="2020-01-01T12:00:00.123456Z 0 [Warning] [MY-010068] [Server] CA cert is self signed",
)

NGINX_ERROR = AppRegexFormat(
    name="nginx_error",
    patterns=(
        # a message that opens with the file it names: ``"/x/index.html" is not found (2: No
        # such file or directory)``, ``is forbidden``: the words after it are the kind (probe
        # O: 43 of 45 errors had ranked under "-")
        r"^(?P<ts>[0-9]{4}/[0-9]{2}/[0-9]{2} " + _HMS + r") \[(?P<level>[a-z]+)\] "
        r'[0-9]+#[0-9]+: (?:\*[0-9]+ )?(?P<message>"[^"]*" (?P<component>[a-z][a-z ]*[a-z])'
        r"(?: \(|,|$).*)$",
        r"^(?P<ts>[0-9]{4}/[0-9]{2}/[0-9]{2} " + _HMS + r") \[(?P<level>[a-z]+)\] "
        r"[0-9]+#[0-9]+: (?:\*[0-9]+ )?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y/%m/%d %H:%M:%S",),
    head_component=True,
    record_start=r"[0-9]{4}/[0-9]{2}/[0-9]{2} " + _HMS + r" \[",
    # nginx starts every record with its date: the rest is wrapped text, but not a line that
    # opens a bracket (an access log beside it, NPMplus's "[06/Feb/2025:...]": its requests)
    continuation=r"[^0-9\[]",
    description="nginx error log: names no component, so component = error kind (message head)",
    example="2020/01/01 12:00:00 [error] 123#0: *1 connect() failed (111: Connection refused)",
)

ZAP = AppRegexFormat(
    name="zap",
    patterns=(
        r"^(?P<ts>" + _D4 + "T" + _HMS + r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)\t"
        r"(?P<level>[A-Za-z]+)\t(?:(?P<component>[^\t ]+)\t)?(?P<message>[^\t]*)(?:\t.*)?$",
    ),
    min_line_bytes=24,
    time_formats=ISO_TIMES,
    record_start=_D4 + "T" + _HMS,
    # zap's stack trace: a Go function per line (no blank), then its indented file:line
    continuation=r"[A-Za-z_][A-Za-z0-9_.\-/]*\.[A-Za-z0-9_.()*\[\]]+$",
    description="zap console encoder (ts TAB LEVEL TAB caller TAB msg): component = caller/logger",
    example="2024-01-01T00:00:00.000Z\tERROR\tpkg/file.go:12\tmsg",
)

#: zerolog's ConsoleWriter (Traefik v3's default log, many Go services): its three-letter levels.
_ZEROLOG_LEVELS = (
    ("TRC", TRACE),
    ("DBG", DEBUG),
    ("INF", INFO),
    ("WRN", WARN),
    ("ERR", ERROR),
    ("FTL", FATAL),
    ("PNC", FATAL),
)
ZEROLOG = AppRegexFormat(
    name="zerolog",
    patterns=(
        r"^(?P<ts>" + _D4 + "T" + _HMS + r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?) "
        r"(?P<level>TRC|DBG|INF|WRN|ERR|FTL|PNC|\?\?\?) "
        r"(?:(?P<component>[^ ]+) > )?(?P<message>.*)$",
    ),
    min_line_bytes=24,
    time_formats=ISO_TIMES,
    record_start=_D4 + "T" + _HMS,
    head_component=True,
    level_map=_ZEROLOG_LEVELS,
    description="zerolog console (ts LVL caller > msg key=value; Traefik v3): component = "
    "caller, else error kind",
    example="2024-11-08T07:31:56+01:00 ERR github.com/x/forward.go:187 > Remote error",
)

_ANSI = ANSI
#: A container's own message: klog's letter, or a level word among its first words (perhaps
#: coloured: Flask's red ``WARNING:``; or a JSON line's ``{"level":"warn"``, zap's and Caddy's).
_INNER_KLOG = r"(?P<level>[IWEF])[0-9]{4} "
#: Up to three words before the level, one more blank before it (Spring Boot pads ``  INFO``);
#: words end at a blank or a tab (zap's console encoder: ``ts\terror\tcaller\tmsg``). A quote
#: opens a level only as a level key's value (``"levelname": "ERROR"``, python-json-logger's):
#: ``"debug"`` alone is another key's value (an OpenTelemetry collector's
#: ``{"otelcol.component.id": "debug"}`` made its info lines DEBUG).
_INNER_WORD = (  # a level key: level, lvl, severity, levelname, loglevel, log.level, @l
    r"(?:[^ \t]+[ \t]){0,3}?[ \t]?(?:\[|(?:level|lvl)=\"?"
    r'|\{?"(?:[A-Za-z_.]*(?:level|severity|lvl|Level|Severity)[A-Za-z_]*|@l)": ?")?'
    + _ANSI
    + r"(?P<level>"
    + INNER_LEVEL_WORDS
    + r")(?:[^\w-]|$)"  # a whole word: "[error-cleanup]" names a job, not a level
)


#: .NET's console logger's levels no word list holds (``fail: Category[0]``; ``DOTNET``), and a
#: bracketed level in title case among the first words (OpenTelemetry C++'s ``[Error] File:``).
_INNER_DOTNET = r"(?P<level>trce|dbug|fail|crit): "
#: A container's levels: the shared words plus .NET's (``fail`` is ERROR there only: as a
#: level field elsewhere it is no level word).
_CONTAINER_LEVELS = (*LEVEL_MAP.items(), *DOTNET_LEVELS)
_INNER_TITLE = (
    r"(?:[^ \t]+[ \t]){0,3}?\[(?P<level>"
    r"Trace|Debug|Info|Information|Notice|Warn|Warning|Error|Fatal|Critical)\]"
)


def _inner_levels(head: str, colour: str = "") -> tuple[str, ...]:
    """The patterns of a container log's line after ``head``: klog's letter (after ``colour``
    codes), a level word, .NET's or a title-case bracketed one, a bracketed level further on,
    the Elastic stack's, none (a record without level)."""
    return (
        head + r"(?P<message>" + colour + _INNER_KLOG + r".*)$",
        head + r"(?P<message>" + _INNER_WORD + r".*)$",
        head + r"(?P<message>" + _INNER_DOTNET + r".*)$",
        head + r"(?P<message>" + _INNER_TITLE + r".*)$",
        head + r"(?P<message>" + INNER_BRACKET + r".*)$",
        head + r"(?P<message>" + INNER_ELASTIC + r".*)$",
        head + r"(?P<message>.*)$",
    )


_CRI_HEAD = (
    r"^(?P<ts>" + _D4 + "T" + _HMS + r"\.[0-9]+(?:Z|[+-][0-9]{2}:[0-9]{2})) (?:stdout|stderr) [FP] "
)
CRI = AppRegexFormat(
    name="cri",
    patterns=_inner_levels(_CRI_HEAD),
    min_line_bytes=36,
    level_map=_CONTAINER_LEVELS,
    time_formats=ISO_TIMES,
    head_component=True,
    description="Kubernetes CRI container log: level from the container's message; "
    "component = error kind (message head)",
    example="2024-01-01T00:00:00.000000000Z stderr F E0101 00:00:00.000 1 x.go:1] failed",
)

#: Monolog's levels (RFC 5424 names): NOTICE is INFO here, ALERT and EMERGENCY FATAL.
_MONOLOG_LEVEL = r"(?P<level>DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY)"
_MONOLOG_TS = _D4 + "[ T]" + _HMS + r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?"
MONOLOG = AppRegexFormat(
    name="monolog",
    patterns=(
        r"^\[(?P<ts>"
        + _MONOLOG_TS
        + r")\] (?P<component>[^ \[\]]+?)\."
        + _MONOLOG_LEVEL
        + r": ?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=ISO_TIMES,
    record_start=r"\[" + _D4 + "[ T]" + _HMS,
    # PHP's trace inside a record: Laravel's "[stacktrace]", "#0 /path(12): f()", "Stack
    # trace:", "[previous exception] ...", "Next Exception: ..." and the context's closing "}
    continuation=r'#[0-9]+ |\[stacktrace\]|\[previous exception\] |Stack trace:|Next |"\} *$',
    description="PHP Monolog line format (Laravel, Symfony): component = channel (Laravel's "
    "is the environment: local, production)",
    example="[2023-05-15 18:19:32] production.ERROR: Target class [X] does not exist.",
)

#: ``docker compose logs``: ``service-1  | message``, the prefix perhaps coloured (compose v2
#: colours ``name  |`` and resets before or after the blank) and the message perhaps after
#: the container's RFC 3339 stamp (``--timestamps``).
_COMPOSE_HEAD = (
    r"^" + _ANSI + r"(?P<component>[A-Za-z0-9][A-Za-z0-9_.-]*) +\|" + _ANSI + " " + _ANSI
    + r"(?:(?P<ts>" + _D4 + "T" + _HMS + r"(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))[ \t])?"
)  # fmt: skip
#: What is no service name: a level word (Java Service Wrapper's ``ERROR  | wrapper  | ...``,
#: Python's ``%(levelname)-8s | ...``) or a stamp's date.
_NOT_A_SERVICE = r"(?i)^(?:" + REFUSED_WORDS + r"|status|advice|[0-9]{4}-[0-9]{2}-[0-9]{2})$"
COMPOSE = AppRegexFormat(
    name="compose",
    patterns=_inner_levels(_COMPOSE_HEAD, _ANSI),
    # l_min: "db-1 | x" (compose v2 names end in -N); a shorter line is no record. It bounds
    # the events one unread unit can hide: 4 made a proof that binary junk holds no record
    # need the whole file (the smallest l_min of all layouts counts there)
    min_line_bytes=8,
    level_map=_CONTAINER_LEVELS,
    time_formats=ISO_TIMES,
    refused_components=_NOT_A_SERVICE,
    description="docker compose logs (service | message): component = service; level from "
    "the container's message",
    example="web-1  | 2024-04-25T05:32:35.600Z ERROR db unreachable",
)
