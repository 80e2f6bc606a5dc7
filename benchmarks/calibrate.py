"""Calibrate the early stop: wrong answers and fraction read over seeded random orders.

For each scenario one synthetic log is generated (cached under
``benchmarks/data/calib/``) and the real engine answers "top-k routes by 5xx"
on it once per reading order (``analysis.seed`` = 0..N-1, or from ``--order-seed``), in-process, on a
pool of 2 worker processes. A settled or exact answer is *wrong* when its
top-k set is not the true one (an exact tie at the k-th place must be reported
as a tie by a settled answer; an exact answer shows the tied count). For
``no_errors`` the only right outcome is RECUSED NO_MATCHING_EVENTS. The
guarantee is per file over orders: P(wrong) <= delta, so a scenario FAILs when
its wrong count exceeds the 95 % quantile of Binomial(N, delta) or a run
crashes; the script then exits 1. ``analysis.degrade_above`` is 1 by default
here (never trade the race for a full read in file order), so that the early
stop itself is what is calibrated.

Fraction read is compared with stats note §6, ``f_stop = 1 - (1 - f0)
exp(-M ln(thr) / (c G))``, ``thr = k|C| / delta_1``, ``delta_1 = 0.9 delta / 2``,
M = ceil(unit / 50), G = T_k - T_(k+1), |C| = routes with 5xx capped as the
engine caps its candidates (2k + 6, at most 16). ``f_REST`` is the same
formula with C = the routes a pilot of f0 is expected to see and G also
bounded by ``T_k - sum of the 5xx of the routes outside C`` (the REST
statistic carries them all), which is what binds when the pilot sees few
routes.

The same tables follow for a naive rule (no e-process): count 5xx per route
chunk by chunk (1 % of the file) and stop at the first chunk after which a
one-sided binomial test of "k-th route > (k+1)-th route" among their combined
errors is significant at delta. In file order it is deterministic per file, so
it runs once on each of N files (generator seeds 0..N-1, smaller files); in
random order it runs on N seeded permutations of the engine's file, cut into
the engine's units. It shows why that rule is not used: optional stopping on
a tie, and a time-ordered file (late incidents).

A last row calibrates ``answer.timeline``: the per-bucket intervals of sampled
runs against the truth per hour, simultaneous over buckets (see "timeline row").

Run: ``python benchmarks/calibrate.py [--runs 200] [--scenarios tie late_incident]
[--timeline-runs 200]`` (``--timeline-runs 0`` skips the timeline row)
(with logagent importable, e.g. ``PYTHONPATH=.``).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import mmap
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog
from scipy import stats

from logagent import Question, analyze, load_settings
from logagent.config import parse_size
from logagent.evidence import unitsize
from logagent.result import QuestionKind, Result, Status
from logagent.samples import generate
from logagent.sources import permute
from logagent.testing import fake_env

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "calib"
SCENARIOS = ("dominant", "close", "tie", "late_incident", "late_incident_new", "no_errors")
WORKERS = 2
MIN_LINE_BYTES = 50  # l_min of the combined format (M = ceil(unit / l_min))
MAX_CANDIDATES = 16  # analysis.max_candidates default: |C| cap
TRUNCATION = 0.9  # c of the betting cap
NAIVE_CHUNKS = 100  # the naive rule looks after every 1 % of the input

I64 = npt.NDArray[np.int64]
TopErrors = list[tuple[str, int]]

# A combined-format line with a 5xx status: the raw target (path + query) and the status.
_ERROR_LINE = re.compile(rb'\] "[A-Z]+ ([^ "]*)[^"]*" (5\d\d) ')
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]{16,}")


# ----------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class Config:
    """What to run."""

    runs: int
    size_mb: float
    delta: float
    top: int
    scenarios: tuple[str, ...]
    unit_size: str
    batch_bytes: str
    file_seed: int
    naive_size_mb: float
    naive: str  # both | file | random | none
    degrade_above: float
    keyed_order: bool = False  # every random order computed by the Feistel permutation
    adaptive: bool = False  # the unit size chosen after a pilot (engine.unitchoice)
    cheap_units: bool = False  # --adaptive as on a machine where units cost only their bytes
    order_seed: int = 0  # the first reading order's seed (orders order_seed .. + runs - 1)

    @property
    def unit_bytes(self) -> int:
        """The unit size in bytes."""
        value = parse_size(self.unit_size)
        assert isinstance(value, int)
        return value


def parse_args(argv: Sequence[str] | None = None) -> Config:
    """Command line -> Config."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200, help="random orders per scenario [200]")
    p.add_argument("--size-mb", type=float, default=40.0, help="engine log size in MB [40]")
    p.add_argument("--delta", type=float, default=0.01, help="error level [0.01]")
    p.add_argument("--top", type=int, default=1, help="k of the top-k question [1]")
    p.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    p.add_argument("--unit-size", default="2KiB", help="reader.unit_size [2KiB]")
    p.add_argument(
        "--batch-bytes",
        default="1MiB",
        help="reader.batch_bytes: bytes read between two decisions [1MiB]",
    )
    p.add_argument("--file-seed", type=int, default=1, help="generator seed of engine logs [1]")
    p.add_argument("--order-seed", type=int, default=0, help="first reading-order seed [0]")
    p.add_argument(
        "--naive-size-mb", type=float, default=5.0, help="size of each naive file-order log [5]"
    )
    p.add_argument("--naive", choices=("both", "file", "random", "none"), default="both")
    p.add_argument(
        "--degrade-above",
        type=float,
        default=1.0,
        help="analysis.degrade_above: 1 (default) never degrades to a full read in file order, "
        "so the early stop itself is calibrated; 0.5 is the shipped default",
    )
    p.add_argument(
        "--keyed-order",
        action="store_true",
        help="read every file in the keyed (Feistel) order that orders beyond "
        "sources.permute.MATERIALIZE_UNITS units use, not numpy's permutation",
    )
    p.add_argument(
        "--adaptive",
        action="store_true",
        help="choose the unit size after a pilot, as inputs from reader.adapt_from do (here "
        "from 1 byte): the pilot reads default-size units, --unit-size is not used",
    )
    p.add_argument(
        "--cheap-units",
        action="store_true",
        help="with --adaptive: choose as if a unit cost only its bytes and the e-processes "
        "needed no more than the variance formula, so that small logs get small units (the "
        "sizes 10 GB logs get with the measured costs): calibrates the main phase in them",
    )
    add_timeline_args(p)
    a = p.parse_args(argv)
    return Config(
        a.runs,
        a.size_mb,
        a.delta,
        a.top,
        tuple(a.scenarios),
        a.unit_size,
        a.batch_bytes,
        a.file_seed,
        a.naive_size_mb,
        a.naive,
        a.degrade_above,
        a.keyed_order,
        a.adaptive,
        a.cheap_units,
        a.order_seed,
    )


