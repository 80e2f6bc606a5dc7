"""Nextcloud, MongoDB (>= 4.4) and Rust tracing-subscriber JSON: fields, levels by each system's
own words, the level prefilter, and detection against ``jsonapp``."""

from __future__ import annotations

import polars as pl
import pytest

from logagent.formats.adapter import THRESHOLDS
from logagent.formats.app import parse_app
from logagent.formats.detect import detect_all
from logagent.formats.jsonlayouts import MONGODB_JSON, NEXTCLOUD, TRACING_JSON, JsonLayout
from logagent.formats.levelfilter import json_level_prefilter, level_prefilter
from logagent.formats.levels import LEVEL_MAP


def nextcloud_line(level: int, app: str = "files", message: str = "m") -> str:
    return (
        f'{{"reqId":"r1","level":{level},"time":"2023-10-01T02:39:09+00:00","remoteAddr":"",'
        f'"user":"--","app":"{app}","method":"","url":"--","message":"{message}",'
        '"userAgent":"--","version":"29.1.1.0","data":{"app":"x"}}'
    )


def mongodb_line(severity: str, component: str = "STORAGE", message: str = "m") -> str:
    return (
        f'{{"t":{{"$date":"2021-03-22T21:21:20.349+00:00"}},"s":"{severity}",  '
        f'"c":"{component}",  "id":4615611, "ctx":"initandlisten","msg":"{message}",'
        '"attr":{"pid":1}}'
    )


def tracing_line(level: str, target: str = "app::db", message: str = "m") -> str:
    return (
        f'{{"timestamp":"2025-10-28T19:15:10.821422Z","level":"{level}","fields":'
        f'{{"message":"{message}","n":3}},"target":"{target}","spans":[{{"name":"s"}}],'
        '"threadName":"main","threadId":1}'
    )


def rows(layout: JsonLayout, lines: list[str]) -> list[tuple[object, ...]]:
    df = parse_app(layout, pl.Series("line", lines, dtype=pl.String))
    return df.select("time", "level", "component", "message").rows()


def test_nextcloud_levels_are_its_own_numbers() -> None:
    """0-4 are DEBUG, INFO, WARN, ERROR, FATAL (not syslog's 0-2 FATAL); 5 is no level."""
    got = [r[1] for r in rows(NEXTCLOUD, [nextcloud_line(n) for n in range(6)])]
    assert got == ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", None]


def test_nextcloud_component_is_the_app_and_the_message_its_message() -> None:
    """The top-level app names the component (not data.app), message and time as written."""
    (row,) = rows(NEXTCLOUD, [nextcloud_line(3, app="files_antivirus", message="scan failed")])
    assert str(row[0]) == "2023-10-01 02:39:09+00:00"
    assert row[1:] == ("ERROR", "files_antivirus", "scan failed")


@pytest.mark.parametrize(("threshold", "kept"), [("error", [3, 4]), ("warn", [2, 3, 4])])
def test_nextcloud_prefilter_keeps_exactly_its_own_numbers(threshold: str, kept: list[int]) -> None:
    """ERROR+ keeps the 3 and 4 records (4 is FATAL, a WARN by syslog's numbers) and drops 0-2,
    which syslog's numbers would call FATAL; quoted numbers are kept too."""
    pre = level_prefilter(NEXTCLOUD, THRESHOLDS[threshold])
    assert pre is not None
    assert [n for n in range(6) if pre.search(nextcloud_line(n).encode())] == kept
    quoted = nextcloud_line(4).replace('"level":4', '"level":"4"')
    assert pre.search(quoted.encode()) is not None


def test_the_shared_prefilter_would_drop_a_nextcloud_fatal() -> None:
    """Why the layout's own words matter: built from syslog's numbers, ERROR+ has no 4."""
    shared = json_level_prefilter("level", THRESHOLDS["error"], LEVEL_MAP)
    assert shared is not None and shared.search(nextcloud_line(4).encode()) is None


def test_mongodb_severities_with_its_debug_verbosities() -> None:
    """F E W I are FATAL ERROR WARN INFO; D1..D5 are DEBUG; component c, time t.$date."""
    severities = ["F", "E", "W", "I", "D1", "D2", "D3", "D4", "D5", "D6"]
    got = rows(MONGODB_JSON, [mongodb_line(s, component=f"C{s}") for s in severities])
    levels = ["FATAL", "ERROR", "WARN", "INFO", *["DEBUG"] * 5, None]
    assert [r[1] for r in got] == levels
    assert [r[2] for r in got] == [f"C{s}" for s in severities]
    assert str(got[0][0]) == "2021-03-22 21:21:20.349000+00:00"


def test_mongodb_prefilter_keeps_e_and_f_only() -> None:
    """ERROR+ is the E and F records, whatever other key holds an "s"; I and W are left out."""
    pre = level_prefilter(MONGODB_JSON, THRESHOLDS["error"])
    assert pre is not None
    found = [s for s in ("F", "E", "W", "I", "D1") if pre.search(mongodb_line(s).encode())]
    assert found == ["F", "E"]


def test_tracing_message_is_nested_and_the_component_its_target() -> None:
    """fields.message is the message (not empty); target the component; level words as usual."""
    got = rows(TRACING_JSON, [tracing_line("ERROR", "fmt_json::yak_shave", "boom")])
    assert [r[1:] for r in got] == [("ERROR", "fmt_json::yak_shave", "boom")]
    assert str(got[0][0]) == "2025-10-28 19:15:10.821422+00:00"


@pytest.mark.parametrize(
    ("lines", "name"),
    [
        ([nextcloud_line(n) for n in (1, 3, 4)], "nextcloud"),
        ([mongodb_line(s) for s in ("I", "W", "E")], "mongodb_json"),
        ([tracing_line(w) for w in ("INFO", "WARN", "ERROR")], "tracing_json"),
    ],
)
def test_detection_names_the_layout_over_jsonapp(lines: list[str], name: str) -> None:
    """jsonapp reads these lines too; the tie goes to the named layout, and is not ambiguous."""
    found = detect_all(lines * 2)
    assert found.best == name and not found.ambiguous
    assert dict(found.scores)["jsonapp"] == 1.0  # the tie the catalog's order settles


def test_a_json_app_log_without_their_keys_stays_jsonapp() -> None:
    """A log with level/time/message/app but no reqId, or level/timestamp/target without fields,
    is none of them."""
    plain = '{"level":"error","time":"2024-01-01T00:00:00Z","app":"pay","message":"x"}'
    flat = '{"level":"ERROR","timestamp":"2024-01-01T00:00:00Z","target":"a::b","message":"x"}'
    for line in (plain, flat):
        assert detect_all([line] * 3).best == "jsonapp"
