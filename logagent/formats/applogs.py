"""Built-in application and system log formats given by regexes (PURE).

Each format documents an example line and what becomes its component and
level. Patterns use ASCII classes (``[0-9]``) so that a digit is a digit in
every engine. Builders taking ``year`` are for timestamps written without one.
"""

from __future__ import annotations

import re

from logagent.formats.app import LEVEL_WORD_ALONE, AppRegexFormat
from logagent.formats.apptimes import DAY as _D4
from logagent.formats.apptimes import HMS as _HMS
from logagent.formats.apptimes import YEAR, YearOf

_ISO = _D4 + r"[ T]" + _HMS + r"(?:[,.][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?"
_BSD = r"[A-Z][a-z]{2} +[0-9]{1,2} " + _HMS + r"(?:\.[0-9]+)?"
_ISO_TIMES = ("%Y-%m-%dT%H:%M:%S%.f%#z", "%Y-%m-%d %H:%M:%S%.f%#z")
_LOCAL_TIMES = (
    "%Y-%m-%d %H:%M:%S,%3f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M:%S,%3f",
    "%Y-%m-%dT%H:%M:%S%.f",
)
_JAVA_LEVEL = r"(?P<level>TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|SEVERE|FATAL|CRITICAL)"
_LOGGER = r"(?P<component>[A-Za-z_$][A-Za-z0-9_$.\-]*)"


#: An RFC 3339 stamp ends at its zone: a JVM GC log's ``2016-12-19T16:31:46.725+0100: 1.595:
#: [GC pause …]`` (its colon after the zone) had been read as syslog at 0.99, the uptime its
#: program and nine lines in ten continuations.
_SYSLOG_STAMP = (
    r"^(?:<(?P<pri>[0-9]{1,3})>)?(?P<ts>" + _BSD + "|" + _D4 + "T" + _HMS
    + r"(?:[,.][0-9]{1,9})?(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)"
)  # fmt: skip
_SYSLOG_HEAD = _SYSLOG_STAMP + " "
#: An indented line continues the record before it: macOS's syslogd and ASL indent a
#: message's further lines with tabs ("Configuration Notice:" and its details), which were
#: malformed records (lnav's macOS samples: 10 of 17 lines). Any other line still starts a
#: record, so a line of junk stays malformed. (CR and LF: the reader cuts units on this in
#: bytes, where a blank line's first byte is one; the parser sees no such byte.)
_SYSLOG_START = r"[^ \t\r\n]"
_NAME = r"[^ :\[\]]+"
_SEVERITY = "emerg|alert|crit|err|error|warn|warning|notice|info|debug|panic"
_DETAIL = r"(?: \([^()]*\))?: ?(?P<message>.*)$"  # launchd's "(...)" after the pid, the colon
#: The program, tried in order: one word (an optional [pid]); up to three words when a [pid]
#: follows (macOS "Microsoft Word[96]:"); a word and its version ("syslogd 1.4.1:"). Several
#: words without a pid are not taken: "ERROR db pool:" of other layouts would read as a
#: program. syslog3164 allows a host before it.
_PROGRAMS = (
    rf"(?P<component>{_NAME})(?:\[[0-9]+\])?" + _DETAIL,
    rf"(?P<component>{_NAME}(?: {_NAME}){{1,2}})\[[0-9]+\]" + _DETAIL,
    rf"(?P<component>{_NAME} [0-9][0-9.]*)" + _DETAIL,
    # ProFTPD 1.2's "proftpd[25530] host (192.168.2.10[192.168.2.10]): USER a (Login failed)"
    rf"(?P<component>{_NAME})\[[0-9]+\] {_NAME}" + _DETAIL,
    # a tag in brackets (rsyslog takes it: Elastic Beanstalk's "[eb-cfn-init]: ..."; probe L:
    # 261 of a real log's 685 lines had been malformed, its errors ranked without them)
    rf"\[(?P<component>{_NAME})\]" + _DETAIL,
    # GDM's PAM idents, "gdm-password]:" (a stray bracket: the service name as PAM sets it);
    # an Ubuntu auth.log's 1,010 such lines had been malformed, 29 auth failures (probe Q)
    rf"(?P<component>{_NAME})\]" + _DETAIL,
)
_SYSLOG_PROGRAMS = (
    *(rf"(?:{_NAME} )?" + program for program in _PROGRAMS),
    # BusyBox syslogd (OpenWrt, embedded Linux) writes the facility and severity before the
    # program, and may name none: "3dr_solo user.err kernel: ..." (a real device's logs had
    # been refused)
    rf"{_NAME} [a-z0-9]+\.(?P<level>{_SEVERITY}) "
    rf"(?:(?P<component>{_NAME})(?:\[[0-9]+\])?(?: \([^()]*\))?:)? ?(?P<message>.*)$",
)
#: The common shape, one-pass (``AppRegexFormat.fast``; a line's captures 880 -> 310 ns):
#: ``stamp host program[pid]: message``. Where it matches, the first pattern reads the same:
#: its host is optional but tried first, and a name runs to a blank, ":" or "[", so the host
#: and program are the same two names; a ":" right after them leaves out launchd's "(...)".
#: Lines without a host, with several words or a version in the program, are the patterns'.
_SYSLOG_FAST = _SYSLOG_STAMP + rf" {_NAME} (?P<component>{_NAME})(?:\[[0-9]+\])?: ?(?P<message>.*)$"


