"""Detection's shortcuts give the scores the full detection gives (formats/detect.py).

* A layout that needs what no sampled line holds (``record_needs``: a JSON
  object) is scored 0 without its expressions: that must be the score its
  expressions give.
* JSON key fitting skips ``json.loads`` for lines that cannot be an object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats.detect import _shares, every_format
from logagent.formats.jsonl import object_of

SAMPLES = sorted(
    p
    for p in (Path(__file__).resolve().parents[2] / "sample_logs").iterdir()
    if p.is_file() and not p.name.endswith((".json", ".md", ".gz"))
)


def _lines(path: Path, limit: int = 400) -> list[str]:
    text = path.read_bytes().decode("utf-8", "replace").splitlines()
    return text[:limit]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_pruned_scores_equal_the_full_ones_on_every_sample_log(path: Path) -> None:
    lines = _lines(path)
    fmts = every_format(lines)
    series = pl.Series("line", lines, dtype=pl.String)
    assert list(_shares(fmts, series).items()) == list(_shares(fmts, series, prune=False).items())


def test_pruning_happens_on_an_access_log_and_not_on_a_json_one() -> None:
    """The shortcut is taken (else the test above proves nothing about it)."""
    from logagent.formats.detect import _ruled_out

    access = _lines(next(p for p in SAMPLES if p.name == "nginx_access.log"))
    ruled = _ruled_out(every_format(access), pl.Series("line", access))
    assert {"jsonl", "jsonapp", "bunyan", "caddy"} <= set(ruled)
    app = _lines(next(p for p in SAMPLES if p.name == "app.jsonl"))
    assert _ruled_out(every_format(app), pl.Series("line", app)) == []


def _json_records() -> list[str]:
    """Lines that are records of some JSON layout, from the bundled samples."""
    out = []
    for path in SAMPLES:
        out += [line for line in _lines(path, 50) if line.startswith("{")]
    return out


JSON_LINES = _json_records()


@settings(max_examples=60, deadline=None)
@given(
    picks=st.lists(st.sampled_from(JSON_LINES), min_size=1, max_size=8),
    lead=st.sampled_from([" ", "\t", "x", "[", "0 ", "\ufeff", "- "]),
    plain=st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="{"),
            max_size=60,
        )
    ),
)
def test_json_records_moved_off_the_first_character_are_no_records(
    picks: list[str], lead: str, plain: list[str]
) -> None:
    """A sample whose lines hold objects, none at the first character: every layout that
    needs one there scores 0 when its expressions run (so pruning it gives the same)."""
    lines = [lead + p for p in picks] + plain
    fmts = every_format(lines)
    series = pl.Series("line", lines, dtype=pl.String)
    full = _shares(fmts, series, prune=False)
    for name, fmt in fmts.items():
        if getattr(fmt, "record_needs", None) == ("starts", "{"):
            assert full[name] == 0.0, name
    assert list(_shares(fmts, series).items()) == list(full.items())  # order too: ties


@settings(max_examples=60, deadline=None)
@given(
    plain=st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="{"),
            max_size=80,
        )
    )
)
def test_lines_without_a_brace_are_no_json_records(plain: list[str]) -> None:
    lines = [*plain, '[1, 2, "status", 500]', '"path"', "500"]
    fmts = every_format(lines)
    series = pl.Series("line", lines, dtype=pl.String)
    full = _shares(fmts, series, prune=False)
    for name, fmt in fmts.items():
        if getattr(fmt, "record_needs", None) is not None:
            assert full[name] == 0.0, name
    assert list(_shares(fmts, series).items()) == list(full.items())  # order too: ties


def _reference(line: str) -> dict[str, Any] | None:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda pad, obj, tail: pad + json.dumps(obj) + tail,
            st.text(alphabet=" \t\n\r\ufeff\x0b\x0c\xa0", max_size=3),
            st.one_of(
                st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
                st.lists(st.integers(), max_size=3),
                st.integers(),
                st.text(max_size=5),
            ),
            st.sampled_from(["", " ", "\n", "x", "}"]),
        ),
    )
)
def test_the_json_fast_reject_decodes_as_json_loads(line: str) -> None:
    assert object_of(line) == _reference(line)  # JSON key fitting, access and app formats
