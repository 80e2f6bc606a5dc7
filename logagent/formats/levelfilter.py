"""A byte prefilter for the event records of JSON application logs (PURE).

A question about ERROR+ (or WARN+) records of a JSON log needs only the lines
whose level key holds such a level; parsing every line's JSON (four
``json_path_match`` calls a line) costs ~100 times more than finding those lines.
The prefilter must hold every event line (a superset: lines it lets through
are parsed and judged as before), so it accepts a line when

* the level key (``"level"``, or the last part of a nested path) is followed by
  a quoted value that is one of the level words of the threshold (ASCII case
  folded, blanks around it), or by one of their numbers (pino's 50, syslog's 3);
  the words and numbers are the layout's own where it has a vocabulary of its own
  (``JsonLayout.level_map``: Nextcloud's 3 and 4, MongoDB's E and F), since the parse
  reads its levels by that vocabulary;
* or that value holds a byte the words cannot explain by ASCII alone: a
  backslash (an escape such as ``\\u0045RROR``) or any non-ASCII byte
  (Unicode blanks ``strip_chars`` removes, the dotless i and long s: upper-case I, S);
* or the line holds ``\\u`` anywhere (an escaped key).

Layouts that take the level from the message (Docker's ``log``) get none.

A regex format (``AppRegexFormat``) whose ``level`` groups are alternations of
plain words (log4j's ``TRACE|DEBUG|...|FATAL``) takes a record's level from
the word the group captured, so a record at the threshold holds one of the
words that map to its levels: those words, as literals, are its prefilter
(``regex_level_prefilter``). A pattern without a level group gives records
no level (never an event); a syslog ``<PRI>``, levels read from the message,
inline flags or any other level group leave the format without a prefilter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from logagent.formats.app import FLAGS, LEVEL, AppRegexFormat, structure
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
        keys = [fmt.mapping[LEVEL], *([fmt.fallback[LEVEL]] if LEVEL in fmt.fallback else [])]
        names = [_last_part(key) if key.startswith("$") else key for key in keys]
        patterns = []
        for name in names:  # a level read from a second key where the first is absent: either
            found = json_level_prefilter(name, levels, fmt.level_map)
            if found is None:
                return None
            patterns.append(found.pattern)
        return re.compile(b"|".join(patterns))
    if isinstance(fmt, AppRegexFormat):
        return regex_level_prefilter(fmt, levels)
    return None


def regex_level_prefilter(fmt: AppRegexFormat, levels: Sequence[str]) -> re.Pattern[bytes] | None:
    """The words ``fmt``'s level groups can capture for ``levels``, as literals (module doc)."""
    if fmt.level_words:
        return None
    words: set[str] = set()
    for pattern in fmt.patterns:
        if "(?P<pri>" in pattern or FLAGS.search(pattern):
            return None
        if "(?P<level>" not in pattern:  # no level: no record of this pattern is an event
            continue
        body = group_body(pattern, "level")
        if body is None:
            return None
        alternatives = body.split("|")
        if not all(_WORD.fullmatch(a) for a in alternatives):
            return None
        vocabulary = dict(fmt.level_map) if fmt.level_map else LEVEL_MAP  # the layout's own
        words.update(a for a in alternatives if vocabulary.get(a.upper()) in levels)
    if not words:  # no record can be an event: parsing every line finds that out too
        return None
    ordered = sorted(words, key=lambda w: (-len(w), w))
    return re.compile(b"|".join(re.escape(w.encode()) for w in ordered))


_WORD = re.compile(r"[A-Za-z0-9]+")


def group_body(pattern: str, name: str) -> str | None:
    """The text inside the named group ``name`` of ``pattern`` (its first, outside escapes and
    classes), None when it has none or when its end cannot be found."""
    opening = f"(?P<{name}>"
    marks = structure(pattern) or []
    start = next((i for i, c in marks if c == "(" and pattern.startswith(opening, i)), None)
    if start is None:
        return None
    depth = 0
    for i, c in marks:
        if i > start:
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth < 0:
                return pattern[start + len(opening) : i]
    return None


def json_level_prefilter(
    name: str, levels: Sequence[str], level_map: Mapping[str, str] = LEVEL_MAP
) -> re.Pattern[bytes] | None:
    """The prefilter for records whose JSON key ``name`` (as the line writes it) holds one of
    ``levels`` (see module doc); ``level_map``: the words and numbers that parse as each level
    (a layout's own, ``JsonLayout.level_map``, else the shared one)."""
    if not name or "\\" in name or '"' in name:
        return None
    # an ASCII word each: a non-ASCII value (java.util.logging's 严重) is the branch below's
    words = [w for w, lvl in level_map.items() if lvl in levels and w.isascii()]
    words.sort(key=len, reverse=True)
    numbers = [w for w in words if w.isdigit()]
    if not words:
        return None
    alternatives = b"|".join(re.escape(w.encode()) for w in words)
    # no numbers (MongoDB's letters): no bare-number branch, whose empty group matched any value
    bare = rb"|(?:" + b"|".join(n.encode() for n in numbers) + rb")" + _NUMBER_END
    value = (
        rb'(?:"' + _BLANK + rb"(?i:" + alternatives + rb")" + _BLANK + rb'"'
        rb'|"[^"]*(?:\\|[^\x00-\x7f])'  # an escape or a non-ASCII char: the parser judges
         + (bare if numbers else b"") + rb")"
    )
    pattern = rb'"' + re.escape(name.encode()) + rb'"' + _BLANK + rb":" + _BLANK + value
    return re.compile(pattern + rb"|\\u")


def _last_part(path: str) -> str:
    """The last key of a JSONPath: ``$['a']['b']`` or ``$.a.b`` -> ``b`` (empty if none)."""
    parts = re.findall(r"\['([^']*)'\]|\.([A-Za-z0-9_@]+)", path)
    return next((a or b for a, b in reversed(parts)), "")