# ----------------------------------------------------------------------------- truth and judging


@dataclass(frozen=True)
class Outcome:
    """One run of a rule (engine or naive) on one file and order."""

    scenario: str
    seed: int
    status: str  # settled | exact | recused | partial | crash
    keys: tuple[str, ...] = ()
    counts: tuple[int, ...] = ()
    ties: tuple[tuple[str, ...], ...] = ()
    fraction: float = 1.0
    recuse: str | None = None
    error: str | None = None
    truth: tuple[tuple[str, int], ...] = ()  # set when the file differs per run (naive)
    unit: int = 0  # --adaptive: the unit size the pilot chose (0: none chosen)
    forecast: float | None = None  # --adaptive: the choice's forecast fraction read


def top_errors(truth: dict[str, Any]) -> TopErrors:
    """The truth's (route, 5xx) ranking."""
    return [(str(r), int(n)) for r, n in truth["top_errors"]]


def boundary(ranking: TopErrors, k: int) -> tuple[set[str], set[str]]:
    """(routes surely in the top-k, routes tied at the k-th count; empty if no tie)."""
    if len(ranking) < k:
        return {r for r, _ in ranking}, set()
    kth = ranking[k - 1][1]
    above = {r for r, n in ranking if n > kth}
    at = {r for r, n in ranking if n == kth}
    if len(above) + len(at) == k:
        return above | at, set()
    return above, at


def judge(o: Outcome, ranking: TopErrors, k: int) -> bool:
    """Whether an outcome is a wrong answer (see the module docstring)."""
    if not ranking:
        wrong_recuse = o.status == "recused" and o.recuse != "NO_MATCHING_EVENTS"
        return o.status in ("settled", "exact") or wrong_recuse
    if o.status not in ("settled", "exact"):
        return False
    sure, tied = boundary(ranking, k)
    keys = set(o.keys)
    if not tied:
        return keys != sure
    if not (sure <= keys <= sure | tied) or len(keys) != k:
        return True
    if o.status == "exact":
        truth = dict(ranking)
        return any(truth.get(key) != n for key, n in zip(o.keys, o.counts, strict=False))
    return not any(len(set(group) & tied) >= 2 for group in o.ties)


@dataclass(frozen=True)
class Forecast:
    """Stats note §6 forecasts of the fraction read at the stop (None: no 5xx at all)."""

    note: float | None  # G = T_k - T_(k+1), |C| = routes with 5xx, capped as the engine does
    rest: float | None  # G also bounded by REST: C = the routes a pilot sees, REST the others


