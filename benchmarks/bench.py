"""`make bench`: logagent against the tools users would otherwise use, measured in the same run.

Generates (or reuses) a `dominant` combined log with ground truth, warms the
page cache, then times each tool on the same question ("top-5 routes by 5xx,
ids folded") several times and prints the median wall time, throughput, the
peak RSS of the largest process, and ratios against the grep|awk pipeline.
Timings are figures to read, not pass/fail thresholds: machines here are noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

AWK_ROUTE = r"""
{ p = $7; sub(/[?#].*/, "", p); n = split(p, s, "/"); r = ""
  for (i = 1; i <= n; i++) { x = s[i]
    if (x ~ /^[0-9]+$/) x = "{id}"
    else if (length(x) == 36 && x ~ /^[0-9a-fA-F]+-[0-9a-fA-F]+-[0-9a-fA-F]+-[0-9a-fA-F]+-[0-9a-fA-F]+$/) x = "{uuid}"
    else if (length(x) >= 16 && x ~ /^[0-9a-fA-F]+$/) x = "{hex}"
    r = (i == 1 ? x : r "/" x) }
  c[r]++ }
END { for (k in c) print c[k], k }
"""

POLARS_ONE_LINER = r"""
import sys, polars as pl
top = (pl.scan_csv(sys.argv[1], has_header=False, separator="\x1f", quote_char=None,
                   new_columns=["line"], schema_overrides={"line": pl.String}, encoding="utf8-lossy")
       .filter(pl.col("line").str.contains(r'" 5\d\d '))
       .select(pl.col("line").str.extract(r'"[A-Z]+ ([^ ?"]+)', 1)
               .str.replace_all(r"/\d+", "/{id}").alias("route"))
       .group_by("route").len().sort(["len", "route"], descending=[True, False]).head(5)
       .collect(engine="streaming"))
for route, n in top.iter_rows(): print(n, route)
"""


@dataclass
class Measure:
    name: str
    wall_s: list[float]
    peak_rss: int
    top: list[str]

    @property
    def median_s(self) -> float:
        return statistics.median(self.wall_s)


MAWK = "/usr/bin/mawk"
GAWK = "/usr/bin/gawk"


def have(tool: str) -> bool:
    """Whether a baseline tool is installed: a missing one must not time as 0.00 s."""
    return shutil.which(tool) is not None


def grep_awk(path: Path, awk: str) -> str:
    """The plain pipeline: grep the 5xx lines, fold ids to routes in awk, top 5."""
    return (
        f"LC_ALL=C grep '\" 5[0-9][0-9] ' {path} | {awk} '{AWK_ROUTE}' "
        "| sort -k1,1nr -k2,2 | head -5"
    )


def awk_version(awk: str) -> str:
    """Which awk (mawk answers -W version, gawk --version)."""
    for flag in ("-W version", "--version"):
        done = subprocess.run(f"{awk} {flag} 2>&1 </dev/null", shell=True, capture_output=True)
        first = done.stdout.decode(errors="replace").splitlines()[:1]
        if done.returncode == 0 and first:
            return f"{awk} ({first[0].strip()})"
    return awk


def commit() -> str:
    """The commit measured (with + when the work tree has changes)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, cwd=HERE)
    dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, cwd=HERE)
    return head.stdout.decode().strip() + ("+" if dirty.stdout.strip() else "")


def run_measured(cmd: list[str], *, shell: bool = False) -> tuple[float, int, str]:
    """Wall time, peak RSS of the largest process (wait4), and stdout of one run; a run that
    fails (nonzero exit) gives no output, so its answer is never taken for the truth's."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd if not shell else cmd[0], shell=shell, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        print(f"  (a run failed with exit {proc.returncode}: {cmd[0][:80]} ...)", file=sys.stderr)
        out = ""
    return wall, usage.ru_maxrss * 1024, out


def measure(name: str, cmd: list[str], parse: object, repeat: int, shell: bool = False) -> Measure:
    walls, peak, out = [], 0, ""
    for _ in range(repeat):
        wall, rss, out = run_measured(cmd, shell=shell)
        walls.append(wall)
        peak = max(peak, rss)
    top = parse(out)  # type: ignore[operator]
    if LAST_RESULT and name.startswith("logagent"):
        p, saving = LAST_RESULT["progress"], LAST_RESULT.get("saving") or {}
        name = (
            f"{name} [{LAST_RESULT['status']}, read {p['fraction_read']:.1%}, "
            f"evidence {saving.get('evidence_share', 0):.1%} of time]"
        )
        LAST_RESULT.clear()
    return Measure(name, walls, peak, top)


def same_top(top: list[str], truth_top: list[str]) -> bool:
    """The keys found are the truth's first ones; an empty answer (a failed run) is not."""
    return bool(top) and set(top) == set(truth_top[: len(top)])


