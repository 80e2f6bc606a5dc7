"""Access logs of proxies, load balancers and app servers: HAProxy, Envoy/Istio, AWS ALB and
classic ELB, uWSGI, Amazon S3, Squid, Heroku's router (PURE).

Each is one regex (Rust syntax) with the named groups ``status`` and ``path``
(what the access questions count) and, for ``extra_fields``, ``client``,
``method`` and ``user_agent`` where the layout writes them. A line the regex
refuses is malformed. ``path`` is the request URI as logged: the load
balancers log an absolute URI (``http://host:80/x``), which route
normalization cuts to its path and ``--no-normalize`` keeps whole.

* ``haproxy``: the HTTP log format (``option httplog``), with or without the
  syslog header, captured headers in braces, a host field before the timers.
* ``envoy``: Envoy's default access log, with or without the response code
  details (newer releases) and Istio's (which adds termination details and the
  quoted upstream failure reason after the flags).
* ``alb`` / ``elb``: the Application Load Balancer's and the Classic Load
  Balancer's S3 access logs. The status is the balancer's (``elb_status_code``):
  what the client got. A classic TCP/SSL listener's entry (``- -`` codes, request
  ``"- - - "``) is no HTTP record.
* ``uwsgi``: uWSGI's default request log line (``[pid: N|app: N|req: N/N] addr (user)
  {N vars in N bytes} [ctime] METHOD URI => generated N bytes in N msecs (PROTO STATUS) ...``;
  `` via sendfile() ``, ``route()`` or ``offload()`` after the time; ``- -`` for the method
  and URI of a request too large to log, as ``core/logging.c`` writes it).
  Its log also holds the app's own output (tracebacks, uWSGI's start-up lines): those are
  no records, so a mixed log parses below 100 %.
* ``s3``: Amazon S3's server access log. The path is the request URI's. Entries of S3's own
  work (lifecycle ``S3.EXPIRE.OBJECT``, ``S3.TRANSITION...``: request ``"-"``, status ``-``)
  are no HTTP record, flagged as ELB's TCP entries are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from logagent.formats.base import PATH, RegexFormat
from logagent.formats.extract import CONTINUATION
from logagent.timewindow.columns import UTC_US, stamp_expr
from logagent.timewindow.stamps import CLF_BRACKETED

CLIENT, METHOD, USER_AGENT = "client", "method", "user_agent"
#: Every line holding a 5xx status holds it as a token of its own: a superset of 5xx records.
TOKEN_5XX_PREFILTER = re.compile(rb"(?<![0-9])5[0-9][0-9](?![0-9])")
#: ``"METHOD URI PROTOCOL"``, or anything else in quotes (then no path and no method).
_REQUEST = r'"(?:(?P<method>[A-Za-z]+) (?P<path>[^ "]+)(?: [^ "]*)?|[^"]*)"'
#: HAProxy cuts a request longer than ``tune.http.logurilen`` (1024) at that length and logs
#: it without its closing quote, as the line's end: a real 503 had been malformed.
_CUT_REQUEST = _REQUEST.removesuffix('"') + '(?:"|$)'


@dataclass(frozen=True)
class ProxyFormat(RegexFormat):
    """A ``RegexFormat`` whose pattern also names client, method and user agent groups."""

    extra: tuple[str, ...] = (CLIENT, METHOD)
    #: Lines of the layout that are no HTTP record (flagged ``continuation``: not malformed).
    skip: str | None = None
    #: The request's time: a regex whose group 1 is the stamp, and the stamp's kind.
    stamp: tuple[str, str] | None = None

    def time_expr(self, line: pl.Expr, tz: str = "UTC") -> pl.Expr:
        """Each line's UTC time (null without a stamp): for time windows and timelines."""
        if self.stamp is None:
            return pl.lit(None, dtype=UTC_US)
        pattern, kind = self.stamp
        text = line.str.extract(pattern, 1)
        if kind == "haproxy":  # accept date, local time with milliseconds: 06/Feb/2009:12:14:14.655
            naive = text.str.to_datetime("%d/%b/%Y:%H:%M:%S%.f", strict=False, time_unit="us")
            local = naive.dt.replace_time_zone(tz, ambiguous="earliest", non_existent="null")
            return local.dt.convert_time_zone("UTC").cast(UTC_US)
        return stamp_expr(text, kind, tz=tz)

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``path`` and ``status``, plus the ``continuation`` flag when the layout has ``skip``."""
        cols = super().fields(line)
        if self.skip is None:
            return cols
        return {**cols, CONTINUATION: line.str.contains(self.skip)}

    def extra_fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``client``, ``method`` and (where logged) ``user_agent`` of each record."""
        groups = line.str.extract_groups(self.pattern)
        return {name: groups.struct.field(name) for name in self.extra}


