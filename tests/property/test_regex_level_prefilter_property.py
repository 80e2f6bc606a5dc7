"""A regex format's level prefilter lets through every line the parser calls an event.

``levelfilter.regex_level_prefilter`` keeps the lines holding one of the words
a format's ``level`` groups may capture for the question's levels. Lines are
built from each format's example and the bundled samples, with the level word
swapped for any word of the level vocabulary in any case, words inserted and
the line cut: whatever the parser calls an event must match the prefilter,
as Python's ``re`` finds it and as ``sources.locate.find_hits`` does in a batch.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from logagent.formats.adapter import THRESHOLDS
from logagent.formats.app import LEVEL, MESSAGE, AppRegexFormat
from logagent.formats.catalog import APP_NAMES, SERVER_LAYOUTS, build_any_format
from logagent.formats.levelfilter import group_body, level_prefilter, regex_level_prefilter
from logagent.formats.levels import LEVEL_MAP
from logagent.sources.locate import find_hits, literals_of

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
NAMES = dict.fromkeys((*APP_NAMES, *(s.name for s in SERVER_LAYOUTS)))  # once each, in order
REGEX = [f for f in map(lambda n: build_any_format(n, []), NAMES) if isinstance(f, AppRegexFormat)]
PREFILTERED = [f for f in REGEX if level_prefilter(f, THRESHOLDS["error"]) is not None]
LEVEL_WORDS = sorted({v for w in LEVEL_MAP if w.isalpha() for v in (w, w.title(), w.lower())})
WORD_RE = re.compile(r"\b(?:" + "|".join(sorted(LEVEL_WORDS, key=len, reverse=True)) + r")\b")


@functools.cache
def _sample_lines() -> tuple[str, ...]:
    """Up to 40 lines of each bundled sample that hold a level word."""
    lines: list[str] = []
    for path in sorted(SAMPLES.glob("*.log")):
        kept = [x for x in path.read_text(errors="replace").splitlines() if WORD_RE.search(x)]
        lines.extend(kept[:40])
    return tuple(lines)


def _bases(fmt: AppRegexFormat) -> list[str]:
    """The format's example and the bundled samples' lines that hold a level word."""
    return [fmt.example, *_sample_lines()]


@st.composite
def mutated(draw: st.DrawFn, base: str) -> str:
    """``base`` with its level words swapped, words inserted, and perhaps cut."""
    line = WORD_RE.sub(lambda m: draw(st.sampled_from(LEVEL_WORDS)), base)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(line)))
        word = draw(st.sampled_from([*LEVEL_WORDS, " ", "  ", ":", "-", "[x]", "é"]))
        line = line[:at] + word + line[at:]
    if draw(st.booleans()):
        line = line[: draw(st.integers(0, len(line)))]
    return line


def _events(fmt: AppRegexFormat, lines: list[str], wanted: tuple[str, ...]) -> list[bool]:
    cols = pl.DataFrame({"line": pl.Series(lines, dtype=pl.String)}).select(
        **fmt.fields(pl.col("line"))
    )
    is_event = cols[LEVEL].is_in(list(wanted)) & cols[MESSAGE].is_not_null()
    return is_event.fill_null(False).to_list()


def _check(fmt: AppRegexFormat, lines: list[str]) -> int:
    """Every event line matches each threshold's prefilter; returns the events seen."""
    seen = 0
    for wanted in THRESHOLDS.values():
        pre = regex_level_prefilter(fmt, wanted)
        assert pre is not None
        data = "".join(f"{x}\n" for x in lines).encode()
        hits = find_hits(data, len(data), pre)
        assert hits is not None  # the literal path: no re.finditer over the batch
        assert list(hits) == sorted(hits)  # ascending: the caller bisects the line ends
        hit_lines = {data.count(b"\n", 0, h) for h in hits}
        for i, (line, event) in enumerate(zip(lines, _events(fmt, lines, wanted), strict=True)):
            if event:
                seen += 1
                assert pre.search(line.encode()) is not None, (fmt.name, wanted, line)
                assert i in hit_lines, (fmt.name, wanted, line)
    return seen


@pytest.mark.parametrize("fmt", PREFILTERED, ids=lambda f: f.name)
def test_every_event_of_a_bundled_or_example_line_passes(fmt: AppRegexFormat) -> None:
    _check(fmt, _bases(fmt))


@pytest.mark.parametrize("fmt", PREFILTERED, ids=lambda f: f.name)
def test_the_example_at_every_level_word_passes_when_an_event(fmt: AppRegexFormat) -> None:
    """Each word of the vocabulary, in three cases, in the example's level word's place."""
    lines = [WORD_RE.sub(word, fmt.example, count=1) for word in LEVEL_WORDS]
    assert _check(fmt, lines) > 0


