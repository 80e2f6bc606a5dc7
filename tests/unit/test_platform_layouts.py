"""Layouts of platforms' own logs (formats/platformlogs.py): Tomcat, Jenkins, Cassandra,
MongoDB before 4.4, Celery and PHP's error log (with php-fpm's).

Tomcat's and MongoDB's lines are real: logstash-plugins/logstash-patterns-core
``spec/patterns/java_spec.rb`` and ``mongodb_spec.rb`` @ 7f94275ec8212f7f0aa6eb4ac5dbf3d70cd05cac
(Apache-2.0). The others are written to each platform's documented default layout (Jenkins'
``SupportLogFormatter``, Cassandra's ``logback.xml``, Celery's ``worker_log_format`` and
``worker_task_log_format``, PHP's ``php_error_cb``, php-fpm's ``zlog``); before these layouts
each was unrecognized or read by ``generic`` with the thread or nothing as its component.
"""

from __future__ import annotations

import polars as pl
import pytest

from logagent.formats.app import AppRegexFormat, parse_app
from logagent.formats.applogs import RUBY
from logagent.formats.desktoplogs import INTELLIJ, MINECRAFT
from logagent.formats.detect import detect_all
from logagent.formats.javalogs import JUL
from logagent.formats.levelfilter import level_prefilter
from logagent.formats.platformlogs import (
    AIRFLOW,
    CASSANDRA,
    CELERY,
    CLICKHOUSE,
    DOTNET,
    JENKINS,
    MONGODB,
    PHP,
    RABBITMQ,
    TOMCAT,
    UVICORN,
)
from logagent.formats.records import fold_records
from logagent.formats.serverlogs import MYSQL
from logagent.formats.systemlogs import AUDITD
from tests.unit.test_probe_m_layouts import IDEA, MARIADB, MC, RAILS
from tests.unit.test_probe_p_layouts import JUL_LINES
from tests.unit.test_system_layouts import AUDIT

