"""Calibrate the stops of a healthy or doomed log: ``--negligible`` and the format abort.

Two families of rows, each over N seeded reading orders of one file, with the
real engine in-process on a pool of 2 workers (as ``calibrate.py``):

* **negligible** (top-errors with ``--negligible RATE``): ``no_errors`` (the
  generator's scenario: the claim is right), and access logs whose 5xx are
  *just above* RATE of the lines, spread or packed in bursts (the claim is
  wrong). *wrong* = claimed negligible while the true 5xx share of the lines is
  at or above RATE; the claim's alpha is delta/4, so 0-2 of 200 is the bar.
  ``degrade_above = 1``: the negligible test runs until the race or the test
  ends, never cut short by a read in file order.
* **sparse valid lines**: binary junk with 0.1 %, 0.5 %, 2 % and 5 % valid
  ``combined`` lines, spread uniformly or in clusters of 64 consecutive lines.
  Against ``min_format_confidence`` = 1 %: recusing 2 % or 5 % is a *false
  abort* (at most delta_abort = delta/10); 0.1 % and 0.5 % should be recused,
  and the table shows how much was read by then (``pilot`` = the pilot's share).

Files are small (a few MB, cached under ``benchmarks/data/calib/``) so 200
runs per row stay affordable. Run: ``python benchmarks/calibrate_healthy.py
[--runs 200] [--rows negligible sparse]``.
"""

from __future__ import annotations

import argparse
import itertools
import logging
import multiprocessing
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import structlog
from scipy import stats

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Result
from logagent.samples import generate
from logagent.testing import fake_env

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "calib"  # --data moves it
WORKERS = 2
CLUSTER = 64  # valid lines per cluster in the clustered sparse files
_5XX = re.compile(rb'" 5\d\d ')


@dataclass(frozen=True)
class FileSpec:
    """One calibrated file: how to make it and what the truth is."""

    name: str
    path: str
    true_share: float  # 5xx lines / lines (negligible) or valid lines / lines (sparse)
    family: str  # negligible | sparse
    threshold: float  # RATE, or min_format_confidence
    pilot: float  # the pilot's share of the units


@dataclass(frozen=True)
class Task:
    """One engine run."""

    spec: FileSpec
    seed: int
    delta: float
    unit_size: str
    batch_bytes: str


@dataclass(frozen=True)
class Outcome:
    """What a run did."""

    name: str
    seed: int
    status: str
    stopped_by: str  # negligible | UNRECOGNIZED_FORMAT | other
    fraction: float


def pools(seed: int) -> tuple[list[bytes], list[bytes]]:
    """Real combined lines from the generator: (5xx lines, other lines)."""
    DATA.mkdir(parents=True, exist_ok=True)
    src = DATA / f"healthy_pool_s{seed}.log"
    if not src.exists():
        generate(src, scenario="dominant", size_mb=4, seed=seed)
    lines = src.read_bytes().splitlines()
    errors = [ln for ln in lines if _5XX.search(ln)]
    return errors, [ln for ln in lines if not _5XX.search(ln)]


