"""A staged parse of an application format equals its ``fields``, and reads each key once.

JSON-lines and logfmt formats (``structured.staged_of``) compute each key's
raw value once a line as a helper column; ``AppAsAccess`` and the timeline's
``Bucketed`` and the window's ``Windowed`` build on those helpers
(``stagedtime``). Whatever the line — nested objects, repeated keys, numbers,
escapes, broken JSON, no JSON — every column must be what the unstaged
expressions give.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from logagent.formats.access import AccessFormat
from logagent.formats.adapter import AppAsAccess
from logagent.formats.base import staged_fields
from logagent.formats.bucketed import Bucketed
from logagent.formats.catalog import AnyFormat, build_any_format, is_app
from logagent.formats.detect import every_format
from logagent.formats.jsonlayouts import JSON_LAYOUTS, JsonLayout
from logagent.formats.selected import Selected
from logagent.formats.stagedtime import StagedTime, time_over
from logagent.formats.structured import JsonAppFormat, LogfmtFormat, key_count
from logagent.formats.windowed import Windowed, time_of
from logagent.templates.mining import TemplateSet

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
STAGED = (JsonAppFormat, LogfmtFormat, JsonLayout)

KEY = st.sampled_from(["ts", "time", "level", "lvl", "logger", "msg", "message", "ctx", ""])
SCALAR = st.one_of(
    st.sampled_from(
        ["ERROR", "error", "WARN", "INFO", "fatal", " Error ", "2026-12-03T10:00:00.5+01:00"]
    ),
    st.sampled_from(["2026-12-03 10:00:00,123", "svc.api", "x\\u0045y", "é\t", 'a"b', "a\\b"]),
    st.integers(-5, 70),
    st.sampled_from([1.5e3, -0.0, True, False, None]),
)
VALUE = st.recursive(
    SCALAR, lambda inner: st.dictionaries(KEY, inner, max_size=3) | st.lists(inner, max_size=2)
)


@st.composite
def json_line(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(KEY, VALUE), max_size=6))
    body = ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs)  # repeats kept
    line = "{" + body + "}"
    cut = draw(st.one_of(st.none(), st.integers(0, len(line))))
    tail = draw(st.sampled_from(["", " ", " x", "}"]))
    return (line if cut is None else line[:cut]) + tail


@st.composite
def logfmt_line(draw: st.DrawFn) -> str:
    pairs = draw(st.lists(st.tuples(KEY, SCALAR), max_size=6))
    words = []
    for k, v in pairs:
        text = "" if v is None else str(v)
        words.append(f"{k}={json.dumps(text) if draw(st.booleans()) else text}")
    return " ".join(words)


LINES = st.lists(st.one_of(json_line(), logfmt_line(), st.text(max_size=40)), max_size=40)


def _samples(*, keyed_only: bool = True) -> list[list[str]]:
    """The bundled samples' first lines (``keyed_only``: those holding JSON or ``key=``)."""
    out = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".json", ".md") and not path.name.endswith((".jsonl", "journald.json")):
            continue
        lines = path.read_text(errors="replace").splitlines()[:400]
        if not keyed_only or any(line.startswith("{") or "=" in line for line in lines):
            out.append(lines)
    return out


def _formats(sample: list[str]) -> list[AnyFormat]:
    """The staged app formats fitted to ``sample``, and the JSON app format's defaults."""
    fitted = [f for f in every_format(sample).values() if isinstance(f, STAGED)]
    return [*fitted, build_any_format("jsonapp", []), build_any_format("logfmt", [])]


def _views(fmt: AnyFormat) -> list[object]:
    """``fmt``, seen as an access format, with a timeline bucket and with a time window."""
    assert is_app(fmt)
    view = AppAsAccess(fmt, level="warn")  # type: ignore[arg-type]
    time = time_of(view)
    assert time is not None
    since = datetime(2026, 1, 1, tzinfo=UTC)
    return [fmt, view, Bucketed(view, time, 3600), Windowed(view, time, since, None)]


