"""Zeek's default log output: tab-separated values named by a ``#fields`` header (PURE).

Zeek (Bro) writes each log (``conn.log``, ``dns.log``, ``http.log``, ``weird.log``...)
as TSV by default. Its header, written at the top of every file, is a block of
``#`` directives::

    #separator \\x09
    #unset_field	-
    #path	dns
    #fields	ts	uid	id.orig_h	...	query	...	rcode_name	...
    #types	time	string	addr	...

and ``#close`` ends the file. The format is fitted to a sample (``fit``, as the
W3C layouts are): every distinct ``#fields`` list in it (the first
``MAX_SETS``), each with the ``#path`` written above it, and, for a sample
that holds no header, and only then, the field lists of the Zeek logs people
ask about most (dns, conn, http, weird, notice, ssl). A line is a record when it splits on
the separator into as many values as one of these lists has names (the first
such list wins). ``#`` lines are directives: neither records nor malformed
(``continuation``).

Columns: ``ts`` (epoch seconds, as Zeek writes them) and its UTC ``time``;
``component`` is the log's path (``dns``, ``conn``...); Zeek writes no level,
so level questions do not apply (as for Zeek JSON); ``message`` is the
connection's ``uid`` (or ``-``). Every named column is a field for ``--by``
and ``--where`` (``extra_fields``); the unset value (``-``) is null there, so
a record without the field never matches a condition on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from logagent.formats.app import COMPONENT, LEVEL, MESSAGE, NO_COMPONENT, TIME, TS

#: Zeek's defaults, used when the sample shows no ``#separator`` / ``#unset_field``.
SEPARATOR, UNSET = "\t", "-"
#: At most this many distinct ``#fields`` lists are fitted (each adds to every line's parse).
MAX_SETS = 16
MAX_FIELDS = 400
_COMMON = ("ts", "uid", "id.orig_h", "id.orig_p", "id.resp_h", "id.resp_p")
#: Default field lists (Zeek 3-6) of the logs most asked about, for samples without a header.
DEFAULT_SETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "dns",
        (
            *_COMMON,
            *("proto", "trans_id", "rtt", "query", "qclass", "qclass_name", "qtype"),
            *("qtype_name", "rcode", "rcode_name", "AA", "TC", "RD", "RA", "Z"),
            *("answers", "TTLs", "rejected"),
        ),
    ),
    (
        "conn",
        (
            *_COMMON,
            *("proto", "service", "duration", "orig_bytes", "resp_bytes", "conn_state"),
            *("local_orig", "local_resp", "missed_bytes", "history", "orig_pkts"),
            *("orig_ip_bytes", "resp_pkts", "resp_ip_bytes", "tunnel_parents"),
        ),
    ),
    (
        "http",
        (
            *_COMMON,
            *("trans_depth", "method", "host", "uri", "referrer", "version", "user_agent"),
            *("origin", "request_body_len", "response_body_len", "status_code", "status_msg"),
            *("info_code", "info_msg", "tags", "username", "password", "proxied"),
            *("orig_fuids", "orig_filenames", "orig_mime_types"),
            *("resp_fuids", "resp_filenames", "resp_mime_types"),
        ),
    ),
    ("weird", (*_COMMON, "name", "addl", "notice", "peer", "source")),
    (
        "ssl",
        (
            *_COMMON,
            *("version", "cipher", "curve", "server_name", "resumed", "last_alert"),
            *("next_protocol", "established", "ssl_history", "cert_chain_fps"),
            *("client_cert_chain_fps", "sni_matches_cert", "validation_status"),
        ),
    ),
    (
        "notice",
        (
            *_COMMON,
            *("fuid", "file_mime_type", "file_desc", "proto", "note", "msg", "sub", "src"),
            *("dst", "p", "n", "peer_descr", "actions", "email_dest", "suppress_for"),
            *("remote_location.country_code", "remote_location.region"),
            *("remote_location.city", "remote_location.latitude"),
            *("remote_location.longitude",),
        ),
    ),
)
#: A directive: ``#`` and its name, then one separator (``#separator`` has a space), its value.
_DIRECTIVE = re.compile(r"^#([a-z_]+)(?:[^a-z_](.*))?$")


@dataclass(frozen=True)
class ZeekTsvFormat:
    """A Zeek TSV log: ``separator``-split values named by one of ``field_sets``."""

    name: str = "zeek_tsv"
    field_sets: tuple[tuple[str, tuple[str, ...]], ...] = DEFAULT_SETS
    separator: str = SEPARATOR
    unset: str = UNSET
    min_line_bytes: int = 20
    #: Records start with their epoch ``ts``; ``#`` directives do not (see module doc).
    record_start: str | None = "[0-9]"
    continuation: str | None = "#"
    description: str = (
        "Zeek TSV logs (#fields header: conn, dns, http...): every column a field; no level"
    )
    example: str = "1521911720.865716\tCqKst53mF3det3eDV9\t10.47.1.100\t41772\t..."

    def fit(self, sample: Sequence[str]) -> ZeekTsvFormat:
        """This layout with every ``#fields`` list of ``sample`` (in order); the defaults only
        when the sample holds none (each list costs every line a split)."""
        found: list[tuple[str, tuple[str, ...]]] = []
        separator, unset, path = self.separator, self.unset, NO_COMPONENT
        for line in sample:
            m = _DIRECTIVE.match(line)
            if m is None:
                continue
            key, value = m[1], m[2] or ""
            if key == "separator":
                separator = _unescape(value.strip()) or separator
            elif key == "unset_field":
                unset = value.split(separator)[0] if value else unset
            elif key == "path":
                path = value.split(separator)[0].strip() or NO_COMPONENT
            elif key == "fields":
                names = tuple(n for n in value.split(separator) if n)
                entry = (path, names)
                if 0 < len(names) <= MAX_FIELDS and entry not in found and len(found) < MAX_SETS:
                    found.append(entry)
        sets = tuple(found) or self.field_sets
        return ZeekTsvFormat(self.name, sets, separator, unset, self.min_line_bytes)

    def fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """ts, UTC time, component (the log's path) and message (the uid) of each record."""
        ts = self._value(line, "ts", unset_is_null=False)
        fits = self._fits(line)
        uid = self._value(line, "uid", unset_is_null=False)
        seconds = ts.cast(pl.Float64, strict=False)
        return {
            TS: ts,
            TIME: pl.from_epoch((seconds * 1e6).round(0).cast(pl.Int64), "us").dt.replace_time_zone(
                "UTC"
            ),
            LEVEL: pl.lit(None, dtype=pl.String),
            COMPONENT: pl.when(fits).then(self._path(line)),
            MESSAGE: pl.when(fits).then(uid.fill_null(pl.lit(self.unset))),
        }

    def extra_fields(self, line: pl.Expr) -> dict[str, pl.Expr]:
        """Every named column of the fitted lists (null where unset or not in the line's list)."""
        return {n: self._value(line, n, unset_is_null=True) for n in self.column_names()}

    def column_names(self) -> tuple[str, ...]:
        """The column names of the lists, in order (the ``--by``/``--where`` fields)."""
        return tuple(dict.fromkeys(n for _, names in self.field_sets for n in names))

    def _split(self, line: pl.Expr) -> pl.Expr:
        return line.str.strip_chars_end("\r").str.split(self.separator)

    def _fit_of(self, line: pl.Expr, names: tuple[str, ...]) -> pl.Expr:
        return (self._split(line).list.len() == len(names)) & ~line.str.starts_with("#")

    def _fits(self, line: pl.Expr) -> pl.Expr:
        return pl.any_horizontal([self._fit_of(line, names) for _, names in self.field_sets])

    def _path(self, line: pl.Expr) -> pl.Expr:
        out: pl.Expr = pl.lit(None, dtype=pl.String)
        for path, names in reversed(self.field_sets):  # the first matching list wins
            out = pl.when(self._fit_of(line, names)).then(pl.lit(path)).otherwise(out)
        return out

    def _value(self, line: pl.Expr, name: str, *, unset_is_null: bool) -> pl.Expr:
        values = self._split(line)
        out: pl.Expr = pl.lit(None, dtype=pl.String)
        for _, names in reversed(self.field_sets):
            value = (
                values.list.get(names.index(name), null_on_oob=True)
                if name in names
                else pl.lit(None, dtype=pl.String)
            )
            out = pl.when(self._fit_of(line, names)).then(value).otherwise(out)
        if unset_is_null:
            out = pl.when(out != pl.lit(self.unset)).then(out)
        return out


def _unescape(value: str) -> str:
    r"""``#separator``'s value: Zeek writes it escaped (``\x09``)."""
    return re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m[1], 16)), value)


ZEEK_TSV = ZeekTsvFormat()
