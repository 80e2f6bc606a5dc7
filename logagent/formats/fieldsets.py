"""The fields each format yields, by name, for ``--by`` and ``--where`` (PURE).

Access formats: ``route`` (the path folded to a template), ``path`` (raw, cut
at ``?``), ``status``, and what the layout writes besides: ``client``,
``method``, ``user``, ``ts``, ``bytes``, ``referrer`` and ``user_agent`` for
``combined``/``common``; ``client``, ``method`` and (where logged) ``user_agent``
for the proxy, balancer and CDN layouts (their ``extra_fields``); every key of
the objects for JSON lines. Application
formats: ``level``, ``component``, ``message``, ``ts``; every key for JSON
and logfmt layouts; every named group for a regex layout (custom ones
included); every ``#fields`` column of a Zeek TSV log.
``fields_of_format`` lists them (None after a list: any key the
records hold is a field too).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import polars as pl

from logagent.formats.access import ADDRESS, AccessFormat
from logagent.formats.app import COMPONENT, LEVEL, MESSAGE, TS, AppRegexFormat, group_names
from logagent.formats.base import PATH, STATUS, RegexFormat
from logagent.formats.jsonl import JsonFormat, jsonpath
from logagent.formats.jsonlayouts import JsonLayout
from logagent.formats.structured import JsonAppFormat, LogfmtFormat, logfmt_value
from logagent.formats.zeektsv import ZeekTsvFormat

ROUTE = "route"
#: Fields of the ``combined`` / ``common`` layouts (``referrer``, ``user_agent``: combined).
_CLF_FIELDS = ("client", "ident", "user", "ts", "method", "bytes", "referrer", "user_agent")
_Q = r'(?:[^"\\]|\\.)*'
#: Three or four fields before the stamp, the first perhaps an address list (``access``): the
#: first address of a bare list (``listed``) or of a quoted one, or one alone (``quoted``),
#: else the first field, and in a head of four the client (``_group``). The quoted form of
#: one address spans what ``\S+`` would: the same lines match, with the same other groups.
_CLF_HEAD = (
    rf'^(?:(?P<listed>{ADDRESS})(?:, {ADDRESS})+|"(?P<quoted>{ADDRESS})(?:, {ADDRESS})*"'
    r"|(?P<first>\S*)) (?:(?P<second>\S+) )?(?P<ident>\S+) (?P<user>\S+) \[(?P<ts>[^\]]+)\] "
)
_CLF = (
    _CLF_HEAD
    + rf'"(?:(?P<method>[A-Za-z]+) [^ "]+(?: [^ "]+)?|{_Q})" [0-9]{{3}} (?P<bytes>[0-9]+|-)'
    rf'(?: "(?P<referrer>{_Q})" "(?P<user_agent>{_Q})")?'
)
#: A line the strict regex refuses, read as ``access.AccessFormat`` reads it greedily: the
#: request up to the last ``" <status> <size>``, the user agent perhaps cut before its quote.
_CLF_GREEDY = (
    _CLF_HEAD + r'"(?P<request>.*)" [0-9]{3} (?P<bytes>[0-9]+|-)'
    rf'(?: "(?P<referrer>{_Q})" "(?P<user_agent>{_Q})"?(?:\s.*)?)?$'
)
_GREEDY_METHOD = r"^([A-Za-z]+) [^ ]+(?: [^ ]+)?$"
#: The groups of ``_CLF`` that hold a value on every line it matches.
_ALWAYS = frozenset({"client", "ident", "user", "ts", "bytes"})
#: A plain head (``clf_head_value``): three or four tokens (a vhost first), then the stamp.
#: A head of four whose first token ends in a comma may be an address list and three fields.
_TOKEN = r'[^\s"\[\]]+'
_STAMP = r' \[[^\]\["]+\] "'
_HEAD3 = rf"^{_TOKEN} {_TOKEN} {_TOKEN}{_STAMP}"
_HEAD4 = rf'^[^\s"\[\]]*[^\s"\[\],] {_TOKEN} {_TOKEN} {_TOKEN}{_STAMP}'
#: Where each head field is among the blank-separated tokens of a head without a vhost.
_HEAD_TOKEN = {"client": 0, "ident": 1, "user": 2}
_HEAD_FIELDS = frozenset({*_HEAD_TOKEN, "ts"})
_APP_FIELDS = (LEVEL, COMPONENT, MESSAGE, TS)
Getter = Callable[[pl.Expr], pl.Expr]


def fields_of_format(fmt: object) -> tuple[tuple[str, ...], bool]:
    """The named fields of ``fmt`` and whether any other key of a record is a field too."""
    if isinstance(fmt, AccessFormat):
        names = _CLF_FIELDS if fmt.name == "combined" else _CLF_FIELDS[:6]
        return (ROUTE, PATH, STATUS, *names), False
    if isinstance(fmt, JsonFormat):
        return (ROUTE, PATH, STATUS, *sorted(set(fmt.mapping) - {PATH, STATUS})), True
    if isinstance(fmt, RegexFormat):
        extra = [g for g in group_names(fmt.pattern) if g not in (PATH, STATUS)]
        return (ROUTE, PATH, STATUS, *extra), False
    if isinstance(fmt, AppRegexFormat):
        groups = {g for p in fmt.patterns for g in group_names(p)}
        extra = sorted(groups - {*_APP_FIELDS, "pri"})
        return (*_APP_FIELDS, *extra), False
    if isinstance(fmt, (JsonAppFormat, JsonLayout, LogfmtFormat)):
        return _APP_FIELDS, True
    if isinstance(fmt, ZeekTsvFormat):  # every #fields column
        return (*_APP_FIELDS, *(n for n in fmt.column_names() if n not in _APP_FIELDS)), False
    own = getattr(fmt, "extra_fields", None)
    if callable(own):  # access layouts with columns of their own (w3c, cloudfront, caddy...)
        return (ROUTE, PATH, STATUS, *own(pl.col("line"))), False
    parts = getattr(fmt, "parts", None)
    if parts and all(isinstance(p, AccessFormat) for p in parts):  # common + combined lines:
        named = [fields_of_format(p)[0] for p in parts]  # combined's (a common line's agent,
        return tuple(dict.fromkeys(n for names in named for n in names)), False  # null)
    if parts:  # FirstOf: the fields every part has
        each = [fields_of_format(p) for p in parts]
        common = [n for n in each[0][0] if all(n in e[0] for e in each[1:])]
        return tuple(common), all(e[1] for e in each)
    if hasattr(fmt, "record_start"):  # any other app format (generic): the app columns
        return _APP_FIELDS, False
    return (ROUTE, PATH, STATUS), False


def getter(fmt: object, name: str, base: dict[str, pl.Expr], line: pl.Expr) -> pl.Expr:
    """The expression of field ``name`` of ``fmt`` over ``line``; ``base`` holds the columns
    the format's own parser gives (path/status, or the app columns), taken as they are."""
    if name == ROUTE:
        name = PATH
    if name in base:
        return base[name]
    parts = getattr(fmt, "parts", None)
    if parts:  # FirstOf: each line's value from the first part that parses it
        out: pl.Expr = pl.lit(None, dtype=pl.String)
        for part in reversed(parts):
            own = part.fields(line)
            value = getter(part, name, own, line).cast(pl.String)
            out = pl.when(own[STATUS].is_not_null()).then(value).otherwise(out)
        return out
    own = getattr(fmt, "extra_fields", None)
    if callable(own):  # an access layout's own columns (formats/proxies.py, w3c.py, ...)
        cols: dict[str, pl.Expr] = own(line)
        if name in cols:
            return cols[name]
    if isinstance(fmt, AccessFormat):
        return clf_head_value(line, name) if name in _HEAD_FIELDS else clf_value(line, name)
    if isinstance(fmt, JsonFormat):
        return _json_value(line, fmt.mapping.get(name, name))
    if isinstance(fmt, (JsonAppFormat, JsonLayout)):
        key = fmt.mapping.get(name, name)
        return line.str.json_path_match(key) if key.startswith("$") else _json_value(line, key)
    if isinstance(fmt, LogfmtFormat):
        return logfmt_value(line, fmt.mapping.get(name, name))
    if isinstance(fmt, RegexFormat):
        return line.str.extract_groups(fmt.pattern).struct.field(name)
    if isinstance(fmt, AppRegexFormat):
        out = pl.lit(None, dtype=pl.String)
        for p in reversed(fmt.patterns):
            if name in group_names(p):
                found = line.str.extract_groups(p).struct.field(name)
                out = pl.when(found.is_not_null()).then(found).otherwise(out)
        return out
    return pl.lit(None, dtype=pl.String)