def _both(fmt: object, lines: Sequence[str | None]) -> tuple[pl.DataFrame, pl.DataFrame]:
    frame = pl.LazyFrame({"line": pl.Series(lines, dtype=pl.String)})
    line = pl.col("line")
    plain = frame.select(**fmt.fields(line)).collect()  # type: ignore[attr-defined]
    stages, fields = staged_fields(fmt, line)
    for stage in stages:
        frame = frame.with_columns(**stage)
    return plain, frame.select(**fields).collect()


#: The JSON layouts, and the JSON and logfmt app formats with the default keys and others.
FIXED: list[AnyFormat] = [
    *JSON_LAYOUTS,
    build_any_format("jsonapp", []),
    build_any_format("logfmt", []),
    JsonAppFormat(mapping={"ts": "time", "level": "lvl", "component": "ctx", "message": "msg"}),
    JsonAppFormat(mapping={"level": "ctx.level", "message": "message"}),
]


@settings(max_examples=30, deadline=None)
@given(LINES)
def test_staged_app_fields_equal_fields_on_any_line(lines: list[str]) -> None:
    """Any mix of lines: the staged columns equal the unstaged ones, for every view."""
    for fmt in FIXED:
        for view in _views(fmt):
            plain, staged = _both(view, lines)
            assert staged.equals(plain), (fmt.name, type(view).__name__, lines)


@pytest.mark.parametrize("index", range(len(_samples())))
def test_staged_app_fields_equal_fields_on_bundled_samples(index: int) -> None:
    """Every bundled sample, read by every staged app format fitted to it."""
    sample = _samples()[index]
    for fmt in _formats(sample):
        for view in _views(fmt):
            plain, staged = _both(view, sample)
            assert staged.equals(plain), (fmt.name, type(view).__name__)


def test_a_staged_parse_reads_each_json_key_once() -> None:
    """With a timeline bucket, the JSON app format reads each of its keys once a line (the
    unstaged plan read the level and the message twice, and all three again for the bucket)."""
    fmt = build_any_format("jsonapp", [])
    view = AppAsAccess(fmt)  # type: ignore[arg-type]
    time = time_of(view)
    assert time is not None
    stages, fields = staged_fields(Bucketed(view, time, 3600), pl.col("line"))
    frame = pl.LazyFrame({"line": ['{"level":"error","message":"m"}']})
    for stage in stages:
        frame = frame.with_columns(**stage)
    plan = frame.select(**fields).explain()
    assert plan.count("json_path_match") == len(fmt.mapping) == 4
    assert plan.count("json_decode") == 1  # the flat lines' keys, in one parse
    unstaged = pl.LazyFrame({"line": [""]}).select(
        **Bucketed(view, time, 3600).fields(pl.col("line"))
    )
    assert unstaged.explain().count("json_path_match") > 4


SELECTIONS = [
    ("route", ("status=4xx",)),
    ("client", ()),
    ("method", ("status>=400",)),
    ("status", ("method=GET",)),
    ("user_agent", ("status=5xx", "path~^/api")),
]
APP_SELECTIONS = [
    ("component", ("level>=warn",)),
    ("level", ()),
    ("message", ("component=svc.api",)),
    ("lvl", ("level>=error",)),
]