def syslog3164(year: YearOf = None) -> AppRegexFormat:
    """BSD syslog; the year-less timestamp takes ``year`` (``app.YearOf``)."""
    return AppRegexFormat(
        name="syslog3164",
        patterns=tuple(_SYSLOG_HEAD + program for program in _SYSLOG_PROGRAMS),
        min_line_bytes=20,
        time_formats=(f"{YEAR} %b %d %H:%M:%S%.f", *_ISO_TIMES),
        year=year,
        level_words=True,
        record_start=_SYSLOG_START,
        # no program is named like a level: "2024-01-02T03:04:05Z error: msg" (winston's
        # "stamp level: msg") read as program "error", its level guessed from its words
        refused_components=LEVEL_WORD_ALONE,
        fast=(_SYSLOG_FAST,),
        description="syslog RFC 3164 (BSD): component = program; level from <PRI> or message "
        "words; indented lines continue a record (macOS)",
        example="Oct 11 22:14:15 web01 sshd[4721]: error: maximum authentication attempts",
    )


SYSLOG5424 = AppRegexFormat(
    name="syslog5424",
    patterns=(
        r"^<(?P<pri>[0-9]{1,3})>1 (?P<ts>[^ ]+) [^ ]+ (?P<component>[^ ]+) [^ ]+ [^ ]+ "
        r"(?:-|(?:\[(?:[^\]\\]|\\.)*\])+)(?: \x{FEFF}?(?P<message>.*))?$",
    ),
    min_line_bytes=16,
    time_formats=_ISO_TIMES,
    description="syslog RFC 5424: component = APP-NAME; level from <PRI>",
    example="<11>1 2024-01-02T03:04:05.678Z web01 billing 812 - - payment declined",
)

_APACHE_TS = r"[A-Z][a-z]{2} [A-Z][a-z]{2} +[0-9]{1,2} " + _HMS + r"(?:\.[0-9]+)? [0-9]{4}"


def _not_starting(literal: str, *, also: str = "") -> str:
    """A regex of text that does not start with ``literal`` (letters, blanks, brackets) nor
    with a character of ``also``: Rust's regex has no lookahead. It reads one character
    past the difference, so it is for text that goes on (a message)."""

    def esc(text: str) -> str:  # blanks stay as they are: Rust's regex refuses "\ "
        return re.escape(text).replace("\\ ", " ")

    ways = [f"[^{esc(also + literal[0])}]"] + [
        esc(literal[:i]) + f"[^{esc(literal[i])}]" for i in range(1, len(literal))
    ]
    return "(?:" + "|".join(ways) + ")"


#: A line that starts a record: mod_wsgi writes each line of a Python traceback as an error
#: line of its own, its frames indented after the head; "Traceback (most recent call
#: last):" and the frames continue the record above ("Internal Server Error: /path"). A
#: real Django error log had 3,312 frames ranked as one component, "-" (probe F).
_APACHE_FIELDS = r"\[" + _APACHE_TS + r"\] \[[^\]]*\](?: \[[^\]]*\])* ?"
# every bracketed field, then a message that starts with neither a blank nor a bracket (a
# regex without possessive groups: one field fewer must not let a frame's blank pass)
_APACHE_RECORD = _APACHE_FIELDS + _not_starting("Traceback (", also=" [")
#: The traceback's own lines (detection counts them explained, as it does other layouts'
#: stack traces).
_APACHE_TRACEBACK = _APACHE_FIELDS + r"(?: |Traceback \(most recent)"
APACHE_ERROR = AppRegexFormat(
    name="apache_error",
    patterns=(
        r"^\[(?P<ts>" + _APACHE_TS + r")\] \[(?:(?P<component>[^:\] ]*):)?"
        r"(?P<level>[a-z]+[0-9]?)\](?: \[pid [^\]]*\])?(?: \[client [^\]]*\])? ?(?P<message>.*)$",
    ),
    min_line_bytes=30,
    time_formats=("%a %b %d %H:%M:%S%.f %Y",),
    record_start=_APACHE_RECORD,
    continuation=_APACHE_TRACEBACK,
    head_component=True,
    description="apache httpd error log (1.3-2.4): component = module (core, ssl, proxy...); "
    "lines naming none (1.3/2.0/2.2) get the error kind (message head)",
    example="[Wed Oct 11 14:32:52.123 2000] [core:error] [pid 35708:tid 4328] AH00124: ...",
)

