"""Benchmark --engine dask: 1 vs 2 local worker processes on the 10 GB log.

For each worker count a ``LocalCluster`` is started (its start-up is timed
apart), then the engine answers top-errors (top-1) with the early stop and
(top-5) with ``--full``; each row gives the wall time, the bytes read, the tasks and the
units. The local engine's early stop is the reference row. The scheduling
overhead is measured apart: a round of no-op tasks through the same driver
code (window, in-order hand-over) gives the cost of one task, so per GB it is
that cost times the tasks a GB takes (a task holds one batch of units).

Run: ``python benchmarks/dask_bench.py [--log benchmarks/data/dominant_10000mb_s1.log]
[--workers 1 2] [--no-full]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import structlog

from logagent import Question, analyze, load_settings
from logagent.engine.run import RunEnv
from logagent.result import QuestionKind, Result

HERE = Path(__file__).resolve().parent
LOG = HERE / "data" / "dominant_10000mb_s1.log"
NOOP_TASKS = 200


def noop(i: int) -> int:
    """A task that does nothing: its round trip is pure scheduling."""
    return i


def run(path: Path, backend: Any, *, full: bool) -> tuple[Result, float]:
    """One analysis (top-1 early stop, or top-5 --full); (result, wall seconds)."""
    settings = load_settings(analysis={"seed": 1, "full": full})
    started = time.monotonic()
    r = analyze(
        [str(path)],
        Question(kind=QuestionKind.TOP_ERRORS, top=5 if full else 1),
        settings,
        replace(RunEnv(), backend=backend),
    )
    return r, time.monotonic() - started


def overhead_s(backend: Any) -> float:
    """Seconds of scheduling per task: no-op tasks through the driver's ordered window."""
    from logagent.distributed.ordered import iter_in_order

    tasks = ((noop, (i,)) for i in range(NOOP_TASKS))
    started = time.monotonic()
    for _ in iter_in_order(backend.executor, tasks, window=backend.window, poll_s=0.05):
        pass
    return (time.monotonic() - started) / NOOP_TASKS


def row(name: str, r: Result, wall: float, tasks: int | str) -> str:
    """One table row."""
    p = r.progress
    return (
        f"| {name} | {r.status.value} | {wall:.1f} | {p.bytes_read / 1e9:.2f} | "
        f"{p.fraction_read:.1%} | {p.units_read} | {tasks} | {p.bytes_read / 1e6 / wall:.0f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", type=Path, default=LOG)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--no-full", action="store_true", help="skip the --full rows")
    args = p.parse_args(argv)
    if not args.log.exists():
        print(f"skipped: {args.log} is missing (see benchmarks/bench.py for the data)")
        return 0
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from logagent.distributed.backend import dask_backend

    size_gb = args.log.stat().st_size / 1e9
    print(
        f"## --engine dask on {args.log.name} ({size_gb:.1f} GB), top-errors: -k 1 early stop, -k 5 --full\n"
    )
    print("| run | status | wall s | GB read | read | units | tasks | MB/s |")
    print("|---|---|---|---|---|---|---|---|")
    r, wall = run(args.log, None, full=False)
    print(row("local engine, early stop", r, wall, "-"), flush=True)
    notes = []
    for n in args.workers:
        started = time.monotonic()
        with dask_backend(scheduler=None, workers=n, memory_limit_bytes=None) as backend:
            start_s = time.monotonic() - started
            r, wall = run(args.log, backend, full=False)
            feed, steps = backend.last_feed, len(backend.last_notes)
            print(
                row(f"dask {n} worker(s), early stop", r, wall, feed.submitted if feed else 0),
                flush=True,
            )
            if not args.no_full:
                r, wall = run(args.log, backend, full=True)
                print(row(f"dask {n} worker(s), --full", r, wall, "tree"), flush=True)
            per_task = overhead_s(backend)
            unit = r.progress.units_read and r.progress.bytes_read / r.progress.units_read
            settings = load_settings()
            per_gb_tasks = 1e9 / settings.reader.batch_bytes  # a full read's task holds one batch
            notes.append(
                f"- {n} worker(s): cluster start {start_s:.1f} s; one task's scheduling "
                f"{per_task * 1e3:.2f} ms; a full read's {per_gb_tasks:.0f} tasks/GB cost "
                f"{per_task * per_gb_tasks:.2f} s/GB of scheduling "
                f"({per_task / max(1, settings.reader.batch_bytes / max(unit, 1)) * 1e6:.1f} us per unit); "
                f"tasks of the early stop whose worker took a memory step: {steps}"
            )
    print("\n" + "\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
