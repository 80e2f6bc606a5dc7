"""Tallies merge associatively and commutatively; the prefilter never loses a 5xx record."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.counters import merge, same_counts
from logagent.counters.tally import tally_batch
from logagent.formats.access import COMBINED
from logagent.formats.extract import Extracted, extract
from logagent.formats.routes import DEFAULT_RULES
from logagent.sources.batches import make_batch
from logagent.sources.framing import Piece
from logagent.testing import combined_line

RECORD = st.tuples(
    st.integers(0, 9), st.sampled_from(["/a", "/b", "/c"]), st.sampled_from([200, 404, 500, 503])
)
TALLIES = st.lists(RECORD, max_size=30).map(
    lambda rows: tally_batch(
        Extracted(
            records=pl.DataFrame(
                {
                    "unit": [r[0] for r in rows],
                    "route": [r[1] for r in rows],
                    "status": [r[2] for r in rows],
                    "n": [1] * len(rows),
                },
                schema={"unit": pl.Int64, "route": pl.String, "status": pl.Int32, "n": pl.Int64},
            ).lazy(),
            valid=pl.LazyFrame({"valid": [len(rows)]}),
            lines=len(rows),
            parsed=len(rows),
            invalid_utf8=0,
        ),
        units=1,
        bytes_read=len(rows) * 10,
        truncated=0,
    )
)


@settings(deadline=None)  # the first polars call in a process is slow
@given(a=TALLIES, b=TALLIES, c=TALLIES)
def test_merge_is_associative_and_commutative(a, b, c) -> None:  # type: ignore[no-untyped-def]
    """merge(a,b)==merge(b,a) and merge(merge(a,b),c)==merge(a,merge(b,c))."""
    assert same_counts(merge([a, b]), merge([b, a]))
    assert same_counts(merge([merge([a, b]), c]), merge([a, merge([b, c])]))
    assert same_counts(merge([a, b, c]), merge([c, a, b]))


LINES = st.lists(
    st.one_of(
        st.tuples(
            st.sampled_from(["/x/1", "/y", '/z?q=" 503 ']),
            st.sampled_from([200, 500, 503, 599, 404]),
        ).map(lambda t: combined_line(*t)),
        st.text(max_size=60).map(lambda s: s.replace("\n", " ")),
        st.just('1.2.3.4 - - [x] "GET / HTTP/1.1" 503'),  # truncated: not a record
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(lines=LINES)
def test_prefilter_keeps_every_5xx_record(lines: list[str]) -> None:
    """Parsing only prefilter candidates finds exactly the 5xx records a full parse finds."""
    data = "".join(line + "\n" for line in lines).encode()
    batch = make_batch(
        [(Piece(0, data, len(data)), 0)],
        np.array([0], dtype=np.int64),
        unit_size=1 << 20,
        bytes_read=len(data),
    )
    fast = extract(batch, COMBINED, errors_only=True, rules=DEFAULT_RULES).records.collect()
    full = extract(batch, COMBINED, errors_only=False, rules=DEFAULT_RULES).records.collect()
    expected = full.filter(pl.col("status") >= 500)
    assert fast.sort(fast.columns).equals(expected.sort(expected.columns))


@settings(max_examples=40, deadline=None)
@given(n_good=st.integers(0, 40), n_err=st.integers(0, 40), bad_utf8=st.booleans())
def test_rare_and_dense_candidate_paths_agree(n_good: int, n_err: int, bad_utf8: bool) -> None:
    """Finding candidates one by one or via all newlines gives the same lines, units and counts."""
    from logagent.formats.batchlines import _rare_candidates, candidate_lines

    lines = [combined_line(f"/g/{i}", 200).encode() for i in range(n_good)]
    lines += [combined_line(f"/e/{i}", 503).encode() for i in range(n_err)]
    if bad_utf8:
        lines.append(combined_line("/x", 502).encode() + b"\xff")
    data = b"".join(line + b"\n" for line in lines)
    batch = make_batch(
        [(Piece(0, data, len(data)), 0)],
        np.array([0], dtype=np.int64),
        unit_size=64,
        bytes_read=len(data),
    )
    dense, count = candidate_lines(batch, COMBINED.error_prefilter)  # type: ignore[arg-type]
    hits = [m.start() for m in COMBINED.error_prefilter.finditer(data)]  # type: ignore[union-attr]
    rare = _rare_candidates(data, hits)
    assert count == len(lines)
    assert dense.text.to_list() == rare.text.to_list()
    assert dense.starts.tolist() == rare.starts.tolist()
    assert dense.invalid_utf8 == rare.invalid_utf8 == int(bad_utf8)