TOMCAT_TRACE = [
    "30-Dec-2020 11:44:31.277 SEVERE [main] org.apache.catalina.util.LifecycleBase."
    "handleSubClassException Failed to initialize component [Connector[HTTP/1.1-8080]]",
    "\torg.apache.catalina.LifecycleException: Protocol handler initialization failed",
    "\t\tat org.apache.catalina.connector.Connector.initInternal(Connector.java:1042)",
    "\tCaused by: java.net.BindException: Address already in use",
    "\t\tat sun.nio.ch.Net.bind0(Native Method)",
    "\t\t... 13 more",
    "31-Jul-2020 16:40:38.505 INFO [localhost-startStop-1] org.apache.catalina.startup."
    "HostConfig.deployDirectory Deployment of web application directory "
    "[/opt/temp/apache-tomcat-8.5.57/webapps/ROOT] has finished in [40] ms",
]
MONGODB_LINES = [
    "2014-11-03T18:28:32.450-0500 I NETWORK [initandlisten] waiting for connections on port 27017",
    "2015-02-24T18:17:47.148+0000 F -        [conn11] Got signal: 11 (Segmentation fault).",
    "2015-04-23T06:57:28.256+0200 I JOURNAL  [journal writer] Journal writer thread started",
    "2020-08-13T11:58:09.672+0200 I NETWORK  [conn2] end connection 127.0.0.1:41258 "
    "(1 connection now open)",
]
JENKINS_LINES = [
    "2026-12-06 02:40:38.123+0000 [id=1]\tINFO\thudson.WebAppMain$3#run: Jenkins is fully up",
    "2026-12-06 02:40:38.456+0000 [id=42]\tSEVERE\thudson.model.Executor#finish1: Executor "
    "threw an exception",
    "java.lang.NullPointerException",
    "\tat hudson.model.Executor.run(Executor.java:431)",
]
CASSANDRA_LINES = [
    "INFO  [main] 2026-12-06 02:40:38,123 StorageService.java:1234 - Node is ready to serve",
    "ERROR [CompactionExecutor:1] 2026-12-06 02:40:38,456 CassandraDaemon.java:228 - Exception "
    "in thread Thread[CompactionExecutor:1,1,main]",
    "java.lang.RuntimeException: boom",
    "\tat org.apache.cassandra.db.compaction.CompactionTask.run(CompactionTask.java:100)",
]
CELERY_LINES = [
    "[2026-12-06 02:40:38,123: INFO/MainProcess] Connected to redis://localhost:6379/0",
    "[2026-12-06 02:40:38,456: ERROR/ForkPoolWorker-3] Task app.tasks.send_mail[1f2e3d4c-0000-"
    "4000-8000-000000000001] raised unexpected: SMTPException('timeout')",
    "Traceback (most recent call last):",
    '  File "/app/tasks.py", line 12, in send_mail',
    "[2026-12-06 02:40:39,000: WARNING/ForkPoolWorker-2] app.tasks.sync[9a8b7c6d-0000-4000-8000-"
    "000000000002]: retrying in 5s",
    "[2026-12-06 02:40:40,000: ERROR/ForkPoolWorker-7] Pool process 4242 error: "
    "WorkerLostError('Worker exited prematurely')",
]
PHP_LINES = [
    "[06-Dec-2026 02:40:38 UTC] PHP Fatal error:  Uncaught Error: Call to undefined function "
    "foo() in /var/www/html/index.php:3",
    "[06-Dec-2026 02:40:38 UTC] PHP Stack trace:",
    "[06-Dec-2026 02:40:38 UTC] PHP   1. {main}() /var/www/html/index.php:0",
    "[06-Dec-2026 02:40:39 Europe/Berlin] PHP Warning:  Undefined variable $x in "
    "/var/www/html/a.php on line 5",
    "[06-Dec-2026 02:40:40 UTC] PHP Deprecated:  strlen(): Passing null to parameter #1 in "
    "/var/www/html/b.php on line 9",
    "[06-Dec-2026 02:40:41 UTC] payment gateway answered 503",
]
FPM_LINES = [
    "[06-Dec-2026 02:40:38] NOTICE: fpm is running, pid 1",
    "[06-Dec-2026 02:40:39] WARNING: [pool www] server reached pm.max_children setting (5)",
    "[06-Dec-2026 02:40:40] ERROR: unable to bind listening socket for address '/run/php.sock'",
]


AIRFLOW_LINES = [
    "[2026-12-06T02:40:38.123+0000] {taskinstance.py:1157} INFO - Starting attempt 1 of 1",
    "[2026-12-06T02:40:38.456+0000] {taskinstance.py:1890} ERROR - Task failed with exception",
    "Traceback (most recent call last):",
    '  File "/opt/airflow/dags/etl.py", line 12, in load',
    "[2026-12-06 02:40:39,000] {scheduler_job.py:567} WARNING - Tasks are still running",
]
RABBITMQ_LINES = [
    "2026-12-06 02:40:38.123456+00:00 [info] <0.123.0> Server startup complete; 3 plugins started.",
    "2026-12-06 02:40:38.223456+00:00 [error] <0.456.0> Error on AMQP connection <0.456.0> "
    "(10.0.0.1:5672 -> 10.0.0.2:5672, state: starting):",
    "2026-12-06 02:40:38.223456+00:00 [error] <0.456.0> PLAIN login refused: user 'guest'",
    "2026-12-06 02:40:38.323456+00:00 [warning] <0.789.0> closing AMQP connection",
]


#: .NET's console logger, as Microsoft's documentation shows its default output, then one
#: SingleLine record with a TimestampFormat.
DOTNET_LINES = [
    "info: Microsoft.Hosting.Lifetime[14]",
    "      Now listening on: http://localhost:5000",
    "fail: Microsoft.AspNetCore.Server.Kestrel[13]",
    '      Connection id "0HMQ8", Request id "0HMQ8:00000001": An unhandled exception was thrown.',
    "      System.InvalidOperationException: boom",
    "         at Program.<>c.<Main>b__0_0() in /src/Program.cs:line 9",
    "2026-12-06 02:40:38 crit: MyApp.Startup[0] Host terminated unexpectedly",
]


