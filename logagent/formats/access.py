"""Web access log formats: nginx/apache ``combined`` and ``common`` (PURE).

Both are parsed with one Rust regex per batch through Polars. The request
field keeps escaped quotes (apache writes ``\\"``); a request that is not
``METHOD URI PROTOCOL`` (TLS junk, an empty request) is still a valid record
with status and size, and its path is null (counted under ``(invalid request)``).
Both accept apache's ``vhost_combined`` / ``vhost_common`` leading
``host:port`` field. ``combined`` accepts trailing fields after the user agent (``$request_time``,
upstream times, ...).

The first field may be an X-Forwarded-For list as nginx writes it with
``$proxy_add_x_forwarded_for`` or ``$http_x_forwarded_for`` first in ``log_format``:
addresses joined by ``", "``, bare (``10.0.0.2, 10.0.0.1, 127.0.0.1 - - [...``) or
quoted (``"10.5.102.222, 199.96.1.1" 10.2.1.185 - - [...``). An address there is
ASCII letters, digits and ``.:_-``, not starting with ``.`` or ``-`` (IPv4, IPv6,
a host name, ``unknown``). Nothing else about such a line differs; a first field
that is no such list is read as before, one token up to a blank (``a,b``; a
trailing comma or an unclosed quote make no list). The line's ``client``
(``fieldsets``) is the list's first address when the list stands in the client's
place, the originating client of ``$proxy_add_x_forwarded_for``; a list with one
more field after it is a leading field like the vhost, and the client is that
field (``$remote_addr``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from logagent.formats.base import PATH, STATUS, RegexFormat, Stages

#: One address of an X-Forwarded-For list (module doc).
ADDRESS = r"[0-9A-Za-z_:][0-9A-Za-z_.:-]*"
#: A bare list of two addresses or more: written once, for the full regex and the fast paths'
#: plain head alike (a list one accepts and the other not would count a line wrongly).
_BARE_LIST = rf"{ADDRESS}(?:, {ADDRESS})+"
#: An X-Forwarded-For list of two addresses or more, bare or quoted (one address is a token).
ADDRESS_LIST = rf'{_BARE_LIST}|"{_BARE_LIST}"'
#: A token without a blank, quote or bracket (the fields of a plain head).
_PLAIN_TOKEN = r'[^\s"\[\]]+'
# Only the groups the counters use are capturing: extraction cost grows with each group.
# Three or four fields before the stamp: an optional leading token is apache's vhost_combined
# ("%v:%p %h %l %u %t ..."); the first field may be an address list, or empty: nginx's
# "$host $remote_addr ..." writes a blank first for a request that named no host (a real
# honeypot log: 3,739 of its 3,888 lines had been malformed, its 4xx counted 140 for 3,879).
_HEAD = rf"^(?:{ADDRESS_LIST}|\S*) (?:\S+ )?\S+ \S+ \[(?P<ts>[^\]]+)\] "
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_REQUEST = r'"(?:[A-Za-z]+ (?P<path>(?:[^ "\\]|\\.)+)(?: [^ "]+)?|(?:[^"\\]|\\.)*)" '
#: A status, or ``-`` for a request that got no response (the client left first: morgan,
#: Traefik and Apache write ``"GET /x HTTP/1.1" - -``), counted as status 0 (``_code``), as
#: CloudFront's ``000``: a request, not a malformed line.
_STATUS = r"(?P<status>\d{3}|-) (?:\d+|-)"

#: Every 5xx record of these formats has ``" 5xx`` after the request, then a blank.
ACCESS_5XX_PREFILTER = re.compile(rb'" 5\d\d(?=[ \t\r\n])')

#: The text before a line's first quote when nothing in it can move the request's opening
#: quote: words without quotes or brackets, then ``[stamp] `` (one bracket pair, no quote).
#: A bare address list has neither (its quoted form is no plain head).
_PLAIN_FIELDS = (
    rf"^(?:{_BARE_LIST}|{_PLAIN_TOKEN}) (?:{_PLAIN_TOKEN} )?{_PLAIN_TOKEN} "
    rf"{_PLAIN_TOKEN} "
)
_PLAIN_HEAD = _PLAIN_FIELDS + r'\[[^\]"\[]+\] $'
#: A request the first branch of ``_REQUEST`` covers whole (no quote or backslash inside).
_PLAIN_REQUEST = r"^[A-Za-z]+ [^ ]+(?: [^ ]+)?$"
#: Helper columns of a staged parse (``AccessFormat.staged_fields``).
_VALID, _SPLIT, _PLAIN = "_access_valid", "_access_split", "_access_plain"
#: The path of a request read greedily (it may hold bare quotes): ``METHOD PATH [PROTOCOL]``.
_GREEDY_PATH = r"^[A-Za-z]+ ([^ ]+)(?: [^ ]+)?$"
#: The start of a line ``formats.quick`` counts by its status unparsed: a plain head, a request
#: with no quote or backslash that does not open with a blank, then an ASCII status that is no
#: 5xx (the timeline parses those) and a size. Its first ``" `` closes the request, so the
#: status is the three bytes two past it.
_QUICK_START = _PLAIN_FIELDS + r'\[[^\]"\[]+\] "(?:[^"\\ ][^"\\]*)?" [0-46-9][0-9]{2} (?:\d+|-)'
#: Referrer and user agent, the agent perhaps cut before its closing quote.
_LOOSE_AGENT = rf' {_QUOTED} "(?:[^"\\]|\\.)*(?:"(?:\s.*)?)?$'
#: A request read up to the last ``" <status> <size>`` (servers that do not escape quotes).
_GREEDY_REQUEST = r'"(?P<request>.*)" '


@dataclass(frozen=True)
class AccessFormat(RegexFormat):
    """``combined`` / ``common``: the same records as the regex, found without capture groups.

    Capture groups are what makes a regex slow (Rust's capture engines walk
    the whole line: ~8 MB/s on 8 KB lines, ~40 MB/s on common ones), while a
    match test runs on a DFA at ~400 MB/s. So a line is a record when it
    matches ``pattern`` (a match test), and for a *plain* line — its head
    before the first quote has no quote or bracket but the stamp's, and its
    request no backslash — the request is exactly the text between the first
    two quotes and the status the three characters after them: the same
    fields the groups capture (``tests/property/test_access_fast_property.py``
    checks this on adversarial lines). Other valid lines (escaped quotes,
    quotes in the user field) take the capture groups, on those lines alone.

    Lines the regex refuses but ``greedy`` accepts are records too: a request
    with a bare quote inside (``"GET" /x/?page=' HTTP/1.0" 501``), a user
    agent cut before its closing quote. Their request runs to the *last*
    ``" <status> <size>``, as the servers' own parsers read them.
    """

    greedy: str | None = None
    #: What ends a record after its size (the referrer and agent of ``combined``, ...).
    tail: str | None = None

    @property
    def quick_status(self) -> str | None:
        """A regex whose lines are plain, valid records (``pattern`` and the plain test
        accept them: ``tests/property/test_quick_property.py``) with an ASCII status, not
        5xx, right after their first ``" ``, for ``formats.quick`` to count unparsed; None
        unless ``pattern`` is the head, request, status and ``tail`` (a subset then)."""
        if self.tail is None or self.pattern != _HEAD + _REQUEST + _STATUS + self.tail:
            return None
        return _QUICK_START + self.tail

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``path`` and ``status`` as ``RegexFormat.fields`` gives them, mostly without groups."""
        valid, split = self._split(line)
        return self._fields(line, valid, split, self._plain(valid, split))

    def staged_fields(self, line: pl.Expr) -> tuple[Stages, dict[str, pl.Expr]]:
        """``fields`` over helper columns (``base.staged_fields``): the match test and the
        split at the first two quotes, then whether the line is plain."""
        valid, split = self._split(line)
        v, s, p = pl.col(_VALID), pl.col(_SPLIT), pl.col(_PLAIN)
        stages = [{_VALID: valid, _SPLIT: split}, {_PLAIN: self._plain(v, s)}]
        return stages, self._fields(line, v, s, p)

    def _split(self, line: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        """Whether the line is a record, and its text around the first two quotes."""
        return line.str.contains(self.pattern), line.str.splitn('"', 3)

    @staticmethod
    def _plain(valid: pl.Expr, split: pl.Expr) -> pl.Expr:
        head, request = split.struct.field("field_0"), split.struct.field("field_1")
        return valid & head.str.contains(_PLAIN_HEAD) & ~request.str.contains("\\", literal=True)

    def _fields(
        self, line: pl.Expr, valid: pl.Expr, split: pl.Expr, plain: pl.Expr
    ) -> dict[str, pl.Expr]:
        request, rest = split.struct.field("field_1"), split.struct.field("field_2")
        fast_path = pl.when(request.str.contains(_PLAIN_REQUEST)).then(
            request.str.splitn(" ", 3).struct.field("field_1")
        )
        fast_status = _code(rest.str.slice(1, 3))
        # The groups run on the other valid lines only (an empty string costs nothing).
        hard = pl.when(valid & ~plain).then(line).otherwise(pl.lit(""))
        groups = hard.str.extract_groups(self.pattern)
        slow_status = _code(groups.struct.field(STATUS))
        path = pl.when(plain).then(fast_path).otherwise(groups.struct.field(PATH))
        status = pl.when(plain).then(fast_status).otherwise(slow_status)
        if self.greedy is None:
            return {PATH: path, STATUS: status}
        refused = pl.when(valid).then(pl.lit("")).otherwise(line)  # the rare lines only
        loose = ~valid & refused.str.contains(self.greedy)
        found = pl.when(loose).then(line).otherwise(pl.lit("")).str.extract_groups(self.greedy)
        loose_path = found.struct.field("request").str.extract(_GREEDY_PATH, 1)
        loose_status = _code(found.struct.field(STATUS))
        return {
            PATH: pl.when(loose).then(loose_path).otherwise(path),
            STATUS: pl.when(loose).then(loose_status).otherwise(status),
        }


def _code(status: pl.Expr) -> pl.Expr:
    """The status number of its text (three characters or the group); ``-`` (no response,
    perhaps with the size's blank and ``-`` after it) as 0."""
    none = status.str.starts_with("-")
    return pl.when(none).then(0).otherwise(status.cast(pl.Int32, strict=False))


_COMBINED_TAIL = rf" {_QUOTED} {_QUOTED}(?:\s.*)?$"
COMBINED = AccessFormat(
    name="combined",
    pattern=_HEAD + _REQUEST + _STATUS + _COMBINED_TAIL,
    tail=_COMBINED_TAIL,
    greedy=_HEAD
    + _GREEDY_REQUEST
    + _STATUS
    + r' "(?:[^"\\]|\\.)*" "(?:[^"\\]|\\.)*(?:"(?:\s.*)?)?$',
    min_line_bytes=50,
    error_prefilter=ACCESS_5XX_PREFILTER,
    description="nginx/apache combined, optional trailing fields (e.g. $request_time)",
)

_COMMON_TAIL = r"\s*$"
COMMON = AccessFormat(
    name="common",
    pattern=_HEAD + _REQUEST + _STATUS + _COMMON_TAIL,
    tail=_COMMON_TAIL,
    greedy=_HEAD + _GREEDY_REQUEST + _STATUS + r"\s*$",
    min_line_bytes=44,
    error_prefilter=ACCESS_5XX_PREFILTER,
    description="apache/nginx common log format (CLF)",
)