def note_fraction(f0: float, bound: int, thr: float, gap: float) -> float:
    """``1 - (1 - f0) exp(-M ln(thr) / (c G))``, and 1 when there is no gap."""
    if gap <= 0:
        return 1.0
    return min(1.0, 1 - (1 - f0) * math.exp(-bound * math.log(thr) / (TRUNCATION * gap)))


def pilot_seen(ranking: TopErrors, f0: float, k: int) -> int:
    """About how many 5xx routes a pilot of f0 sees, within the engine's candidate count."""
    seen = sum(1 - (1 - f0) ** n for _, n in ranking)
    return max(k + 1, min(round(seen), candidate_cap(k), len(ranking)))


def candidate_cap(k: int) -> int:
    """The engine's |C| cap (race.candidate_count): 2k + 6, at most max_candidates."""
    return min(MAX_CANDIDATES, 2 * k + 6)


def forecast(ranking: TopErrors, cfg: Config, file_bytes: int) -> Forecast:
    """Both forecasts for one file (see Forecast)."""
    if not ranking:
        return Forecast(None, None)
    k, units = cfg.top, math.ceil(file_bytes / cfg.unit_bytes)
    f0 = min(units, min(max(50, math.ceil(0.01 * units)), 500)) / units
    bound = math.ceil(cfg.unit_bytes / MIN_LINE_BYTES)
    delta1 = 0.9 * cfg.delta / 2
    counts = [n for _, n in ranking]
    gap = counts[k - 1] - (counts[k] if len(counts) > k else 0)
    c = min(len(counts), candidate_cap(k))
    note = note_fraction(f0, bound, k * c / delta1, gap)
    seen = pilot_seen(ranking, f0, k)
    rest_gap = min(gap, counts[k - 1] - sum(counts[seen:]))
    return Forecast(note, note_fraction(f0, bound, k * seen / delta1, rest_gap))


# ----------------------------------------------------------------------------- engine runs


def quiet_worker() -> None:
    """Pool initializer: the engine's info logs would drown the tables."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


@dataclass(frozen=True)
class EngineTask:
    """One engine run: a file, a reading-order seed and the settings."""

    scenario: str
    path: str
    seed: int
    cfg: Config


def unit_choice(r: Result) -> tuple[int, float | None]:
    """The unit size a pilot chose and its forecast fraction, from the trace (0, None: none)."""
    for d in r.decisions:
        if d.reason == "unit_size" and d.detail.startswith("unit size "):
            size = int(d.detail.split()[2].replace(",", ""))
            m = re.search(r"forecast ([0-9.]+)% read", d.detail)
            return size, float(m.group(1)) / 100 if m else None
    return 0, None


def outcome_of(scenario: str, seed: int, r: Result) -> Outcome:
    """The judged facts of a Result."""
    unit, forecast = unit_choice(r)
    return Outcome(
        scenario,
        seed,
        str(r.status),
        tuple(e.key for e in r.answer.top),
        tuple(e.count for e in r.answer.top),
        tuple(tuple(g) for g in r.answer.ties),
        r.progress.fraction_read,
        str(r.recuse.reason_code) if r.recuse else None,
        unit=unit,
        forecast=forecast,
    )


def run_engine(task: EngineTask) -> Outcome:
    """Analyze one file in one seeded random order, in this process."""
    cfg = task.cfg
    if cfg.keyed_order:
        permute.MATERIALIZE_UNITS = 0  # this worker's orders: all keyed
    if cfg.cheap_units:  # this worker's unit choices: as if units cost only their bytes
        unitsize.UNIT_S, unitsize.VARIANCE_FACTOR = 1e-7, 1.0
        unitsize.SAMPLED_BYTE_S = unitsize.FULL_BYTE_S
    try:
        reader: dict[str, Any] = {"unit_size": cfg.unit_size, "batch_bytes": cfg.batch_bytes}
        if cfg.adaptive:
            reader = {"unit_size": "auto", "batch_bytes": cfg.batch_bytes, "adapt_from": 1}
        settings = load_settings(
            analysis={"seed": task.seed, "delta": cfg.delta, "degrade_above": cfg.degrade_above},
            reader=reader,
        )
        q = Question(kind=QuestionKind.TOP_ERRORS, top=cfg.top, delta=cfg.delta)
        r = analyze([task.path], q, settings, fake_env())
    except Exception as exc:  # a crash is a finding, not the end of the calibration
        return Outcome(task.scenario, task.seed, "crash", error=f"{type(exc).__name__}: {exc}")
    if r.status is Status.PARTIAL:
        return Outcome(task.scenario, task.seed, "partial", fraction=r.progress.fraction_read)
    return outcome_of(task.scenario, task.seed, r)


def ensure_log(scenario: str, size_mb: float, seed: int) -> tuple[Path, dict[str, Any]]:
    """The cached engine log of a scenario and its truth (generated on first use)."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"{scenario}_{size_mb:g}mb_s{seed}.log"
    truth_path = Path(f"{path}.truth.json")
    if path.exists() and truth_path.exists():
        truth: dict[str, Any] = json.loads(truth_path.read_text())
        if truth.get("bytes") == path.stat().st_size:
            return path, truth
    log(f"generating {path.name} ...")
    return path, generate(path, scenario=scenario, size_mb=size_mb, seed=seed)