#: A syslog header (RFC 3164 or ISO stamp, host, ``haproxy[pid]:``): HAProxy logs through syslog.
_SYSLOG = (
    r"(?:<\d{1,3}>)?(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) "
    r"\S+ [^\s:\[]+(?:\[\d+\])?: "
)
HAPROXY = ProxyFormat(
    name="haproxy",
    pattern=(
        rf"^(?:{_SYSLOG})?(?P<client>[^\s\[]+):\d+ \[\d\d/[A-Z][a-z]{{2}}/\d{{4}}:[\d:.]+\] "
        r"\S+ \S+/\S+ (?:\S+ )?-?\d+/-?\d+/-?\d+/-?\d+/\+?-?\d+ (?P<status>-?\d{1,3}) \+?\d+ "
        r"\S+ \S+ \S{4} \S+ \S+(?: \{[^}]*\})* " + _CUT_REQUEST + r"\s*$"
    ),
    stamp=(r"\[([0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:.]+)\] ", "haproxy"),
    min_line_bytes=60,
    error_prefilter=TOKEN_5XX_PREFILTER,
    description="HAProxy HTTP log (option httplog), syslog header optional",
)

ENVOY = ProxyFormat(
    name="envoy",
    pattern=(
        r"^\[\d{4}-\d\d-\d\dT[^\]]+\] " + _REQUEST + r" (?P<status>\d{1,3})(?: [^ \"]+){1,3}"
        r'(?: "[^"]*")? \d+ \d+ \d+ \S+ "(?P<client>[^"]*)" "(?P<user_agent>[^"]*)" '
        r'"[^"]*" "[^"]*" "[^"]*"(?:\s.*)?$'
    ),
    extra=(CLIENT, METHOD, USER_AGENT),
    stamp=(r"^\[([^\]]+)\]", "iso8601"),
    min_line_bytes=60,
    error_prefilter=TOKEN_5XX_PREFILTER,
    description="Envoy / Istio default access log (client: X-Forwarded-For)",
)

_ELB_TIMES = r"-?[\d.]+ -?[\d.]+ -?[\d.]+"
ALB = ProxyFormat(
    name="alb",
    pattern=(
        r"^(?:https?|h2|grpcs?|wss?) \d{4}-\d\d-\d\dT[\d:.]+Z \S+ (?P<client>\S+):\d+ \S+ "
        rf"{_ELB_TIMES} (?P<status>\d{{3}}) (?:\d{{3}}|-) \d+ \d+ "
        + _REQUEST
        + r' "(?P<user_agent>(?:[^"\\]|\\.)*)" \S+ \S+ \S+ "[^"]*"(?:\s.*)?$'
    ),
    extra=(CLIENT, METHOD, USER_AGENT),
    stamp=(r"^\S+ (\S+)", "iso8601"),
    min_line_bytes=100,
    error_prefilter=TOKEN_5XX_PREFILTER,
    description="AWS Application Load Balancer access log",
)

