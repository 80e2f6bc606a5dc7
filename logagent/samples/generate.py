"""EDGE module: writes a synthetic access log and its ground-truth sidecar.

The PURE parts (routes, plan, fields, render, junk, truth) build the
lines and counts in memory; this module only sizes the file, schedules
blocks on two threads (in order, at most a few blocks in flight so memory
stays bounded), writes the bytes and the ``<path>.truth.json`` sidecar.
"""

from __future__ import annotations

import functools
import json
import os
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, BinaryIO

import numpy as np

from ._arrow import string_data
from .fields import I64, ip_pool
from .junk import MEAN_LINE_BYTES, junk_block
from .plan import LATE_SCENARIOS, SCENARIOS, ErrorPlan, make_plan
from .render import FORMATS, Block, Context, build_model, render_block
from .routes import high_cardinality_routes, standard_routes
from .truth import TruthCounter, truth_dict

BLOCK_RECORDS = 50_000
MB = 1_000_000
PILOT_RECORDS = 4_000
VALID_FRACTION = 0.001
_IN_FLIGHT = 2


def _stream(scenario: str) -> int:
    """Stable integer id of a scenario for seeding."""
    return zlib.crc32(scenario.encode())


def base_context(scenario: str, fmt: str, seed: int) -> Context:
    """Context with an empty plan and a placeholder record count."""
    wide = scenario == "high_cardinality"
    routes = high_cardinality_routes() if wide else standard_routes()
    empty = np.zeros(0, dtype=np.int64)
    ips = ip_pool(np.random.default_rng([seed, _stream(scenario), 1]), 100_000)
    return Context(
        build_model(routes, wide),
        ErrorPlan(empty, empty, empty, 0),
        1,
        fmt,
        seed,
        _stream(scenario),
        ips,
    )


def with_records(ctx: Context, n_records: int, scenario: str) -> Context:
    """Same context sized to ``n_records`` with the scenario's 5xx plan."""
    rng = np.random.default_rng([ctx.seed, ctx.stream, 2])
    plan = make_plan(scenario, ctx.model.routes, n_records, rng)
    return Context(ctx.model, plan, n_records, ctx.fmt, ctx.seed, ctx.stream, ctx.ips)


def mean_record_bytes(ctx: Context) -> float:
    """Average rendered line length, measured on a pilot block."""
    pilot = Context(ctx.model, ctx.plan, PILOT_RECORDS, ctx.fmt, ctx.seed, ctx.stream + 1, ctx.ips)
    return len(string_data(render_block(pilot, 0, 0, PILOT_RECORDS).lines)) / PILOT_RECORDS


def ordered(tasks: Iterator[Callable[[], Any]]) -> Iterator[Any]:
    """Run tasks on two threads; yield results in submission order."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        pending: deque[Future[Any]] = deque()
        for task in tasks:
            pending.append(pool.submit(task))
            if len(pending) >= _IN_FLIGHT:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _render_at(ctx: Context, no: int, first: int, n: int) -> tuple[int, Block]:
    """Render one block and tag it with its first record."""
    return first, render_block(ctx, no, first, n)


def block_tasks(ctx: Context) -> Iterator[Callable[[], tuple[int, Block]]]:
    """One render task per block of BLOCK_RECORDS records."""
    for no, first in enumerate(range(0, ctx.n_records, BLOCK_RECORDS)):
        n = min(BLOCK_RECORDS, ctx.n_records - first)
        yield functools.partial(_render_at, ctx, no, first, n)


def write_records(fh: BinaryIO, ctx: Context, counter: TruthCounter) -> int:
    """Write all records of ``ctx``; return bytes written."""
    written = 0
    for first, block in ordered(block_tasks(ctx)):
        written += fh.write(string_data(block.lines))
        counter.add(block, first)
    return written


def valid_positions(ctx: Context, n_lines: int, n_valid: int) -> I64:
    """Sorted line numbers where the garbage file's valid lines go."""
    rng = np.random.default_rng([ctx.seed, ctx.stream, 3])
    return np.sort(rng.choice(n_lines, n_valid, replace=False))


