"""Layouts a probe of real logs found misread (stop 46): the lines follow the real ones.

- supervisord's own log (AhmetZiyaBOLUKBASI/awx_docker_compose and AlanCoding/supervisor_examples
  ``supervisord.log``): read as hadoop, whose ``name: `` INFO lines it shares, so every CRIT
  line was malformed and the run said "no ERROR+ record in the whole input";
- Grafana's log15 logfmt (Percona-Lab/pmm-submodules ``grafana.log``): ``lvl=eror`` was no level;
- Kafka Connect's ``(class:line)`` (shoheim/debezium-test ``jdbc-connect.log``): component "-";
- an error kind ending in a colon (``plugin/hosts: File does not exist``, CoreDNS): "-".
"""

from __future__ import annotations

import polars as pl

from logagent.formats.app import message_head, parse_app
from logagent.formats.appkeys import auto_app_mapping
from logagent.formats.applogs import HADOOP, SUPERVISORD
from logagent.formats.detect import detect_all
from logagent.formats.serverlogs import KAFKA, ZEROLOG
from logagent.formats.structured import LogfmtFormat

SUPERVISOR = [
    "2022-11-08 11:21:54,066 CRIT Server 'unix_http_server' running without any HTTP "
    "authentication checking",
    "2022-11-08 11:21:54,067 INFO supervisord started with pid 1",
    "2022-11-08 11:21:55,070 INFO spawned: 'awx-web' with pid 20",
    "2022-11-08 11:21:56,117 INFO success: awx-web entered RUNNING state, process has stayed up "
    "for > than 1 seconds (startsecs)",
    "2022-11-08 11:24:12,530 WARN received SIGINT indicating exit request",
    "2022-11-08 11:24:13,001 ERRO pool awx-web event buffer overflowed, discarding event 12",
    "2022-11-08 11:24:14,002 DEBG 'awx-web' stdout output:",
]


def test_supervisord_is_its_own_layout_with_its_four_letter_levels() -> None:
    found = detect_all(SUPERVISOR * 4)
    assert found.best == "supervisord" and found.confidence == 1.0
    got = parse_app(SUPERVISORD, pl.Series("line", SUPERVISOR))
    assert got["level"].to_list() == ["FATAL", "INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"]
    assert got["component"].to_list()[0] == "Server"  # the error kind: no component named
    assert got["component"].to_list()[4] == "received SIGINT indicating exit"


def test_a_hadoop_log_stays_hadoop() -> None:
    """supervisord reads hadoop's INFO lines too (ts,ms LEVEL text): hadoop keeps them."""
    lines = [
        "2015-10-18 18:01:47,978 INFO org.apache.hadoop.mapreduce.v2.app.MRAppMaster: Created",
        "2015-10-18 18:01:48,963 WARN org.apache.hadoop.util.NativeCodeLoader: Unable to load",
        "2015-10-18 18:01:49,100 ERROR org.apache.hadoop.mapred.Task: Task failed",
    ]
    assert detect_all(lines * 4).best == "hadoop"
    assert parse_app(HADOOP, pl.Series("line", lines))["level"].to_list() == [
        "INFO",
        "WARN",
        "ERROR",
    ]


def test_log15_levels_are_levels() -> None:
    lines = [
        't=2021-10-19T09:44:34+0000 lvl=info msg="HTTP Server Listen" logger=http.server',
        't=2021-10-19T09:44:35+0000 lvl=eror msg="Failed to look up user" logger=context '
        'error="user not found"',
        't=2021-10-19T09:44:36+0000 lvl=warn msg="falling back" logger=migrator',
        't=2021-10-19T09:44:37+0000 lvl=dbug msg="x" logger=migrator',
    ]
    fmt = LogfmtFormat(mapping=auto_app_mapping(lines, None, logfmt=True))
    got = parse_app(fmt, pl.Series("line", lines))
    assert got["level"].to_list() == ["INFO", "ERROR", "WARN", "DEBUG"]


