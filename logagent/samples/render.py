"""PURE module: render a block of log records as text lines, vectorized.

A block is a contiguous range of record indices.  All randomness comes
from a generator seeded by (seed, stream, block number), so blocks can be
rendered in any order or in parallel and the output is still
deterministic.  Besides the text, a block reports each record's route and
status (for ground truth) and the raw paths of its 5xx records.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrow import ArrowArray, ints_to_strings, join, pc, strings_from_pylist
from .fields import (
    F64,
    I64,
    PROBE_UA,
    PROTOCOL_WEIGHTS,
    PROTOCOLS,
    QUERY_PREFIXES,
    QUERY_WEIGHTS,
    REFERER_WEIGHTS,
    REFERERS,
    U64,
    UA_WEIGHTS,
    USER_AGENTS,
    USER_WEIGHTS,
    USERS,
    cond_sample,
    empty_if,
    flatten_cdf,
    pool,
    probabilities,
    record_times_ms,
    slot_strings,
    time_pools,
)
from .plan import ErrorPlan, hide_route
from .routes import (
    KIND_MIX,
    KIND_SIZE,
    MAX_SLOTS,
    METHODS,
    OK_CODES,
    Route,
    cdf_rows,
    split_template,
    traffic_weights,
)

FORMATS = ("combined", "common", "jsonl")
_OK = np.asarray(OK_CODES, dtype=np.int64)
_HEX_LENS = (24, 32, 40)
_INTERNAL_IPS = ("10.42.0.1", "10.42.1.1", "10.42.2.1")


@dataclass(frozen=True)
class Model:
    """Static, seed-free description of the routes of a scenario."""

    routes: list[Route]
    fixed: tuple[ArrowArray, ...]
    slot_types: I64
    hex_lens: I64
    traffic_cdf: F64
    method_cdf: F64
    status_cdf: F64
    body_median: F64
    time_median: F64
    query_cdf: F64
    probe: np.ndarray
    wide_keys: bool


@dataclass(frozen=True)
class Context:
    """Everything needed to render any block of one file."""

    model: Model
    plan: ErrorPlan
    n_records: int
    fmt: str
    seed: int
    stream: int
    ips: ArrowArray


@dataclass(frozen=True)
class Block:
    """Rendered lines of one block plus the facts the truth needs."""

    lines: ArrowArray
    routes: I64
    codes: I64
    error_paths: ArrowArray


def _route_factor(template: str) -> float:
    """Stable per-route multiplier in [0.5, 2.5) for sizes and timings."""
    return 0.5 + (zlib.crc32(template.encode()) % 1000) / 500.0


def build_model(routes: list[Route], wide_keys: bool = False) -> Model:
    """Precompute lookup arrays for ``routes``."""
    parts = [split_template(r.template) for r in routes]
    fixed = tuple(strings_from_pylist([p[0][j] for p in parts]) for j in range(MAX_SLOTS + 1))
    hex_lens = [[_HEX_LENS[(len(r.template) + j) % 3] for j in range(3)] for r in routes]
    traffic = np.cumsum(traffic_weights(len(routes), 0.7 if wide_keys else 1.05))
    traffic[-1] = 1.0
    factor = np.array([_route_factor(r.template) for r in routes])
    return Model(
        routes=routes,
        fixed=fixed,
        slot_types=np.asarray([p[1] for p in parts], dtype=np.int64),
        hex_lens=np.asarray(hex_lens, dtype=np.int64),
        traffic_cdf=traffic,
        method_cdf=flatten_cdf(cdf_rows([list(KIND_MIX[r.kind][0]) for r in routes])),
        status_cdf=flatten_cdf(
            cdf_rows([[KIND_MIX[r.kind][1].get(c, 0.0) for c in OK_CODES] for r in routes])
        ),
        body_median=factor * [KIND_SIZE[r.kind][0] for r in routes],
        time_median=factor * [KIND_SIZE[r.kind][1] for r in routes],
        query_cdf=flatten_cdf(
            cdf_rows([list(QUERY_WEIGHTS[query_family(r.kind)]) for r in routes])
        ),
        probe=np.array([r.kind == "health" for r in routes]),
        wide_keys=wide_keys,
    )


def block_rng(ctx: Context, block_no: int) -> np.random.Generator:
    """Independent deterministic generator of one block."""
    return np.random.default_rng([ctx.seed, ctx.stream, block_no])


def draw_core(
    ctx: Context, rng: np.random.Generator, first: int, n: int
) -> tuple[I64, I64, I64, I64]:
    """Routes, method indices, status codes and local 5xx positions."""
    m, plan = ctx.model, ctx.plan
    r = np.searchsorted(m.traffic_cdf, rng.random(n), side="right")
    r = hide_route(plan, np.minimum(r, len(m.routes) - 1).astype(np.int64), first)
    lo, hi = np.searchsorted(plan.positions, [first, first + n])
    local = plan.positions[lo:hi] - first
    r[local] = plan.routes[lo:hi]
    methods = cond_sample(m.method_cdf, len(METHODS), r, rng.random(n))
    codes = _OK[cond_sample(m.status_cdf, len(OK_CODES), r, rng.random(n))]
    codes[local] = plan.codes[lo:hi]
    return r, methods, codes, local


def slot_keys(ctx: Context, rng: np.random.Generator, n: int) -> U64:
    """Placeholder keys: skewed popular ids, or huge ranges when wide."""
    if ctx.model.wide_keys:
        return rng.integers(1, 2**62, n, dtype=np.uint64)
    keys: U64 = np.exp(rng.random(n) * np.log(1e6)).astype(np.uint64)
    return keys


def build_paths(ctx: Context, rng: np.random.Generator, r: I64) -> ArrowArray:
    """Raw request paths (no query) filling the routes' placeholders."""
    m = ctx.model
    parts: list[ArrowArray] = [m.fixed[0].take(r)]
    for j in range(MAX_SLOTS):
        keys = slot_keys(ctx, rng, len(r))
        parts.append(slot_strings(m.slot_types[r, j], keys, m.hex_lens[r, j]))
        parts.append(m.fixed[j + 1].take(r))
    return join(parts)


