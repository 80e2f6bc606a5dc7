"""Calibrate the early stop on the Dask driver with units completing out of order.

The Dask backend's driver code (``distributed.feed.OrderedFeed`` over
``ordered.iter_in_order``: a bounded submit-ahead window, early arrivals
buffered, results handed to the evidence in the permutation's order, the rest
cancelled at the stop) runs here over a *simulated* cluster: a thread pool
whose tasks each sleep a seeded random delay (0 to ``--max-delay-ms``) before
reading and counting their units, so they finish out of order. It is a
simulation, not 200 runs on real worker processes (those cost ~15 s of
cluster start each on this machine); the integration tests check on a real
cluster that the Dask path gives the local engine's very answer.

For each scenario of ``calibrate.py`` and each reading-order seed 0..N-1 the
engine answers top-k by 5xx; a settled or exact answer is wrong as judged
there. A scenario FAILs when its wrong count exceeds the 95 % quantile of
Binomial(N, delta) or a run crashes, and the script exits 1. The row also
says how many runs saw a result arrive before an earlier one (out of order).

Run: ``python benchmarks/calibrate_dask.py [--runs 200] [--scenarios dominant close]``.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import replace

import structlog
from calibrate import (
    Outcome,
    ensure_log,
    judge,
    outcome_of,
    top_errors,
    upper_bound,
    wrong_limit,
)

from logagent import Question, analyze, load_settings
from logagent.distributed.local import ThreadBackend, ThreadExecutor
from logagent.result import QuestionKind, Status
from logagent.testing import fake_env

SCENARIOS = ("dominant", "close", "tie", "late_incident")
DEFAULT_SCENARIOS = ("dominant", "close")  # each run reads most of a small log: keep it short


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200, help="reading orders per scenario [200]")
    p.add_argument("--size-mb", type=float, default=10.0, help="log size in MB [10]")
    p.add_argument("--delta", type=float, default=0.01)
    p.add_argument("--top", type=int, default=1)
    p.add_argument("--unit-size", default="1KiB")
    p.add_argument("--batch-bytes", default="256KiB")
    p.add_argument("--workers", type=int, default=3, help="simulated worker threads [3]")
    p.add_argument("--window", type=int, default=6, help="submit-ahead window [6]")
    p.add_argument("--max-delay-ms", type=float, default=20.0, help="per-task delay 0..this [20]")
    p.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(DEFAULT_SCENARIOS))
    p.add_argument("--file-seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2, help="runs at once, in processes [2]")
    return p.parse_args(argv)


def run_one(path: str, seed: int, args: argparse.Namespace, scenario: str) -> tuple[Outcome, bool]:
    """One seeded order through the simulated cluster; (outcome, results came out of order)."""
    ex = ThreadExecutor(args.workers, max_delay_s=args.max_delay_ms / 1000, seed=seed)
    backend = ThreadBackend(ex, window=args.window)
    try:
        settings = load_settings(
            analysis={"seed": seed, "delta": args.delta, "degrade_above": 1.0},
            reader={"unit_size": args.unit_size, "batch_bytes": args.batch_bytes},
        )
        q = Question(kind=QuestionKind.TOP_ERRORS, top=args.top, delta=args.delta)
        r = analyze([path], q, settings, replace(fake_env(), backend=backend))
    except Exception as exc:  # a crash is a finding
        return Outcome(scenario, seed, "crash", error=f"{type(exc).__name__}: {exc}"), False
    finally:
        ex.close()
    shuffled = any(f.arrived_early for f in backend.feeds)
    if r.status is Status.PARTIAL:
        return Outcome(scenario, seed, "partial", fraction=r.progress.fraction_read), shuffled
    return outcome_of(scenario, seed, r), shuffled


def quiet() -> None:
    """Pool initializer: the engine's info logs would drown the table."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the table; exit 1 when a scenario fails."""
    args = parse_args(argv)
    quiet()
    limit = wrong_limit(args.runs, args.delta)
    print(
        f"## Early stop on the Dask driver, units completing out of order (simulated: "
        f"{args.workers} threads, window {args.window}, delays 0-{args.max_delay_ms:g} ms)\n"
    )
    print(
        f"{args.runs} orders per scenario, delta = {args.delta}, top-{args.top}, "
        f"{args.size_mb:g} MB logs, unit {args.unit_size}; FAIL above {limit} wrong\n"
    )
    print(
        "| scenario | settled | exact | wrong | 95% upper | out of order | mean read | verdict | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    ok = True
    for scenario in args.scenarios:
        path, truth = ensure_log(scenario, args.size_mb, args.file_seed)
        ranking = top_errors(truth)
        started = time.monotonic()
        work = [(str(path), seed, args, scenario) for seed in range(args.runs)]
        with multiprocessing.get_context("spawn").Pool(args.jobs, initializer=quiet) as pool:
            runs = pool.starmap(run_one, work, chunksize=1)
        outcomes = [o for o, _ in runs]
        wrong = sum(judge(o, ranking, args.top) for o in outcomes)
        crashes = [o for o in outcomes if o.status == "crash"]
        settled = sum(o.status == "settled" for o in outcomes)
        exact = sum(o.status == "exact" for o in outcomes)
        shuffled = sum(s for _, s in runs)
        mean = sum(o.fraction for o in outcomes) / len(outcomes)
        good = wrong <= limit and not crashes
        ok = ok and good
        print(
            f"| {scenario} | {settled} | {exact} | {wrong} | {upper_bound(wrong, args.runs):.4f} | "
            f"{shuffled}/{args.runs} | {mean:.1%} | {'ok' if good else 'FAIL'} | "
            f"{time.monotonic() - started:.0f} |",
            flush=True,
        )
        for o in crashes[:3]:
            print(f"  crash seed {o.seed}: {o.error}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