#: Spring Boot's default console/file layout: ``ts LEVEL pid --- [app] [thread] logger : msg``.
#: Its logger column is abbreviated from the left (``.s.d.r.c.RepositoryConfigurationDelegate``)
#: and may hold what no Java class name does (``SQL dialect``,
#: ``o.a.c.c.C.[Tomcat].[localhost].[/]``): it runs up to the padded `` : ``.
_SPRING_BOOT = (
    r"^(?P<ts>"
    + _ISO
    + r") +"
    + _JAVA_LEVEL
    + r" +[0-9]+ +--- +(?:\[[^\]]*\] +){1,2}(?P<component>[^ ].*?) +: ?(?P<message>.*)$"
)

#: logback's ``%d{MMM-dd HH:mm:ss.SSS}`` too, Nextflow's ``.nextflow.log`` (refused, probe Q);
#: without a year it gives no time, as a time alone does (``--since`` does not apply).
_MONTH_DAY = r"[A-Z][a-z]{2}-[0-9]{2} " + _HMS + r"[.,][0-9]{3}"
_DAY_MONTH = r"[0-9]{2} [A-Z][a-z]{2} [0-9]{4} " + _HMS + r",[0-9]{3}"
_LOG4J_TS = r"(?P<ts>" + _ISO + "|" + _HMS + r"[.,][0-9]{3}|" + _MONTH_DAY + ")"
#: log4j's ``ts [x] LEVEL [thread]... logger - message`` after the ``ts``.
_LOG4J_REST = (  # up to three bracketed fields before the level: logback's [%X{mdc}] [%thread]
    r" +(?:\[[^\]]*\] +){0,3}"
    + _JAVA_LEVEL
    + r" +(?:[0-9]+ +--- +)?(?:\[[^\]]*\] +)*"
    + _LOGGER
    + r"(?::[0-9]+)? *[-:](?: (?P<message>.*))?$"
)
#: The same lines' common shape, one-pass (``AppRegexFormat.fast``; an ERROR line's captures
#: 950 -> 370 ns). Where it matches, the pattern above captures the same:
#: - the two stamps share their first two digits, then a "-" or a ":" decides;
#: - ``WARN|WARNING`` is ``WARN(?:ING)?``: after WARN, WARN needs a blank, WARNING an "I";
#: - no Spring Boot ``pid ---`` (a digit after the level): such lines are that pattern's;
#: - the logger holds no "-", so it ends where the pattern's longest logger does (at a ":"
#:   or a blank), and the separator is ":" (a ":line" first, if digits follow) or blanks and
#:   "-" or ":". A "-" right after the logger is left to the pattern: its logger may take the
#:   "-" (``a.B- - m`` is logger ``a.B-``).
#: Only its form with a "-" after the logger is a fast pattern (``_LOG4J_DASH_FAST``).
_LOG4J_FAST = (
    r"^(?P<ts>[0-9]{2}(?:[0-9]{2}-[0-9]{2}-[0-9]{2}[ T]"
    + _HMS
    + r"(?:[,.][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?|:[0-9]{2}:[0-9]{2}[.,][0-9]{3})|"
    + _MONTH_DAY
    + ")"
    + r" +(?:\[[^\]]*\] +){0,3}"
    + _JAVA_LEVEL.replace("|WARN|WARNING|", "|WARN(?:ING)?|")
    + r" +(?:\[[^\]]*\] +)*(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*)"
    + r"(?::(?:[0-9]+ *[-:])?| +[-:])(?: (?P<message>.*))?$"
)

#: log4j's ``%d %-5p [%c{1}:%L] %m``: the logger and its line number in brackets, the message
#: right after them (Liferay's). Read as ``_LOG4J_REST``, the brackets were a thread's and the
#: record was read only when its message began ``Word:``, that word its component: a Liferay
#: catalina.out ranked ``NoSuchFileException`` 576 where the logger was ``ImageProcessorImpl``
#: (probe Q). A thread's name rarely ends ``:<digits>``; Spring Boot's lines match it never.
#: Liferay 6.1+ writes the thread first, ``[%t][%c{1}:%L]``. A line whose bracket is followed
#: by ``logger - msg`` is ``_LOG4J_DASH``'s: its bracket is a thread named ``Name:N``
#: (Cassandra's ``[CompactionExecutor:1]``, ZooKeeper's ``[SyncThread:0]``; a review).
_LOGGER_LINE = (
    r" +"
    + _JAVA_LEVEL
    + r" +\[(?:[^\]\[]*\]\[)?(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*):[0-9]+\]"
    + r"(?: (?P<message>.*))?$"
)
#: ``_LOG4J_REST`` whose logger a "-" follows (log4j's ``%c - %m``): tried before
#: ``_LOGGER_LINE``, so a thread's ``[Name:N]`` bracket before a logger stays a thread's.
_SEPARATOR = r"(?::[0-9]+)? *[-:](?: (?P<message>.*))?$"
assert _LOG4J_REST.endswith(_SEPARATOR)
_LOG4J_DASH = _LOG4J_REST.replace(_SEPARATOR, r"(?::[0-9]+)? *-(?: (?P<message>.*))?$")
_FAST_SEPARATOR = r"(?::(?:[0-9]+ *[-:])?| +[-:])"
assert _FAST_SEPARATOR in _LOG4J_FAST
_LOG4J_DASH_FAST = _LOG4J_FAST.replace(_FAST_SEPARATOR, r"(?::[0-9]+ *-| +-)")  # one-pass