@pytest.mark.parametrize("index", range(len(_samples(keyed_only=False))))
def test_a_staged_selection_equals_its_fields(index: int) -> None:
    """``--by``/``--where`` over an access or app format: staged columns equal ``fields``."""
    from logagent.engine.selection import select
    from logagent.errors import ConfigError
    from logagent.formats.catalog import ACCESS_NAMES
    from logagent.formats.detect import detect_all
    from logagent.result import Question, QuestionKind

    sample = _samples(keyed_only=False)[index]
    best = detect_all(sample).best
    found = build_any_format(best, sample)
    app = is_app(found)
    view = AppAsAccess(found) if app else found  # type: ignore[arg-type]
    checked = 0
    for by, where in APP_SELECTIONS if app else SELECTIONS:
        question = Question(kind=QuestionKind.TOP, by=by, where=where)
        try:
            selected = select(question, found, view, sample)  # type: ignore[arg-type]
        except ConfigError:  # a field this format has not
            continue
        time = time_of(selected)
        for fmt in (selected, *([Bucketed(selected, time, 3600)] if time else [])):
            plain, staged = _both(fmt, sample)
            assert staged.equals(plain), (best, by, where, type(fmt).__name__)
        assert staged_fields(selected, pl.col("line"))[0] or not isinstance(
            found, (AccessFormat, *STAGED)
        ), "a selection over a staged format is staged"
        checked += 1
    assert checked or best not in ACCESS_NAMES


def test_ranking_components_reads_the_message_only_where_a_line_has_no_level() -> None:
    """A level threshold needs no message text: the message key is read on the lines
    without a level only (one JSON read fewer on the others, and no message decoded with
    the other keys of a flat line), while error types, which group messages, read it on
    every line."""
    fmt = build_any_format("jsonapp", [])
    lines = ['{"level":"error","logger":"a","message":"m1"}', '{"logger":"b","message":"m2"}']

    def helpers(view: AppAsAccess) -> pl.DataFrame:
        stages, _ = view.app_stages(pl.col("line"))
        frame = pl.LazyFrame({"line": lines})
        for stage in stages:
            frame = frame.with_columns(**stage)
        return frame.collect()

    def messages(view: AppAsAccess) -> list[str | None]:
        return helpers(view)["_app_jsonapp_message"].to_list()

    def decoded(view: AppAsAccess) -> set[str]:  # the keys of the one JSON parse a line
        return set(helpers(view)["_app_jsonapp_doc"].struct.fields)

    ranked = AppAsAccess(fmt)  # type: ignore[arg-type]
    assert messages(ranked) == [None, "m2"]
    assert "message" not in decoded(ranked)  # nor decoded with the other keys
    assert decoded(AppAsAccess(fmt, every_level=True)) >= {"level", "logger", "message"}  # type: ignore[arg-type]
    plain, staged = _both(ranked, lines)
    assert staged.equals(plain) and staged["status"].to_list() == [501, 200]
    assert messages(AppAsAccess(fmt, every_level=True)) == ["m1", "m2"]  # type: ignore[arg-type]
    typed = replace(ranked, templates=TemplateSet(templates=(), pilot_messages=0, pilot_other=0))
    assert messages(typed) == ["m1", "m2"]


@pytest.mark.parametrize("every_level", [False, True])
def test_the_timeline_time_reads_the_stages_of_the_view_or_selection(every_level: bool) -> None:
    """The timeline's time over a view of a JSON app log, or over a ``--by``/``--where``
    selection of it, is the time of the stages that view or selection parses in, not the
    stamp parsed again from the line (a review found a selection's time parsed twice)."""
    app = build_any_format("jsonapp", [])
    view = AppAsAccess(app, every_level=every_level)  # type: ignore[arg-type]
    selection = Selected(view=view, source=app, by="component", conds=(), app=True)
    line = pl.col("line")
    for fmt in (view, selection):
        time = time_of(fmt)
        assert isinstance(time, StagedTime)
        stages, _ = staged_fields(fmt, line)
        assert time_over(time, line, stages).meta.eq(time.staged(line)[1]), type(fmt).__name__


