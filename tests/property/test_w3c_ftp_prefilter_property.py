"""The Python prefilter of W3C's FTP-method test (``w3c._may_be_ftp``) is sound: every entry
the Polars test (``W3cFormat._skipped``) finds an FTP entry passes it, so fitting a layout
with the prefilter finds FTP methods exactly where fitting without it did."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from logagent.formats import w3c
from logagent.formats.w3c import CLOUDFRONT, IIS

HEADS = (
    "#Fields: date time c-ip cs-method cs-uri-stem sc-status",
    "#Fields: time c-ip cs-method cs-uri-stem sc-status",
)
FIELD_VALUES = {
    "date": ["2024-01-01", "01/01/2024"],
    "time": ["00:00:00"],
    "c-ip": ["1.2.3.4", "-"],
    "cs-method": ["GET", "USER", "[2]USER", "[12]sent", "RETR", "user", "LIST", "sent", "PASSx"],
    "cs-uri-stem": ["/a", "-", "x y", '"/a b"', '"a ""q"" b"', '"USER"'],
    "sc-status": ["200", "331", "226", "999", "-"],
}
ANY = st.sampled_from(sorted({v for vs in FIELD_VALUES.values() for v in vs}))


@st.composite
def entries(draw: st.DrawFn, head: str) -> str:
    """An entry of ``head``'s list, or one near it: a field of another kind, one field more
    or fewer, a tab separator, separators at the end."""
    sep = draw(st.sampled_from([" ", "\t"]))
    values = [draw(st.sampled_from(FIELD_VALUES[name])) for name in head.split()[1:]]
    if draw(st.integers(0, 4)) == 0:
        values[draw(st.integers(0, len(values) - 1))] = draw(ANY)
    change = draw(st.integers(0, 5))
    if change == 0:
        values.append(draw(ANY))
    elif change == 1:
        values.pop(draw(st.integers(0, len(values) - 1)))
    return sep.join(values) + draw(st.sampled_from(["", sep, sep * 2]))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_prefilter_keeps_every_ftp_entry(data: st.DataObject) -> None:
    head = data.draw(st.sampled_from(HEADS))
    lines = data.draw(st.lists(entries(head), min_size=1, max_size=6))
    for layout in (IIS, CLOUDFRONT):
        fitted = layout.fit([head, *lines])
        probe = replace(fitted, ftp_methods=True, skip_sets=())
        frame = pl.DataFrame({"line": lines}, schema={"line": pl.String})
        found = frame.select(probe._skipped(pl.col("line"))).to_series().to_list()
        for line, ftp in zip(lines, found, strict=True):
            if ftp:
                assert w3c._may_be_ftp(fitted, line), (layout.name, line)
        assert fitted.ftp_methods == any(found)
