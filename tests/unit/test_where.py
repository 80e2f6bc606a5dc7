"""--where conditions and --by/--where question resolution (pure parts)."""

from __future__ import annotations

import polars as pl
import pytest

from logagent.errors import ConfigError
from logagent.formats.where import cond_expr, least_level, parse_cond, status_range
from logagent.questions import resolve_selection
from logagent.result import QuestionKind


def _hits(cond: str, values: list[object]) -> list[bool]:
    frame = pl.DataFrame({"v": values}, schema={"v": pl.String})
    return frame.select(cond_expr(parse_cond(cond), pl.col("v")))["v"].to_list()


def test_status_classes_codes_and_ranges() -> None:
    values = ["200", "404", "499", "500", "503", None, "x"]
    assert _hits("status=5xx", values) == [False, False, False, True, True, False, False]
    assert _hits("status=4XX", values) == [False, True, True, False, False, False, False]
    assert _hits("status=404,503", values) == [False, True, False, False, True, False, False]
    assert _hits("status!=2xx", values) == [False, True, True, True, True, False, False]
    assert _hits("status>=400", values) == [False, True, True, True, True, False, False]
    assert _hits("status<404", values) == [True, False, False, False, False, False, False]


def test_levels_compare_by_severity_and_missing_never_matches() -> None:
    values = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", None]
    assert _hits("level>=warn", values) == [False, False, False, True, True, True, False]
    assert _hits("level>warning", values) == [False, False, False, False, True, True, False]
    assert _hits("level=error", values) == [False, False, False, False, True, False, False]
    assert _hits("level<=info", values) == [True, True, True, False, False, False, False]
    assert _hits("level!=info", values) == [True, True, False, True, True, True, False]


def test_text_numbers_and_regexes() -> None:
    values = ["NXDOMAIN", "NOERROR", None, "nxdomain"]
    assert _hits("rcode_name=NXDOMAIN", values) == [True, False, False, False]
    assert _hits("rcode_name!=NXDOMAIN", values) == [False, True, False, True]
    assert _hits("rcode_name~^NX", values) == [True, False, False, False]
    assert _hits("rcode_name~(?i)^nx", values) == [True, False, False, True]
    assert _hits("rcode_name!~ERR", values) == [True, False, False, True]
    sizes = ["10", "20000", "-", None]
    assert _hits("bytes>10000", sizes) == [False, True, False, False]
    assert _hits("bytes=10", sizes) == [True, False, False, False]
    assert _hits("bytes=10.0", sizes) == [True, False, False, False]


@pytest.mark.parametrize(
    "bad",
    ["status", "=5xx", "status=", "level>=loud", "bytes>many", "message~(unclosed", "status=5yy"],
)
def test_malformed_conditions_are_usage_errors(bad: str) -> None:
    with pytest.raises(ConfigError):
        parse_cond(bad)


def test_status_range_and_least_level() -> None:
    def conds(*texts: str) -> tuple:  # type: ignore[type-arg]
        return tuple(parse_cond(t) for t in texts)

    assert status_range(conds("status=5xx")) == (500, 599)
    assert status_range(conds("status>=500", "status<600")) == (500, 599)
    assert status_range(conds("status=502,503")) == (502, 503)
    assert status_range(conds("status>=400")) == (400, 999)
    assert status_range(conds("method=GET")) is None
    assert least_level(conds("level>=warn")) == "WARN"
    assert least_level(conds("level=error,fatal")) == "ERROR"
    assert least_level(conds("level>error")) == "FATAL"
    assert least_level(conds("level<=info")) is None