def test_kafka_connect_names_the_class_before_its_line_number() -> None:
    lines = [
        "[2022-01-09 00:27:52,475] WARN Couldn't resolve server kafka:9092 from bootstrap.servers "
        "as DNS resolution failed for kafka (org.apache.kafka.clients.ClientUtils:74)",
        "[2022-01-09 00:27:52,481] ERROR Stopping due to error "
        "(org.apache.kafka.connect.cli.ConnectDistributed:86)",
        "[2016-12-19 16:31:47,437] WARN message (kafka.controller.KafkaController)",
    ]
    got = parse_app(KAFKA, pl.Series("line", lines))
    assert got["component"].to_list() == [
        "org.apache.kafka.clients.ClientUtils",
        "org.apache.kafka.connect.cli.ConnectDistributed",
        "kafka.controller.KafkaController",
    ]
    assert got["message"].to_list()[1] == "Stopping due to error"


def test_an_error_kind_may_end_in_a_colon() -> None:
    messages = {
        "plugin/hosts: File does not exist: /etc/coredns/hosts": "plugin/hosts",
        "java.lang.IllegalStateException: boom": "java.lang.IllegalStateException",
        "ActiveRecord::StatementInvalid (PG::Error)": "ActiveRecord::StatementInvalid",
        "PLAIN login refused: user 'guest'": "PLAIN login refused",
        "connect() failed (111: Connection refused)": "connect() failed",  # as before
        "Error:glued": None,  # a colon inside a word ends no kind
        "12 workers lost": None,
    }
    got = pl.DataFrame({"m": list(messages)}).select(message_head(pl.col("m")))["m"].to_list()
    assert got == list(messages.values())


def test_serilog_json_formatter_and_clef_levels() -> None:
    """Serilog's JsonFormatter (``Timestamp``/``Level``/``MessageTemplate``, KhageshorGiri/
    LibraryManagmentSystem ``Logs/log.json``) was refused; its compact CLEF (datalust/seqcli's
    ``events.clef``) writes ``@l`` only off Information, and its errors were not seen."""
    from logagent.formats.structured import JsonAppFormat

    formatter = [
        '{"Timestamp":"2023-01-22T19:00:35.8244374+05:45","Level":"Information",'
        '"MessageTemplate":"Application Starting Up.","Properties":{"ProcessId":8452}}',
        '{"Timestamp":"2023-01-22T19:00:41.1+05:45","Level":"Error","MessageTemplate":'
        '"An unhandled exception has occurred.","Properties":{"SourceContext":'
        '"Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware"}}',
        '{"Timestamp":"2023-01-22T19:00:42.1+05:45","Level":"Warning","MessageTemplate":"Slow",'
        '"Properties":{"SourceContext":"Serilog.AspNetCore.RequestLoggingMiddleware"}}',
    ]
    clef = [
        '{"@t":"2017-04-20T04:24:47.0251719Z","@mt":"Loop {Counter}","Counter":0}',
        '{"@t":"2017-04-20T04:24:47.0371689Z","@mt":"Loop {Counter}","Counter":1}',
        '{"@t":"2017-04-20T04:24:47.0371689Z","@mt":"Loop {Counter}","Counter":2}',
        '{"@t":"2017-04-20T04:24:48.1Z","@mt":"Failed {Op}","@l":"Error","Op":"x"}',
    ]
    for lines, levels in (
        (formatter, ["INFO", "ERROR", "WARN"]),
        (clef, ["INFO", "INFO", "INFO", "ERROR"]),  # no @l: Information, as CLEF says
        (clef[:3], ["INFO", "INFO", "INFO"]),  # a healthy service's: no @l anywhere
    ):
        assert detect_all(lines * 3).best == "jsonapp"
        got = parse_app(JsonAppFormat(mapping=auto_app_mapping(lines)), pl.Series("line", lines))
        assert got["level"].to_list() == levels
    got = parse_app(JsonAppFormat(mapping=auto_app_mapping(formatter)), pl.Series("l", formatter))
    assert got["component"].to_list()[1:] == [
        "Microsoft.AspNetCore.Diagnostics.ExceptionHandlerMiddleware",
        "Serilog.AspNetCore.RequestLoggingMiddleware",
    ]