CLICKHOUSE_LINES = [
    "2026.12.06 02:40:38.123456 [ 123 ] {a1b2c3} <Error> executeQuery: Code: 60. "
    "DB::Exception: Table default.x does not exist. (UNKNOWN_TABLE)",
    "2026.12.06 02:40:38.223456 [ 124 ] {} <Information> Application: Ready for connections.",
    "2026.12.06 02:40:38.323456 [ 125 ] {} <Warning> Context: Server was built in debug mode.",
]
UVICORN_LINES = [
    "INFO:     Started server process [123]",
    'INFO:     10.0.0.1:5000 - "GET /api/items/42 HTTP/1.1" 500 Internal Server Error',
    "ERROR:    Exception in ASGI application",
    "Traceback (most recent call last):",
    '  File "/app/main.py", line 10, in read',
    "ValueError: boom",
    "WARNING:  Invalid HTTP request received.",
]


def folded(fmt: AppRegexFormat, lines: list[str]) -> list[tuple[object, ...]]:
    frame = fold_records(pl.Series("line", lines), fmt)
    return frame.select("level", "component", "lines").rows()


def test_tomcat_folds_its_stack_trace_and_severe_is_error() -> None:
    assert folded(TOMCAT, TOMCAT_TRACE) == [
        ("ERROR", "org.apache.catalina.util.LifecycleBase.handleSubClassException", 6),
        ("INFO", "org.apache.catalina.startup.HostConfig.deployDirectory", 1),
    ]
    got = parse_app(TOMCAT, pl.Series("line", TOMCAT_TRACE[:1]))
    assert str(got["time"][0]) == "2020-12-30 11:44:31.277000+00:00"


def test_mongodb_severity_letters_and_components() -> None:
    got = parse_app(MONGODB, pl.Series("line", MONGODB_LINES))
    assert got.select("level", "component").rows() == [
        ("INFO", "NETWORK"),
        ("FATAL", "-"),
        ("INFO", "JOURNAL"),
        ("INFO", "NETWORK"),
    ]
    assert got["message"][1] == "Got signal: 11 (Segmentation fault)."
    assert str(got["time"][0]) == "2014-11-03 23:28:32.450000+00:00"  # -0500 taken into account
    # D1-D5 are DEBUG, as MongoDB names them and as mongodb_json reads them (D3 was TRACE)
    verbose = [f"2020-08-13T11:58:09.672+0200 D{i} NETWORK  [conn2] x" for i in range(1, 6)]
    assert parse_app(MONGODB, pl.Series("line", verbose))["level"].to_list() == ["DEBUG"] * 5


def test_jenkins_and_cassandra_fold_java_traces() -> None:
    assert folded(JENKINS, JENKINS_LINES) == [
        ("INFO", "hudson.WebAppMain$3", 1),
        ("ERROR", "hudson.model.Executor", 3),
    ]
    assert folded(CASSANDRA, CASSANDRA_LINES) == [
        ("INFO", "StorageService.java", 1),
        ("ERROR", "CassandraDaemon.java", 3),
    ]


def test_celery_names_the_task_else_the_process_kind() -> None:
    assert folded(CELERY, CELERY_LINES) == [
        ("INFO", "MainProcess", 1),
        ("ERROR", "app.tasks.send_mail", 3),  # its traceback folded
        ("WARN", "app.tasks.sync", 1),
        ("ERROR", "ForkPoolWorker", 1),  # the kind, not each worker's number
    ]


def test_php_error_kinds_script_files_and_stack_traces() -> None:
    assert folded(PHP, PHP_LINES) == [
        ("FATAL", "/var/www/html/index.php", 3),  # "PHP Stack trace:" and its frames folded
        ("WARN", "/var/www/html/a.php", 1),
        ("INFO", "/var/www/html/b.php", 1),
        (None, "payment gateway answered", 1),  # the application's error_log(): no level
    ]
    # a Windows host's paths (a WordPress debug.log, probe H: ranked by error kind before)
    windows = [
        "[30-Mar-2017 08:51:49 UTC] PHP Warning:  fwrite() expects parameter 2 to be string, "
        "object given in F:\\OpenServer\\wp\\functions.php on line 18",
        "[30-Mar-2017 08:52:00 UTC] PHP Fatal error:  Uncaught Error: x in C:\\www\\a.inc:7",
    ]
    assert folded(PHP, windows) == [
        ("WARN", "F:\\OpenServer\\wp\\functions.php", 1),
        ("FATAL", "C:\\www\\a.inc", 1),
    ]


