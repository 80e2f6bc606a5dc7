"""Which stamps a strptime format cannot read, told by one character (PURE).

An application format tries its stamp formats in turn, each on the stamps the
ones before it left (``app.staged_times``), and a format that fails costs more
than one that parses: on log4j's ``2026-11-28 01:00:00,011`` the two ISO formats
with an offset fail first, ~110 and ~230 ns a stamp, where the one that parses
costs ~50 (1.15 M ERROR lines of the 1 GB log4j benchmark: 0.39 s CPU of failures).

A Polars ``strptime`` (``exact``, the default) reads the whole stamp: each
character is read by a literal of the format or by one of its conversions. The
conversions in ``NO_COMMA`` read only digits, signs, letters, dots, colons,
the literals of their composites, blanks or ``Z`` (chrono's readers and
Polars' own fast path): a format made of those and of literals other than
``,`` cannot read a stamp that holds a comma, so it is not tried on one. Any
other conversion (``%Z`` skips every non-blank character, ``%+`` reads RFC 3339
loosely, ``%c``, a two-digit year) or a ``%`` with none after it: the format may
read a comma (``reads_comma``). What Polars reads is checked, not assumed: the
property test puts commas into stamps of formats built from these conversions.
"""

from __future__ import annotations

import re

#: strftime conversions (chrono) that never read a ",": numbers, names, AM/PM, offsets,
#: the composites of those (%F %R %T %X %r %v), blanks (%n %t) and "%%". Not the two-digit
#: years (%y %g, and %D %x that hold %y): Polars reads "0," as the year 2000 there (found by
#: ``tests/property/test_stamp_chars_property.py``).
NO_COMMA = frozenset("YCGmbBhdejaAuwUWVHkIlPpMSfsFRTXrvznt%")
#: A conversion: "%", its flags, width and precision (``%-d``, ``%3f``, ``%.6f``, ``%::z``),
#: then the conversion character (none at the end of the text).
_CONVERSION = re.compile(r"%[-_0^#:.]*[0-9]*[-_0^#:.]*(.?)", re.DOTALL)


def reads_comma(strf: str) -> bool:
    """Whether a strptime of ``strf`` may read a stamp that holds a "," (module doc)."""
    rest = _CONVERSION.sub(lambda m: "" if m.group(1) and m.group(1) in NO_COMMA else ",", strf)
    return "," in rest