#: JBoss LogManager's default (WildFly, Quarkus, Keycloak): ``ts %-5p [category] (thread) msg``.
#: Its padded level and "(thread)" after the category no other pattern reads: Keycloak's logs
#: had been supervisord's, with no component (probe E).
_JBOSS = (
    r"^(?P<ts>" + _ISO + r") +" + _JAVA_LEVEL + r" +\[(?P<component>[^\]]+)\] "
    r"\((?:[^()]|\([^()]*\))*\) ?(?P<message>.*)$"
)

#: logback's ``[%p] %d [%t] %logger - %msg`` (OpenVidu's): the level first, in brackets (its
#: records had been folded into the lines above them, or refused alone).
_LEVEL_FIRST = (
    r"^\["
    + _JAVA_LEVEL
    + r"\] +"
    + _LOG4J_TS
    # the logger up to the blank before its "-": Tomcat's ``ContainerBase.[Tomcat].[/]`` too
    + r" +(?:\[[^\]]*\] +)*(?P<component>[A-Za-z_$][^ ]*) +-(?: (?P<message>.*))?$"
)

LOG4J = AppRegexFormat(
    name="log4j",
    patterns=(
        _SPRING_BOOT,
        r"^" + _LOG4J_TS + _LOG4J_DASH,
        r"^" + _LOG4J_TS + _LOGGER_LINE,
        r"^" + _LOG4J_TS + _LOG4J_REST,
        _JBOSS,
        _LEVEL_FIRST,
        # log4j 1.x's "%d %p [%c] - <%m>": the logger in brackets (an older Tomcat app's; its
        # records had been generic's, and Tomcat's JUL records beside them lost, probe P)
        r"^" + _LOG4J_TS + r" +" + _JAVA_LEVEL + r" +\[(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*)\]"
        r" +-(?: (?P<message>.*))?$",
        # ActiveMQ's "%d | %-5p | %m | %c | %t": the logger after the message (probe R: read
        # as generic, its records ranked by message heads, six under "-")
        r"^" + _LOG4J_TS + r" \| " + _JAVA_LEVEL + r" *\| (?P<message>.*?) \| "
        r"(?P<component>[^ |]+) \| [^|]*$",  # a servlet context's logger too: "/admin"
        # Flume's "%d{dd MMM yyyy HH:mm:ss,SSS} %-5p [%t] (%C.%M:%L) %x - %m": the class before
        # its method (probe R: generic ranked the thread)
        r"^(?P<ts>" + _DAY_MONTH + r") +" + _JAVA_LEVEL + r" +\[[^\]]*\] +"
        r"\((?P<component>[A-Za-z_$][A-Za-z0-9_$.]*)\.[A-Za-z_$<][A-Za-z0-9_$<>]*:[0-9]+\) +-"
        r"(?: (?P<message>.*))?$",
    ),
    # only the "logger - msg" lines, the common ones: the general fast pattern would read a
    # logger line's bracket as a thread's, and one fast pattern after another cost each line
    # a match test per pattern before it (three of them: +60 % on -q status, a review)
    fast=(_LOG4J_DASH_FAST,),
    min_line_bytes=24,
    time_formats=(*_ISO_TIMES, *_LOCAL_TIMES, "%d %b %Y %H:%M:%S,%3f"),
    record_start=_D4
    + "[ T]"
    + _HMS
    + "|"
    + _HMS
    + "[.,][0-9]{3} |"
    + _MONTH_DAY
    + " |"
    + _DAY_MONTH
    + " |"
    + _JAVA_LEVEL.replace("(?P<level>", r"\[(?:")
    + r"\] +[0-9]",
    description="log4j/logback/Spring Boot/JBoss: component = logger; stack traces folded",
    example="2024-01-02 03:04:05,678 ERROR [main] com.foo.Bar - msg",
)