def test_php_fpm_levels_and_pool() -> None:
    got = parse_app(PHP, pl.Series("line", FPM_LINES))
    assert got.select("level", "component").rows() == [
        ("INFO", "fpm is"),
        ("WARN", "www"),
        ("ERROR", "unable to bind listening"),
    ]


@pytest.mark.parametrize(
    ("lines", "name"),
    [
        (TOMCAT_TRACE, "tomcat"),
        (MONGODB_LINES, "mongodb"),
        (JENKINS_LINES, "jenkins"),
        (CASSANDRA_LINES, "cassandra"),
        (CELERY_LINES, "celery"),
        (PHP_LINES, "php"),
        (FPM_LINES, "php"),
        (AIRFLOW_LINES, "airflow"),
        (RABBITMQ_LINES, "rabbitmq"),
        (DOTNET_LINES, "dotnet"),
        (CLICKHOUSE_LINES, "clickhouse"),
        (UVICORN_LINES, "uvicorn"),
    ],
)
def test_detection_names_each_platform(lines: list[str], name: str) -> None:
    found = detect_all(lines * 5)
    assert found.scores[0] == (name, 1.0) and not found.ambiguous


FPM_RELAYED = [
    '[06-Dec-2026 02:40:39] WARNING: [pool www] child 12 said into stderr: "NOTICE: PHP message: '
    'PHP Fatal error:  Uncaught Exception: boom in /var/www/a.php:3"',
    '[06-Dec-2026 02:40:39] WARNING: [pool www] child 12 said into stderr: "Stack trace:"',
    '[06-Dec-2026 02:40:39] WARNING: [pool www] child 12 said into stderr: "#0 {main}"',
    '[06-Dec-2026 02:40:39] WARNING: [pool www] child 12 said into stderr: "  thrown in '
    '/var/www/a.php on line 3"',
    "[06-Dec-2026 02:40:40] WARNING: [pool www] child 12 exited on signal 11 (SIGSEGV) after "
    "3.1 seconds from start",
    "[06-Dec-2026 02:40:41] NOTICE: [pool www] child 13 started",
]
PHP7_TRACE = [
    "[06-Dec-2026 02:40:38 UTC] PHP Fatal error:  Uncaught Exception: boom in /var/www/a.php:3",
    "Stack trace:",
    "#0 /var/www/b.php(12): foo()",
    "#1 {main}",
    "  thrown in /var/www/a.php on line 3",
    "[06-Dec-2026 02:40:39 UTC] PHP Warning:  Undefined variable $x in /var/www/a.php on line 5",
]


def test_php_errors_php_fpm_relays_keep_their_level_and_trace() -> None:
    """A worker's PHP fatal relayed by php-fpm (``catch_workers_output``) is FATAL, not the
    relaying line's WARNING; its relayed trace continues it; php-fpm's own lines about the
    child (exited, started) stay records of their own."""
    assert folded(PHP, FPM_RELAYED) == [
        ("FATAL", "/var/www/a.php", 4),
        ("WARN", "www", 1),
        ("INFO", "www", 1),
    ]
    assert detect_all(FPM_RELAYED * 5).scores[0] == ("php", 1.0)


def test_php_7_raw_stack_traces_continue_and_do_not_lower_confidence() -> None:
    assert folded(PHP, PHP7_TRACE) == [
        ("FATAL", "/var/www/a.php", 5),
        ("WARN", "/var/www/a.php", 1),
    ]
    assert detect_all(PHP7_TRACE * 5).scores[0] == ("php", 1.0)


