"""A byte prefilter for the event records of JSON application logs (PURE).

A question about ERROR+ (or WARN+) records of a JSON log needs only the lines
whose level key holds such a level; parsing every line's JSON (four
``json_path_match`` calls a line) costs ~100 times more than finding those lines.
The prefilter must hold every event line (a superset: lines it lets through
are parsed and judged as before), so it accepts a line when

* the level key (``"level"``, or the last part of a nested path) is followed by
  a quoted value that is one of the level words of the threshold (ASCII case
  folded, blanks around it), or by one of their numbers (pino's 50, syslog's 3);
* or that value holds a byte the words cannot explain by ASCII alone: a
  backslash (an escape such as ``\\u0045RROR``) or any non-ASCII byte
  (Unicode blanks ``strip_chars`` removes, the dotless i and long s: upper-case I, S);
* or the line holds ``\\u`` anywhere (an escaped key).

Layouts that take the level from the message (Docker's ``log``) get none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from logagent.formats.app import LEVEL
from logagent.formats.jsonlayouts import JsonLayout
from logagent.formats.levels import LEVEL_MAP
from logagent.formats.structured import JsonAppFormat

# Blanks inside one line (a record is one line: no newline, so no match crosses lines).
_BLANK = rb"[ \t\r]*"
# The end of a number (not a lookahead: the pattern is also run by Polars' Rust regex).
_NUMBER_END = rb"(?:[^0-9.eE+\-]|$)"


def level_prefilter(fmt: object, levels: Sequence[str]) -> re.Pattern[bytes] | None:
    """The prefilter of ``fmt``'s records at ``levels``, or None when it has none."""
    if isinstance(fmt, JsonAppFormat) and LEVEL in fmt.mapping:
        return json_level_prefilter(fmt.mapping[LEVEL].split(".")[-1], levels)  # nested path
    if isinstance(fmt, JsonLayout) and LEVEL in fmt.mapping and not fmt.level_from_message:
        key = fmt.mapping[LEVEL]
        return json_level_prefilter(_last_part(key) if key.startswith("$") else key, levels)
    return None


def json_level_prefilter(name: str, levels: Sequence[str]) -> re.Pattern[bytes] | None:
    """The prefilter for records whose JSON key ``name`` (as the line writes it) holds one of
    ``levels`` (see module doc)."""
    if not name or "\\" in name or '"' in name:
        return None
    words = sorted((w for w, lvl in LEVEL_MAP.items() if lvl in levels), key=len, reverse=True)
    numbers = [w for w in words if w.isdigit()]
    if not words:
        return None
    alternatives = b"|".join(re.escape(w.encode()) for w in words)
    value = (
        rb'(?:"' + _BLANK + rb"(?i:" + alternatives + rb")" + _BLANK + rb'"'
        rb'|"[^"]*(?:\\|[^\x00-\x7f])'  # an escape or a non-ASCII char: the parser judges
         + (rb"|(?:" + b"|".join(n.encode() for n in numbers) + rb")" + _NUMBER_END) + rb")"
    )
    pattern = rb'"' + re.escape(name.encode()) + rb'"' + _BLANK + rb":" + _BLANK + value
    return re.compile(pattern + rb"|\\u")


def _last_part(path: str) -> str:
    """The last key of a JSONPath: ``$['a']['b']`` or ``$.a.b`` -> ``b`` (empty if none)."""
    parts = re.findall(r"\['([^']*)'\]|\.([A-Za-z0-9_@]+)", path)
    return next((a or b for a, b in reversed(parts)), "")