@pytest.mark.parametrize("name", ["log4j", "python", "hadoop"])
def test_an_error_types_view_shares_the_time_of_the_view_the_window_was_built_on(
    name: str,
) -> None:
    """--since/--until with error types: the window's time is built on the ranking view of a
    regex format (no message text), then the view gets its templates (message text kept).
    The time reads the same stamp helpers in both, so it is taken from the stages, not parsed
    again from the line (a review measured 12.4 -> 13.8 s on 55 MB of log4j); a helper it
    reads made otherwise, or the line overwritten, and it is parsed from the line. (A JSON
    format's time also reads whether a line has a message, which the two views read
    differently: it is parsed again there, as before.)"""
    app = build_any_format(name, [])
    ranked = AppAsAccess(app)  # type: ignore[arg-type]
    templates = TemplateSet(templates=(), pilot_messages=0, pilot_other=0)
    typed = replace(ranked, component="svc", templates=templates)
    line = pl.col("line")
    time = time_of(ranked)
    assert isinstance(time, StagedTime)
    stages, _ = staged_fields(typed, line)
    own = {n: e for stage in staged_fields(ranked, line)[0] for n, e in stage.items()}
    assert any(not e.meta.eq(own[n]) for stage in stages for n, e in stage.items() if n in own)
    assert time_over(time, line, stages).meta.eq(time.staged(line)[1])
    stamp = next(n for stage in stages for n in stage if n.endswith("_stamp"))
    rewritten = [{n: pl.lit("x") if n == stamp else e for n, e in s.items()} for s in stages]
    for changed in (rewritten, [*stages[:1], {"line": pl.lit("x")}, *stages[1:]]):
        assert time_over(time, line, changed).meta.eq(time.plain(line))


MEMBER_KEY = st.sampled_from(
    ["time", "level", "logger", "message", "msg", "lvl", "x/y", "@t", "$", "-", "m.t"]
)
PLAIN_TEXT = st.text(alphabet='ab "\\/\tlevel-$@é', max_size=8)
FLAT_VALUE = st.one_of(  # mostly what a flat line holds, so most lines are flat
    PLAIN_TEXT,
    PLAIN_TEXT,
    st.sampled_from(["ERROR", "2026-12-03T10:00:00.5+01:00", "level", "svc.api", "$", "@t"]),
    st.integers(-999, 999),
    st.text(alphabet="\n\x01😀", max_size=2),
    st.integers(-(10**25), 10**25),
    st.sampled_from([10**15 - 1, -(10**15), 2**63, 12345678901234567890123]),
    st.sampled_from([0.1, 1.5, 100.0, -0.0, 1e2, 1e300, True, False, None]),
    st.dictionaries(st.sampled_from(["level", "a"]), st.integers(0, 3), max_size=2),
)
BLANK = st.sampled_from(["", " ", "\t", "\r", "  "])


@st.composite
def flat_json_line(draw: st.DrawFn) -> str:
    """A JSON object of mostly scalars, written in the ways JSON allows: keys repeated,
    escaped (``\\u0065``, ``\\/``) or not, numbers of every kind, blanks anywhere."""

    def text(value: str) -> str:
        out = json.dumps(value, ensure_ascii=draw(st.integers(0, 3)) == 0)
        if draw(st.booleans()):
            out = out.replace("/", "\\/")
        if draw(st.integers(0, 9)) == 0:
            out = out.replace("e", "\\u0065", 1)
        return out

    members = []
    for key, value in draw(st.lists(st.tuples(MEMBER_KEY, FLAT_VALUE), max_size=6)):
        written = text(value) if isinstance(value, str) else json.dumps(value)
        if value == 0 and draw(st.booleans()):
            written = "-0"
        members.append(f"{text(key)}{draw(BLANK)}:{draw(BLANK)}{written}{draw(BLANK)}")
    comma = draw(BLANK) + "," + draw(BLANK)
    return "{" + draw(BLANK) + comma.join(members) + "}" + draw(BLANK)