def test_tomcat_thread_names_may_hold_brackets() -> None:
    line = (
        "06-Dec-2018 10:00:01.000 SEVERE [ContainerBackgroundProcessor[StandardEngine[Catalina]]] "
        "org.apache.catalina.loader.WebappClassLoaderBase.checkThreadLocalMapForLeaks The web "
        "application [ROOT] created a ThreadLocal"
    )
    got = parse_app(TOMCAT, pl.Series("line", [line]))
    assert got.select("level", "component").row(0) == (
        "ERROR",
        "org.apache.catalina.loader.WebappClassLoaderBase.checkThreadLocalMapForLeaks",
    )


def test_cassandra_dse_and_celery_thread_pools_and_mongodb_backtraces() -> None:
    dse = "ERROR [main] 2019-05-29 10:43:08,540  DseDaemon.java:500 - Unable to start DSE server."
    assert parse_app(CASSANDRA, pl.Series("line", [dse])).select("component").item() == (
        "DseDaemon.java"
    )
    pool = "[2026-12-06 02:40:38,123: ERROR/ThreadPoolExecutor-0_0] Thread pool worker died"
    assert parse_app(CELERY, pl.Series("line", [pool])).select("component").item() == (
        "ThreadPoolExecutor"
    )
    crash = [
        MONGODB_LINES[1],
        " mongod(_ZN5mongo15printStackTraceERSo+0x41) [0x1234]",
        "----- BEGIN BACKTRACE -----",
        '{"backtrace":[{"b":"400000","o":"1234"}]}',
        MONGODB_LINES[0],
    ]
    assert folded(MONGODB, crash) == [("FATAL", "-", 4), ("INFO", "NETWORK", 1)]


@pytest.mark.parametrize(
    ("fmt", "lines"),
    [
        (PHP, [*PHP_LINES, *FPM_LINES, *FPM_RELAYED, *PHP7_TRACE, "[06-Dec-2026 02:40:42 UTC] "]),
        (CASSANDRA, [*CASSANDRA_LINES, "INFO  [main", "x] 2024-01-02 03:04:05,000 A.java:1 - m"]),
        (TOMCAT, TOMCAT_TRACE),
        (JENKINS, JENKINS_LINES),
        (CELERY, CELERY_LINES),
        (MONGODB, MONGODB_LINES),
        (AIRFLOW, AIRFLOW_LINES),
        (RABBITMQ, RABBITMQ_LINES),
        (DOTNET, DOTNET_LINES),
        (CLICKHOUSE, CLICKHOUSE_LINES),
        (UVICORN, UVICORN_LINES),
        (INTELLIJ, IDEA),
        (MINECRAFT, MC),
        (MYSQL, MARIADB),
        (AUDITD, AUDIT),
        (RUBY, RAILS),
        (JUL, JUL_LINES),
    ],
)
def test_python_and_polars_agree_on_record_starts(fmt: AppRegexFormat, lines: list[str]) -> None:
    """The reader cuts units on ``record_start`` with Python's bytes ``re`` over many lines at
    once; the parser folds lines with Polars one line at a time: both must find the same
    starts, also where a line is empty or a bracket opens on one line and closes on the next."""
    from logagent.formats.records import start_expr
    from logagent.sources.records import compile_start

    assert fmt.record_start is not None
    data = "\n".join(lines).encode() + b"\n"
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line.encode()) + 1)
    by_python = [m.start() for m in compile_start(fmt.record_start).finditer(data)]
    frame = pl.DataFrame({"line": lines}).select(start_expr(fmt, pl.col("line")))
    by_polars = [o for o, s in zip(offsets, frame.to_series(), strict=True) if s]
    assert by_python == by_polars