def query_family(kind: str) -> str:
    """Which query-string family a route kind uses."""
    return kind if kind in ("static", "page") else "api"


def build_query(ctx: Context, rng: np.random.Generator, r: I64) -> ArrowArray:
    """Query strings: 35 % of non-probe requests, ~30 % of all lines."""
    n, probe = len(r), ctx.model.probe[r]
    has_q = (rng.random(n) < 0.35) & ~probe
    which = cond_sample(ctx.model.query_cdf, len(QUERY_PREFIXES) - 1, r, rng.random(n))
    which = (which + 1) * has_q
    value = np.exp(rng.random(n) * np.log(100_000)).astype(np.int64)
    return join([pool(QUERY_PREFIXES).take(which), empty_if(~has_q, ints_to_strings(value))])


def body_bytes(ctx: Context, rng: np.random.Generator, r: I64, codes: I64) -> I64:
    """Response body sizes: per-route lognormal, fixed-ish error pages."""
    size = ctx.model.body_median[r] * rng.lognormal(0.0, 0.7, len(r))
    table = np.full(600, -1, dtype=np.int64)
    table[[204, 304, 499]] = 0
    table[[301, 302, 400, 401, 403, 404, 405, 409, 422, 429]] = [
        169,
        145,
        157,
        179,
        153,
        153,
        157,
        60,
        88,
        169,
    ]
    table[[500, 502, 503, 504]] = [177, 157, 197, 167]
    fixed = table[codes]
    jitter = rng.integers(0, 40, len(r)) * ((codes >= 400) & (codes < 500))
    return np.where(fixed >= 0, fixed + jitter, size.astype(np.int64))


def request_ms(ctx: Context, rng: np.random.Generator, r: I64, codes: I64) -> I64:
    """Request time in ms: per-route lognormal, error-specific shapes."""
    base = ctx.model.time_median[r] * rng.lognormal(0.0, 0.9, len(r))
    n = len(r)
    ms = np.where(np.isin(codes, [301, 302, 304]), base * 0.3, base)
    ms = np.where(codes == 499, base * 25, ms)
    ms = np.where(codes == 500, base * 3, ms)
    ms = np.where(codes == 502, rng.integers(1, 40, n), ms)
    ms = np.where(codes == 503, rng.integers(0, 3, n), ms)
    ms = np.where(codes == 504, 60_000 + rng.integers(0, 25, n), ms)
    return ms.astype(np.int64)


def choose(
    rng: np.random.Generator, values: tuple[str, ...], weights: tuple[int, ...], n: int
) -> ArrowArray:
    """n strings drawn from ``values`` with ``weights``."""
    idx = rng.choice(len(values), n, p=probabilities(weights))
    return pool(values).take(idx)


def client_ips(ctx: Context, rng: np.random.Generator, probe: np.ndarray) -> ArrowArray:
    """Skewed client addresses; health probes come from internal IPs."""
    n = len(probe)
    size = len(ctx.ips)
    ext = ctx.ips.take((size * rng.random(n) ** 3).astype(np.int64))
    internal = pool(_INTERNAL_IPS).take(rng.integers(0, 3, n))
    return pc.if_else(probe, internal, ext)