def test_presets_and_refinements() -> None:
    top, t4, tc = QuestionKind.TOP, QuestionKind.TOP_4XX, QuestionKind.TOP_CLIENTS
    # the named questions stand; the new presets are selections
    assert resolve_selection(QuestionKind.TOP_ERRORS, None, ())[:4] == (
        QuestionKind.TOP_ERRORS,
        None,
        (),
        "error",
    )
    assert resolve_selection(t4, None, ())[:4] == (t4, "route", ("status=4xx",), "error")
    assert resolve_selection(tc, None, ())[:4] == (tc, "client", (), "error")
    # --by/--where alone (the CLI asks "top"), and refining a named question
    assert resolve_selection(top, "client", ())[:4] == (top, "client", (), "error")
    assert resolve_selection(t4, "client", ())[:4] == (top, "client", ("status=4xx",), "error")
    assert resolve_selection(QuestionKind.TOP_ERRORS, "client", ())[2] == ("status=5xx",)
    # a --where refines a named question: its own condition still holds (issue 13's review)
    get = ("status=5xx", "method=GET")
    assert resolve_selection(QuestionKind.TOP_ERRORS, None, ("method=GET",))[1:3] == ("route", get)
    assert resolve_selection(t4, None, ("method=GET",))[2] == ("status=4xx", "method=GET")
    warn = resolve_selection(QuestionKind.TOP_ERROR_COMPONENTS, None, ("message~RM",), "warn")
    assert warn[1:3] == ("component", ("level>=warn", "message~RM"))
    # a selection equal to a named question is asked as it
    assert resolve_selection(top, "route", ("status=5xx",))[0] is QuestionKind.TOP_ERRORS
    assert resolve_selection(top, "component", ("level>=warn",))[:4] == (
        QuestionKind.TOP_ERROR_COMPONENTS,
        None,
        (),
        "warn",
    )
    # --by template: one component's error types
    types = resolve_selection(top, "template", ("component=db", "level>=warn"))
    assert (types.kind, types.key, types.level) == (QuestionKind.ERROR_TYPES, "db", "warn")
    with pytest.raises(ConfigError, match="per component"):
        resolve_selection(top, "template", ("level>=error",))
    with pytest.raises(ConfigError, match="--by FIELD"):
        resolve_selection(top, None, ())
    with pytest.raises(ConfigError, match="does not"):
        resolve_selection(QuestionKind.ERROR_RATE, "client", ())


def test_access_fields_take_the_greedy_reading_exactly_where_the_strict_one_lacks_them() -> None:
    """The greedy reading runs only on the lines the strict regex refuses for the fields it
    always gives: every field equals the strict value, else the greedy one, on every line."""
    from logagent.formats.access import COMBINED
    from logagent.formats.fieldsets import _CLF, _CLF_GREEDY, _GREEDY_METHOD, _group, getter

    head = "1.2.3.4 - bob [10/Oct/2023:13:55:36 +0000] "
    lines = [
        head + '"GET /a HTTP/1.1" 200 5 "-" "curl"',
        head + '"GET" /x/?page=\' HTTP/1.0" 501 123 "-" "curl/7.1"',
        head + '"GET /a HTTP/1.1" 200 10 "-" "Mozilla/5.0 (X11',
        head + '"GET /a\\"b HTTP/1.1" 500 1 "-" "u"',
        "vh:80 " + head + '"POST /p HTTP/1.1" 503 - "r" "a"',
        "10.0.0.2, " + head + '"GET" /x/?page=\' HTTP/1.0" 501 123 "-" "curl/7.1"',
        "junk line",
    ]
    frame = pl.DataFrame({"line": lines})
    line = pl.col("line")
    base = COMBINED.fields(line)
    for name in ("client", "ident", "user", "ts", "bytes", "method", "referrer", "user_agent"):
        got = frame.select(getter(COMBINED, name, base, line)).to_series().to_list()
        greedy = line.str.extract_groups(_CLF_GREEDY)
        loose = (
            greedy.struct.field("request").str.extract(_GREEDY_METHOD, 1)
            if name == "method"
            else _group(greedy, name)
        )
        full = pl.coalesce(_group(line.str.extract_groups(_CLF), name), loose)
        assert got == frame.select(full).to_series().to_list(), name
    clients = frame.select(getter(COMBINED, "client", base, line)).to_series()
    assert (clients[1], clients[5]) == ("1.2.3.4", "10.0.0.2")