def test_airflow_source_files_and_rabbitmq_error_kinds() -> None:
    assert folded(AIRFLOW, AIRFLOW_LINES) == [
        ("INFO", "taskinstance.py", 1),
        ("ERROR", "taskinstance.py", 3),  # its traceback folded
        ("WARN", "scheduler_job.py", 1),
    ]
    got = parse_app(RABBITMQ, pl.Series("line", RABBITMQ_LINES))
    assert got.select("level", "component").rows() == [
        ("INFO", "Server startup"),
        ("ERROR", "Error on AMQP connection"),
        ("ERROR", "PLAIN login refused"),  # the words before the colon, all of them
        ("WARN", "closing AMQP connection"),
    ]
    # the console handler's colours (psravya-10/flightApp...'s rabbitmq.log: every coloured
    # [notice] and [warning] line had been folded as a continuation, the warnings lost)
    coloured = [
        "\x1b[38;5;87m2025-12-08 15:39:40.026062+00:00 [notice] <0.254.0> Logging: handlers "
        "are now ACTIVE\x1b[0m",
        "\x1b[38;5;214m2025-12-08 15:39:41.100+00:00 [warning] <0.9.0> closing AMQP "
        "connection\x1b[0m",
    ]
    out = fold_records(pl.Series("line", coloured), RABBITMQ)
    assert out.select("level", "component", "lines").rows() == [
        ("INFO", "Logging", 1),
        ("WARN", "closing AMQP connection", 1),
    ]
    assert not any("\x1b" in m for m in out["message"].to_list())


def test_dotnet_console_messages_below_their_category() -> None:
    got = fold_records(pl.Series("line", DOTNET_LINES), DOTNET)
    assert got.select("level", "component", "lines").rows() == [
        ("INFO", "Microsoft.Hosting.Lifetime", 2),
        ("ERROR", "Microsoft.AspNetCore.Server.Kestrel", 4),
        ("FATAL", "MyApp.Startup", 1),
    ]
    assert "An unhandled exception was thrown" in got["message"][1]
    assert str(got["time"][2]) == "2026-12-06 02:40:38+00:00"
    prefilter = level_prefilter(DOTNET, ["ERROR", "FATAL"])  # its own words: fail, crit
    assert prefilter is not None and prefilter.pattern == b"crit|fail"


def test_clickhouse_components_and_uvicorn_tracebacks() -> None:
    # ClickHouse's start-up line names no logger (tiniumv/clickhouse_bug: it was malformed)
    start = (
        "2021.12.13 09:55:27.842789 [ 1 ] {} <Information> : Starting ClickHouse 21.10.4.26 "
        "with revision 54455, PID 1"
    )
    got = parse_app(CLICKHOUSE, pl.Series("line", [*CLICKHOUSE_LINES, start]))
    assert got.select("level", "component").rows() == [
        ("ERROR", "executeQuery"),
        ("INFO", "Application"),
        ("WARN", "Context"),
        ("INFO", "-"),
    ]
    assert got["message"][3].startswith("Starting ClickHouse")
    assert str(got["time"][0]) == "2026-12-06 02:40:38.123456+00:00"
    assert folded(UVICORN, UVICORN_LINES) == [
        ("INFO", "Started server process", 1),
        ("INFO", "-", 1),  # an access line names no error kind
        ("ERROR", "Exception in ASGI application", 4),  # the traceback folded
        ("WARN", "Invalid HTTP request received", 1),
    ]


def test_second_review_variants() -> None:
    """ClickHouse loggers that are C++ signatures; RabbitMQ's bare prefix (an empty line of a
    multi-line message) and its alert level; .NET's short categories and time-only stamps;
    Airflow's "[date, time UTC]"."""
    ch = (
        "2024.01.02 10:00:00.223456 [ 124 ] {} <Error> void DB::MergeTreeBackgroundExecutor<DB::"
        "MergeMutateRuntimeQueue>::routine(DB::TaskRuntimeDataPtr) [Queue = DB::MergeMutateRuntime"
        "Queue]: Code: 241. DB::Exception: Memory limit exceeded"
    )
    kafka = "2024.01.02 10:00:00.323456 [ 125 ] {} <Error> DB::StorageKafka::threadFunc(size_t): x"
    got = parse_app(CLICKHOUSE, pl.Series("line", [ch, kafka]))
    assert got["level"].to_list() == ["ERROR", "ERROR"]
    assert got["component"][1] == "DB::StorageKafka::threadFunc(size_t)"
    assert got["message"][0].startswith("Code: 241.")
    rmq = [
        "2024-01-02 10:00:00.123456+00:00 [error] <0.1264.0> ** Generic server x terminating",
        "2024-01-02 10:00:00.123456+00:00 [error] <0.1264.0>",
        "2024-01-02 10:00:00.223456+00:00 [alert] <0.1265.0> disk free limit reached",
    ]
    assert parse_app(RABBITMQ, pl.Series("line", rmq))["level"].to_list() == [
        "ERROR",
        "ERROR",
        "FATAL",
    ]
    dotnet = [
        "fail: Db[0]",
        "      boom",
        "10:00:01 fail: Microsoft.AspNetCore.Server.Kestrel[13]",
        "      Connection reset",
        "[10:00:02] crit: App[0] Host terminated",
    ]
    assert folded(DOTNET, dotnet) == [
        ("ERROR", "Db", 2),
        ("ERROR", "Microsoft.AspNetCore.Server.Kestrel", 2),
        ("FATAL", "App", 1),
    ]
    ui = "[2022-07-18, 17:05:19 UTC] {taskinstance.py:1889} ERROR - Task failed with exception"
    got = parse_app(AIRFLOW, pl.Series("line", [ui]))
    assert got.select("level", "component").row(0) == ("ERROR", "taskinstance.py")
    assert str(got["time"][0]) == "2022-07-18 17:05:19+00:00"


