"""PURE module: render JSON-lines application log records, vectorized.

Each record is one of ``TEMPLATES`` (INFO noise, WARN and ERROR types), written
as ``{"ts": ..., "level": ..., "logger": ..., "message": ...}``. The variable
parts (ids, UUIDs, hosts, durations, e-mails, paths, free words) are drawn per
record from seeded generators, so they take millions of distinct values in a
large file; a block of records is rendered from ``(seed, block number)`` alone,
so blocks can be rendered in any order with the same bytes. Messages never
hold ``"`` or ``\\``, so the JSON needs no escaping.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import polars as pl

#: Time of the first record; successive records are 0-40 ms apart.
START = datetime(2026, 11, 28, tzinfo=UTC)
TIME_ZONE = "Europe/Paris"
_WORD_TEXT = (
    "amber birch cedar delta ember falcon garnet harbor indigo juniper kestrel lagoon "
    "maple nectar onyx pepper quartz raven saffron tundra umber violet willow xenon yarrow "
    "zephyr alder bramble cobalt dune"
)
WORDS = tuple(_WORD_TEXT.split())


@dataclass(frozen=True)
class AppTemplate:
    """One message type: level, loggers it is written by, weight, text with ``{slot}`` parts."""

    key: str
    level: str
    loggers: tuple[str, ...]
    weight: float
    text: str


def _t(key: str, level: str, loggers: str, weight: float, text: str) -> AppTemplate:
    return AppTemplate(key, level, tuple(loggers.split()), weight, text)


TEMPLATES: tuple[AppTemplate, ...] = (
    _t("info.request", "INFO", "svc.api", 40, "Request {uuid} completed in {ms}"),
    _t("info.login", "INFO", "svc.auth", 15, "User {email} logged in from {ip}"),
    _t(
        "info.batch",
        "INFO",
        "svc.orders svc.scheduler",
        15,
        "Processed batch {id} with {num} items",
    ),
    _t("info.heartbeat", "INFO", "svc.api", 10, "Heartbeat ok"),
    _t("warn.slow", "WARN", "db.pool", 3, "Slow query took {ms} on table {word}"),
    _t(
        "warn.retry",
        "WARN",
        "http.client",
        2.5,
        "Retrying request {uuid} to {host} (attempt {num})",
    ),
    _t("warn.memory", "WARN", "svc.api svc.orders", 1.5, "Memory usage at {num}% of limit"),
    _t("warn.deprecated", "WARN", "svc.api", 1, "Deprecated API {path} called by {email}"),
    _t(
        "warn.ratelimit",
        "WARN",
        "svc.api",
        1,
        "Rate limit near for client {ip}: {num} requests in {sec}",
    ),
    _t("warn.cacheratio", "WARN", "cache.redis", 0.5, "Cache miss ratio {frac} above threshold"),
    _t(
        "err.pay.declined",
        "ERROR",
        "svc.payments",
        2.4,
        "Payment declined for order {id} by {email}: card expired",
    ),
    _t(
        "err.pay.timeout",
        "ERROR",
        "svc.payments",
        1.8,
        "Timeout after {ms} calling acquirer at {host}",
    ),
    _t(
        "err.db.pool",
        "ERROR",
        "db.pool",
        1.4,
        "Connection pool exhausted: {num} waiters, gave up after {ms}",
    ),
    _t(
        "err.db.deadlock",
        "ERROR",
        "db.pool svc.orders",
        1.1,
        "Deadlock detected in transaction {hex}, rolled back",
    ),
    _t("err.auth.token", "ERROR", "svc.auth", 1.0, "Invalid token for user {email} from {ip}"),
    _t(
        "err.auth.locked",
        "ERROR",
        "svc.auth",
        0.9,
        "Account {id} locked after {num} failed attempts",
    ),
    _t("err.order.missing", "ERROR", "svc.orders", 0.8, "Order {uuid} not found in shard {num}"),
    _t(
        "err.order.stock",
        "ERROR",
        "svc.orders",
        0.7,
        "Insufficient stock for sku {hex} in warehouse {word}",
    ),
    _t(
        "err.http.upstream",
        "ERROR",
        "http.client",
        0.65,
        "Upstream {host} returned {status} after {ms}",
    ),
    _t(
        "err.http.reset",
        "ERROR",
        "http.client",
        0.6,
        "Connection reset by peer {ip} while reading response body",
    ),
    _t(
        "err.blob.space",
        "ERROR",
        "storage.blob",
        0.55,
        "Failed to write {path}: No space left on device",
    ),
    _t(
        "err.blob.perm",
        "ERROR",
        "storage.blob",
        0.5,
        "Permission denied opening {path} for user {word}",
    ),
    _t(
        "err.queue.lag",
        "ERROR",
        "queue.kafka",
        0.45,
        "Consumer {word} lagging {num} messages behind on partition {num}",
    ),
    _t(
        "err.queue.publish",
        "ERROR",
        "queue.kafka",
        0.4,
        "Publish to topic {word} failed after {num} retries",
    ),
    _t(
        "err.cache.down",
        "ERROR",
        "cache.redis",
        0.35,
        "Cache node {host} unreachable, evicting {num} keys",
    ),
    _t(
        "err.cache.decode",
        "ERROR",
        "cache.redis",
        0.3,
        "Cannot deserialize cached value for key {hex}",
    ),
    _t("err.mail.bounce", "ERROR", "svc.notify", 0.3, "Mail to {email} bounced: mailbox full"),
    _t("err.job.late", "ERROR", "svc.scheduler", 0.25, "Job {uuid} missed its schedule by {sec}"),
    _t(
        "err.job.crash",
        "ERROR",
        "svc.scheduler",
        0.25,
        "Worker {id} crashed with exit code {num} after {sec}",
    ),
    _t(
        "err.tls.expired",
        "ERROR",
        "http.client",
        0.2,
        "TLS handshake with {ip} failed: certificate expired {num} days ago",
    ),
)

LOGGERS: tuple[str, ...] = tuple(sorted({lg for t in TEMPLATES for lg in t.loggers}))
MAX_LOGGERS = max(len(t.loggers) for t in TEMPLATES)


def _ints(rng: np.random.Generator, n: int, lo: int, hi: int) -> pl.Series:
    return pl.Series(rng.integers(lo, hi, n)).cast(pl.String)


_HEX_PAIRS = np.asarray([f"{b:02x}" for b in range(256)])


def _hex(rng: np.random.Generator, n: int, nbytes: int) -> pl.Series:
    # A lookup per byte, then each row's pairs viewed as one string (no Python loop).
    pairs = _HEX_PAIRS[rng.integers(0, 256, (n, nbytes))]
    return pl.Series(np.ascontiguousarray(pairs).view(f"<U{2 * nbytes}").ravel())


def _uuid(rng: np.random.Generator, n: int) -> pl.Series:
    h = pl.DataFrame({"h": _hex(rng, n, 16)})
    cuts = ((0, 8), (8, 4), (12, 4), (16, 4), (20, 12))
    parts = [pl.col("h").str.slice(a, k) for a, k in cuts]
    return h.select(pl.concat_str(parts, separator="-")).to_series()


def _join(*cols: pl.Series | str) -> pl.Series:
    exprs = [pl.lit(c) for c in cols]
    return pl.select(pl.concat_str(exprs)).to_series()


def _words(rng: np.random.Generator, n: int) -> pl.Series:
    return pl.Series(np.asarray(WORDS)[rng.integers(0, len(WORDS), n)])


SLOTS: dict[str, Callable[[np.random.Generator, int], pl.Series]] = {
    "id": lambda r, n: _ints(r, n, 1, 10**9),
    "num": lambda r, n: _ints(r, n, 1, 5000),
    "status": lambda r, n: pl.Series(r.choice([500, 502, 503, 504], n)).cast(pl.String),
    "ms": lambda r, n: _join(_ints(r, n, 1, 60_000), "ms"),
    "sec": lambda r, n: _join(_ints(r, n, 1, 600), ".", _ints(r, n, 0, 10), "s"),
    "frac": lambda r, n: _join("0.", _ints(r, n, 10, 100)),
    "uuid": _uuid,
    "hex": lambda r, n: _hex(r, n, 8),
    "ip": lambda r, n: _join(*[x for i in range(4) for x in (_ints(r, n, 1, 255), ".")][:-1]),
    "host": lambda r, n: _join(
        _words(r, n), "-", _ints(r, n, 1, 400), ".prod.internal:", _ints(r, n, 1024, 65535)
    ),
    "email": lambda r, n: _join(
        _words(r, n), ".", _ints(r, n, 1, 10**6), "@example-", _ints(r, n, 1, 50), ".com"
    ),
    "path": lambda r, n: _join(
        "/var/lib/",
        _words(r, n),
        "/",
        _ints(r, n, 1, 10**5),
        "/part-",
        _ints(r, n, 0, 10**4),
        ".parquet",
    ),
    "word": _words,
}


def split_text(text: str) -> list[tuple[str, str]]:
    """``"a {x} b"`` -> ``[("a ", "x"), (" b", "")]``: literal then slot name (empty at the end)."""
    out: list[tuple[str, str]] = []
    rest = text
    while "{" in rest:
        head, tail = rest.split("{", 1)
        slot, rest = tail.split("}", 1)
        out.append((head, slot))
    out.append((rest, ""))
    return out


def render_messages(tpl: AppTemplate, rng: np.random.Generator, n: int) -> pl.Series:
    """``n`` messages of one template with fresh variable parts."""
    cols: list[pl.Series | str] = []
    for literal, slot in split_text(tpl.text):
        cols.append(literal)
        if slot:
            cols.append(SLOTS[slot](rng, n))
    if n == 0:
        return pl.Series([], dtype=pl.String)
    if all(isinstance(c, str) for c in cols):
        return pl.Series([tpl.text] * n, dtype=pl.String)
    return _join(*cols)


@dataclass(frozen=True)
class AppBlock:
    """Rendered lines of a block plus each record's template and logger indices (for truth)."""

    lines: pl.Series
    templates: np.ndarray
    loggers: np.ndarray


