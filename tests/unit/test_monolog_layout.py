"""PHP's Monolog line format (Laravel, Symfony): the channel as component, Monolog's eight
levels, stamps with and without zone, PHP's traces folded, and detection."""

from __future__ import annotations

import polars as pl

from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.records import fold_records
from logagent.formats.serverlogs import MONOLOG

SYMFONY = (
    "[2026-10-04T10:22:33.250000+02:00] request.CRITICAL: Uncaught PHP Exception "
    'RuntimeException: "boom" at /srv/app/src/Kernel.php line 12 {"exception":"[object] '
    '(RuntimeException(code: 0): boom at /srv/app/src/Kernel.php:12)"} {"request_id":"abc"}'
)


def test_channel_level_message_and_zoned_stamp() -> None:
    """Symfony's ISO stamp with microseconds and zone; channel and level split at the last
    dot before the level's colon."""
    lines = [
        SYMFONY,
        "[2023-05-15 18:19:32] local.ERROR: Target class [X] does not exist. {} []",
        "[2023-05-15 18:19:33] app.payments.NOTICE: retry 2",
        "[2023-05-15 18:19:34] laravel.EMERGENCY: Unable to create configured logger.",
        "[2023-05-15 18:19:35] php.WARNING: Undefined array key 3",
        "[2023-05-15 18:19:36] event.DEBUG:",
    ]
    got = parse_app(MONOLOG, pl.Series("line", lines))
    assert got["component"].to_list() == ["request", "local", "app.payments", "laravel", "php",
                                          "event"]  # fmt: skip
    assert got["level"].to_list() == ["FATAL", "ERROR", "INFO", "FATAL", "WARN", "DEBUG"]
    assert got["message"][0].startswith("Uncaught PHP Exception RuntimeException")
    assert got["message"][5] == ""
    assert str(got["time"][0]) == "2026-10-04 08:22:33.250000+00:00"


def test_php_traces_fold_into_their_record() -> None:
    """Laravel's "[stacktrace]", "#N ..." frames and the context's closing "} continue the
    record; a line in no layout is still malformed."""
    lines = [
        '[2023-05-15 18:19:32] local.ERROR: boom {"exception":"[object] (E(code: 0): boom',
        "[stacktrace]",
        "#0 /var/www/vendor/Container.php(795): Illuminate\\Container\\Container->build()",
        "#1 {main}",
        '"} ',
        "[2023-05-15 18:19:33] local.INFO: fine",
        "[2023-05-15 18:19:34] local.INFO fine, but no colon",
    ]
    rows = fold_records(pl.Series("line", lines), MONOLOG)
    assert rows.height == 3 and rows["lines"].to_list() == [5, 1, 1]
    assert rows["valid"].to_list() == [True, True, False]
    found = detect_all(lines[:-1] * 4, year=2023)
    assert found.best == "monolog" and found.confidence == 1.0


def test_not_every_bracketed_stamp_is_monolog() -> None:
    """A level without a channel (``[ts] ERROR: ...``) or a lower-case level is no record."""
    lines = ["[2023-05-15 18:19:32] ERROR: boom", "[2023-05-15 18:19:32] local.error: boom"]
    assert parse_app(MONOLOG, pl.Series("line", lines))["message"].to_list() == [None, None]