def test_container_lines_of_the_elastic_stack_and_json_inner_levels() -> None:
    """``docker compose logs`` of Kibana 8 (ludomirc/elk-stack ``kibana.log``): its
    ``[ts][WARN ][logger]`` had no level (no blank before the bracket), and the run said
    "no WARN+ record"; a Docker json-file line holding zap's JSON read none either. A word
    that only starts with a level (``[error-cleanup]``) stays no level."""
    from logagent.formats.jsonlayouts import DOCKER_JSON
    from logagent.formats.serverlogs import COMPOSE

    compose = [
        "kibana-1  | [2025-05-05T07:54:20.748+00:00][WARN ][config.deprecation] The default",
        "kibana-1  | [2025-05-05T07:54:29.100+00:00][ERROR][plugins.fleet] Failed to fetch",
        "kibana-1  | [2025-05-05T07:54:30.100+00:00][INFO ][status] Kibana is now available",
        "worker-1  | job [error-cleanup] started",
        "worker-1  | GET /x [warning-banner] 200",
    ]
    got = parse_app(COMPOSE, pl.Series("line", compose))["level"].to_list()
    assert got == ["WARN", "ERROR", "INFO", None, None]
    docker = [
        '{"log":"{\\"level\\":\\"warn\\",\\"ts\\":\\"2023-01-01T00:00:00Z\\",\\"msg\\":\\"slow\\"}\\n",'
        '"stream":"stderr","time":"2023-01-01T00:00:00.1Z"}',
        '{"log":"[2025-05-05T07:54:29.100+00:00][ERROR][plugins.fleet] Failed\\n",'
        '"stream":"stdout","time":"2023-01-01T00:00:01.1Z"}',
        '{"log":"job [error-cleanup] started\\n","stream":"stdout","time":"2023-01-01T00:00:02Z"}',
    ]
    got = parse_app(DOCKER_JSON, pl.Series("line", docker))["level"].to_list()
    assert got == ["WARN", "ERROR", None]


def test_an_access_log_beside_nginx_errors_is_not_their_stack_trace() -> None:
    """crowdsecurity/hub's npmplus test log: 2 nginx error lines, 8 NPMplus requests that open
    with ``[10/Feb/2024:…]``. nginx_error excused every line that starts with no digit as its
    records' wrapped text: confidence 1.0, "exact", and the 8 requests vanished as "stack
    traces". Text that wraps an error record still counts as its continuation."""
    errors = [
        '2024/02/10 21:22:09 [error] 1124#1124: *163 open() "/var/www/x" failed (2: No such '
        'file or directory), client: 192.168.1.100, request: "GET /x HTTP/2.0"',
        "2024/02/10 21:22:12 [error] 1124#1124: *164 lua entry thread aborted: runtime error: boom",
    ]
    requests = [
        f'[10/Feb/2024:21:23:3{i} +0100] mx.example.org 192.168.1.100 0.227 "GET /p{i} '
        f'HTTP/2.0" 200 125 440 - Mozilla/5.0'
        for i in range(8)
    ]
    scores = dict(detect_all([*errors, *requests]).scores)
    assert scores["nginx_error"] < 0.5
    wrapped = [*errors, "stack traceback:", "\t[C]: in function 'error'", errors[0]]
    assert dict(detect_all(wrapped).scores)["nginx_error"] == 1.0


