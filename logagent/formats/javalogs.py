"""java.util.logging's default ``SimpleFormatter``, two lines a record (PURE).

Tomcat before 8.5 wrote its ``catalina.out`` so, as does any Java program that logs through
``java.util.logging`` unconfigured::

    Nov 20, 2012 3:15:34 AM org.apache.catalina.loader.WebappClassLoader clearReferencesThreads
    SEVERE: The web application [/x] appears to have started a thread named [y] ...

The level is on the second line. Lines are read one by one, so the record here is that level
line (and the stack trace after it): its component is the error kind of its message, it has
no time (a ``--since`` window is refused), and the date line folds into the record before it
as a line of its own (``continuation``). Read by ``log4j`` beside the app's log4j records, the
73 SEVERE records of a real catalina.out had been continuation lines, "exact" 5 errors; read
alone, the date lines were malformed and their records' kinds right (probe P).
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.levels import JUL_LEVELS, JUL_LOCALIZED

_JUL = "SEVERE|WARNING|INFO|CONFIG|FINE|FINER|FINEST|" + "|".join(
    sorted(JUL_LOCALIZED, key=len, reverse=True)
)
#: ``%1$tb %1$td, %1$tY %1$tl:%1$tM:%1$tS %1$Tp %2$s``: the date line (English month names).
JUL_DATE = r"[A-Z][a-z]{2} [0-9]{1,2}, [0-9]{4} [0-9]{1,2}:[0-9]{2}:[0-9]{2} (?:AM|PM) "
JUL = AppRegexFormat(
    name="jul",
    patterns=(r"^(?P<level>" + _JUL + r"): (?P<message>.*)$",),
    min_line_bytes=7,
    record_start=r"(?:" + _JUL + r"): ",
    continuation=JUL_DATE,
    level_map=JUL_LEVELS,
    head_component=True,
    description="java.util.logging SimpleFormatter (old Tomcat catalina.out: a date and class "
    "line, then LEVEL: msg): component = error kind; no time",
    example="SEVERE: The web application [/app] appears to have started a thread named [x]",
)