def render_block(seed: int, block_no: int, first: int, n: int) -> AppBlock:
    """Records ``first .. first+n`` of the file as JSON lines."""
    rng = np.random.default_rng([seed, 7, block_no])
    weights = np.asarray([t.weight for t in TEMPLATES])
    tpl = rng.choice(len(TEMPLATES), n, p=weights / weights.sum())
    pick = rng.integers(0, MAX_LOGGERS, n)
    messages = pl.Series("message", [None] * n, dtype=pl.String)
    loggers = np.zeros(n, dtype=np.int64)
    for i, t in enumerate(TEMPLATES):
        rows = np.flatnonzero(tpl == i)
        if len(rows):
            messages = messages.scatter(rows, render_messages(t, rng, len(rows)))
            idx = [LOGGERS.index(lg) for lg in t.loggers]
            loggers[rows] = np.asarray(idx)[pick[rows] % len(idx)]
    return AppBlock(_json_lines(rng, first, n, tpl, loggers, messages), tpl, loggers)


def _json_lines(
    rng: np.random.Generator,
    first: int,
    n: int,
    tpl: np.ndarray,
    loggers: np.ndarray,
    msg: pl.Series,
) -> pl.Series:
    """Assemble ``{"ts":..,"level":..,"logger":..,"message":..}`` lines (no trailing newline)."""
    # Record k is at START + k * 20 ms + jitter: increasing, deterministic per block.
    ms = (np.arange(first, first + n) * 20 + rng.integers(0, 20, n)).astype("int64")
    ts = (
        pl.Series(ms)
        .cast(pl.Datetime("ms", "UTC"))
        .dt.offset_by(f"{int(START.timestamp())}s")
        .dt.convert_time_zone(TIME_ZONE)
        .dt.strftime("%Y-%m-%dT%H:%M:%S%.3f%:z")
    )
    levels = pl.Series(np.asarray([t.level for t in TEMPLATES])[tpl])
    names = pl.Series(np.asarray(LOGGERS)[loggers])
    return _join(
        '{"ts":"', ts, '","level":"', levels, '","logger":"', names, '","message":"', msg, '"}'
    )
