"""Detection scores application layouts on their message column alone (``message_expr``).

It must be the very column ``fields`` gives, on every layout that has it and
on every kind of line: the bundled real samples of every format, plus lines
no layout reads, plus the layout's own documented example. Detection's
scores are checked unchanged elsewhere (``test_real_layouts``); this pins
the expression itself.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from logagent.formats.app import MESSAGE
from logagent.formats.catalog import APP_NAMES, build_any_format

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def every_sample_line() -> list[str]:
    lines: list[str] = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix in (".md",) or path.name.endswith(".json"):
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        lines += text.splitlines()[:200]
    return [*lines, "", " ", "no layout reads this", "\ufeff2026-12-01 ERROR x"]


LINES = every_sample_line()
#: The layouts that have their own ``message_expr`` (the others: detection uses ``fields``).
WITH_OWN = [n for n in APP_NAMES if hasattr(build_any_format(n, LINES[:400]), "message_expr")]


def test_the_regex_layouts_have_their_own_message_column() -> None:
    assert len(WITH_OWN) >= 15, WITH_OWN  # the test below must not run on nothing


@pytest.mark.parametrize("name", WITH_OWN)
def test_message_expr_is_the_message_field(name: str) -> None:
    fmt = build_any_format(name, LINES[:400])
    own = fmt.message_expr  # type: ignore[union-attr]
    example = getattr(fmt, "example", "")  # its documented line: one record at least
    frame = pl.DataFrame({"line": [*LINES, *example.splitlines()]})
    line = pl.col("line")
    got = frame.select(own(line).alias("m"))["m"]
    want = frame.select(fmt.fields(line)[MESSAGE].alias("m"))["m"]
    assert got.equals(want), name
    assert got.is_not_null().any(), f"{name}: no sample line is one of its records"
