"""Calibrate the early stop on Dask with units completing out of order.

``--engine cluster`` (the default): one real ``distributed.LocalCluster`` of
``--workers`` worker processes on 127.0.0.1, started once and reused by every
run (a cluster's start costs seconds; a run only submits tasks). Each task of
a run sleeps a delay drawn from the run's seeded generator (0 to
``--max-delay-ms``, ``TaskOptions.delay_s``) on its worker before reading and
counting its units, so tasks finish out of order; the driver
(``distributed.feed.OrderedFeed`` over ``ordered.iter_in_order``: a bounded
submit-ahead window, early arrivals buffered, results handed to the evidence
in the permutation's order, the rest cancelled at the stop) is the one
``--engine dask`` runs. Runs go one after another (one driver).

``--engine threads``: the same driver code over a simulated cluster, a thread
pool whose tasks sleep their delay first; cheaper, runs in ``--jobs`` processes.

For each scenario of ``calibrate.py`` and each reading-order seed 0..N-1 the
engine answers top-k by 5xx; a settled or exact answer is wrong as judged
there. A scenario FAILs when its wrong count exceeds the 95 % quantile of
Binomial(N, delta) or a run crashes, and the script exits 1. The row also
says how many runs saw a result arrive before an earlier one (out of order).

Run: ``python benchmarks/calibrate_dask.py [--runs 200] [--scenarios dominant close]
[--engine cluster|threads] [--workers 2]``.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import numpy as np
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
from logagent.result import QuestionKind, Result, Status
from logagent.testing import fake_env

SCENARIOS = ("dominant", "close", "tie", "late_incident")
DEFAULT_SCENARIOS = ("dominant", "close")  # each run reads most of a small log: keep it short


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200, help="reading orders per scenario [200]")
    p.add_argument("--size-mb", type=float, default=4.0, help="log size in MB [4]")
    p.add_argument("--delta", type=float, default=0.01)
    p.add_argument("--top", type=int, default=1)
    p.add_argument(
        "--unit-size",
        default="256",
        help="unit size [256 B: a stop well before the end of a 4 MB log]",
    )
    p.add_argument("--batch-bytes", default="256KiB")
    p.add_argument("--engine", choices=("cluster", "threads"), default="cluster")
    p.add_argument("--workers", type=int, default=2, help="worker processes (threads) [2]")
    p.add_argument("--window", type=int, default=6, help="submit-ahead window [6]")
    p.add_argument("--max-delay-ms", type=float, default=20.0, help="per-task delay 0..this [20]")
    p.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(DEFAULT_SCENARIOS))
    p.add_argument("--file-seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2, help="threads engine: runs at once [2]")
    return p.parse_args(argv)


def ask(path: str, seed: int, args: argparse.Namespace, backend: Any) -> Result:
    """The engine's top-k by 5xx at delta, on ``backend``."""
    settings = load_settings(
        analysis={"seed": seed, "delta": args.delta, "degrade_above": 1.0},
        reader={"unit_size": args.unit_size, "batch_bytes": args.batch_bytes},
    )
    q = Question(kind=QuestionKind.TOP_ERRORS, top=args.top, delta=args.delta)
    return analyze([path], q, settings, replace(fake_env(), backend=backend))


def judged(scenario: str, seed: int, r: Result) -> Outcome:
    """A result as the calibration judges it."""
    if r.status is Status.PARTIAL:
        return Outcome(scenario, seed, "partial", fraction=r.progress.fraction_read)
    return outcome_of(scenario, seed, r)


def crashed(scenario: str, seed: int, exc: Exception) -> Outcome:
    """A crash is a finding."""
    return Outcome(scenario, seed, "crash", error=f"{type(exc).__name__}: {exc}")


def run_one(path: str, seed: int, args: argparse.Namespace, scenario: str) -> tuple[Outcome, bool]:
    """One seeded order through the simulated cluster; (outcome, results came out of order)."""
    ex = ThreadExecutor(args.workers, max_delay_s=args.max_delay_ms / 1000, seed=seed)
    backend = ThreadBackend(ex, window=args.window)
    try:
        r = ask(path, seed, args, backend)
    except Exception as exc:
        return crashed(scenario, seed, exc), False
    finally:
        ex.close()
    return judged(scenario, seed, r), any(f.arrived_early for f in backend.feeds)


def seeded_delays(max_delay_s: float, seed: int) -> Callable[[], float]:
    """Each task's delay, drawn in submission order from the run's own generator."""
    rng = np.random.default_rng(seed)
    return lambda: float(rng.uniform(0, max_delay_s))


def run_on_cluster(
    client: Any, path: str, seed: int, args: argparse.Namespace, scenario: str
) -> tuple[Outcome, bool]:
    """One seeded order on the real cluster, each task delayed on its worker."""
    from logagent.distributed.backend import DaskBackend

    backend = DaskBackend(
        client,
        threads=args.workers,
        description=f"calibration LocalCluster, {args.workers} workers",
        delays=seeded_delays(args.max_delay_ms / 1000, seed),
    )
    backend.window = args.window
    try:
        r = ask(path, seed, args, backend)
    except Exception as exc:
        return crashed(scenario, seed, exc), False
    feed = backend.last_feed
    return judged(scenario, seed, r), feed is not None and feed.arrived_early > 0


@contextmanager
def local_cluster(workers: int) -> Iterator[Any]:
    """One LocalCluster of single-threaded worker processes for every run."""
    from distributed import Client, LocalCluster

    for name in ("distributed", "distributed.worker", "distributed.nanny", "distributed.scheduler"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # a cluster's chatter is not the table
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def runs_of(
    scenario: str, path: str, args: argparse.Namespace, client: Any
) -> list[tuple[Outcome, bool]]:
    """Every seeded run of one scenario, on the cluster or the simulation."""
    if client is not None:
        return [run_on_cluster(client, path, s, args, scenario) for s in range(args.runs)]
    work = [(path, seed, args, scenario) for seed in range(args.runs)]
    with multiprocessing.get_context("spawn").Pool(args.jobs, initializer=quiet) as pool:
        return pool.starmap(run_one, work, chunksize=1)


def quiet() -> None:
    """Pool initializer: the engine's info logs would drown the table."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the table; exit 1 when a scenario fails."""
    args = parse_args(argv)
    quiet()
    if args.engine == "threads":
        return table(args, None)
    started = time.monotonic()
    with local_cluster(args.workers) as client:
        print(f"(cluster started in {time.monotonic() - started:.1f} s)\n")
        return table(args, client)


def table(args: argparse.Namespace, client: Any) -> int:
    """Print the table of every scenario; 1 when one fails."""
    limit = wrong_limit(args.runs, args.delta)
    where = (
        f"a LocalCluster of {args.workers} worker processes"
        if client is not None
        else f"simulated: {args.workers} threads"
    )
    print(
        f"## Early stop on Dask, units completing out of order ({where}, "
        f"window {args.window}, task delays 0-{args.max_delay_ms:g} ms)\n"
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
        runs = runs_of(scenario, str(path), args, client)
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
