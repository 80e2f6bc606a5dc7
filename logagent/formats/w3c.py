"""W3C extended logs: IIS (space-separated) and CloudFront standard logs (tab-separated) (PURE).

Their columns are named by a ``#Fields:`` directive, which a server writes at
the head of each file and again whenever it restarts, perhaps with other
fields. The format is fitted to a sample (``fit``): every distinct
``#Fields:`` list in it (the first ``MAX_SETS``), plus the layout's default
ones. A line is a record when it splits into as many values as one of these
lists has names and that list's ``sc-status`` is a number (the first such list
wins: a line is not tied to the directive above it, which a random read of the
file may not have seen). ``#`` lines
(``#Fields:``, ``#Version:``, ``#Date:``, ...) are directives, neither records
nor malformed: they are flagged in the optional ``continuation`` column.

Trailing separators are dropped (CloudFront ends some lines with a tab). IIS
writes ``-`` for an empty value and ``+`` for a space inside one (a user
agent); CloudFront URL-encodes. Values are kept as written. A record's status
is an HTTP one (or CloudFront's ``000``) and its ``date`` a date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import polars as pl

from logagent.formats.base import PATH, STATUS
from logagent.formats.extract import CONTINUATION
from logagent.formats.proxies import CLIENT, METHOD, TOKEN_5XX_PREFILTER, USER_AGENT
from logagent.timewindow.columns import stamp_expr

#: W3C field name of each column the questions use.
W3C_NAMES = {
    STATUS: "sc-status",
    PATH: "cs-uri-stem",
    CLIENT: "c-ip",
    METHOD: "cs-method",
    USER_AGENT: "cs(User-Agent)",
}
IIS_DEFAULT = [
    "date",
    "time",
    "s-ip",
    "cs-method",
    "cs-uri-stem",
    "cs-uri-query",
    "s-port",
    "cs-username",
    "c-ip",
    "cs(User-Agent)",
    "cs(Referer)",
    "sc-status",
    "sc-substatus",
    "sc-win32-status",
    "time-taken",
]
#: IIS 6's every W3C field, in its order: a log cut without its ``#Fields`` header (ossec-hids'
#: IIS 6 entries) had been refused.
IIS_ALL = (
    *("date", "time", "s-sitename", "s-computername", "s-ip", "cs-method", "cs-uri-stem"),
    *("cs-uri-query", "s-port", "cs-username", "c-ip", "cs-version", "cs(User-Agent)"),
    *("cs(Cookie)", "cs(Referer)", "cs-host", "sc-status", "sc-substatus", "sc-win32-status"),
    *("sc-bytes", "cs-bytes", "time-taken"),
)
CLOUDFRONT_DEFAULT = [
    "date",
    "time",
    "x-edge-location",
    "sc-bytes",
    "c-ip",
    "cs-method",
    "cs(Host)",
    "cs-uri-stem",
    "sc-status",
    "cs(Referer)",
    "cs(User-Agent)",
    "cs-uri-query",
    "cs(Cookie)",
    "x-edge-result-type",
    "x-edge-request-id",
    "x-host-header",
    "cs-protocol",
    "cs-bytes",
    "time-taken",
    "x-forwarded-for",
    "ssl-protocol",
    "ssl-cipher",
    "x-edge-response-result-type",
    "cs-protocol-version",
    "fle-status",
    "fle-encrypted-fields",
    "c-port",
    "time-to-first-byte",
    "x-edge-detailed-result-type",
    "sc-content-type",
    "sc-content-len",
    "sc-range-start",
    "sc-range-end",
]
#: Field lists longer than this are not fitted (a junk directive).
MAX_FIELDS = 200
#: At most this many distinct lists are fitted (each adds to every line's parse).
MAX_SETS = 16
#: Fields only IIS's FTP service writes: its entries are FTP commands and replies (``USER``,
#: ``530``), no HTTP requests, though they share the W3C layout and its ``sc-status``.
FTP_FIELDS = frozenset({"x-session", "x-fullpath"})
_FIELDS = re.compile(r"^#Fields:\s*(.*?)\s*$")
#: A value of a line whose values may be quoted (``""`` is a quote inside a string).
QUOTED_VALUE = r'"(?:[^"]|"")*"|[^ ]+'
#: An FTP entry's ``cs-method``: IIS 4/5's FTP log writes its session first (``[2]USER``),
#: later ones the command or ``sent``/``created``/``deleted``; no HTTP method is one of them.
FTP_METHOD = (
    r"^(?:\[[0-9]+\].*|USER|PASS|ACCT|QUIT|CWD|CDUP|XCWD|PWD|XPWD|PORT|PASV|EPRT|EPSV|TYPE"
    r"|STRU|MODE|RETR|STOR|STOU|APPE|ALLO|REST|RNFR|RNTO|ABOR|DELE|RMD|XRMD|MKD|XMKD|LIST"
    r"|NLST|MLSD|MLST|SITE|SYST|STAT|HELP|NOOP|FEAT|OPTS|AUTH|PBSZ|PROT|SIZE|MDTM"
    r"|sent|created|deleted|appended)$"
)


@dataclass(frozen=True)
class W3cFormat:
    """A W3C extended log: ``separator``-split values named by one of ``field_sets``."""

    name: str
    separator: str
    field_sets: tuple[tuple[str, ...], ...]
    description: str
    min_line_bytes: int = 20
    error_prefilter: re.Pattern[bytes] | None = TOKEN_5XX_PREFILTER
    #: Field lists whose entries are no requests (IIS FTP's, ``FTP_FIELDS``): skipped.
    skip_sets: tuple[tuple[str, ...], ...] = ()
    #: Values may be quoted or separated by runs of blanks (``fit``: the sample has such a
    #: line): read by a tokenizer, 7x the cost of a split on a 227 MB IIS log.
    quoted: bool = False
    #: The sample has an entry whose method is an FTP command (``fit``): each entry is tested.
    ftp_methods: bool = False

    def fit(self, sample: Sequence[str]) -> W3cFormat:
        """This layout with every ``#Fields:`` list of ``sample`` (in order), then its own;
        an FTP service's lists are kept apart, their entries skipped as no requests."""
        found: list[tuple[str, ...]] = []
        ftp: list[tuple[str, ...]] = []
        for line in sample:
            m = _FIELDS.match(line)
            if m is None:
                continue
            names = tuple(m[1].split())
            fits = STATUS_NAME in names and 0 < len(names) <= MAX_FIELDS
            into = ftp if FTP_FIELDS & set(names) else found
            if fits and names not in into and len(found) + len(ftp) < MAX_SETS:
                into.append(names)
        sets = (*found, *(s for s in self.field_sets if s not in found))
        entries = [line for line in sample if line and not line.startswith("#")]
        quoted = self.separator == " " and any('"' in e or "  " in e for e in entries)
        fitted = W3cFormat(
            self.name, self.separator, sets, self.description, self.min_line_bytes,
            skip_sets=tuple(ftp), quoted=quoted,
        )  # fmt: skip
        return replace(fitted, ftp_methods=_has_ftp_methods(fitted, entries))

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``path`` and ``status`` of each record; directives and FTP entries flagged as
        ``continuation`` (neither records nor malformed)."""
        cols = self._columns(line, (STATUS, PATH))
        return {**cols, CONTINUATION: line.str.starts_with("#") | self._skipped(line)}

    def _skipped(self, line: pl.Expr) -> pl.Expr:
        """The entries of a ``skip_sets`` list (IIS FTP's commands), and entries of any list
        whose ``cs-method`` is an FTP command (``FTP_METHOD``: IIS 4's FTP log names no field
        of its own; its 226/230/331 replies had been counted as HTTP statuses)."""
        sets = [n for n in self.field_sets if METHOD_NAME in n] if self.ftp_methods else []
        if not self.skip_sets and not sets:
            return pl.lit(False)
        values = self._values(line)
        fits = [self._fits(line, values, names)[0] for names in self.skip_sets]
        for names in sets:
            method = values.list.get(names.index(METHOD_NAME), null_on_oob=True)
            fits.append(self._fits(line, values, names)[0] & method.str.contains(FTP_METHOD))
        return pl.any_horizontal(fits).fill_null(False)

    def extra_fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """``client``, ``method`` and ``user_agent`` of each record (null where not logged)."""
        return self._columns(line, (CLIENT, METHOD, USER_AGENT))

    def time_expr(self, line: pl.Expr, tz: str = "UTC") -> pl.Expr:
        """Each record's time from its ``date`` and ``time`` fields (W3C writes UTC)."""
        cols = self._columns(line, ("date", "time"))
        return stamp_expr(cols["date"] + pl.lit("T") + cols["time"], "iso8601", tz="UTC")

    def _values(self, line: pl.Expr) -> pl.Expr:
        """The line's values. Space-separated ones may be quoted (``"…"``, W3C's strings: IIS
        Advanced Logging's user agents) and separated by more than one blank (Oracle Web
        Cache): both had every line refused. A tab-separated log's values are the tabs' cuts."""
        if not self.quoted:
            return line.str.strip_chars_end(self.separator).str.split(self.separator)
        return line.str.extract_all(QUOTED_VALUE)

    @staticmethod
    def _fits(line: pl.Expr, values: pl.Expr, names: tuple[str, ...]) -> tuple[pl.Expr, pl.Expr]:
        """Whether ``values`` are a record of field list ``names``, and their status code."""
        code = values.list.get(names.index(STATUS_NAME), null_on_oob=True)
        code = code.str.strip_chars().str.strip_chars('"').cast(pl.Int32, strict=False)
        fits = (values.list.len() == len(names)) & ~line.str.starts_with("#")
        # an HTTP status (CloudFront's 000: the viewer left first) and a date where one is named:
        # a line of another layout can split into as many values
        fits = fits & ((code == 0) | code.is_between(100, 599))
        if "date" in names:
            date = values.list.get(names.index("date"), null_on_oob=True)
            fits = fits & date.str.contains(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
        return fits, code

    def _columns(self, line: pl.Expr, wanted: tuple[str, ...]) -> dict[str, pl.Expr]:
        values = self._values(line)
        skipped = self._skipped(line)  # an FTP entry is no record of an HTTP list it fits
        tests = [
            (names, fits & ~skipped, code)
            for names in reversed(self.field_sets)
            for fits, code in [self._fits(line, values, names)]
        ]
        out: dict[str, pl.Expr] = {}
        for name in wanted:
            expr: pl.Expr = pl.lit(None, dtype=pl.String)
            status: pl.Expr = pl.lit(None, dtype=pl.Int32)
            for names, fits, code in tests:  # the first matching list wins (last to wrap)
                if name == STATUS:
                    status = pl.when(fits).then(code).otherwise(status)
                    continue
                key = W3C_NAMES.get(name, name)
                value = (
                    _unquoted(values.list.get(names.index(key), null_on_oob=True))
                    if key in names
                    else pl.lit(None, dtype=pl.String)
                )
                expr = pl.when(fits).then(value).otherwise(expr)
            out[name] = status if name == STATUS else expr
        return out


def _unquoted(value: pl.Expr) -> pl.Expr:
    """A W3C string value without its quotes (``"70.95.0.0"`` is 70.95.0.0)."""
    quoted = value.str.starts_with('"') & value.str.ends_with('"') & (value.str.len_chars() > 1)
    return pl.when(quoted).then(value.str.slice(1, value.str.len_chars() - 2)).otherwise(value)


STATUS_NAME = W3C_NAMES[STATUS]
METHOD_NAME = W3C_NAMES[METHOD]

IIS = W3cFormat(
    name="w3c",
    separator=" ",
    field_sets=(tuple(IIS_DEFAULT), IIS_ALL),
    description="IIS / W3C extended log (#Fields: header, space-separated)",
)
CLOUDFRONT = W3cFormat(
    name="cloudfront",
    separator="\t",
    field_sets=tuple(tuple(CLOUDFRONT_DEFAULT[:n]) for n in (33, 24, 19)),
    description="AWS CloudFront standard log (#Fields: header, tab-separated)",
    min_line_bytes=40,
)
W3C_LAYOUTS = (CLOUDFRONT, IIS)


def _has_ftp_methods(fmt: W3cFormat, entries: Sequence[str]) -> bool:
    """Whether a sampled entry of a list with ``cs-method`` names an FTP command there."""
    probe = replace(fmt, ftp_methods=True, skip_sets=())
    if not entries or not any(METHOD_NAME in names for names in fmt.field_sets):
        return False
    entries = [e for e in entries if _may_be_ftp(fmt, e)]  # the query costs ~20 ms a run
    if not entries:
        return False
    frame = pl.DataFrame({"line": list(entries)}, schema={"line": pl.String})
    return bool(frame.select(probe._skipped(pl.col("line")).any()).item())


_FTP_METHOD, _QUOTED_VALUE = re.compile(FTP_METHOD), re.compile(QUOTED_VALUE)


def _may_be_ftp(fmt: W3cFormat, entry: str) -> bool:
    """What ``_skipped`` needs of an entry, in Python (``_values``, the same regexes): as
    many values as a list with ``cs-method`` names, the method an FTP command. Most logs
    have no such entry, and the Polars query that decides is not run."""
    if fmt.quoted:
        values = _QUOTED_VALUE.findall(entry)
    else:
        values = entry.rstrip(fmt.separator).split(fmt.separator)
    return any(
        len(values) == len(names) and _FTP_METHOD.match(values[names.index(METHOD_NAME)])
        for names in fmt.field_sets
        if METHOD_NAME in names
    )


def ftp_entries(sample: Sequence[str]) -> int:
    """The lines of ``sample`` that are FTP entries of a W3C log (``W3cFormat._skipped``)."""
    fmt = IIS.fit(sample)
    frame = pl.DataFrame({"line": list(sample)}, schema={"line": pl.String})
    line = pl.col("line")
    return int(frame.select((~line.str.starts_with("#") & fmt._skipped(line)).sum()).item())