SERILOG_LINES = [
    "2023-05-26 23:33:08.372 +03:00 [ERR] HTTP GET /api/Account/image/undefined responded 500 "
    "in 5.2377 ms",
    "System.IO.FileNotFoundException: Could not find file 'G:\\app\\img\\undefined'.",
    "File name: 'G:\\app\\img\\undefined'",
    "   at System.IO.FileInfo.get_Length()",
    "2023-05-26 23:33:09.001 +03:00 [INF] Executed DbCommand (3ms)",
    'INSERT INTO "Accounts" ("Id", "Description")',
    "VALUES (@p0, @p1)",
    'RETURNING "Wallet";',
    'SELECT "a"."Id" FROM "Accounts" AS "a"',
    'WHERE "a"."Id" = @p0',
    'AND "a"."Deleted" = FALSE',
    "2023-05-26 23:33:10.500 +03:00 [WRN] Sensitive data logging is enabled",
    "2023-05-26 23:33:11.000 +03:00 [FTL] Host terminated unexpectedly",
]


def test_serilog_text_records_fold_their_exception_and_sql() -> None:
    """Serilog's default text template (Horgaring/Shop ``Logs/log.txt``: 250 records among
    5,566 lines of exceptions) was unrecognized, "none of 2273 sampled lines parses"."""
    from logagent.formats.platformlogs import SERILOG
    from logagent.formats.records import fold_records

    assert detect_all(SERILOG_LINES * 3).scores[0] == ("serilog", 1.0)
    frame = fold_records(pl.Series("line", SERILOG_LINES), SERILOG)
    assert frame.select("level", "component", "lines").rows() == [
        ("ERROR", "HTTP GET", 4),
        ("INFO", "Executed DbCommand", 7),
        ("WARN", "Sensitive data logging is", 1),
        ("FATAL", "Host terminated unexpectedly", 1),
    ]
    got = parse_app(SERILOG, pl.Series("line", SERILOG_LINES[:1]))
    assert str(got["time"][0]) == "2023-05-26 20:33:08.372000+00:00"  # +03:00 read


def test_logagent_formats_lists_every_built_in_layout() -> None:
    """Each layout of the catalog has its line in ``logagent formats`` (a layout added to the
    detection order but not to the descriptions made the command raise KeyError)."""
    import subprocess
    import sys

    from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES

    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "formats"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    listed = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
    assert set(ACCESS_NAMES) | set(APP_NAMES) <= listed
    assert {"supervisord", "ruby", "serilog"} <= listed


RUBY_LINES = [
    "I, [2018-04-08T13:44:35.453355 #15810]  INFO -- : [c99427a8-62f3] Started POST "
    '"/api/currencies/confirm_order" for 127.0.0.1',
    "E, [2018-04-08T13:44:36.100000 #15810] ERROR -- : [c99427a8-62f3] "
    'ActiveRecord::StatementInvalid (PG::UndefinedTable: ERROR:  relation "x" does not exist',
    "F, [2018-04-08T13:44:37.000000 #15810] FATAL -- sidekiq: Sidekiq died",
    "W, [2018-04-08T13:44:38.000000 #15810]  WARN -- : slow request",
    "D, [2018-04-08T13:44:39.000000 #15810] DEBUG -- : CACHE hit",
]


def test_ruby_logger_lines() -> None:
    """Ruby's Logger (Rails' production.log, alex6alex/api-exchanger): records among e-mails
    ActionMailer writes whole were unrecognized; in a plain one generic guessed the layout."""
    from logagent.formats.applogs import RUBY

    assert detect_all(RUBY_LINES * 3).scores[0] == ("ruby", 1.0)
    got = parse_app(RUBY, pl.Series("line", RUBY_LINES))
    assert got.select("level", "component").rows() == [
        ("INFO", "Started POST"),
        ("ERROR", "ActiveRecord::StatementInvalid"),  # Rails' [request-id] tag skipped
        ("FATAL", "sidekiq"),  # the program name, where one is written
        ("WARN", "slow request"),
        ("DEBUG", "CACHE hit"),
    ]
    assert str(got["time"][0]) == "2018-04-08 13:44:35.453355+00:00"
    # the lines generic had read before (test_generic_layout's "ruby logger"), as it read them
    before = [
        f"{lv[0]}, [2024-01-02T03:00:{i:02d}.123456 #1234] {lv:>5} -- Rails: job {i} finished"
        for i, lv in enumerate(["ERROR", "INFO", "WARN", "INFO"] * 5)
    ]
    assert detect_all(before, year=2024).best == "ruby"
    rows = parse_app(RUBY, pl.Series("line", before))
    assert (rows["component"][0], rows["level"][0]) == ("Rails", "ERROR")