def positions(rng: np.random.Generator, n: int, k: int, clustered: bool) -> np.ndarray:
    """``k`` of ``n`` line numbers, uniform or in runs of CLUSTER consecutive lines."""
    if not clustered or k == 0:
        return np.sort(rng.choice(n, k, replace=False))
    runs = -(-k // CLUSTER)
    starts = np.sort(rng.choice(n // CLUSTER, runs, replace=False)) * CLUSTER
    return (starts[:, None] + np.arange(CLUSTER)).ravel()[:k]


def junk_lines(rng: np.random.Generator, n: int) -> list[bytes]:
    """Binary junk lines of 20-300 bytes (no newline inside)."""
    lengths = rng.integers(20, 300, n)
    raw = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8)
    raw[raw == 10] = 32
    data = raw.tobytes()
    cuts = np.concatenate([[0], np.cumsum(lengths)])
    return [data[a:b] for a, b in itertools.pairwise(cuts)]


def write_lines(path: Path, lines: list[bytes]) -> None:
    """The lines as a file, each ending in a newline."""
    path.write_bytes(b"\n".join(lines) + b"\n")


def access_file(path: Path, n: int, share: float, clustered: bool, seed: int) -> float:
    """``n`` access lines with ``share`` of them 5xx; returns the true 5xx share."""
    if not path.exists():
        errors, other = pools(seed)
        rng = np.random.default_rng([seed, 11])
        lines = [other[i] for i in rng.integers(0, len(other), n)]
        where = positions(rng, n, round(share * n), clustered)
        for p, i in zip(where, rng.integers(0, len(errors), len(where)), strict=True):
            lines[int(p)] = errors[i]
        write_lines(path, lines)
    data = path.read_bytes()
    return len(_5XX.findall(data)) / data.count(b"\n")


def sparse_file(path: Path, n: int, share: float, clustered: bool, seed: int) -> float:
    """Junk with ``share`` valid combined lines; returns the true share of valid lines."""
    k = round(share * n)
    if not path.exists():
        errors, other = pools(seed)
        rng = np.random.default_rng([seed, 12])
        lines = junk_lines(rng, n)
        valid = errors + other
        for p, i in zip(
            positions(rng, n, k, clustered), rng.integers(0, len(valid), k), strict=True
        ):
            lines[int(p)] = valid[i]
        write_lines(path, lines)
    return k / n


def pilot_share(path: str, unit: int) -> float:
    """The pilot's share of the units: ``min(max(50, 1 %), 500)`` of B."""
    b = -(-Path(path).stat().st_size // unit)
    return min(b, min(max(50, -(-b // 100)), 500)) / b


def specs(args: argparse.Namespace) -> list[FileSpec]:
    """The calibrated files (made on first use)."""
    DATA.mkdir(parents=True, exist_ok=True)
    out: list[FileSpec] = []
    rate = args.rate
    unit = int(args.unit_size)
    if "negligible" in args.rows:
        seed = args.file_seed
        ne = DATA / f"no_errors_{args.size_mb:g}mb_s{seed}.log"
        if not ne.exists():
            generate(ne, scenario="no_errors", size_mb=args.size_mb, seed=seed)
        out.append(
            FileSpec("no_errors", str(ne), 0.0, "negligible", rate, pilot_share(str(ne), unit))
        )
        n = int(args.size_mb * 1e6 / 190)
        for layout, clustered in (("spread", False), ("bursts", True)):
            p = DATA / f"above_{rate:g}_{layout}_{n}_s{seed}.log"
            true = access_file(p, n, 1.1 * rate, clustered, seed)
            name = f"5xx 1.1x RATE {layout}"
            out.append(FileSpec(name, str(p), true, "negligible", rate, pilot_share(str(p), unit)))
    if "sparse" in args.rows:
        n = int(args.sparse_mb * 1e6 / 160)
        for share in args.shares:
            for layout, clustered in (("spread", False), ("clustered", True)):
                p = DATA / f"sparse_{share:g}_{layout}_{n}_s{args.file_seed}.log"
                true = sparse_file(p, n, share, clustered, args.file_seed)
                name = f"valid {share:.1%} {layout}"
                pilot = pilot_share(str(p), int(args.sparse_unit))
                out.append(FileSpec(name, str(p), true, "sparse", 0.01, pilot))
    return out


def quiet_worker() -> None:
    """Pool initializer: the engine's info logs would drown the tables."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def run(task: Task) -> Outcome:
    """One seeded order of one file, in this process."""
    spec = task.spec
    negligible = spec.family == "negligible"
    analysis = {
        "seed": task.seed,
        "delta": task.delta,
        "negligible": spec.threshold if negligible else 0.0,
    }
    reader: dict[str, object] = {"batch_bytes": task.batch_bytes, "unit_size": task.unit_size}
    if negligible:
        analysis["degrade_above"] = 1.0
    try:
        settings = load_settings(analysis=analysis, reader=reader)
        q = Question(kind=QuestionKind.TOP_ERRORS, top=5, delta=task.delta)
        r = analyze([spec.path], q, settings, fake_env())
    except Exception as exc:  # a crash is a finding
        return Outcome(spec.name, task.seed, "crash", f"{type(exc).__name__}: {exc}", 1.0)
    return Outcome(spec.name, task.seed, str(r.status), stopped_by(r), r.progress.fraction_read)


def stopped_by(r: Result) -> str:
    """Which stop ended the run: negligible, UNRECOGNIZED_FORMAT by the bound or by the spot
    sample (nothing in it parses: the cascade's first stage, not delta-controlled), other."""
    if r.answer.negligible is not None:
        return "negligible"
    if r.recuse is not None:
        code = str(r.recuse.reason_code)
        if code == "UNRECOGNIZED_FORMAT" and not r.recuse.detail.startswith("proved:"):
            return "spot sample"
        return code
    return "other"


def ucb(k: int, n: int) -> float:
    """One-sided 95 % Clopper-Pearson upper bound of a rate."""
    return 1.0 if k >= n else float(stats.beta.ppf(0.95, k + 1, n - k))


def table(spec_list: list[FileSpec], outcomes: list[Outcome], delta: float) -> bool:
    """Print the rows; True when no row exceeds its error bar."""
    ok = True
    print(
        f"{'file':<26} {'true':>7} {'runs':>5} {'stops':>6} {'wrong':>5} {'ucb95':>6} "
        f"{'bar':>4} {'med_read':>8} {'p90_read':>8} {'pilot':>6} {'spot':>4} {'others':<20}"
    )
    for spec in spec_list:
        rows = [o for o in outcomes if o.name == spec.name]
        claim = "negligible" if spec.family == "negligible" else "UNRECOGNIZED_FORMAT"
        stops = [o for o in rows if o.stopped_by == claim]
        spot = [o for o in rows if o.stopped_by == "spot sample"]
        wrong = len(stops) + len(spot) if spec.true_share >= spec.threshold else 0
        alpha = delta / 4 if spec.family == "negligible" else delta / 10
        bar = int(stats.binom.ppf(0.95, len(rows), alpha)) if rows else 0
        bad = wrong > max(bar, 2 if spec.family == "negligible" else bar) or any(
            o.status == "crash" for o in rows
        )
        ok = ok and not bad
        f = np.asarray([o.fraction for o in (stops or rows)])
        others: dict[str, int] = {}
        for o in rows:
            if o.stopped_by not in (claim, "spot sample"):
                what = o.stopped_by if o.status == "recused" else o.status  # NO_MATCHING_EVENTS
                others[what] = others.get(what, 0) + 1
        print(
            f"{spec.name:<26} {spec.true_share:7.3%} {len(rows):>5} {len(stops):>6} {wrong:>5} "
            f"{ucb(wrong, len(rows)):6.2%} {bar:>4} {np.median(f):8.1%} "
            f"{np.percentile(f, 90):8.1%} {spec.pilot:6.1%} {len(spot):>4} {others!s:<20}"
            + ("  FAIL" if bad else "")
        )
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    """Make the files, run every order, print the table; exit 1 when a row fails."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200, help="seeded orders per file [200]")
    p.add_argument(
        "--rows", nargs="+", choices=("negligible", "sparse"), default=["negligible", "sparse"]
    )
    p.add_argument("--rate", type=float, default=0.02, help="--negligible RATE [0.02]")
    p.add_argument("--size-mb", type=float, default=2.0, help="negligible files, MB [2]")
    p.add_argument("--sparse-mb", type=float, default=1.0, help="sparse files, MB [1]")
    p.add_argument("--sparse-unit", default="128", help="sparse rows' unit size, bytes [128]")
    p.add_argument("--unit-size", default="128", help="negligible rows' unit size, bytes [128]")
    p.add_argument("--batch-bytes", default="128KiB", help="reader.batch_bytes [128KiB]")
    p.add_argument(
        "--shares",
        type=float,
        nargs="+",
        default=[0.001, 0.005, 0.02, 0.05],
        help="valid-line shares of the sparse files [0.001 0.005 0.02 0.05]",
    )
    p.add_argument("--delta", type=float, default=0.01)
    p.add_argument("--data", type=Path, default=DATA, help="where the files are cached")
    p.add_argument("--file-seed", type=int, default=1, help="generator seed of the files [1]")
    p.add_argument("--order-seed", type=int, default=0, help="first reading-order seed [0]")
    args = p.parse_args(argv)
    globals()["DATA"] = args.data  # the workers get paths, never DATA
    t0 = time.perf_counter()
    spec_list = specs(args)
    tasks = [
        Task(
            s,
            i,
            args.delta,
            args.unit_size if s.family == "negligible" else args.sparse_unit,
            args.batch_bytes,
        )
        for s in spec_list
        for i in range(args.order_seed, args.order_seed + args.runs)
    ]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WORKERS, initializer=quiet_worker) as pool:
        outcomes: list[Outcome] = []
        for o in pool.imap_unordered(run, tasks, chunksize=4):
            outcomes.append(o)
            if len(outcomes) % max(1, len(tasks) // 20) == 0:
                done = f"{len(outcomes)}/{len(tasks)} runs ({time.perf_counter() - t0:.0f} s)"
                print(done, file=sys.stderr, flush=True)
    print(
        f"\nhealthy / doomed logs: delta={args.delta}, {args.runs} seeded orders per file; "
        f"negligible RATE={args.rate:g} (alpha delta/4), {args.unit_size}-byte units, "
        f"{args.size_mb:g} MB; sparse files {args.sparse_mb:g} MB, {args.sparse_unit}-byte units, "
        "threshold 1 % (delta_abort = delta/10); 'stops' = claimed negligible / recused "
        "UNRECOGNIZED_FORMAT by the bound; 'spot' = recused because nothing in the spot sample "
        "parses (not delta-controlled; counted as wrong too when the truth is over 1 %)"
    )
    ok = table(spec_list, outcomes, args.delta)
    for o in outcomes:
        if o.status == "crash":
            print(f"  crash {o.name} seed={o.seed}: {o.stopped_by}")
            break
    print(f"runtime {time.perf_counter() - t0:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