_PY_LEVELS = "CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG|NOTSET"
_PY_LEVEL = rf"(?P<level>{_PY_LEVELS})"
#: A level-first Python head, up to its bracket's opening: "[LEVEL] ts [" or "LEVEL ts [".
_PY_LEVEL_FIRST = (
    r"^\[?" + _PY_LEVEL + r"\]? +(?P<ts>" + _D4 + " " + _HMS + r"(?:[.,][0-9]{3,6})?) \["
)
PYTHON = AppRegexFormat(
    name="python",
    patterns=(
        r"^" + _PY_LEVEL + r":(?P<component>[^:\s\[\]]*):(?P<message>.*)$",  # a logger name
        r"^(?P<ts>"
        + _D4
        + " "
        + _HMS
        # Synapse's "%(name)s - %(lineno)d - %(levelname)s": the logger, not "name - 257"
        + r"(?:,[0-9]{3})?) - (?P<component>.+?)(?: - [0-9]+)? - "
        + _PY_LEVEL
        + r" - (?P<message>.*)$",
        # Home Assistant's "%(asctime)s %(levelname)s (%(threadName)s) [%(name)s] %(message)s"
        # (its logger had been lost under generic: "-")
        r"^(?P<ts>"
        + _D4
        + " "
        + _HMS
        + r"(?:[.,][0-9]{3,6})?) "
        + _PY_LEVEL
        + r" \((?:[^()]|\([^()]*\))*\) \[(?P<component>[^\]]+)\] (?P<message>.*)$",
        # the level first (probe T: Django's "[%(levelname)s] %(asctime)s [%(name)s:%(lineno)d]"
        # and "%(levelname)s %(asctime)s [%(filename)s %(funcName)s:%(lineno)d]:", refused)
        # (its bracket ends in the line number: a Java layout's "%-5p %d [%t] %c: %m" writes a
        # thread there, a review)
        _PY_LEVEL_FIRST + r"(?P<component>[^\]\s:]+)[^\]]*:[0-9]+\]:? (?P<message>.*)$",
        # ... or the logger's name alone ("[%(name)s]"; not Java's "[%t] %c", ``ruled_out_by``)
        _PY_LEVEL_FIRST + r"(?P<component>[A-Za-z_][A-Za-z0-9_.-]*)\] (?P<message>.*)$",
        # "%(name)s - %(levelname)s - %(message)s", no time (probe T: ranked by message head)
        r"^(?P<component>[A-Za-z_][A-Za-z0-9_.]*) - " + _PY_LEVEL + r" - (?P<message>.*)$",
    ),
    min_line_bytes=8,
    time_formats=_LOCAL_TIMES,
    record_start=rf"(?:{_PY_LEVELS}):|{_D4} {_HMS}"
    + rf"(?:(?:,[0-9]{{3}})? - |(?:[.,][0-9]{{3,6}})? (?:{_PY_LEVELS}) \()"
    + rf"|\[?(?:{_PY_LEVELS})\]? +{_D4} |[A-Za-z_][A-Za-z0-9_.]* - (?:{_PY_LEVELS}) - ",
    # Java's level-first layouts, "%-5p %d [%t] %c: %m" or "... %c - %m": the bracket is a
    # thread's, a class's name follows (a review: read as python, ranked by thread)
    ruled_out_by=rf"\[?(?:{_PY_LEVELS})\]? +{_D4} {_HMS}[.,0-9]* \[[^\]]*\] "
    r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z0-9_$]+)+(?::| -) ",
    description="Python logging (default, asctime - name - level, Home Assistant's, the level "
    "first, name - level without a time): component = logger name",
    example="ERROR:app.db:connection lost",
)


def golog(year: YearOf = None) -> AppRegexFormat:
    """glog/klog (Go, Kubernetes); logrus and slog text output are ``logfmt``."""
    return AppRegexFormat(
        name="golog",
        patterns=(
            r"^(?P<level>[IWEF])(?P<ts>(?:[0-9]{4})?[0-9]{4} " + _HMS + r"\.[0-9]{6}) +[0-9]+ "
            r"(?P<component>[^ :\]]+)(?::[0-9]+)?\] ?(?P<message>.*)$",
        ),
        min_line_bytes=30,
        # glog 0.7+ writes the year (``I20200308 23:47:32.089828``), klog and older glog do not
        time_formats=(f"{YEAR}%m%d %H:%M:%S%.f", "%Y%m%d %H:%M:%S%.f"),
        year=year,
        record_start=r"[IWEF](?:[0-9]{4})?[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} ",
        # the header glog writes atop each file (its date places the year-less stamps)
        continuation=r"Log file created at: |Running on machine: |Binary: |Log line format: ",
        description="Go glog/klog: component = source file; goroutine dumps folded",
        example="E0102 03:04:05.678901    1234 controller.go:123] sync failed",
    )


