"""A JSON layout's own level vocabulary (``JsonLayout.level_map``): read by the parse, plain and
staged, and by the level prefilter, instead of the shared ``LEVEL_MAP``."""

from __future__ import annotations

import polars as pl

from logagent.formats.adapter import THRESHOLDS
from logagent.formats.app import LEVEL, MESSAGE, TS
from logagent.formats.base import staged_fields
from logagent.formats.jsonlayouts import JsonLayout
from logagent.formats.levelfilter import level_prefilter

#: Numbers that mean the opposite of syslog's (1 is FATAL there), and letters of its own.
OWN = JsonLayout(
    name="own_levels",
    mapping={TS: "at", LEVEL: "sev", MESSAGE: "text"},
    signature=("at", "sev", "text"),
    description="a layout with a vocabulary of its own",
    level_map={"1": "INFO", "4": "FATAL", "X": "ERROR", "D2": "DEBUG"},
)
LINES = [
    '{"at":"2024-01-01T00:00:00Z","sev":1,"text":"a"}',
    '{"at":"2024-01-01T00:00:01Z","sev":4,"text":"b"}',
    '{"at":"2024-01-01T00:00:02Z","sev":" x ","text":"c"}',
    '{"at":"2024-01-01T00:00:03Z","sev":"d2","text":"d"}',
    '{"at":"2024-01-01T00:00:04Z","sev":"ERROR","text":"e"}',  # a shared word, not its own
    '{"at":"2024-01-01T00:00:05Z","sev":3,"text":"f"}',
]
WANT = ["INFO", "FATAL", "ERROR", "DEBUG", None, None]


def test_the_parse_reads_the_layouts_own_levels() -> None:
    """1 is INFO and 4 FATAL by the layout's map; a word only the shared map knows is no level."""
    frame = pl.DataFrame({"line": LINES})
    got = frame.select(OWN.fields(pl.col("line"))[LEVEL].alias(LEVEL))[LEVEL].to_list()
    assert got == WANT


def test_the_staged_parse_reads_them_too() -> None:
    """The staged columns (what the engine runs) give the same levels as the plain parse."""
    frame = pl.LazyFrame({"line": LINES})
    stages, cols = staged_fields(OWN, pl.col("line"))
    for stage in stages:
        frame = frame.with_columns(**stage)
    assert frame.select(cols[LEVEL].alias(LEVEL)).collect()[LEVEL].to_list() == WANT


def test_the_prefilter_is_built_from_the_layouts_own_words() -> None:
    """At ERROR+ it keeps the 4 and the x lines (FATAL, ERROR by the layout) and drops the others,
    the 1 line too, which the shared syslog map would have called FATAL."""
    pre = level_prefilter(OWN, THRESHOLDS["error"])
    assert pre is not None
    kept = [line for line in LINES if pre.search(line.encode())]
    assert kept == [LINES[1], LINES[2]]


def test_a_vocabulary_without_numbers_still_filters() -> None:
    """Letters only (MongoDB's): no empty number branch that would let every value through."""
    letters = JsonLayout(
        name="letters",
        mapping={LEVEL: "s", MESSAGE: "msg"},
        signature=("s", "msg"),
        description="letters",
        level_map={"E": "ERROR", "I": "INFO"},
    )
    pre = level_prefilter(letters, THRESHOLDS["error"])
    assert pre is not None
    assert pre.search(b'{"s":"E","msg":"x"}') is not None
    assert pre.search(b'{"s":"I","msg":"x"}') is None
    assert pre.search(b'{"s":3,"msg":"x"}') is None
