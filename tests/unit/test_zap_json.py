"""zap's JSON encoder: with a caller, and without one (Caddy turns AddCaller off)."""

from __future__ import annotations

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.jsonlayouts import ZAP_JSON

WITH_CALLER = '{"level":"error","ts":1.7e9,"caller":"srv/main.go:42","msg":"boom","logger":"srv"}'
NAMED = '{"level":"warn","ts":1761019822.31,"logger":"http.auto_https","msg":"HTTP only"}'
BARE = '{"level":"info","ts":1761019822.31,"msg":"serving initial configuration"}'
ACCESS = (
    '{"level":"info","ts":1761019828.6,"logger":"http.log.access","msg":"handled request",'
    '"request":{"remote_ip":"172.19.0.1","client_ip":"172.19.0.1","proto":"HTTP/1.1",'
    '"method":"GET","host":"localhost","uri":"/"},"status":200}'
)


def rows(lines: list[str]) -> list[tuple[str | None, ...]]:
    df = parse_app(ZAP_JSON, pl.Series("line", lines, dtype=pl.String))
    return df.select("level", "component", "message").rows()


def test_component_is_the_caller_else_the_logger_else_a_dash() -> None:
    """The caller names the component; a line without one is its logger's, or '-'."""
    assert rows([WITH_CALLER, NAMED, BARE]) == [
        ("ERROR", "srv/main.go:42", "boom"),
        ("WARN", "http.auto_https", "HTTP only"),
        ("INFO", "-", "serving initial configuration"),
    ]


def test_a_line_without_ts_is_no_zap_record() -> None:
    """slog and pino write ``time``, not ``ts``: their lines are not zap's."""
    slog = '{"time":"2024-01-01T00:00:00Z","level":"INFO","msg":"hi"}'
    assert rows([slog]) == [(None, None, None)]


def test_caddy_lines_are_zap_and_its_access_lines_stay_caddy() -> None:
    """Caddy's own lines detect as zap_json; its access lines as caddy, not ambiguous."""
    app = detect_all([NAMED, BARE] * 3)
    assert app.best == "zap_json" and not app.ambiguous
    access = detect_all([ACCESS] * 3)
    assert access.best == "caddy" and not access.ambiguous


def test_zap_with_a_time_key_is_slog_json_and_its_caller_the_component() -> None:
    """zap's encoder with TimeKey "time" and capital levels writes slog's keys: read as
    slog_json, whose component is then the caller, not the message's head (probe T: a blog's
    zap log ranked "this is hello func" where "blog/router.go:12" named the place)."""
    from logagent.formats.jsonlayouts import SLOG_JSON

    lines = [
        '{"level":"INFO","time":"2022-05-31T19:03:01.939+0800","caller":"blog/router.go:12",'
        '"msg":"this is hello func"}',
        '{"level":"ERROR","time":"2022-05-31T19:03:02.000+0800","caller":"cmd/run.go:34",'
        '"msg":"start g-blog client"}',
        '{"time":"2024-01-01T00:00:00Z","level":"ERROR","msg":"boom","source":{"file":"a.go"}}',
        '{"time":"2024-01-01T00:00:00Z","level":"ERROR","msg":"db down now"}',
    ]
    assert detect_all(lines[:2] * 3).best == "slog_json"
    got = parse_app(SLOG_JSON, pl.Series("line", lines, dtype=pl.String))
    assert got["component"].to_list() == [
        "blog/router.go:12",
        "cmd/run.go:34",
        "a.go",
        "db down now",
    ]