def lines_top(out: str) -> list[str]:
    return [line.split(maxsplit=1)[1] for line in out.strip().splitlines() if line.strip()][:5]


def logagent_top(out: str) -> list[str]:
    if not out:  # the run failed (run_measured): no answer
        return []
    r = json.loads(out)
    LAST_RESULT.clear()
    LAST_RESULT.update(r)
    return [e["key"] for e in r["answer"]["top"]]


LAST_RESULT: dict = {}  # type: ignore[type-arg]  # the last logagent result, for its progress


def ensure_log(size_mb: int, seed: int) -> tuple[Path, dict]:  # type: ignore[type-arg]
    """Generate the log once, in a subprocess: this process must stay small, since a child's
    peak RSS (wait4) starts from its parent's size at fork."""
    DATA.mkdir(exist_ok=True)
    path = DATA / f"dominant_{size_mb}mb_s{seed}.log"
    truth_path = Path(f"{path}.truth.json")
    if not (path.exists() and truth_path.exists()):
        print(f"generating {path} ({size_mb} MB) ...", file=sys.stderr)
        cmd = [
            sys.executable,
            "-m",
            "logagent.samples",
            "--scenario",
            "dominant",
            "--size-mb",
            str(size_mb),
            "--seed",
            str(seed),
            "-o",
            str(path),
        ]
        subprocess.run(cmd, check=True)
    return path, json.loads(truth_path.read_text())


def warm(path: Path) -> None:
    with open(path, "rb") as f:
        while f.read(16 << 20):
            pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=int, default=1000, help="log size in MB [1000]")
    ap.add_argument("--repeat", type=int, default=3, help="runs per tool; the median is shown [3]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-polars", action="store_true", help="do not run the Polars one-liner")
    ap.add_argument(
        "--rss-sizes",
        default="1000,10000",
        help="sizes (MB) of the memory-growth table: peak RSS, full and early stop ['1000,10000']",
    )
    ap.add_argument(
        "--more-mb",
        type=int,
        default=200,
        help="size (MB) of the parse-every-line and long-line rows; 0 skips them [200]",
    )
    args = ap.parse_args()
    path, truth = ensure_log(args.size_mb, args.seed)
    size = path.stat().st_size
    warm(path)
    truth_top = [k for k, _ in truth["top_errors"][:5]]
    py = sys.executable
    la = [py, "-m", "logagent", "analyze", str(path), "--json", "--quiet", "--llm", "off"]
    print(f"commit {commit()}; awk: {awk_version(MAWK)} and {awk_version(GAWK)}")
    if not have(MAWK):  # the baseline every ratio is measured against
        print(f"{MAWK} is not installed (apt-get install mawk): no baseline to measure against")
        return 1
    if not have(GAWK):
        print(f"{GAWK} is not installed (apt-get install gawk): its rows are left out")
    print(f"grep | mawk pipeline (gawk the same with /usr/bin/gawk):\n  {grep_awk(path, MAWK)}")
    runs = [
        measure("grep | mawk", [grep_awk(path, MAWK)], lines_top, args.repeat, shell=True),
        measure("logagent --full", [*la, "--full"], logagent_top, args.repeat),
        *(
            [measure("grep | gawk", [grep_awk(path, GAWK)], lines_top, args.repeat, shell=True)]
            if have(GAWK)
            else []
        ),
        measure("logagent top-5", [*la, "-k", "5", "--seed", "1"], logagent_top, args.repeat),
        measure("logagent top-1", [*la, "-k", "1", "--seed", "1"], logagent_top, args.repeat),
    ]
    if not args.skip_polars:
        runs.append(
            measure(
                "polars one-liner", [py, "-c", POLARS_ONE_LINER, str(path)], lines_top, args.repeat
            )
        )
    report(runs, size, truth_top)
    early_stops(la, truth)
    if args.more_mb:
        import bench_more

        bench_more.report(bench_more.rows(la[:4] + la[5:], args.repeat, args.more_mb))
    sizes = [int(x) for x in args.rss_sizes.split(",") if x.strip()]
    if sizes:
        memory_growth(sizes, args.seed)
    startup(args.repeat)
    return 0


