"""Built-in layouts of more text logs (PURE): logrus's terminal output, Asterisk's and
RabbitMQ's before 3.9.

* ``logrus_text``: logrus's ``TextFormatter`` writing to a terminal (colours or not), as
  ``docker logs`` and a service started by hand show it (ChirpStack, Docker's own CLI):
  ``ERRO[0012] msg   key=value``: the level's four letters (PANI FATA ERRO WARN INFO DEBU
  TRAC), then in brackets the seconds since start or, with ``FullTimestamp``, the stamp
  (read when it is RFC 3339). Component = the error kind (the message's head). Without a
  terminal logrus writes ``time=... level=... msg=...``, which ``logfmt`` reads. Refused as
  no known format before (probe Q: a ChirpStack log, 98 records).
* ``asterisk``: Asterisk's ``full``/``messages`` log, ``[2012-02-13 17:21:54]
  NOTICE[1638][C-00000001] chan_sip.c: msg``: the level and thread (a call id after it on
  newer versions), the source file the component. Its levels: ERROR, WARNING, NOTICE and
  VERBOSE (INFO), SECURITY (the security events, failed logins: WARN), DEBUG and DTMF
  (DEBUG). An older ``[Feb 13 17:21:54]`` stamp has no year: it gives no time. Read as
  syslog before (probe Q), 46 of 48 lines were malformed and a NOTICE with "failed" in it
  was its one "ERROR".
* ``rabbitmq_legacy``: RabbitMQ before 3.9, ``=WARNING REPORT==== 22-Mar-2021::12:19:14 ===``
  and the message on the lines below it, up to a blank line: the head is the record (level,
  time), its message lines continue it, so the record has no message of its own and ranks
  under ``-``. CRASH and SUPERVISOR reports are ERROR, PROGRESS ones INFO. Refused before
  (probe R: 106 INFO and 103 WARNING reports, their 312 message lines "malformed").
"""

from __future__ import annotations

from logagent.formats.app import AppRegexFormat
from logagent.formats.apptimes import DAY, HMS

_LOGRUS_LEVELS = (
    ("PANI", "FATAL"),
    ("FATA", "FATAL"),
    ("ERRO", "ERROR"),
    ("WARN", "WARN"),
    ("INFO", "INFO"),
    ("DEBU", "DEBUG"),
    ("TRAC", "TRACE"),
)


def _words(levels: tuple[tuple[str, str], ...]) -> str:
    """A ``level_map``'s words as a regex alternation, for the layout's level group."""
    return "|".join(word for word, _ in levels)


_LOGRUS_LEVEL = _words(_LOGRUS_LEVELS)
LOGRUS_TEXT = AppRegexFormat(
    name="logrus_text",
    patterns=(rf"^(?P<level>{_LOGRUS_LEVEL})\[(?P<ts>[^\]]*)\] (?P<message>.*)$",),
    min_line_bytes=7,
    time_formats=("%Y-%m-%dT%H:%M:%S%.f%#z", "%Y-%m-%dT%H:%M:%S%#z"),
    level_map=_LOGRUS_LEVELS,
    record_start=rf"(?:{_LOGRUS_LEVEL})\[[^\]]*\] ",
    head_component=True,
    description="logrus text on a terminal (Docker, ChirpStack): ERRO WARN INFO ...; component "
    "= error kind",
    example="ERRO[0012] failed to connect to redis   error=timeout",
)

_ASTERISK_LEVELS = (
    ("ERROR", "ERROR"),
    ("WARNING", "WARN"),
    ("SECURITY", "WARN"),
    ("NOTICE", "INFO"),
    ("VERBOSE", "INFO"),
    ("DEBUG", "DEBUG"),
    ("DTMF", "DEBUG"),
)
_ASTERISK_LEVEL = _words(_ASTERISK_LEVELS)
_ASTERISK_STAMP = rf"(?:{DAY}|[A-Z][a-z]{{2}} [ 0-9][0-9]) {HMS}(?:\.[0-9]{{1,6}})?"
ASTERISK = AppRegexFormat(
    name="asterisk",
    patterns=(
        rf"^\[(?P<ts>{_ASTERISK_STAMP})\] (?P<level>{_ASTERISK_LEVEL}) ?\[[0-9]+\]"
        # "chan_sip.c:", "chan_sip.c:23417 in handle_request_register:", "file.c:2337 func:"
        # or the dialplan's Log() "Ext. s:"
        r"(?:\[[^\]]*\])?:? (?P<component>[^ :]+(?: [^ :]+)?):(?:[0-9]+(?: in)? [^ :]+:)? ?"
        r"(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%Y-%m-%d %H:%M:%S%.f",),
    level_map=_ASTERISK_LEVELS,
    record_start=rf"\[{_ASTERISK_STAMP}\] ",
    description="Asterisk full/messages log: component = source file; SECURITY is WARN, "
    "NOTICE and VERBOSE INFO",
    example="[2012-02-13 17:21:54] NOTICE[1638] chan_sip.c: Registration from '<sip:301@x>' "
    "failed for '1.2.3.4' - Wrong password",
)

_REPORTS = (
    ("INFO", "INFO"),
    ("WARNING", "WARN"),
    ("ERROR", "ERROR"),
    ("CRASH", "ERROR"),
    ("SUPERVISOR", "ERROR"),
    ("PROGRESS", "INFO"),
)
_REPORT = _words(_REPORTS)
_REPORT_STAMP = rf"[0-9]{{1,2}}-[A-Z][a-z]{{2}}-[0-9]{{4}}::{HMS}"
RABBITMQ_LEGACY = AppRegexFormat(
    name="rabbitmq_legacy",
    patterns=(rf"^=(?P<level>{_REPORT}) REPORT==== (?P<ts>{_REPORT_STAMP}) ===(?P<message>)$",),
    min_line_bytes=30,
    time_formats=("%d-%b-%Y::%H:%M:%S",),
    level_map=_REPORTS,
    record_start=r"=[A-Z]+ REPORT==== ",
    # a report's message: its lines up to the blank one after it (Erlang terms, "** ..."
    # lines, words); not a dated line, another layout's record (a review: RabbitMQ 3.7's
    # lines after one old report were "part of it", and detection scored it 1.0)
    continuation=r"[^=0-9]",
    description="RabbitMQ before 3.9 (=LEVEL REPORT==== head, message below): no component "
    "(-); CRASH and SUPERVISOR reports are ERROR",
    example="=WARNING REPORT==== 22-Mar-2021::12:19:14 ===",
)