ELB = ProxyFormat(
    name="elb",
    pattern=(
        r"^\d{4}-\d\d-\d\dT[\d:.]+Z \S+ (?P<client>\S+):\d+ \S+ "
        rf"{_ELB_TIMES} (?P<status>\d{{3}}) (?:\d{{3}}|-) \d+ \d+ "
        + _REQUEST
        + r'(?: "(?P<user_agent>(?:[^"\\]|\\.)*)" \S+ \S+)?\s*$'
    ),
    extra=(CLIENT, METHOD, USER_AGENT),
    skip=r'^\d{4}-\d\d-\d\dT[\d:.]+Z \S+ \S+ \S+ -?[\d.]+ -?[\d.]+ -?[\d.]+ - - \d+ \d+ "- - - "',
    stamp=(r"^(\S+)", "iso8601"),
    min_line_bytes=80,
    error_prefilter=TOKEN_5XX_PREFILTER,
    description="AWS Classic Load Balancer (ELB) access log",
)

_UWSGI_STAMP = r"[A-Z][a-z]{2} [A-Z][a-z]{2} +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}"
UWSGI = ProxyFormat(
    name="uwsgi",
    pattern=(
        r"^\[pid: \d+\|app: -?\d+\|req: -?\d+/\d+\] (?P<client>\S*) \([^)]*\) "
        r"\{\d+ vars in \d+ bytes\} \[" + _UWSGI_STAMP + r"\] (?P<method>[A-Za-z]+|-) "
        r"(?P<path>.*?) => generated \d+ bytes in \d+ (?:msecs|micros)(?: via [a-z_]+\(\))? "
        r"\((?:\S+ )?(?P<status>\d{3})\)(?: .*)?$"
    ),
    stamp=(r"\} \[(" + _UWSGI_STAMP + r")\] ", "apache_error"),
    min_line_bytes=90,
    error_prefilter=re.compile(rb" 5[0-9][0-9]\)"),
    description="uWSGI request log (default logformat); its app output lines are no records",
)

#: Amazon S3 server access log: owner, bucket, [time], remote IP, requester, request id,
#: operation, key, "request-URI", status, error code, sizes and times, "referrer", "user agent",
#: then the fields AWS has added over the years (version id, host id, signature, ...).
S3 = ProxyFormat(
    name="s3",
    pattern=(
        r"^\S+ \S+ \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] (?P<client>\S+) \S+ "
        r"\S+ [A-Z0-9_]+\.[A-Z0-9_.]+ \S+ " + _REQUEST + r" (?P<status>\d{3}) \S+ \S+ \S+ \S+ \S+ "
        r'"(?:[^"\\]|\\.)*" "(?P<user_agent>(?:[^"\\]|\\.)*)"(?:\s.*)?$'
    ),
    extra=(CLIENT, METHOD, USER_AGENT),
    skip=r'^\S+ \S+ \[[^\]]+\] \S+ \S+ \S+ [A-Z0-9_]+\.[A-Z0-9_.]+ \S+ "[^"]*" - ',
    stamp=(r"^\S+ \S+ \[([^\]]+)\] ", "clf"),
    min_line_bytes=100,
    error_prefilter=TOKEN_5XX_PREFILTER,
    description="Amazon S3 server access log (path: the request URI; status: HTTP status)",
)