def early_stops(la: list[str], truth: dict) -> None:  # type: ignore[type-arg]
    """How each early-stop question went (seed 1): fraction read, the unit size the pilot chose
    and its forecast (or the DEGRADE), next to the truth's binding gap and what it implies."""
    counts = [n for _, n in truth["top_errors"]]
    print("\nearly stops (seed 1): the truth's binding gap, the pilot's choice, the fraction read")
    for k in (1, 5):
        done = subprocess.run([*la, "-k", str(k), "--seed", "1"], capture_output=True, text=True)
        try:
            r = json.loads(done.stdout)
        except json.JSONDecodeError:
            print(f"  top-{k}: no JSON result (exit {done.returncode})")
            continue
        a, b = counts[k - 1], counts[k] if len(counts) > k else 0
        rest = sum(counts[2 * k + 6 :])  # REST: routes outside the 2k + 6 candidates
        rival = max(b, rest)
        gap = f"{a:,} vs {rival:,} ({(a - rival) / a:+.0%} of the k-th)" if a else "none"
        # stats note §10: any delta-correct rule reads >= 1 - delta^(M/G); the variance term
        var = 2 * math.log(1 / 0.01) * (a + rival) / max(a - rival, 1) ** 2
        chosen = [d["detail"] for d in r["decisions"] if d["reason"] == "unit_size"]
        degrade = [d["detail"] for d in r["decisions"] if d["action"] == "DEGRADE"]
        how = chosen[0].split(";")[0] if chosen else "no unit-size choice"
        if degrade:
            how += f"; DEGRADE: {degrade[0]}"
        print(
            f"  top-{k}: {r['status']}, read {r['progress']['fraction_read']:.2%}, units "
            f"{r['input']['unit_size']:,} B; truth gap {gap}; variance alone needs "
            f"~{min(1.0, var / (1 + var)):.1%} of the input\n    {how}"
        )


def startup(repeat: int) -> None:
    """Start-up figures: `--help` and `analyze` of a 1-line file, and the ten slowest imports."""
    py = sys.executable
    one = DATA / "one_line.log"
    one.write_text('1.2.3.4 - - [01/Dec/2026:10:00:00 +0000] "GET /a/1 HTTP/1.1" 503 12 "-" "x"\n')
    bare = measure("python -c pass", [py, "-c", "pass"], lambda out: [], repeat)
    # with one OpenBLAS thread, as the CLI starts (cli/startup.py): the floor of its imports
    core = [py, "-c", "import os; os.environ['OPENBLAS_NUM_THREADS'] = '1'; import polars, numpy"]
    libs = measure("import polars, numpy", core, lambda out: [], repeat)
    helped = measure("logagent --help", [py, "-m", "logagent", "--help"], lambda out: [], repeat)
    la = [py, "-m", "logagent", "analyze", str(one), "--json", "--quiet", "--llm", "off"]
    tiny = measure("analyze (1 line)", la, lambda out: [], repeat)
    drop_cached_libraries()
    cold = measure("  libraries from disk", la, lambda out: [], repeat)  # the 1st reads them
    print("\nstart-up (median wall s, peak RSS MiB)")
    for m in (bare, libs, helped, tiny, cold):
        print(f"  {m.name:<24}{m.median_s:>7.2f} s {m.peak_rss / 2**20:>6.0f} MiB")
    done = subprocess.run([py, "-X", "importtime", *la[1:]], capture_output=True, text=True)
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit():
            rows.append((int(parts[0]), int(parts[1]), parts[2].rstrip()))
    print("ten slowest imports of `analyze` (self / cumulative ms):")
    for own, total, name in sorted(rows, reverse=True)[:10]:
        print(f"  {own / 1000:>7.1f} {total / 1000:>8.1f}  {name}")