# ----------------------------------------------------------------------------- the naive rule


@lru_cache(maxsize=65536)
def normalize_segment(seg: str) -> str:
    """The default route rules on one path segment: id, uuid, hex."""
    if seg.isdigit() and seg.isascii():
        return "{id}"
    if _UUID.fullmatch(seg):
        return "{uuid}"
    if _HEX.fullmatch(seg):
        return "{hex}"
    return seg


def route_of(target: bytes) -> str:
    """Raw request target -> route: drop query and fragment, normalize each segment."""
    path = re.split(r"[?#]", target.decode("utf-8", "replace"), maxsplit=1)[0]
    return "/".join(normalize_segment(s) for s in path.split("/"))


def error_lines(path: Path) -> tuple[I64, list[str], int]:
    """(first byte of each 5xx line, its route, file size), by a regex over the file."""
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        starts, routes = [], []
        for m in _ERROR_LINE.finditer(data):
            starts.append(data.rfind(b"\n", 0, m.start()) + 1)
            routes.append(route_of(m.group(1)))
        return np.asarray(starts, dtype=np.int64), routes, len(data)


def bucket_counts(bucket: I64, routes: list[str], n_buckets: int) -> tuple[I64, list[str]]:
    """Dense (bucket x route) 5xx counts; routes in name order."""
    names = sorted(set(routes))
    col = {r: j for j, r in enumerate(names)}
    out = np.zeros((n_buckets, len(names)), dtype=np.int64)
    np.add.at(out, (bucket, np.asarray([col[r] for r in routes], dtype=np.int64)), 1)
    return out, names


def ranked_top(counts: I64, names: list[str], k: int) -> list[int]:
    """Indices of the k+1 best routes by count desc, name asc (names are sorted)."""
    order = np.lexsort((np.arange(len(names)), -counts))
    return [int(i) for i in order[: k + 1]]


def naive_stop(steps: I64, names: list[str], k: int, delta: float) -> tuple[int, list[int]]:
    """First step after which "k-th > (k+1)-th" is significant; (step count, top-k indices).

    ``steps`` holds the 5xx counts per step (rows, in reading order) and route.
    Returns ``len(steps)`` and the full-count top-k when no look is significant.
    """
    seen = np.zeros(steps.shape[1], dtype=np.int64)
    for i, row in enumerate(steps):
        seen += row
        best = ranked_top(seen, names, k)
        a = int(seen[best[k - 1]]) if len(best) >= k else 0
        b = int(seen[best[k]]) if len(best) > k else 0
        if a and stats.binomtest(a, a + b, 0.5, alternative="greater").pvalue <= delta:
            return i + 1, best[:k]
    return len(steps), ranked_top(seen, names, k)[:k]


def naive_outcome(
    scenario: str, seed: int, steps: I64, names: list[str], cfg: Config
) -> tuple[Outcome, int]:
    """Run the naive rule over ``steps``; also return the number of steps read."""
    if not names:
        return Outcome(scenario, seed, "recused", recuse="NO_MATCHING_EVENTS"), len(steps)
    used, top = naive_stop(steps, names, cfg.top, cfg.delta)
    status = "exact" if used == len(steps) else "settled"
    total = steps[:used].sum(axis=0)
    keys = tuple(names[i] for i in top)
    return Outcome(scenario, seed, status, keys, tuple(int(total[i]) for i in top)), used


@dataclass(frozen=True)
class NaiveFileTask:
    """One naive file-order run on a freshly generated file."""

    scenario: str
    seed: int
    cfg: Config


def run_naive_file(task: NaiveFileTask) -> Outcome:
    """Generate a small log, apply the naive rule in file order, delete the log."""
    with tempfile.TemporaryDirectory(prefix="calib-naive-") as tmp:
        path = Path(tmp) / f"{task.scenario}.log"
        truth = generate(
            path, scenario=task.scenario, size_mb=task.cfg.naive_size_mb, seed=task.seed
        )
        starts, routes, size = error_lines(path)
    chunk = starts * NAIVE_CHUNKS // max(size, 1)
    steps, names = bucket_counts(chunk, routes, NAIVE_CHUNKS)
    o, used = naive_outcome(task.scenario, task.seed, steps, names, task.cfg)
    fraction = used / NAIVE_CHUNKS
    return Outcome(
        o.scenario,
        o.seed,
        o.status,
        o.keys,
        o.counts,
        fraction=fraction,
        recuse=o.recuse,
        truth=tuple(top_errors(truth)),
    )