def log15(year: YearOf = None) -> AppRegexFormat:
    """log15's terminal format (go-ethereum, and Go services on log15 or geth's slog handler):
    ``LEVEL[01-02|15:04:05.000] msg key=value``, the level padded to five characters (no
    blank after DEBUG, ERROR, TRACE), the stamp without a year; geth's ``Fatal: msg``."""
    return AppRegexFormat(
        name="log15",
        patterns=(
            r"^(?P<level>TRACE|DEBUG|INFO|WARN|ERROR|CRIT) ?\[(?P<ts>[0-9]{2}-[0-9]{2}\|"
            + _HMS
            + r"(?:\.[0-9]{3})?)\] (?P<message>.*)$",
            r"^(?P<level>Fatal): (?P<message>.*)$",
        ),
        min_line_bytes=20,
        time_formats=(f"{YEAR}%m-%d|%H:%M:%S%.f",),
        year=year,
        record_start=r"(?:TRACE|DEBUG|INFO|WARN|ERROR|CRIT) ?\[[0-9]{2}-[0-9]{2}\||Fatal: ",
        head_component=True,
        description="log15 terminal format (go-ethereum): component = error kind; CRIT and "
        "geth's Fatal: are FATAL",
        example="ERROR[03-22|13:26:20.363] Failed to dial peer   err=timeout",
    )


HADOOP = AppRegexFormat(
    name="hadoop",
    patterns=(
        r"^(?P<ts>[0-9]{6} [0-9]{6}|"
        + _D4
        + " "
        + _HMS
        + r",[0-9]{3}|[0-9]{2}/[0-9]{2}/[0-9]{2} "
        + _HMS
        + r")(?: [0-9]+)? (?P<level>TRACE|DEBUG|INFO|WARN|ERROR|FATAL) +(?:\[[^\]]*\] )?"
        r"(?P<component>[A-Za-z_$][A-Za-z0-9_$.]*): (?P<message>.*)$",
    ),
    min_line_bytes=24,
    time_formats=("%y%m%d %H%M%S", "%Y-%m-%d %H:%M:%S,%3f", "%y/%m/%d %H:%M:%S"),
    record_start=r"[0-9]{6} [0-9]{6} |"
    + _D4
    + " "
    + _HMS
    + ",[0-9]{3} |[0-9]{2}/[0-9]{2}/[0-9]{2} ",
    description="Hadoop/HDFS/Spark (log4j with class: message): component = class",
    example="081109 203615 148 INFO dfs.DataNode$PacketResponder: PacketResponder 1 terminating",
)


#: Ruby's Logger (Rails, Sidekiq, any Ruby program): ``"%s, [%s #%d] %5s -- %s: %s"``, the
#: severity's letter, the time, the process id, the severity, the program name (often empty).
#: Rails (5+) logs an exception at FATAL in pieces, each a FATAL line of its own: a blank one
#: (after the ``[request-id]`` tags), the ``Class (message):`` line, a blank one, each
#: backtrace frame (``app/x.rb:8:in``, ``actionpack (5.1.4) lib/...rb:4:in``): a real log's 62
#: exceptions had been 248 FATAL records, 182 of them under "-" (probe B2). A FATAL line whose
#: message (after any tags) is blank or a Ruby frame is read first, as a record without a
#: level: the exception counts once, by its class line, and every line keeps its stamp. Rails
#: 4 writes one empty FATAL line, then the class line and the frames without the head: that
#: empty line is the FATAL record (its class on the next line: it ranks under "-").
_RUBY_STAMP = _D4 + "T" + _HMS
_RUBY_LINE = r"^[DIWEFAU], \[(?P<ts>" + _RUBY_STAMP + r"(?:\.[0-9]+)?) #[0-9]+\] +"
_RUBY_FRAME = r"(?:[^ ]+ \([0-9][^)]*\) )?[^ ]+\.rb:[0-9]+:in "
RUBY = AppRegexFormat(
    name="ruby",
    patterns=(
        _RUBY_LINE + r"FATAL -- (?:(?P<component>[^:]+?))?: "
        r"(?P<message>(?:\[[^\]]*\] )+ *|  *|(?:\[[^\]]*\] )*" + _RUBY_FRAME + r".*)$",
        _RUBY_LINE + r"(?P<level>DEBUG|INFO|WARN|ERROR|FATAL|ANY|UNKNOWN) -- "
        r"(?:(?P<component>[^:]+?))?: (?P<message>.*)$",
    ),
    min_line_bytes=44,
    time_formats=("%Y-%m-%dT%H:%M:%S%.f",),
    head_component=True,
    record_start=r"[DIWEFAU], \[" + _RUBY_STAMP,
    description="Ruby's Logger (Rails, Sidekiq: L, [ts #pid] LEVEL -- prog: msg): component = "
    "program name, else error kind (message head, Rails' [request-id] tags skipped); the "
    "blank and backtrace pieces of a Rails exception have no level",
    example="E, [2018-04-08T13:44:35.453355 #15810] ERROR -- : [c99427a8] Boom (RuntimeError)",
)