def drop_cached_libraries() -> None:
    """Drop the page cache of the compiled libraries a run maps (Polars, numpy, OpenBLAS).

    A run's peak RSS counts the library pages it maps, and how many one touch maps depends
    on how the file came into the page cache: a library pip has just written sits in large
    folios and a 1-line run maps up to ~140 MiB; read back from disk (the kernel's
    read-around) the same run maps ~100 MiB. The row after this shows the second state, the
    one every run sees once the cache was dropped; its first run reads the libraries back
    (the median over repeats leaves that out). Pages a running process maps stay cached.
    """
    site = Path(sys.prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    for lib in (
        *site.glob("site-packages/_polars_runtime*/*.so"),
        *site.glob("site-packages/numpy*/**/*.so*"),
    ):
        try:
            fd = os.open(lib, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)  # written pages not yet on disk are not dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass
        finally:
            os.close(fd)


def memory_growth(sizes: list[int], seed: int) -> None:
    """Peak RSS of logagent on `dominant` logs of each size, full read and early stop, and
    each run's time against grep | mawk on the same file (one run each: the 10 GB rows of
    the issue's speed table, with the top-5 checked against the truth's).

    Memory must not grow with the input: the table shows each size's peak RSS
    and its growth over the smallest size's (the issue's bar: under 10 %).
    """
    py = sys.executable
    rows: dict[str, list[int]] = {"--full": [], "top-5 (early stop)": []}
    times: list[str] = []
    for size_mb in sizes:
        path, truth = ensure_log(size_mb, seed)
        truth_top = [k for k, _ in truth["top_errors"][:5]]
        warm(path)
        base, _, out = run_measured([grep_awk(path, MAWK)], shell=True)
        cells = [f"grep | mawk {base:.2f} s ({same_top(lines_top(out), truth_top)})"]
        la = [py, "-m", "logagent", "analyze", str(path), "--json", "--quiet", "--seed", "1"]
        for name, extra in (("--full", ["--full"]), ("top-5 (early stop)", ["-k", "5"])):
            wall, peak, out = run_measured([*la, *extra])
            rows[name].append(peak)
            right = same_top(logagent_top(out), truth_top)
            LAST_RESULT.clear()  # measure() names its rows from it: not from these runs
            cells.append(f"{name.split()[0]} {wall:.2f} s, {base / wall:.2f}x ({right})")
        times.append(f"  {size_mb} MB: " + "; ".join(cells))
    print(f"\npeak RSS (MiB) by input size: {', '.join(f'{s} MB' for s in sizes)}")
    for name, peaks in rows.items():
        growth = (max(peaks) / peaks[0] - 1) * 100 if peaks and peaks[0] else 0.0
        cells = "  ".join(f"{p / 2**20:>8.0f}" for p in peaks)
        print(f"{name:<22}{cells}   growth over {sizes[0]} MB: {growth:+.1f} %")
    print("the same runs' time against grep | mawk on the same file (one run; top-5 = truth):")
    print("\n".join(times))


def own_rss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def report(runs: list[Measure], size: int, truth_top: list[str]) -> None:
    base = runs[0]
    print(f"\ninput: {size / 1e9:.2f} GB dominant log; truth top-5: {truth_top}")
    print(
        f"baseline: this process's own peak RSS is {own_rss() / 2**20:.0f} MiB (a floor for children)"
    )
    print(
        f"{'tool':<20}{'median s':>10}{'MB/s':>9}{'peak RSS MiB':>14}{'speed vs grep|mawk':>19}"
        f"{'top-5 = truth':>15}"
    )
    for m in runs:
        ratio = base.median_s / m.median_s
        print(
            f"{m.name:<20}{m.median_s:>10.2f}{size / 1e6 / m.median_s:>9.0f}"
            f"{m.peak_rss / 2**20:>14.0f}{ratio:>18.2f}x{same_top(m.top, truth_top)!s:>15}"
        )
    print(
        "(runs: "
        + "; ".join(f"{m.name}: " + ", ".join(f"{w:.2f}" for w in m.wall_s) for m in runs)
        + ")"
    )


if __name__ == "__main__":
    sys.exit(main())