@dataclass(frozen=True)
class ForwardProxyFormat(ProxyFormat):
    """A forward proxy's log: its requests go to other sites, so the site is the route's first
    segment (``path`` captures the URL without its scheme and credentials: ``/wiki.example.org/x``;
    a CONNECT's ``/host:443``), where a route of an absolute URI would keep only its path."""

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``ProxyFormat.fields`` with ``/`` before the site."""
        cols = super().fields(line)
        return {**cols, PATH: pl.concat_str([pl.lit("/"), cols[PATH]])}


#: Squid's native access log (``logformat squid``: ``%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru
#: %[un %Sh/%<a %mt``), a syslog header optional: the status is the one after the cache result
#: (``TCP_MISS/503``; ``000`` for a request that got no reply). A forward proxy's requests
#: are to other sites: the site stays in the route (``ForwardProxyFormat``).
SQUID = ForwardProxyFormat(
    name="squid",
    pattern=(
        rf"^(?:{_SYSLOG})?\d{{9,10}}\.\d{{3}} +-?\d+ (?P<client>\S+) [A-Z][A-Z0-9_]*/"
        r"(?P<status>\d{3}) \d+ (?P<method>[A-Za-z_]+|-) "
        r"(?:[A-Za-z][A-Za-z0-9+.\-]*://)?(?:[^/@ ]*@)?(?P<path>\S+) \S+ \S+(?: \S+)?(?:\s.*)?$"
    ),
    stamp=(rf"^(?:{_SYSLOG})?(\d{{9,10}}\.\d{{3}}) ", "epoch"),
    min_line_bytes=50,
    error_prefilter=re.compile(rb"/5[0-9][0-9] "),
    description="Squid native access log: status after the cache result, route = site + path",
)

#: Heroku's router (``heroku[router]: at=... method= path= ... status= bytes= ...``), as
#: ``heroku logs`` prints it or a syslog drain (RFC 5424 from Logplex) delivers it; ``sock=``
#: first on H18/H27 lines; the older lines without ``request_id`` and with ``fwd`` unquoted.
HEROKU = ProxyFormat(
    name="heroku",
    pattern=(
        r"^(?:<\d{1,3}>1 )?\d{4}-\d\d-\d\dT\S+ (?:\S+ )?heroku(?:\[router\]:| router -) "
        r"(?:sock=\S+ )?at=\S+ "
        r'(?:code=\S+ desc="[^"]*" )?method=(?P<method>\S+) path="?(?P<path>[^" ]*)"? host=\S+ '
        r'(?:request_id=\S+ )?fwd="?(?P<client>[^" ]*)"? dyno=\S* connect=\S* service=\S* '
        r"status=(?P<status>\d{3}) bytes=\S*(?:\s.*)?$"
    ),
    stamp=(r"^(?:<[0-9]{1,3}>1 )?(\S+) ", "iso8601"),
    min_line_bytes=100,
    error_prefilter=re.compile(rb"status=5[0-9][0-9](?![0-9])"),
    description="Heroku router log (heroku[router]: ... status=503), syslog drain too",
)


@dataclass(frozen=True)
class GenericAccessFormat(ProxyFormat):
    """Any line with a quoted HTTP request line and the status after it (``generic_access``):
    a custom ``log_format`` no layout names. Its time is a bracketed CLF stamp, else an ISO
    8601 stamp at the start of the line (null otherwise)."""

    def time_expr(self, line: pl.Expr, tz: str = "UTC") -> pl.Expr:
        """The bracketed CLF stamp, else the leading ISO 8601 one."""
        clf = stamp_expr(line.str.extract(_CLF_BRACKETED, 1), "clf", tz=tz)
        iso = stamp_expr(line.str.extract(_ISO_FIRST, 1), "iso8601", tz=tz)
        return pl.coalesce(clf, iso)


_CLF_BRACKETED = CLF_BRACKETED  # CLF's stamp, or Werkzeug's or morgan's in its place
_ISO_FIRST = r"^([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}[^ \t]*)"
#: The last resort of access logs, as ``generic`` is of application logs: detection discounts
#: it (``generic.GENERIC_DISCOUNT``), so any layout that names a log wins over it.
GENERIC_ACCESS = GenericAccessFormat(
    name="generic_access",
    # HAProxy's "<BADREQ>" (a request it could not parse) is a request too, with its 400 and no
    # path: a custom log-format's 52 such lines had been malformed, its 4xx count "exact" at 2
    pattern=(
        r'"(?:(?P<method>[A-Z]{3,10}) (?P<path>[^ "]+) HTTP/[0-9.]+|<BADREQ>)" '
        r"(?P<status>[0-9]{3})(?:[^0-9]|$)"
    ),
    extra=(METHOD,),
    min_line_bytes=24,
    error_prefilter=TOKEN_5XX_PREFILTER,
    description="any access log with a quoted request line and its status after it (custom "
    "log_format): the last resort, discounted as generic is",
)

PROXY_LAYOUTS = (HAPROXY, ENVOY, ALB, ELB, UWSGI, S3, SQUID, HEROKU, GENERIC_ACCESS)