#: supervisord's own codes, and the words of the logs that share its head (Python's
#: ``%(asctime)s %(levelname)s %(message)s``): read, never folded into the record before.
_SUPERVISOR_LEVEL = "CRITICAL|CRIT|ERROR|ERRO|WARNING|WARN|INFO|DEBUG|DEBG|TRACE|TRAC|BLAT|FATAL"
SUPERVISORD = AppRegexFormat(
    name="supervisord",
    patterns=(
        r"^(?P<ts>" + _D4 + " " + _HMS + r",[0-9]{3}) "
        # one blank after the level: its levels are all as wide (JBoss pads its own)
        r"(?P<level>" + _SUPERVISOR_LEVEL + r") (?P<message>(?:[^ ].*)?)$",
    ),
    min_line_bytes=29,
    time_formats=("%Y-%m-%d %H:%M:%S,%3f",),
    head_component=True,
    record_start=_D4 + " " + _HMS + ",[0-9]{3} (?:" + _SUPERVISOR_LEVEL + ") ",
    #: a sample line with a level word supervisord never writes: another program's log (a
    #: Python app's), which generic reads with its logger as the component (``detect``)
    ruled_out_by=_D4 + " " + _HMS + ",[0-9]{3} (?:CRITICAL|ERROR|WARNING|DEBUG|TRACE|FATAL) ",
    description="supervisord's own log (ts,ms LEVEL msg; CRIT/ERRO/WARN/INFO/DEBG/TRAC/BLAT): "
    "names no component, so component = error kind (message head)",
    example="2022-11-08 11:21:54,066 CRIT Server 'unix_http_server' running without any HTTP "
    "authentication checking",
)


_MD_STAMP = r"[0-9]{2}-[0-9]{2} " + _HMS + r"\.[0-9]{3}"


def logcat(year: YearOf = None) -> AppRegexFormat:
    """Android's ``logcat -v threadtime`` (the default of ``adb logcat`` and bug reports; with
    ``-v uid`` a user before the process id), ``-v time`` (``I/Tag( 123): msg`` after the
    stamp), ``-v brief`` (the same without a stamp: its records carry no time) and Android
    Studio's Logcat window (``2025-01-24 11:39:16.533  1249-1321  Tag  package  E  msg``): a
    year-less ``MM-DD`` stamp takes ``year``, the tag is the component."""
    return AppRegexFormat(
        name="logcat",
        patterns=(
            r"^(?P<ts>" + _MD_STAMP + r") +(?:[A-Za-z0-9_]+ +)?[0-9]+ +[0-9]+ "
            # a tag may hold C++'s "::" (``APM::ConfigParsingUtils: ...``, probe K) or a colon
            # of a process name (``tencent.mm:push: ...``, probe U: malformed)
            r"(?P<level>[VDIWEFA]) (?P<component>(?:[^:]|:[^ ])*?) *: (?P<message>.*)$",
            # a tag may hold parentheses: ``V/AllShare(ASF-DMSLIB)( 4553): ...`` (probe O)
            r"^(?P<ts>" + _MD_STAMP + r") (?P<level>[VDIWEFA])/"
            r"(?P<component>.*?) *\( *[0-9]+\): (?P<message>.*)$",
            # ``-v brief``, the default of old adb: no stamp (probe O: "no known format")
            r"^(?P<level>[VDIWEFA])/(?P<component>.*?) *\( *[0-9]+\): (?P<message>.*)$",
            # Android Studio's Logcat window, copied or saved: date, pid-tid, tag, package
            r"^(?P<ts>" + _D4 + " " + _HMS + r"\.[0-9]{3}) +[0-9]+-[0-9]+ +(?P<component>[^ ]+) +"
            r"[^ ]+ +(?P<level>[VDIWEFA]) +(?P<message>.*)$",
        ),
        min_line_bytes=12,  # brief: "I/Tag( 12): m"
        time_formats=(f"{YEAR}%m-%d %H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"),
        year=year,
        description="Android logcat (threadtime, time, brief): level letter, component = tag",
        example="03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogs",
    )


#: Redis's level marks (``serverLog``): debug, verbose, notice, warning. Redis writes no error
#: level: its failures are warnings (``#``).
REDIS_LEVELS = ((".", "DEBUG"), ("-", "DEBUG"), ("*", "INFO"), ("#", "WARN"))
_REDIS_STAMP = r"[0-9]{2} [A-Z][a-z]{2}"


