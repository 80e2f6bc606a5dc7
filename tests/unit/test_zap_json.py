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
