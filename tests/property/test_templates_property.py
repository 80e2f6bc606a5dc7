"""Order independence of template mining and matching (hypothesis)."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.templates import OTHER, count, mask, match, mine

SHAPES = [
    "Timeout after {n}ms calling {w}",
    "User {w}{n}@example.com locked after {n} attempts",
    "Disk {w} at {n}% on /data/{n}/x",
    "Queue {w} lagging {n} behind",
    "plain failure",
]
message = st.builds(
    lambda i, n, w: SHAPES[i].format(n=n, w=w),
    st.integers(0, len(SHAPES) - 1),
    st.integers(0, 10**6),
    st.sampled_from(["alpha", "beta", "gamma", "delta"]),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(message, min_size=1, max_size=60), st.randoms(use_true_random=False))
def test_order_and_split_do_not_change_templates_or_counts(msgs: list[str], rnd: object) -> None:
    """Mining a permuted pilot and counting in any split gives the same ids, texts and counts."""
    shuffled = list(msgs)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]  # hypothesis' Random
    a, b = mine(msgs), mine(shuffled)
    assert a == b
    whole = count(a, pl.Series(msgs))
    cut = len(shuffled) // 2
    parts = [count(b, pl.Series(shuffled[:cut])), count(b, pl.Series(shuffled[cut:]))]
    merged: dict[str, int] = {}
    for part in parts:
        for k, n in part.items():
            merged[k] = merged.get(k, 0) + n
    assert merged == whole


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=30))
def test_every_pilot_message_matches_its_own_templates(msgs: list[str]) -> None:
    """Any text (odd bytes, punctuation, exotic white space) matches a template mined from it."""
    ts = mine(msgs)
    series = pl.Series(msgs, dtype=pl.String)
    for masked, tid in zip(mask(series), match(ts, series), strict=True):
        if masked:
            assert tid != OTHER