#: The JSON app formats whose keys a flat line may be decoded for, and one whose keys are
#: all read by path (``x/y`` is no plain key: ``x\\/y`` spells it too).
DECODED = [
    *(f for f in FIXED if isinstance(f, JsonAppFormat)),
    JsonAppFormat(mapping={"level": "$", "component": "-", "message": "@t"}),
    JsonAppFormat(mapping={"level": "lvl", "component": "x/y", "message": "@t"}),
    # only the message's key is no plain one: a level ranking decodes the others alone
    JsonAppFormat(mapping={"level": "level", "component": "logger", "message": "m.t"}),
]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(flat_json_line(), st.none()), min_size=1, max_size=30))
@example(['{"x/y":"a","x\\/y":"b","@t":"m"}', '{"logger":12345678901234567890123,"level":"E"}'])
@example(['{"lev\\u0065l":"W","level":"E","message":"\\ud800"}'])
@example(['{"logger":-0,"level":"E"}', '{"level":"E","message":"a\tb\x01"}'])
@example(['{"message":"m","message":null}', '{"logger":"a","message":null,"message":"m"}'])
def test_json_keys_decoded_in_one_parse_equal_their_paths(lines: list[str | None]) -> None:
    """The lines a JSON app format decodes in one parse (``JsonAppFormat.staged_raw``)
    read as the per-key ``json_path_match`` reads them, whatever repeats, escapes, numbers
    and blanks they hold; the others are read by path as before."""
    for fmt in DECODED:
        for view in _views(fmt):
            plain, staged = _both(view, lines)
            assert staged.equals(plain), (fmt.mapping, type(view).__name__, lines)


def test_a_flat_json_line_is_decoded_once_and_the_others_by_path() -> None:
    """Which lines take the one-parse read: a flat object writing each key once does; a
    repeated key, a float, an escape that could spell a key, a nested value, or a key's
    name as a value does not (they keep ``json_path_match``); nor does any line of a
    format with a nested key."""
    fmt = build_any_format("jsonapp", [])
    lines = {
        '{"time":"2026-12-03T10:00:00Z","level":"error","logger":"a","message":"m"}': True,
        '{ "level" : "E" ,\t"n":-12, "ok":true, "no":null, "s":"a\\"b\\/c\\n" }\r': True,
        '{"level":"E","level":"W"}': False,
        '{"level":"E","ms":1.5}': False,
        '{"level":"E","n":-0}': False,
        '{"level":"E","message":"\\u0041"}': False,
        '{"level":"E","ctx":{"a":1}}': False,
        '{"level":"E","message":"level"}': False,
        '{"level":"E"} x': False,
    }
    frame = pl.LazyFrame({"line": list(lines)})
    stages, _ = staged_fields(fmt, pl.col("line"))
    for stage in stages:
        frame = frame.with_columns(**stage)
    assert frame.collect()["_app_jsonapp_flat"].to_list() == list(lines.values())
    nested = JsonAppFormat(mapping={"level": "ctx.level", "message": "message"})
    assert not any(
        "_flat" in name for stage in staged_fields(nested, pl.col("line"))[0] for name in stage
    )


#: Pieces of a line around a key: "K" stands for the key written ``"key"``.
PIECES = st.sampled_from(['"', "K", ":", "\\", " ", "é", "$", "-", "@", "a"])


@settings(max_examples=200, deadline=None)
@given(key=st.text("aZ09_@$-", min_size=1, max_size=4), parts=st.lists(PIECES, max_size=20))
def test_a_key_is_counted_as_often_as_the_line_writes_it(key: str, parts: list[str]) -> None:
    """``key_count`` (a regex count) counts ``"key"`` as Python's ``str.count`` does, for the
    plain keys the one-parse read allows (regex characters such as ``$`` and ``-`` too)."""
    line = "".join(f'"{key}"' if p == "K" else p for p in parts)
    got = pl.select(key_count(pl.lit(line), key)).item()
    assert got == line.count(f'"{key}"'), (key, line)


ORDER = ("ts", "level", "logger", "message")
BLANK = st.sampled_from(["", " ", "\t", "  "])
PLAIN_TEXT = st.sampled_from(["ERROR", "warn", "svc.api", "", "é", "2026-12-03T10:00:00.5+01:00"])
ANY_TEXT = st.one_of(
    PLAIN_TEXT, st.sampled_from(['a"b', "a\\b", "x\u0001y", "\u00e9\t", "E\\u0052"])
)