def test_uvicorn_needs_its_padding_and_shows_other_loggers_lines() -> None:
    """pip's and Docker's "ERROR: msg" and Python's "INFO:name:msg" are no Uvicorn lines; an
    application's own stamped line in Uvicorn's stream starts a record of its own (one this
    layout does not read), instead of hiding inside the access line before it."""
    for lines, not_it in (
        ([f"ERROR: Could not find a version that satisfies pkg{i}" for i in range(20)], True),
        ([f"WARNING: No swap limit support {i}" for i in range(20)], True),
        ([f"INFO: app.db: Starting worker {i}" for i in range(20)], True),
        (UVICORN_LINES * 3, False),
    ):
        assert (detect_all(lines).best != "uvicorn") is not_it
    mixed = [
        UVICORN_LINES[1],
        "2024-01-02 10:00:00,123 ERROR app.db: connection refused",
        UVICORN_LINES[2],
    ]
    got = fold_records(pl.Series("line", mixed), UVICORN)
    assert got.select("level", "lines", "valid").rows() == [
        ("INFO", 1, True),
        (None, 1, False),  # malformed, and counted so, not folded away
        ("ERROR", 1, True),
    ]


def test_php_stamps_in_a_named_region_are_placed_in_utc() -> None:
    """PHP writes its date.timezone after the stamp: ``Europe/Berlin`` in summer is +2 h and in
    winter +1 h (a real error_log, probe E: every window and timeline had been shifted by the
    offset, "exact"). UTC and php-fpm's stamps without a zone stay as written; a region the
    zone database lacks is null and named for a warning; a time the clock skipped is null."""
    from datetime import datetime

    from logagent.formats.apptimes import unknown_zones

    stamps = [
        "25-May-2025 20:06:59 Europe/Berlin",
        "25-Jan-2025 20:06:59 Europe/Berlin",
        "04-Jul-2024 08:00:00 America/New_York",
        "04-Jul-2024 08:00:00 UTC",
        "31-Dec-2024 23:30:00 Asia/Kolkata",
        "30-Mar-2025 02:30:00 Europe/Berlin",  # skipped: clocks went 02:00 -> 03:00
        "04-Jul-2024 08:00:00 Mars/Olympus_Mons",
    ]
    lines = [f"[{s}] PHP Warning:  x in /srv/a.php on line 3" for s in stamps]
    lines.append("[04-Jul-2024 08:00:00] WARNING: [pool www] server reached pm.max_children")
    got = parse_app(PHP, pl.Series("line", lines))
    times = [t and t.replace(tzinfo=None) for t in got["time"].to_list()]
    assert times == [
        datetime(2025, 5, 25, 18, 6, 59),
        datetime(2025, 1, 25, 19, 6, 59),
        datetime(2024, 7, 4, 12, 0, 0),
        datetime(2024, 7, 4, 8, 0, 0),
        datetime(2024, 12, 31, 18, 0, 0),
        None,
        None,
        datetime(2024, 7, 4, 8, 0, 0),
    ]
    assert unknown_zones(got["ts"].to_list(), PHP.time_formats) == ["Mars/Olympus_Mons"]