def test_a_python_log_with_supervisords_head_is_not_supervisords() -> None:
    """Python's ``%(asctime)s %(levelname)s %(message)s`` writes supervisord's head: with
    ERROR/WARNING/CRITICAL lines in the sample supervisord is ruled out (a review found them
    folded into INFO records: "no ERROR+ record"); and any such line it does read keeps its
    level (supervisord's TRAC and BLAT are TRACE)."""
    from logagent.formats.applogs import SUPERVISORD

    levels = ["INFO"] * 7 + ["ERROR", "INFO", "WARNING"]
    lines = [
        f"2024-03-05 10:00:{i:02d},{i:03d} {lv} myapp.worker Processed job {i}"
        for i, lv in enumerate(levels * 3)
    ]
    found = detect_all(lines)
    assert found.best == "generic" and dict(found.scores)["supervisord"] == 0.0
    got = parse_app(SUPERVISORD, pl.Series("line", [*lines[7:10], *SUPERVISOR[:1]]))
    assert got["level"].to_list() == ["ERROR", "INFO", "WARN", "FATAL"]
    trace = ["2022-11-08 11:24:15,000 TRAC x", "2022-11-08 11:24:16,000 BLAT y"]
    assert parse_app(SUPERVISORD, pl.Series("line", trace))["level"].to_list() == ["TRACE"] * 2


def test_a_remote_fraction_budget_counts_the_units_a_local_read_does() -> None:
    """0.07 of 100 units is 7 (float noise made it 8), at least one, rounded up."""
    from logagent.engine.fullread import fraction_units

    assert [fraction_units(f, 100) for f in (0.07, 0.1, 0.29, 0.001, 1.0)] == [7, 10, 29, 1, 100]
    assert fraction_units(0.05, 243419) == 12171


def test_the_cut_lines_advice_is_for_most_lines_only() -> None:
    """Half the lines cut or more: the cap is named; fewer: not (it would blame the cap for
    a log that is simply no known format)."""
    from logagent.engine.recusal import cut_lines_advice

    assert cut_lines_advice(4, 10, 20) is None and cut_lines_advice(0, 0, 20) is None
    assert "raise --line-cap" in (cut_lines_advice(5, 10, 20) or "")


def test_python_logging_in_kafkas_head_names_its_logger() -> None:
    """A Django app's ``[%(asctime)s] %(levelname)s %(name)s:%(lineno)d - %(message)s``
    (AhmedHashim04/CMS-backend-Django-Based-App ``logs/django.log``) read as kafka at 1.0 with
    every component "-"; its logger is the component now, and Kafka's own lines are as before."""
    lines = [
        "[2025-08-27 01:14:43,448] WARNING django.request:253 - Unauthorized: /api/employees/",
        '[2025-08-27 01:14:43,449] ERROR django.server:213 - "GET /api/x HTTP/1.1" 500 172',
        "[2016-12-19 16:31:47,437] WARN message (kafka.controller.KafkaController)",
    ]
    got = parse_app(KAFKA, pl.Series("line", lines))
    assert got.select("level", "component").rows() == [
        ("WARN", "django.request"),
        ("ERROR", "django.server"),
        ("WARN", "kafka.controller.KafkaController"),
    ]
    assert got["message"].to_list()[0] == "Unauthorized: /api/employees/"