def clf_value(line: pl.Expr, name: str) -> pl.Expr:
    """Field ``name`` of a ``combined``/``common`` line: the strict regex, else the greedy
    reading (``access.AccessFormat``)."""
    strict = line.str.extract_groups(_CLF)
    # A field the strict regex always gives when it matches needs the greedy reading only
    # on the lines it refuses (a match test); the others may be null on a matched line.
    refused = pl.when(line.str.contains(_CLF)).then(pl.lit("")).otherwise(line)
    greedy = (refused if name in _ALWAYS else line).str.extract_groups(_CLF_GREEDY)
    loose = (
        greedy.struct.field("request").str.extract(_GREEDY_METHOD, 1)
        if name == "method"
        else _group(greedy, name)
    )
    return pl.coalesce(_group(strict, name), loose)


def _group(groups: pl.Expr, name: str) -> pl.Expr:
    """Field ``name`` of a line's groups (``_CLF_HEAD``): the client of a head of four is its
    second field; of a head of three, its first, or the first address of an address list
    (the originating client of ``$proxy_add_x_forwarded_for``, as a ranking of clients wants
    it: the last is the proxy's own). A list before the client is no client, as a vhost is
    not."""
    if name != "client":
        return groups.struct.field(name)
    # One struct operation, not a read per group: Polars' CSE misses several reads of groups
    # taken from a masked line (``clf_head_value``'s), and each read ran the capture groups
    # again (``--by client`` on lines with a list first: 3.6x the CPU of one read).
    client = pl.coalesce(*(pl.field(f) for f in ("second", "listed", "quoted", "first")))
    return groups.struct.with_fields(client.alias("client")).struct.field("client")


