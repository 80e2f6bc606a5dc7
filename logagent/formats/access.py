"""Web access log formats: nginx/apache ``combined`` and ``common`` (PURE).

Both are parsed with one Rust regex per batch through Polars. The request
field keeps escaped quotes (apache writes ``\\"``); a request that is not
``METHOD URI PROTOCOL`` (TLS junk, an empty request) is still a valid record
with status and size, and its path is null (counted under ``(invalid request)``).
Both accept apache's ``vhost_combined`` / ``vhost_common`` leading
``host:port`` field. ``combined`` accepts trailing fields after the user agent (``$request_time``,
upstream times, ...).
"""

from __future__ import annotations

import re

from logagent.formats.base import RegexFormat

# Only the groups the counters use are capturing: extraction cost grows with each group.
# An optional leading token is apache's vhost_combined ("%v:%p %h %l %u %t ...").
_HEAD = r"^(?:\S+ )?\S+ \S+ \S+ \[(?P<ts>[^\]]+)\] "
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_REQUEST = r'"(?:[A-Za-z]+ (?P<path>(?:[^ "\\]|\\.)+)(?: [^ "]+)?|(?:[^"\\]|\\.)*)" '
_STATUS = r"(?P<status>\d{3}) (?:\d+|-)"

#: Every 5xx record of these formats has ``" 5xx`` after the request, then a blank.
ACCESS_5XX_PREFILTER = re.compile(rb'" 5\d\d(?=[ \t\r\n])')

COMBINED = RegexFormat(
    name="combined",
    pattern=_HEAD + _REQUEST + _STATUS + rf" {_QUOTED} {_QUOTED}(?:\s.*)?$",
    min_line_bytes=50,
    error_prefilter=ACCESS_5XX_PREFILTER,
    description="nginx/apache combined, optional trailing fields (e.g. $request_time)",
)

COMMON = RegexFormat(
    name="common",
    pattern=_HEAD + _REQUEST + _STATUS + r"\s*$",
    min_line_bytes=44,
    error_prefilter=ACCESS_5XX_PREFILTER,
    description="apache/nginx common log format (CLF)",
)
