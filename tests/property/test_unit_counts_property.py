"""``unit_counts`` (vectorized) equals a per-row reference on random sparse tallies."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.evidence.matrix import unit_counts

ROUTES = ["/a", "/b", "/c", "/d", "(invalid request)", "/é"]


def reference(rows: list[tuple[int, str, int]], order: list[int], candidates: list[str]):
    pos = {u: i for i, u in enumerate(order)}
    x = np.zeros((len(order), len(candidates)))
    rest = np.zeros(len(order))
    every = np.zeros(len(order))
    for unit, route, n in rows:
        if unit not in pos:
            continue
        i = pos[unit]
        every[i] += n
        if route in candidates:
            x[i, candidates.index(route)] += n
        else:
            rest[i] = max(rest[i], n)
    return x, rest, every


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 40), st.sampled_from(ROUTES), st.integers(1, 9)), max_size=60
    ),
    order=st.lists(st.integers(0, 50), unique=True, max_size=30),
    candidates=st.lists(st.sampled_from(ROUTES), unique=True, max_size=4),
)
def test_dense_counts_equal_the_reference(
    rows: list[tuple[int, str, int]], order: list[int], candidates: list[str]
) -> None:
    frame = pl.DataFrame(
        rows, schema={"unit": pl.Int64, "route": pl.String, "n": pl.Int64}, orient="row"
    )
    got = unit_counts(frame, np.array(order, dtype=np.int64), candidates)
    x, rest, every = reference(rows, order, candidates)
    assert np.array_equal(got.x, x) and np.array_equal(got.rest, rest)
    assert np.array_equal(got.all_errors, every)