def redis(year: YearOf = None) -> AppRegexFormat:
    """The Redis server log: ``pid:role day Mon year time mark msg`` (4.0+; 3.x writes no
    year), ``[pid] day Mon time mark msg`` (2.x, milliseconds from 2.6), ``day Mon time mark
    msg`` (1.x) and the signal handler's ``pid:signal-handler (epoch) msg``. Year-less stamps
    take ``year``. It names no component: the error kind (message head) stands in; the ASCII
    logo of a start-up continues the record before it."""
    time = _HMS + r"(?:\.[0-9]{3})?"
    return AppRegexFormat(
        name="redis",
        patterns=(
            r"^[0-9]+:[XCSM] (?P<ts>" + _REDIS_STAMP + r"(?: [0-9]{4})? " + time + ") "
            r"(?P<level>[.*#-]) (?P<message>.*)$",
            r"^\[[0-9]+\] (?P<ts>" + _REDIS_STAMP + " " + time + r") "
            r"(?P<level>[.*#-]) (?P<message>.*)$",
            r"^[0-9]+:signal-handler \([0-9]+\) (?P<message>.*)$",
            r"^(?P<ts>" + _REDIS_STAMP + " " + time + r") (?P<level>[.*#-]) (?P<message>.*)$",
        ),
        min_line_bytes=20,
        time_formats=("%d %b %Y %H:%M:%S%.f", f"{YEAR} %d %b %H:%M:%S%.f"),
        year=year,
        record_start=r"[0-9]+:[XCSM] "
        + _REDIS_STAMP
        + r" |\[[0-9]+\] "
        + _REDIS_STAMP
        + " |[0-9]+:signal-handler |"
        + _REDIS_STAMP
        + " "
        + _HMS
        + " ",
        head_component=True,
        level_map=REDIS_LEVELS,
        description="Redis server log: levels . - * # (Redis has no error level: its failures "
        "are # warnings, ask --level WARN); component = error kind (message head)",
        example="1:M 29 Aug 2023 13:47:38.984 # Background saving error",
    )


#: The head of the loghub supercomputer logs (Oliner & Stearley, DSN 2007): the alert
#: category (``-``, or BGL's ``KERNDTLB``, Thunderbird's ``VAPI``), the epoch seconds, the
#: date ``2005.06.03`` and the node.
_ALERT, _EPOCH = r"^(?:-|[A-Z][A-Z0-9_]*) ", r"[0-9]{9,10}"
_DATED_NODE = r" [0-9]{4}\.[0-9]{2}\.[0-9]{2} [^ ]+ "
_BGL_STAMP = r"[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{2}\.[0-9]{2}\.[0-9]{2}\.[0-9]{1,9}"

#: Blue Gene/L RAS log: the head, the full stamp, the node again, the type (``RAS``, or
#: ``NULL`` on DISCOVERY lines), the component and the level. FAILURE (a hardware failure)
#: is FATAL, SEVERE is ERROR (``levels``). The time is the epoch field, as Thunderbird's: the
#: written stamp is the machine's local time (Pacific, 7 h before the epoch) without a zone,
#: where the epoch is UTC, and the first number of the line, which --since/--until bisect on.
BGL = AppRegexFormat(
    name="bgl",
    patterns=(
        _ALERT + r"(?P<ts>" + _EPOCH + r")" + _DATED_NODE + _BGL_STAMP + r" [^ ]+ [A-Z_]+ "
        r"(?P<component>[A-Z_]+) "
        r"(?P<level>INFO|WARNING|SEVERE|ERROR|FAILURE|FATAL)(?: (?P<message>.*))?$",
    ),
    min_line_bytes=60,
    time_formats=("%s",),
    description="Blue Gene/L RAS log (loghub BGL): component = KERNEL, APP, MMCS...; "
    "FAILURE is FATAL, SEVERE ERROR; time = the epoch field (UTC)",
    example="- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.675872 "
    "R02-M1-N0-C:J12-U11 RAS KERNEL INFO instruction cache parity error corrected",
)

#: Thunderbird (loghub): the head, then a syslog line whose host is one word (``dn228/dn228``,
#: ``src@eadmin1``, ``local@tbird-admin1``) and whose program is read as syslog3164 reads it
#: (``_PROGRAMS``); no severity is written, so the level comes from the message's words.
#: The time is the epoch field, not the syslog stamp: that stamp is local (Pacific, 8 h
#: before the epoch in November) and has no year (``Nov 9``, a 2005 log: a guessed year
#: would be today's), where the epoch is UTC and exact to the second (Polars reads ``%s``).
_THUNDERBIRD_HEAD = _ALERT + r"(?P<ts>" + _EPOCH + r")" + _DATED_NODE + _BSD + r" [^ ]+ "
THUNDERBIRD = AppRegexFormat(
    name="thunderbird",
    patterns=tuple(_THUNDERBIRD_HEAD + program for program in _PROGRAMS),
    min_line_bytes=44,
    time_formats=("%s",),
    level_words=True,
    description="Thunderbird syslog (loghub): component = program; level from message words; "
    "time = the epoch field (UTC)",
    example="- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond[2916]: (root) CMD "
    "(run-parts /etc/cron.hourly)",
)
