"""The bounded summary of Router-Mem's "sketch" step: its error bound holds, whatever the data."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.counters import Accumulator, Tally
from logagent.counters.sketch import REST_KEY, collapse_units, prune_totals
from logagent.counters.tally import COUNTS_SCHEMA, UNITS_SCHEMA

routes = st.sampled_from([f"/r{i}" for i in range(40)])
batches = st.lists(
    st.lists(
        st.tuples(routes, st.sampled_from([200, 404, 500, 503]), st.integers(1, 50)), max_size=30
    ),
    min_size=1,
    max_size=12,
)


def _tally(rows: list[tuple[str, int, int]]) -> Tally:
    counts = pl.DataFrame(rows, schema=COUNTS_SCHEMA, orient="row")
    return Tally(
        counts=counts.group_by("route", "status").agg(pl.col("n").sum()).cast(COUNTS_SCHEMA)
    )  # type: ignore[arg-type]


def _errors(frame: pl.DataFrame) -> dict[str, int]:
    rows = frame.filter(pl.col("status") >= 500).group_by("route").agg(pl.col("n").sum())
    return dict(rows.iter_rows())


@settings(max_examples=200, deadline=None, database=None)
@given(batches=batches, capacity=st.integers(1, 10))
def test_kept_counts_are_within_the_error_bound_of_the_truth(
    batches: list[list[tuple[str, int, int]]], capacity: int
) -> None:
    """kept <= true <= kept + E for every route (E = 0 when nothing was dropped); totals exact."""
    acc, truth = Accumulator(), Accumulator()
    acc.limit(capacity, errors_only=True, protect=())
    for rows in batches:
        acc.add(_tally(rows))
        acc.snapshot()  # prune after every batch: the worst case for the bound
        truth.add(_tally(rows))
    got, true = acc.snapshot(), truth.snapshot()
    kept, real = _errors(got.counts), _errors(true.counts)
    e = got.count_error
    assert len(kept) <= capacity
    for route, n in real.items():
        assert kept.get(route, 0) <= n <= kept.get(route, 0) + e, (route, kept.get(route), n, e)
    assert sum(kept.values()) + got.dropped_errors == sum(real.values())
    if len(real) <= capacity:
        assert e == 0 and kept == real


def test_protected_routes_are_never_dropped() -> None:
    acc = Accumulator()
    acc.limit(1, errors_only=True, protect=["/rare"])
    acc.add(_tally([("/big", 500, 100), ("/mid", 500, 50), ("/rare", 500, 1)]))
    kept = _errors(acc.snapshot().counts)
    assert kept == {"/big": 100, "/rare": 1}
    assert acc.snapshot().count_error == 50 and acc.snapshot().dropped_errors == 50


def test_prune_totals_keeps_the_heaviest_and_the_protected() -> None:
    kept, t = prune_totals({"/a": 9, "/b": 5, "/c": 5, "/d": 1}, 2, protect=["/d"])
    assert (kept, t) == ({"/a": 9, "/d": 1}, 5)  # a tie at the threshold is dropped whole


def test_collapsed_units_keep_every_unit_total_and_bound_the_rest() -> None:
    """REST per unit is the sum of the others: >= their max (a valid REST bound), same totals."""
    rows = pl.DataFrame(
        [(1, "/a", 3), (1, "/b", 2), (1, "/c", 4), (2, "/b", 1)], schema=UNITS_SCHEMA, orient="row"
    )
    out = collapse_units(rows, protect=["/a"])
    assert dict(out.group_by("unit").agg(pl.col("n").sum()).iter_rows()) == {1: 9, 2: 1}
    rest = dict(out.filter(pl.col("route") == REST_KEY).select("unit", "n").iter_rows())
    assert rest == {1: 6, 2: 1} and rest[1] >= 4