ZEROLOG_LINES = [
    "2024-11-08T07:31:56+01:00 DBG github.com/traefik/traefik/v3/pkg/middlewares/auth/"
    "forward.go:187 > Remote error http://oauth2-proxy:4180/oauth2/start. StatusCode: 302 "
    "middlewareName=oauth@file",
    "2024-11-08T07:31:57+01:00 INF github.com/traefik/traefik/v3/cmd/traefik/traefik.go:103 > "
    "Traefik version 3.2.0 built on 2024-10-28T15:52:48Z version=3.2.0",
    '2024-11-08T07:31:58+01:00 ERR Error while starting server error="listen tcp :80: bind"',
    "2024-11-08T07:31:59Z WRN github.com/x/y/z.go:12 > slow",
    "2024-11-08T07:32:00.123+01:00 TRC a.go:1 > t",
    "2024-11-08T07:32:01+01:00 PNC a.go:2 > boom",
    "2024-11-08T07:32:02+01:00 ??? no level",
]


def test_zerolog_console_is_its_own_layout() -> None:
    """zerolog's ConsoleWriter (Traefik v3's default log): "stamp LVL caller > msg" had been
    read as syslog3164 at confidence 1.0 (host DBG, program the caller), every record INFO
    but three "ERROR"s guessed from message words, exact (probe J)."""
    found = detect_all(ZEROLOG_LINES * 4)
    assert found.best == "zerolog" and found.confidence == 1.0
    got = parse_app(ZEROLOG, pl.Series("line", ZEROLOG_LINES))
    assert got["level"].to_list() == ["DEBUG", "INFO", "ERROR", "WARN", "TRACE", "FATAL", None]
    assert got["component"].to_list()[:2] == [
        "github.com/traefik/traefik/v3/pkg/middlewares/auth/forward.go:187",
        "github.com/traefik/traefik/v3/cmd/traefik/traefik.go:103",
    ]
    assert got["component"][2] == "Error while starting server"  # no caller: the error kind
    assert got["message"][3] == "slow"
    # syslog3164 still reads a syslog line with an ISO stamp and a host
    syslog = ["2024-11-08T07:31:56+01:00 web01 sshd[4721]: error: maximum attempts"] * 4
    assert detect_all(syslog).best == "syslog3164"
    # an application question prefers zerolog too (a review: a Traefik log with a tenth of
    # its lines from another writer was syslog3164 to top-error-components, levels guessed)
    callers = [line for line in ZEROLOG_LINES if " > " in line]  # syslog3164 reads these
    other = [f"2024-11-08T07:31:5{i}+01:00 entrypoint: listening on :80" for i in range(2)]
    mixed = callers * 4 + other
    assert detect_all(mixed, specific_first=False).best == "zerolog"
    assert detect_all(mixed).best == "zerolog"
    # a program named like the Trac wiki is a program, not a level word (supervisord's TRAC)
    trac = ["Oct 11 22:14:15 web01 trac[4721]: ERROR: ticket 12 not saved"] * 4
    found = detect_all(trac)
    assert found.best == "syslog3164" and found.confidence == 1.0