def clf_head_value(line: pl.Expr, name: str) -> pl.Expr:
    """``clf_value`` of a field of the head (client, ident, user, ts), mostly without the
    capture groups of the whole line.

    The strict regex's groups run the capturing engine over the whole line
    (``--by client`` on 100 MB: 3.3 s). On a line it matches whose head is
    plain — three or four tokens without a blank, quote or bracket, then a
    bracketed stamp without a quote or bracket — the tokens can be split one
    way only (a fourth token is the vhost), so splitting the head at its blanks
    gives the same value (a short anchored capture was still 1 us a line); the
    other lines take ``clf_value``.
    """
    easy = _plain_head(line, name)
    fast = line.str.contains(_CLF) & easy.is_not_null()
    hard = pl.when(fast).then(pl.lit("")).otherwise(line)  # an empty string costs nothing
    return pl.when(fast).then(easy).otherwise(clf_value(hard, name))


def _plain_head(line: pl.Expr, name: str) -> pl.Expr:
    """Head field ``name`` of a line whose head is plain (null on the others)."""
    three, four = line.str.contains(_HEAD3), line.str.contains(_HEAD4)
    if name == "ts":  # no token holds a bracket, and the stamp holds none
        inside = line.str.splitn("[", 2).struct.field("field_1")
        return pl.when(three | four).then(inside.str.splitn("]", 2).struct.field("field_0"))
    tokens = line.str.splitn(" ", 5)
    at = _HEAD_TOKEN[name]
    return (
        pl.when(four)
        .then(tokens.struct.field(f"field_{at + 1}"))
        .when(three)
        .then(tokens.struct.field(f"field_{at}"))
    )


def _json_value(line: pl.Expr, key: str) -> pl.Expr:
    """The value of ``key``: nested (``a.b`` = ``{"a": {"b": …}}``), else a key written with
    its dots (Zeek's ``id.orig_h``, ECS's flat ``log.level``)."""
    nested = line.str.json_path_match(jsonpath(key))
    if "." not in key:
        return nested
    return pl.coalesce(nested, line.str.json_path_match(jsonpath(key, nested=False)))


def is_named_key(name: str) -> bool:
    """Whether ``name`` can be a key of a record (JSON dotted key, logfmt key)."""
    return re.fullmatch(r"[A-Za-z_@][A-Za-z0-9_.@\-]*", name) is not None