@pytest.mark.parametrize("fmt", PREFILTERED, ids=lambda f: f.name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_event_of_a_mutated_line_passes(fmt: AppRegexFormat, data: st.DataObject) -> None:
    bases = _bases(fmt)
    base = st.one_of(st.just(fmt.example), st.sampled_from(bases))
    lines = [data.draw(mutated(data.draw(base))) for _ in range(12)]
    _check(fmt, lines)


@given(st.sampled_from(LEVEL_WORDS))
@example("FATAL")
@example("SEVERE")
@example("CRITICAL")
def test_a_log4j_line_at_any_level_is_an_event_exactly_when_it_passes(word: str) -> None:
    """Tight and complete on log4j: its level words at the threshold pass, the others not."""
    fmt = next(f for f in REGEX if f.name == "log4j")
    line = f"2024-01-02 03:04:05,678 {word} [main] com.foo.Bar - msg"
    for wanted in THRESHOLDS.values():
        pre = regex_level_prefilter(fmt, wanted)
        assert pre is not None
        (event,) = _events(fmt, [line], wanted)
        assert (pre.search(line.encode()) is not None) == event, (word, wanted)


def test_the_prefilter_is_literals_the_batch_search_takes() -> None:
    pre = regex_level_prefilter(next(f for f in REGEX if f.name == "log4j"), ("FATAL", "ERROR"))
    assert pre is not None
    assert sorted(literals_of(pre) or ()) == [b"CRITICAL", b"ERROR", b"FATAL", b"SEVERE"]


def _custom(*patterns: str, **kw: object) -> AppRegexFormat:
    return AppRegexFormat(name="custom", patterns=patterns, min_line_bytes=1, **kw)  # type: ignore[arg-type]


LEVEL_OK = r"^(?P<level>INFO|ERROR) (?P<message>.*)$"


@pytest.mark.parametrize(
    "fmt",
    [
        _custom(r"^<(?P<pri>[0-9]+)>(?P<message>.*)$", LEVEL_OK),  # a level from a number
        _custom(LEVEL_OK, level_words=True),  # a level from the message's words
        _custom(r"(?i)^(?P<level>error|info) (?P<message>.*)$"),  # case folded by a flag
        _custom(r"^(?P<level>[A-Z]+) (?P<message>.*)$"),  # any word
        _custom(r"^(?P<level>E(?:RROR)?|INFO) (?P<message>.*)$"),  # a group inside
        _custom(r"^(?<level>ERROR|INFO) (?P<message>.*)$"),  # a group name Python's re lacks
        _custom(r"^(?P<level>ERROR|INFO (?P<message>.*)$"),  # unbalanced: no end found
        _custom(r"^(?P<level>INFO|DEBUG) (?P<message>.*)$"),  # no word at the threshold
    ],
)
def test_a_level_the_words_cannot_bound_gives_no_prefilter(fmt: AppRegexFormat) -> None:
    assert regex_level_prefilter(fmt, THRESHOLDS["error"]) is None


def test_patterns_without_a_level_add_no_word_and_classes_are_skipped() -> None:
    fmt = _custom(
        r"^(?P<component>[^]|)]+): (?P<message>.*)$", r"^[(|](?P<level>ERROR|INFO) (?P<message>.*)$"
    )
    pre = regex_level_prefilter(fmt, THRESHOLDS["error"])
    assert pre is not None and pre.pattern == b"ERROR"
    assert group_body(r"^[)](?P<level>A|[)|]B)x", "level") == "A|[)|]B"
    assert group_body(r"^(?P<level>A\)|B)x", "level") == r"A\)|B"
    assert group_body(r"^(?P<level>A|[]|)(]B)x", "level") == "A|[]|)(]B"  # "]" first: a member
    assert group_body(r"^(?P<level>A|[^]()]B)x", "level") == "A|[^]()]B"
    assert group_body(r"^(?P<level>A|[[:alpha:])]B)x", "level") == "A|[[:alpha:])]B"
    assert group_body(r"^(?P<level>A", "level") is None


def test_an_escaped_group_opening_is_no_level_group() -> None:
    """``\\(?P<level>`` is a literal paren, then an optional one: the level group is the second;
    its words (any) give no prefilter, and the FATAL event is parsed."""
    fmt = _custom(r"^(?:\(?P<level>ERROR|x) (?P<level>[A-Z]+) (?P<message>.*)$")
    pre = regex_level_prefilter(fmt, THRESHOLDS["error"])
    assert pre is None or pre.search(b"x FATAL disk gone") is not None
    assert group_body(r"^\(?P<level>A|B) (?P<level>C|D)", "level") == "C|D"
    assert group_body(r"^[(?P<level>]x(?P<level>C|D)", "level") == "C|D"
