"""AppAsAccess: an application format seen as path = component, status = level code."""

from __future__ import annotations

import polars as pl
import pytest

from logagent.engine.answers import exact_entry
from logagent.formats.adapter import AppAsAccess, level_of_code
from logagent.formats.applogs import LOG4J
from logagent.formats.base import parse
from logagent.questions import app_answer
from logagent.result import Answer

LINES = [
    "2024-03-05 10:00:00,000 ERROR [main] com.a.Pay - charge failed",
    "\tat com.a.Pay.charge(Pay.java:10)",
    "2024-03-05 10:00:01,000 WARN  [main] com.a.Web - slow",
    "2024-03-05 10:00:02,000 FATAL [main] com.a.Db - down",
    "2024-03-05 10:00:03,000 INFO  [main] com.a.Web - ok",
]


def fields(level: str) -> pl.DataFrame:
    fmt = AppAsAccess(LOG4J, level=level)
    lines = pl.Series("line", LINES)
    return pl.DataFrame({"line": lines}).select(**fmt.fields(pl.col("line")))


def test_error_level_codes() -> None:
    """--level error: ERROR and FATAL are events (501, 500); WARN and INFO are 200."""
    out = fields("error")
    assert out["status"].to_list() == [501, None, 200, 500, 200]
    assert out["path"].to_list() == ["com.a.Pay", None, "com.a.Web", "com.a.Db", "com.a.Web"]


def test_warn_level_codes() -> None:
    """--level warn: WARN becomes an event too (502)."""
    assert fields("warn")["status"].to_list() == [501, None, 502, 500, 200]


def test_continuation_lines_are_flagged() -> None:
    """A stack-trace line is flagged as a continuation, record lines are not."""
    assert fields("error")["continuation"].to_list() == [False, True, False, False, False]


def test_parse_sees_only_path_and_status() -> None:
    """The access ``parse`` helper works on the adapter unchanged."""
    frame = parse(AppAsAccess(LOG4J), pl.Series("line", LINES))
    assert frame["status"].null_count() == 1


def test_unknown_level_is_refused() -> None:
    """Only error and warn are thresholds."""
    with pytest.raises(ValueError, match="unknown level"):
        AppAsAccess(LOG4J, level="info")


def test_app_answer_names_levels() -> None:
    """Breakdown keys become level names; the metric names the threshold."""
    entry = exact_entry("c", 2, 2, breakdown={"501": 0.5, "500": 0.5})
    out = app_answer(Answer(top=[entry], total=2), "warn")
    assert out.top[0].breakdown == {"ERROR": 0.5, "FATAL": 0.5}
    assert out.metric == "WARN+ records"
    assert level_of_code("502") == "WARN"


def test_literal_prefilter_only_for_names_written_verbatim() -> None:
    """A component's records contain its name's bytes, unless a writer could escape them."""
    from logagent.formats.adapter import literal_prefilter

    pattern = literal_prefilter("svc.payments")
    assert pattern is not None
    assert pattern.search(b'{"logger":"svc.payments","level":"ERROR"}')
    assert not pattern.search(b'{"logger":"svc-payments","level":"ERROR"}')  # '.' is literal
    for name in ("-", "", 'say "hi"', "caf\u00e9", "a\\b"):
        assert literal_prefilter(name) is None, name
    for name in ("a/b", "tab\there", "del\x7f", "nul\x00", "\U0010ffff"):
        assert literal_prefilter(name) is None, repr(name)
    for name in ("~ok~", "svc_1 2", "a-b.c:d", "x" * 300):
        assert literal_prefilter(name) is not None, name