def user_agents(rng: np.random.Generator, probe: np.ndarray) -> ArrowArray:
    """User agents; health probes use the kubernetes probe agent."""
    idx = rng.choice(len(USER_AGENTS), len(probe), p=probabilities(UA_WEIGHTS))
    idx[probe] = PROBE_UA
    return pool(USER_AGENTS).take(idx)


def seconds_text(ms: I64) -> list[ArrowArray]:
    """Pieces rendering milliseconds as seconds with 3 decimals."""
    return [ints_to_strings(ms // 1000), ".", time_pools()[2].take(ms % 1000)]


@dataclass(frozen=True)
class Fields:
    """Per-line field columns shared by all output formats."""

    ip: ArrowArray
    time_ms: I64
    method: ArrowArray
    target: ArrowArray
    protocol: ArrowArray
    status: ArrowArray
    body: I64
    referer: ArrowArray
    agent: ArrowArray
    user: ArrowArray
    request_ms: I64


def draw_fields(
    ctx: Context, rng: np.random.Generator, first: int, core: tuple[I64, I64, I64], path: ArrowArray
) -> Fields:
    """Draw every remaining column of a block (same draws for all formats)."""
    r, methods, codes = core
    probe = ctx.model.probe[r]
    n = len(r)
    return Fields(
        ip=client_ips(ctx, rng, probe),
        time_ms=record_times_ms(first, n, ctx.n_records),
        method=pool(METHODS).take(methods),
        target=join([path, build_query(ctx, rng, r)]),
        protocol=choose(rng, PROTOCOLS, PROTOCOL_WEIGHTS, n),
        status=ints_to_strings(codes),
        body=body_bytes(ctx, rng, r, codes),
        referer=empty_if(probe, choose(rng, REFERERS, REFERER_WEIGHTS, n), "-"),
        agent=user_agents(rng, probe),
        user=choose(rng, USERS, USER_WEIGHTS, n),
        request_ms=request_ms(ctx, rng, r, codes),
    )


def combined_lines(f: Fields) -> ArrowArray:
    """nginx combined format plus trailing request time."""
    clf = time_pools()[0].take(f.time_ms // 1000)
    return join(
        [
            f.ip,
            " - - [",
            clf,
            *_request_status(f),
            ints_to_strings(f.body),
            ' "',
            f.referer,
            '" "',
            f.agent,
            '" ',
            *seconds_text(f.request_ms),
            "\n",
        ]
    )


def _request_status(f: Fields) -> list[Any]:
    """The part both CLF formats share after the timestamp: '] "GET /x HTTP/1.1" 503 '."""
    return ['] "', f.method, " ", f.target, " ", f.protocol, '" ', f.status, " "]


def common_lines(f: Fields) -> ArrowArray:
    """Apache common log format ('-' for an empty body)."""
    clf = time_pools()[0].take(f.time_ms // 1000)
    body = pc.if_else(pc.equal(f.body, 0), "-", ints_to_strings(f.body))
    return join(
        [
            f.ip,
            " - ",
            f.user,
            " [",
            clf,
            *_request_status(f),
            body,
            "\n",
        ]
    )


def jsonl_lines(f: Fields) -> ArrowArray:
    """One JSON object per line with the fixed key order."""
    _, iso, millis = time_pools()
    return join(
        [
            '{"time":"',
            iso.take(f.time_ms // 1000),
            ".",
            millis.take(f.time_ms % 1000),
            'Z","remote_addr":"',
            f.ip,
            '","method":"',
            f.method,
            '","path":"',
            f.target,
            '","status":',
            f.status,
            ',"bytes":',
            ints_to_strings(f.body),
            ',"request_time":',
            *seconds_text(f.request_ms),
            ',"user_agent":"',
            f.agent,
            '"}\n',
        ]
    )


_FORMATTERS = {"combined": combined_lines, "common": common_lines, "jsonl": jsonl_lines}


def render_block(ctx: Context, block_no: int, first: int, n: int) -> Block:
    """Render records [first, first + n) of the file."""
    rng = block_rng(ctx, block_no)
    r, methods, codes, local = draw_core(ctx, rng, first, n)
    path = build_paths(ctx, rng, r)
    fields = draw_fields(ctx, rng, first, (r, methods, codes), path)
    is_error = np.zeros(n, dtype=bool)
    is_error[local] = True
    return Block(_FORMATTERS[ctx.fmt](fields), r, codes, path.filter(is_error))