@st.composite
def ordered_line(draw: st.DrawFn) -> str:
    """A JSON line written in ``ORDER`` (most of the time), its values plain strings or not,
    with JSON's blanks, escapes written by hand (``\\u0045``), or a key repeated, dropped,
    added or moved, or junk after it."""
    keys = list(ORDER)
    change = draw(st.sampled_from(["none"] * 3 + ["repeat", "drop", "add", "swap", "junk"]))
    if change == "repeat":
        keys.insert(draw(st.integers(0, len(keys))), draw(st.sampled_from(ORDER)))
    elif change == "drop":
        keys.pop(draw(st.integers(0, len(keys) - 1)))
    elif change == "add":
        keys.insert(draw(st.integers(0, len(keys))), "extra")
    elif change == "swap":
        keys[0], keys[1] = keys[1], keys[0]
    members = []
    for key in keys:
        kind = draw(st.sampled_from(["plain"] * 8 + ["any", "number", "raw", "null"]))
        if kind == "plain":
            value = json.dumps(draw(PLAIN_TEXT), ensure_ascii=False)
        elif kind == "any":
            value = json.dumps(draw(ANY_TEXT), ensure_ascii=draw(st.booleans()))
        elif kind == "number":
            value = str(draw(st.sampled_from([0, 50, -3, 1.5, 10**16])))
        elif kind == "raw":  # written by hand: an escape JSON allows, or a bare control byte
            value = draw(st.sampled_from(['"\\u0045RROR"', '"a\\/b"', '"x\ty"', '"\\"q\\""']))
        else:
            value = draw(st.sampled_from(["null", "true", "{}", "[1]"]))
        b = [draw(BLANK) for _ in range(3)]
        members.append(f"{b[0]}{json.dumps(key)}{b[1]}:{b[2]}{value}")
    line = "{" + ",".join(members) + draw(BLANK) + "}"
    return line + (draw(st.sampled_from([" x", "}", ","])) if change == "junk" else draw(BLANK))


FAST = [
    JsonAppFormat(key_order=ORDER),
    JsonAppFormat(key_order=("level", "message")),  # the learned order lacks ts and logger
    JsonAppFormat(key_order=(*ORDER, "extra"), head_component=True),
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(ordered_line(), json_line()), max_size=30))
def test_a_learned_key_order_reads_what_the_json_decode_reads(lines: list[str]) -> None:
    """The lines a learned key order's regex reads (``JsonAppFormat.key_order``) give, in
    every view, the columns the shape test, key counts and JSON decode give without it."""
    for fmt in FAST:
        for view, slow in zip(_views(fmt), _views(replace(fmt, key_order=())), strict=True):
            fast_cols, slow_cols = _both(view, lines)[1], _both(slow, lines)[1]
            assert fast_cols.equals(slow_cols), (fmt.key_order, type(view).__name__, lines)


def test_the_key_order_of_most_sampled_lines_is_learned() -> None:
    from logagent.formats.appkeys import key_order

    same = ['{"ts":"t","level":"INFO","logger":"a","message":"m"}'] * 6
    other = ['{"level":"ERROR","ts":"t","message":"m","err":{"k":1}}'] * 4
    assert key_order([*same, *other, "not json"]) == ORDER
    assert key_order([*same[:4], *other]) == ORDER  # a tie: half is enough
    assert key_order([*same[:3], *other]) == ("level", "ts", "message", "err")
    assert key_order(['{"a":1,"a":2}'] * 3) == ()  # a key twice: no single regex reads it
    assert key_order(['{"a.b":1}'] * 3) == ()  # a dotted key reads a nested path here
    assert key_order(["[1, 2]", "x"]) == ()
    fmt = build_any_format("jsonapp", same)
    assert isinstance(fmt, JsonAppFormat) and fmt.key_order == ORDER
