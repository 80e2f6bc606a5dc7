"""``docker compose logs``: the service as component, the level from the container's own
message (words, klog letters, JSON level keys, colour codes), an optional stamp."""

from __future__ import annotations

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.serverlogs import COMPOSE

ESC = "\x1b"
LINES = [
    f"{ESC}[2Kweb-1  | {ESC}[31m{ESC}[1mWARNING: dev server{ESC}[0m",
    "api_1  | 2024-04-25T05:32:35.600215839Z ERROR db unreachable | retrying",
    'proxy  | {"level":"error","ts":1761019822.3,"msg":"upstream gone"}',
    "worker-2  | E0425 05:32:35.600000       1 main.go:42] lease lost",
    "web-1  |  * Running on http://127.0.0.1:5000",
    "no pipe here at all",
]


def test_service_level_and_stamp() -> None:
    got = parse_app(COMPOSE, pl.Series("line", LINES))
    assert got["component"].to_list()[:5] == ["web-1", "api_1", "proxy", "worker-2", "web-1"]
    assert got["level"].to_list() == ["WARN", "ERROR", "ERROR", "ERROR", None, None]
    assert got["message"][1] == "ERROR db unreachable | retrying"
    assert str(got["time"][1]) == "2024-04-25 05:32:35.600215+00:00"
    assert got["time"][0] is None and got["message"][5] is None


def test_detection_names_compose() -> None:
    found = detect_all(LINES[:5] * 4)
    assert found.best == "compose" and found.confidence == 1.0


def test_compose_v2_colours_the_whole_prefix() -> None:
    """compose v2 colours ``name  |`` and resets before or after the blank: the stamp and a
    JSON level after the reset are still read."""
    lines = [
        f'{ESC}[36mweb-1  | {ESC}[0m2024-04-25T05:32:35Z {{"level":"error","msg":"x"}}',
        f"{ESC}[36mweb-1  |{ESC}[0m ERROR boom",
    ]
    got = parse_app(COMPOSE, pl.Series("line", lines))
    assert got["component"].to_list() == ["web-1", "web-1"]
    assert got["level"].to_list() == ["ERROR", "ERROR"]
    assert str(got["time"][0]) == "2024-04-25 05:32:35+00:00"


def test_pipe_columns_of_other_layouts_are_no_service() -> None:
    """A level word (or a date) where the service goes is another layout's column: Java
    Service Wrapper's and Python's ``%(levelname)-8s | ...`` are no compose records."""
    lines = [
        "ERROR  | wrapper  | 2011/09/19 10:40:26 | JVM appears hung",
        "STATUS | wrapper  | 2011/09/19 10:40:27 | Launching a JVM...",
        "INFO     | 2024-01-01 12:00:00,123 | app.db | query 0 done",
        "warning | disk almost full",
        "2024-01-01 | nightly | done",
    ]
    assert parse_app(COMPOSE, pl.Series("line", lines))["message"].to_list() == [None] * 5
    assert detect_all(lines * 4).best != "compose"


def test_level_after_padding_or_a_bracketed_fifth_word() -> None:
    """gunicorn's ``[ts +0000] [pid] [LEVEL]`` (the level fifth) and Spring Boot's padded
    ``  INFO`` inside a container's lines (a real-log probe: an Airflow webserver's gunicorn
    ERRORs and a Spring app's WARNs had no level, "no ERROR+ record"); a level word fifth in
    plain prose is still none, in compose and in Docker's JSON ``log``."""
    from logagent.formats.jsonlayouts import DOCKER_JSON

    inner = [
        "[2024-01-24 15:07:40 +0000] [1] [ERROR] Worker (pid:37) was sent SIGKILL!",
        "2021-02-27 04:29:05.110  WARN 4441 --- [main] o.s.b.LiveReload : Unable to start",
        "2021-02-27 04:29:03.441  INFO 4441 --- [main] o.s.b.StartupInfoLogger : Starting",
        "Processed batch 123 with error code 7",
        # a review's prose: a bracket that starts with a level word, a padded word further on
        "Processed 12 items for job [error-cleanup] in 5ms",
        "Queue depth:   12   warning threshold: 100",
        "Job  nightly-export  error: none, retrying later",
        "Sent alert to channel #ops [warning: disk] ok",
    ]
    lines = [f"web-1  | {x}" for x in inner]
    got = parse_app(COMPOSE, pl.Series("line", lines))["level"].to_list()
    assert got == ["ERROR", "WARN", "INFO", None, None, None, None, None]
    docker = [
        '{"log":"' + x + '\\n","stream":"stderr","time":"2024-01-24T15:07:39.000000000Z"}'
        for x in inner
    ]
    levels = parse_app(DOCKER_JSON, pl.Series("line", docker))["level"].to_list()
    assert levels == ["ERROR", "WARN", "INFO", None, None, None, None, None]


def test_zap_console_tabs_dotnet_and_title_case_levels() -> None:
    """An OpenTelemetry demo's ``docker compose logs`` (probe I): the collector's zap console
    lines are tab-separated with lower-case levels (they had no level, and a JSON value
    ``"debug"`` made the info lines DEBUG: 2 ERROR records called exact of 42); .NET's
    ``fail:`` and OpenTelemetry C++'s ``[Error]`` are levels too."""
    lines = [
        "otel-collector   | 2025-04-11T12:36:01.518Z\terror\tdocker@v0.120.1/docker.go:194\t"
        'Could not parse docker containerStats\t{"otelcol.component.id": "docker_stats"}',
        "otel-collector   | 2025-04-11T12:36:01.648Z\tinfo\tMetrics\t"
        '{"otelcol.component.id": "debug", "otelcol.component.kind": "Exporter"}',
        "accounting       | fail: Accounting.Consumer[0]",
        "accounting       | crit: Accounting.Consumer[1]",
        "currency         | [Error] File: /otlp_grpc_log_record_exporter.cc:173 Export() failed",
        'web-1  | GET /x took 3 ms {"route": "debug"}',
        "web-1  | Failure budget: 3 [Errors] seen",
    ]
    got = parse_app(COMPOSE, pl.Series("line", lines))
    assert got["level"].to_list() == ["ERROR", "INFO", "ERROR", "FATAL", "ERROR", None, None]
    assert str(got["time"][0]) == "2025-04-11 12:36:01.518000+00:00"
    assert got["message"][0].startswith("error\tdocker@")


def test_a_json_level_key_of_another_name_and_a_service_named_like_a_spelling() -> None:
    """python-json-logger's ``"levelname": "ERROR"`` (json.dumps' blanks) is a level: the
    fix above read a quoted level after level, severity and lvl only, and a worker's 368
    ERROR records were lost, "exact" (a review). A service may be named ``trac`` or ``dbug``:
    the four-letter level spellings name no column of another layout."""
    lines = [
        'worker-1  | {"name": "worker.jobs", "levelname": "ERROR", "message": "job 3 failed"}',
        'worker-1  | {"loglevel": "warning", "msg": "slow"}',
        'worker-1  | {"log.level": "error", "message": "x"}',
        "trac  | 2024-04-25T05:32:35Z ERROR ticket 12 not saved",
        "dbug  | INFO ready",
    ]
    got = parse_app(COMPOSE, pl.Series("line", lines))
    assert got["level"].to_list() == ["ERROR", "WARN", "ERROR", "ERROR", "INFO"]
    assert got["component"].to_list()[3:] == ["trac", "dbug"]
