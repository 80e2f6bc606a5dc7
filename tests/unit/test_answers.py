"""Exact answers' parts against plain-Python references."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.counters.tally import COUNTS_SCHEMA, ROUTE, N
from logagent.engine.answers import status_breakdowns
from logagent.formats.base import STATUS

ROUTES = ["/a", "/b", "/c/{id}", "", "/ü"]
STATUSES = [200, 404, 499, 500, 501, 502, 503, 599, 600]


def reference(rows: list[tuple[str, int, int]], routes: list[str]) -> dict[str, dict[str, float]]:
    """Per asked route with 5xx: each 5xx status's share, most lines first, then by status."""
    out: dict[str, dict[str, float]] = {}
    for route in sorted(set(routes)):
        mine = [(s, n) for r, s, n in rows if r == route and 500 <= s <= 599]
        if not mine:
            continue
        total = sum(n for _, n in mine)
        mine.sort(key=lambda sn: (-sn[1], sn[0]))
        out[route] = {str(s): round(n / total, 6) for s, n in mine}
    return out


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.sampled_from(ROUTES), st.sampled_from(STATUSES)),
        st.integers(1, 10**6),
        max_size=30,
    ),
    st.lists(st.sampled_from(ROUTES), max_size=6),
)
def test_status_breakdowns_equal_a_per_route_reference(
    counts: dict[tuple[str, int], int], asked: list[str]
) -> None:
    rows = [(r, s, n) for (r, s), n in counts.items()]
    frame = pl.DataFrame(
        {ROUTE: [r for r, _, _ in rows], STATUS: [s for _, s, _ in rows], N: [n for *_, n in rows]},
        schema=COUNTS_SCHEMA,
    )
    got = status_breakdowns(frame, asked)
    want = reference(rows, asked)
    assert got == want
    for route, shares in got.items():  # the order is part of the answer: most lines first
        assert list(shares) == list(want[route])


def test_status_breakdowns_of_a_known_table() -> None:
    frame = pl.DataFrame(
        {
            ROUTE: ["/a", "/a", "/a", "/b", "/b"],
            STATUS: [500, 503, 200, 502, 404],
            N: [1, 3, 9, 2, 5],
        },
        schema=COUNTS_SCHEMA,
    )
    assert status_breakdowns(frame, ["/a", "/b", "/none"]) == {
        "/a": {"503": 0.75, "500": 0.25},
        "/b": {"502": 1.0},
    }
    assert list(status_breakdowns(frame, ["/a"])["/a"]) == ["503", "500"]