def naive_random(scenario: str, path: Path, cfg: Config) -> list[Outcome]:
    """The naive rule on ``cfg.runs`` seeded permutations of the engine file's units."""
    starts, routes, size = error_lines(path)
    n_units = math.ceil(size / cfg.unit_bytes)
    per_unit, names = bucket_counts(starts // cfg.unit_bytes, routes, n_units)
    step = math.ceil(n_units / NAIVE_CHUNKS)
    out = []
    for seed in range(cfg.runs):
        order = np.random.default_rng(seed).permutation(n_units)
        steps = np.add.reduceat(per_unit[order], np.arange(0, n_units, step), axis=0)
        o, used = naive_outcome(scenario, seed, steps, names, cfg)
        fraction = min(1.0, used * step / n_units)
        out.append(
            Outcome(
                o.scenario, o.seed, o.status, o.keys, o.counts, fraction=fraction, recuse=o.recuse
            )
        )
    return out


# ----------------------------------------------------------------------------- tables


@dataclass
class Row:
    """One table row: the tally of one scenario."""

    scenario: str
    outcomes: list[Outcome] = field(default_factory=list)
    wrong: list[Outcome] = field(default_factory=list)
    predicted: Forecast = Forecast(None, None)

    def count(self, status: str) -> int:
        """Runs that ended with ``status``."""
        return sum(o.status == status for o in self.outcomes)

    def fractions(self) -> npt.NDArray[np.float64]:
        """Fraction read of every run that read something."""
        return np.asarray([o.fraction for o in self.outcomes if o.status != "crash"])


def wrong_limit(runs: int, delta: float) -> int:
    """Most wrong answers a delta-correct rule shows in 95 % of calibrations."""
    return int(stats.binom.ppf(0.95, runs, delta))


def upper_bound(wrong: int, runs: int) -> float:
    """One-sided 95 % Clopper-Pearson upper bound of the wrong rate."""
    if runs == 0:
        return float("nan")
    return 1.0 if wrong >= runs else float(stats.beta.ppf(0.95, wrong + 1, runs - wrong))


HEADER = (
    f"{'scenario':<18} {'runs':>5} {'settled':>7} {'exact':>5} {'recused':>7} {'other':>5} "
    f"{'wrong':>5} {'ucb95':>6} {'med_read':>8} {'p90_read':>8} {'f_stop':>6} {'f_REST':>6}"
)


def fmt_row(row: Row) -> str:
    """One formatted table line."""
    f = row.fractions()
    med = f"{np.median(f):8.1%}" if len(f) else f"{'-':>8}"
    p90 = f"{np.percentile(f, 90):8.1%}" if len(f) else f"{'-':>8}"
    pred = " ".join(
        f"{x:6.1%}" if x is not None else f"{'-':>6}"
        for x in (row.predicted.note, row.predicted.rest)
    )
    n = len(row.outcomes)
    other = row.count("partial") + row.count("crash")
    return (
        f"{row.scenario:<18} {n:>5} {row.count('settled'):>7} {row.count('exact'):>5} "
        f"{row.count('recused'):>7} {other:>5} {len(row.wrong):>5} "
        f"{upper_bound(len(row.wrong), n):6.2%} {med} {p90} {pred}"
    )


def print_table(title: str, rows: Iterable[Row]) -> None:
    """A titled table."""
    print(f"\n{title}")
    print(HEADER)
    for row in rows:
        print(fmt_row(row))


def describe(o: Outcome) -> str:
    """One wrong run, for the list under a table."""
    return (
        f"  {o.scenario} seed={o.seed}: {o.status} at {o.fraction:.1%} read, "
        f"answer={list(o.keys)} counts={list(o.counts)} ties={[list(t) for t in o.ties]}"
    )


def verdicts(rows: Iterable[Row], cfg: Config) -> bool:
    """Print PASS/FAIL per engine scenario; True when all pass."""
    limit = wrong_limit(cfg.runs, cfg.delta)
    ok = True
    for row in rows:
        crashes = [o for o in row.outcomes if o.status == "crash"]
        bad = len(row.wrong) > limit or crashes
        ok = ok and not bad
        verdict = "FAIL" if bad else "PASS"
        extra = f", {len(crashes)} crashed" if crashes else ""
        print(
            f"{verdict} {row.scenario}: {len(row.wrong)} wrong of {len(row.outcomes)} "
            f"(limit {limit} = 95% quantile of Binomial({cfg.runs}, {cfg.delta})){extra}"
        )
        for o in crashes[:3]:
            print(f"  {o.scenario} seed={o.seed}: crash: {o.error}")
    return ok


def print_choices(rows: Iterable[Row]) -> None:
    """--adaptive: the unit sizes the pilots chose, and the forecast next to the fraction read."""
    print("\nchosen unit sizes (pilot's forecast of the fraction read vs read, medians)")
    for row in rows:
        sizes = Counter(o.unit for o in row.outcomes if o.unit)
        forecasts = [o.forecast for o in row.outcomes if o.forecast is not None]
        pred = f"{np.median(forecasts):.1%}" if forecasts else "-"
        read = row.fractions()
        med = f"{np.median(read):.1%}" if len(read) else "-"
        shown = ", ".join(f"{size:,} B x{n}" for size, n in sorted(sizes.items())) or "none"
        print(f"  {row.scenario:<18} forecast {pred:>6}  read {med:>6}  sizes: {shown}")


def print_wrong(rows: Iterable[Row], most: int = 5) -> None:
    """List (a few of) the wrong runs of each scenario."""
    for row in rows:
        for o in row.wrong[:most]:
            print(describe(o))


# ----------------------------------------------------------------------------- timeline row
#
# answer.timeline of a sampled run: one interval per hour bucket of the 5xx total, claimed
# simultaneous over buckets at delta. Each run is a top-1 question with ``--bucket 1h`` in a
# seeded random order, stopped by the race or at most at ``max_fraction`` (a fixed-fraction
# cap), on a small log; the row reports the share of runs whose every bucket covered its
# true total (``timeline_5xx_1h`` in the truth sidecar), the per-bucket coverage and the mean
# width. It FAILs when the runs missing some bucket exceed the 95 % quantile of
# Binomial(runs, delta), as for wrong answers above.

TIMELINE_SCENARIOS = ("late_incident", "dominant")  # a late incident, and steady failure


@dataclass(frozen=True)
class TimelineConfig:
    """What the timeline row runs."""

    runs: int
    size_mb: float
    delta: float
    unit_size: str
    max_fraction: float
    file_seed: int
    order_seed: int = 0


@dataclass(frozen=True)
class TimelineTask:
    """One sampled timeline run."""

    scenario: str
    path: str
    seed: int
    cfg: TimelineConfig


@dataclass(frozen=True)
class TimelineOutcome:
    """Coverage of one run: buckets covered, buckets in all, mean width, fraction read."""

    scenario: str
    seed: int
    status: str
    covered: int = 0
    buckets: int = 0
    width: float = 0.0
    truth_mean: float = 0.0
    fraction: float = 1.0
    method: str = ""
    error: str | None = None


def add_timeline_args(p: argparse.ArgumentParser) -> None:
    """The timeline row's options."""
    g = p.add_argument_group("timeline row")
    g.add_argument("--timeline-runs", type=int, default=200, help="orders per scenario; 0: skip")
    g.add_argument("--timeline-size-mb", type=float, default=10.0, help="log size in MB [10]")
    g.add_argument("--timeline-delta", type=float, default=0.1, help="error level [0.1]")
    g.add_argument("--timeline-unit-size", default="1KiB", help="reader.unit_size [1KiB]")
    g.add_argument(
        "--timeline-max-fraction", type=float, default=0.3, help="budget.max_fraction [0.3]"
    )


def timeline_args(argv: Sequence[str] | None) -> TimelineConfig | None:
    """The timeline row's options (None with --timeline-runs 0); other options are ignored."""
    p = argparse.ArgumentParser(add_help=False)
    add_timeline_args(p)
    p.add_argument("--file-seed", type=int, default=1)
    p.add_argument("--order-seed", type=int, default=0)
    a, _ = p.parse_known_args(argv)
    if a.timeline_runs <= 0:
        return None
    return TimelineConfig(
        a.timeline_runs,
        a.timeline_size_mb,
        a.timeline_delta,
        a.timeline_unit_size,
        a.timeline_max_fraction,
        a.file_seed,
        a.order_seed,
    )


def run_timeline(task: TimelineTask) -> TimelineOutcome:
    """One sampled run with an hourly timeline, judged against the truth per bucket."""
    cfg = task.cfg
    truth = json.loads(Path(f"{task.path}.truth.json").read_text())["timeline_5xx_1h"]
    hours = {start: sum(v.values()) for start, v in truth.items()}
    try:
        settings = load_settings(
            analysis={"seed": task.seed, "delta": cfg.delta, "degrade_above": 1.0,
                      "bucket": "1h", "format": "combined"},
            reader={"unit_size": cfg.unit_size, "batch_bytes": "256KiB"},
            budget={"max_fraction": cfg.max_fraction},
        )  # fmt: skip
        r = analyze([task.path], Question(top=1, delta=cfg.delta), settings, fake_env())
    except Exception as exc:  # a crash is a finding
        return TimelineOutcome(task.scenario, task.seed, "crash", error=f"{exc!r}")
    line = r.answer.timeline
    if line is None or line.interval is None:
        return TimelineOutcome(task.scenario, task.seed, str(r.status), fraction=1.0)
    starts = {b.start for b in line.buckets}
    lost = sum(n for start, n in hours.items() if start not in starts)  # a bucket not shown
    bands = [(b.low or 0.0, b.high or 0.0, hours.get(b.start, 0)) for b in line.buckets]
    covered = sum(lo <= t <= hi for lo, hi, t in bands)
    return TimelineOutcome(
        task.scenario,
        task.seed,
        str(r.status),
        covered=covered if not lost else 0,
        buckets=len(bands),
        width=float(np.mean([hi - lo for lo, hi, _ in bands])),
        truth_mean=float(np.mean([t for _, _, t in bands])),
        fraction=r.progress.fraction_read,
        method=line.interval,
    )


def timeline_runs(pool: Any, cfg: TimelineConfig) -> list[TimelineOutcome]:
    """Every run of the timeline row, on the pool."""
    files = {s: ensure_log(s, cfg.size_mb, cfg.file_seed)[0] for s in TIMELINE_SCENARIOS}
    orders = range(cfg.order_seed, cfg.order_seed + cfg.runs)
    tasks = [TimelineTask(s, str(files[s]), i, cfg) for s in files for i in orders]
    out: list[TimelineOutcome] = []
    start = time.perf_counter()
    for o in pool.imap_unordered(run_timeline, tasks, chunksize=2):
        out.append(o)
        if len(out) % max(1, len(tasks) // 10) == 0:
            log(f"timeline: {len(out)}/{len(tasks)} runs ({time.perf_counter() - start:.0f} s)")
    return out


def print_timeline(out: list[TimelineOutcome], cfg: TimelineConfig) -> bool:
    """Print the timeline coverage table and its verdicts; True when every scenario passes."""
    print(
        f"\ntimeline: top-1 --bucket 1h, delta={cfg.delta}, {cfg.runs} random orders per "
        f"scenario, {cfg.size_mb:g} MB logs (seed {cfg.file_seed}), unit {cfg.unit_size}, "
        f"stopped by the race or at {cfg.max_fraction:.0%} read"
    )
    print(
        f"{'scenario':<18} {'runs':>5} {'sampled':>7} {'buckets':>7} {'all_cov':>7} "
        f"{'limit':>5} {'bucket_cov':>10} {'mean_width':>10} {'mean_truth':>10} {'med_read':>8}"
    )
    ok = True
    for scenario in TIMELINE_SCENARIOS:
        ok = _timeline_line(scenario, [o for o in out if o.scenario == scenario], cfg) and ok
    methods = {o.method for o in out if o.method}
    print("  intervals: " + "; ".join(sorted(methods)) if methods else "  no sampled run")
    return ok


def _timeline_line(scenario: str, runs: list[TimelineOutcome], cfg: TimelineConfig) -> bool:
    """One table line and its verdict."""
    sampled = [o for o in runs if o.buckets]
    crashes = [o for o in runs if o.status == "crash"]
    n = len(sampled)
    missed = sum(o.covered < o.buckets for o in sampled)
    limit = wrong_limit(n, cfg.delta) if n else 0
    cells = sum(o.buckets for o in sampled)
    share = (n - missed) / n if n else float("nan")
    bucket_cov = sum(o.covered for o in sampled) / cells if cells else float("nan")
    width = float(np.mean([o.width for o in sampled])) if n else float("nan")
    truth = float(np.mean([o.truth_mean for o in sampled])) if n else float("nan")
    med = float(np.median([o.fraction for o in sampled])) if n else float("nan")
    buckets = sampled[0].buckets if n else 0
    print(
        f"{scenario:<18} {len(runs):>5} {n:>7} {buckets:>7} {share:7.1%} "
        f"{1 - limit / n if n else float('nan'):5.0%} {bucket_cov:10.2%} {width:10.0f} "
        f"{truth:10.1f} {med:8.1%}"
    )
    bad = missed > limit or bool(crashes) or n < len(runs) // 2
    print(
        f"{'FAIL' if bad else 'PASS'} timeline {scenario}: every bucket covered in {n - missed} "
        f"of {n} sampled runs (at most {limit} may miss: 95% quantile of Binomial({n}, "
        f"{cfg.delta})){f', {len(crashes)} crashed' if crashes else ''}"
        f"{'; fewer than half the runs were sampled' if n < len(runs) // 2 else ''}"
    )
    for o in crashes[:3]:
        print(f"  {o.scenario} seed={o.seed}: crash: {o.error}")
    return not bad


# ----------------------------------------------------------------------------- driver


def engine_version() -> str:
    """The commit the engine was run at (the tables depend on it), marked when modified."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "logagent"],
            cwd=HERE,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head or 'unknown'}{' + uncommitted changes in logagent/' if dirty else ''}"


def log(msg: str) -> None:
    """Progress on stderr."""
    print(msg, file=sys.stderr, flush=True)


def collect(pool: Any, fn: Callable[[Any], Outcome], tasks: list[Any], label: str) -> list[Outcome]:
    """Run tasks on the pool, logging progress every ~10 %."""
    out: list[Outcome] = []
    start = time.perf_counter()
    every = max(1, len(tasks) // 10)
    for o in pool.imap_unordered(fn, tasks, chunksize=2):
        out.append(o)
        if len(out) % every == 0 or len(out) == len(tasks):
            log(f"{label}: {len(out)}/{len(tasks)} runs ({time.perf_counter() - start:.0f} s)")
    return out


def rows_of(
    outcomes: list[Outcome],
    cfg: Config,
    truths: dict[str, TopErrors],
    predicted: dict[str, Forecast],
) -> list[Row]:
    """Group outcomes by scenario (in cfg order) and judge them."""
    rows = {s: Row(s, predicted=predicted.get(s, Forecast(None, None))) for s in cfg.scenarios}
    for o in sorted(outcomes, key=lambda o: (o.scenario, o.seed)):
        row = rows[o.scenario]
        row.outcomes.append(o)
        ranking = list(o.truth) if o.truth else truths[o.scenario]
        if judge(o, ranking, cfg.top):
            row.wrong.append(o)
    return list(rows.values())


def main(argv: Sequence[str] | None = None) -> int:
    """Generate, run, print; exit 1 if an engine scenario fails."""
    cfg = parse_args(argv)
    t0 = time.perf_counter()
    files = {s: ensure_log(s, cfg.size_mb, cfg.file_seed) for s in cfg.scenarios}
    truths = {s: top_errors(t) for s, (_, t) in files.items()}
    predicted = {s: forecast(truths[s], cfg, int(t["bytes"])) for s, (_, t) in files.items()}
    tasks = [
        EngineTask(s, str(files[s][0]), i, cfg)
        for s in cfg.scenarios
        for i in range(cfg.order_seed, cfg.order_seed + cfg.runs)
    ]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WORKERS, initializer=quiet_worker) as pool:
        engine = collect(pool, run_engine, tasks, "engine")
        naive_files: list[Outcome] = []
        if cfg.naive in ("both", "file"):
            ntasks = [NaiveFileTask(s, i, cfg) for s in cfg.scenarios for i in range(cfg.runs)]
            naive_files = collect(pool, run_naive_file, ntasks, "naive file order")
        timeline_cfg = timeline_args(argv)
        timeline = timeline_runs(pool, timeline_cfg) if timeline_cfg else []
    naive_perm: list[Outcome] = []
    if cfg.naive in ("both", "random"):
        log("naive random order ...")
        naive_perm = [o for s in cfg.scenarios for o in naive_random(s, files[s][0], cfg)]
    m = math.ceil(cfg.unit_bytes / MIN_LINE_BYTES)
    rows = rows_of(engine, cfg, truths, predicted)
    print_table(
        f"engine: top-{cfg.top}, delta={cfg.delta}, {cfg.runs} random orders per scenario, "
        f"{cfg.size_mb:g} MB logs (seed {cfg.file_seed}), "
        f"{'unit chosen after a pilot' if cfg.adaptive else f'unit {cfg.unit_size} (M={m})'}"
        f"{' (cheap units)' if cfg.cheap_units else ''}, "
        f"batch {cfg.batch_bytes}, degrade_above={cfg.degrade_above:g}, "
        f"order {'keyed (Feistel)' if cfg.keyed_order else 'numpy permutation'}, "
        f"engine {engine_version()}",
        rows,
    )
    if cfg.adaptive:
        print_choices(rows)
    ok = verdicts(rows, cfg)
    print_wrong(rows)
    if naive_files:
        nrows = rows_of(naive_files, cfg, truths, {})
        print_table(
            f"naive, file order: binomial test after each 1% chunk at {cfg.delta}, "
            f"{cfg.runs} files per scenario ({cfg.naive_size_mb:g} MB, generator seeds 0..)",
            nrows,
        )
        print_wrong(nrows, most=3)
    if naive_perm:
        print_table(
            f"naive, random order: the same test after each 1% of {cfg.unit_size} units, "
            f"{cfg.runs} seeded orders of the engine logs",
            rows_of(naive_perm, cfg, truths, {}),
        )
    timeline_ok = print_timeline(timeline, timeline_cfg) if timeline_cfg else True
    print(f"\nruntime {time.perf_counter() - t0:.0f} s")
    return 0 if ok and timeline_ok else 1


if __name__ == "__main__":
    sys.exit(main())