def garbage_piece(
    ctx: Context, where: I64, no: int, span: tuple[int, int]
) -> tuple[int, Block | None, bytes]:
    """Junk lines [a, b) of the file with its valid lines spliced in."""
    a, b = span
    lo, hi = (int(x) for x in np.searchsorted(where, [a, b]))
    rng = np.random.default_rng([ctx.seed, ctx.stream, 4, no])
    buf, starts = junk_block(rng, (b - a) - (hi - lo), force_long=no == 0)
    if hi == lo:
        return lo, None, buf.tobytes()
    block = render_block(ctx, no, lo, hi - lo)
    text = bytes(string_data(block.lines))
    cuts = np.append(starts, len(buf))[where[lo:hi] - a - np.arange(hi - lo)]
    valid = text.split(b"\n")[:-1]
    pieces = np.split(buf, cuts)
    out = [pieces[0].tobytes()]
    for line, piece in zip(valid, pieces[1:], strict=True):
        out += [line, b"\n", piece.tobytes()]
    return lo, block, b"".join(out)


def write_garbage(fh: BinaryIO, ctx: Context, counter: TruthCounter, n_lines: int) -> int:
    """Write junk with ``ctx.n_records`` valid lines sprinkled in."""
    where = valid_positions(ctx, n_lines, ctx.n_records)
    spans = [(a, min(a + BLOCK_RECORDS, n_lines)) for a in range(0, n_lines, BLOCK_RECORDS)]
    tasks = (functools.partial(garbage_piece, ctx, where, no, s) for no, s in enumerate(spans))
    written = 0
    for first, block, data in ordered(tasks):
        written += fh.write(data)
        if block is not None:
            counter.add(block, first)
    return written


def sized_context(scenario: str, fmt: str, seed: int, size_mb: float) -> tuple[Context, int]:
    """Context sized for ``size_mb`` (1 MB = 10**6 bytes) and line count."""
    base = base_context(scenario, fmt, seed)
    target = size_mb * MB
    if scenario == "garbage":
        n_lines = max(1, round(target / MEAN_LINE_BYTES))
        n_valid = max(1, round(VALID_FRACTION * n_lines))
        return with_records(base, n_valid, scenario), n_lines
    n_records = max(1, round(target / mean_record_bytes(base)))
    return with_records(base, n_records, scenario), n_records


def check_args(scenario: str, fmt: str, size_mb: float, seed: int) -> None:
    """Reject unknown scenarios/formats, non-positive sizes and negative seeds."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; one of {SCENARIOS}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {FORMATS}")
    if not size_mb > 0:
        raise ValueError(f"size_mb must be > 0, got {size_mb}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")


def generate(
    path: str | os.PathLike[str], *, scenario: str, size_mb: float, seed: int, fmt: str = "combined"
) -> dict[str, Any]:
    """Write a synthetic access log to ``path`` and its ground truth.

    The truth (counted while generating) is written to
    ``<path>.truth.json`` and returned.  Same arguments -> same bytes.
    """
    check_args(scenario, fmt, size_mb, seed)
    ctx, n_lines = sized_context(scenario, fmt, seed, size_mb)
    counter = TruthCounter(ctx.model.routes, ctx.plan.prefix_records, ctx.n_records)
    with open(path, "wb") as fh:
        if scenario == "garbage":
            written = write_garbage(fh, ctx, counter, n_lines)
        else:
            written = write_records(fh, ctx, counter)
    meta = {
        "scenario": scenario,
        "seed": seed,
        "format": fmt,
        "bytes": written,
        "lines": n_lines,
        "valid_lines": ctx.n_records,
    }
    truth = truth_dict(counter, meta, scenario in LATE_SCENARIOS)
    with open(f"{os.fspath(path)}.truth.json", "w", encoding="utf-8") as fh:
        json.dump(truth, fh, indent=1)
        fh.write("\n")
    return truth