def test_tomcat_in_another_locale_and_logback_with_an_mdc_field() -> None:
    """java.util.logging writes its level names in the JVM's locale (a Chinese server's
    catalina.out: 信息, 严重, 警告; refused, even with --format tomcat), and logback's pattern
    may put an MDC field before the thread (``[%X{k}] [%thread]``: refused as no format;
    probe K)."""
    from logagent.formats.applogs import LOG4J
    from logagent.formats.platformlogs import TOMCAT

    tomcat = [
        "08-Nov-2017 14:18:35.174 严重 [main] org.apache.catalina.util.LifecycleBase."
        "handleSubClassException Failed to initialize component [Connector[HTTP/1.1-8080]]",
        "08-Nov-2017 11:45:04.373 信息 [main] org.apache.catalina.startup.VersionLoggerListener"
        ".log Server version: Apache Tomcat/9.0.1",
        "08-Nov-2017 11:45:05.001 警告 [main] org.apache.tomcat.util.digester.SetPropertiesRule"
        ".begin no property",
        "08-Nov-2017 11:45:05.002 SCHWERWIEGEND [main] a.B.c broken",
    ]
    got = parse_app(TOMCAT, pl.Series("line", tomcat))
    assert got["level"].to_list() == ["ERROR", "INFO", "WARN", "ERROR"]
    assert detect_all(tomcat[:3] * 4).best == "tomcat"
    logback = [
        "20:09:22.004 [] [main] ERROR io.javalin.Javalin - Failed to start Javalin",
        "06:55:56.238 [hibernateLoadPlanWalkPath=] [qtp400103862-20] TRACE o.h.l.p.Walker - x",
        "06:55:57.001 [main] INFO a.B - plain",
    ]
    got = parse_app(LOG4J, pl.Series("line", logback))
    assert got["level"].to_list() == ["ERROR", "TRACE", "INFO"]
    assert got["component"].to_list() == ["io.javalin.Javalin", "o.h.l.p.Walker", "a.B"]


def test_log15_terminal_format_of_go_ethereum() -> None:
    """go-ethereum's log: the level padded to five characters, no blank after DEBUG/ERROR/
    TRACE, a year-less stamp; its Fatal: lines. Read by generic, the 98 DEBUG and TRACE
    records had been malformed and the stamps the components (probe K)."""
    from logagent.formats.applogs import log15

    lines = [
        "INFO [03-18|15:10:30.386] Starting Geth on Ethereum mainnet...",
        "DEBUG[03-22|13:26:20.363] Sanitizing Go's GC trigger               percent=100",
        "WARN [03-18|15:10:30.386] Found deprecated node list file path=/app/static-nodes.json",
        "ERROR[03-18|15:10:31.000] Failed to dial peer                      err=timeout",
        "TRACE[03-18|15:10:31.001] Dialing                                  id=ab",
        "CRIT [03-18|15:10:31.002] Database corrupted",
        "Fatal: Error starting protocol stack: listen tcp :30302: bind: address already in use",
    ]
    fmt = log15(2020)
    got = parse_app(fmt, pl.Series("line", lines))
    assert got["level"].to_list() == ["INFO", "DEBUG", "WARN", "ERROR", "TRACE", "FATAL", "FATAL"]
    assert got["component"][3] == "Failed to dial peer"
    assert str(got["time"][1]) == "2020-03-22 13:26:20.363000+00:00"
    assert detect_all(lines * 3, year=2020).best == "log15"


def test_log4js_basic_layout_folds_its_stack_traces() -> None:
    """Node's log4js: ``[ts] [LEVEL] category - msg``, then the error's indented stack. Read by
    generic, the 265 stack lines had been malformed and the category no component (probe K)."""
    from logagent.formats.platformlogs import LOG4JS

    lines = [
        "[2020-07-18T15:23:08.446] [ERROR] user - 用户不存在 Error: 用户不存在",
        "    at login (E:\\amorphous_node\\controller\\user.js:242:15)",
        "[2020-07-18T15:42:44.822] [ERROR] measure - 查询检测记录失败 { SequelizeDatabaseError: x",
        "    at Query.formatError (query.js:239:16)",
        "[2020-07-18T15:42:45.001] [INFO] http - GET /api 200",
    ]
    found = detect_all(lines * 4)
    assert found.best == "log4js"
    got = parse_app(LOG4JS, pl.Series("line", lines))
    assert got["level"].to_list() == ["ERROR", None, "ERROR", None, "INFO"]
    assert got["component"].to_list() == ["user", None, "measure", None, "http"]
