"""`make bench` (cron): one incremental run over a 5 MB slice appended to a 10 GB log.

The big log is never modified. The job's state is made as a user would
(``logagent cron --start end``: follow the file from its end; the format is
told from its last lines and pinned); then its offset is moved back to the
first line start at or after ``size - 5 MB``, as if the last run had ended
there and 5 MB had been appended since. Each timed run starts from a copy of
that state, as a fresh process (``python -m logagent cron``): the wall time
includes the interpreter's start-up and every import.

It prints: the run's wall time (best and median of ``--repeat``), the bytes
the run read from files (``rchar`` of ``/proc/self/io``, minus a run with
nothing new: so not the older 10 GB), the start-up floor (the interpreter,
``import polars``, every module a cron run loads), and a baseline measured
in the same run: ``tail -c N | awk`` counting the slice's 5xx per path.
Exits 1 when the run reads more than the slice or its counts differ from
the baseline's; the 0.5 s target is reported, not enforced (timing varies
with the machine's load).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_BIG = Path(__file__).parent / "data" / "dominant_10000mb_s1.log"
TARGET_S = 0.5
#: a cron run with its bytes read (``rchar``) printed to stderr on exit
WITH_IO = (
    "import atexit, sys\n"
    "def _io():\n"
    "    line = [x for x in open('/proc/self/io') if x.startswith('rchar')][0]\n"
    "    sys.stderr.write('RCHAR ' + line.split()[1] + '\\n')\n"
    "atexit.register(_io)\n"
    "sys.argv = ['logagent', *sys.argv[1:]]\n"
    "from logagent.cli import entry\n"
    "entry()\n"
)
#: what a cron run imports (the start-up floor, without reading anything)
CRON_IMPORTS = (
    "import logagent.cli.cron, logagent.config, logagent.cron.runner, logagent.engine.exact, "
    "logagent.report.markdown, logagent.sources.slices"
)
#: the CLI's own start-up around those imports (cli/startup.py: one BLAS thread, the collector
#: off and the classes' code from the cache while importing)
CLI_START = (
    "from logagent.cli.startup import defer_collection, imports_done, single_blas_thread\n"
    "single_blas_thread(); defer_collection('cron')\n"
)
CLI_DONE = "\nimports_done()"
AWK_5XX = '$9 ~ /^5[0-9][0-9]$/ { split($7, p, "?"); n[p[1]]++ } END { for (k in n) print n[k], k }'


def cron_cmd(state: Path, big: Path, *extra: str) -> list[str]:
    """A `logagent cron` run of this job."""
    return [sys.executable, "-m", "logagent", "cron", str(big), "--state", str(state), *extra]


def make_state(state: Path, big: Path, slice_bytes: int) -> int:
    """The job's state, following ``big`` from the line start nearest ``size - slice_bytes``."""
    proc = subprocess.run(
        cron_cmd(state, big, "--start", "end", "--json", "--no-normalize"),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(f"cron --start end failed ({proc.returncode}): {proc.stderr}")
    size = big.stat().st_size
    with open(big, "rb") as f:
        f.seek(size - slice_bytes)
        offset = size - slice_bytes + f.read(1 << 16).index(b"\n") + 1
    db = sqlite3.connect(state)
    try:
        (fmt,) = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() or (None,)
        print(f"state: --start end pinned the format {fmt!r}")
        db.execute("UPDATE files SET offset = ?", (offset,))
        db.commit()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the copy below is the whole state
    finally:
        db.close()
    return offset


def restore(base: Path, state: Path) -> None:
    """The state as it was before the timed run."""
    for suffix in ("-wal", "-shm"):
        Path(f"{state}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(base, state)


@dataclass
class Times:
    """Wall and CPU (user + system) seconds of repeated runs."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def __str__(self) -> str:
        return (
            f"wall best {min(self.wall):.3f} s, median {statistics.median(self.wall):.3f} s; "
            f"CPU best {min(self.cpu):.3f} s"
        )


def timed(cmd: list[str], repeat: int, before: object = None) -> Times:
    """Times of ``repeat`` runs of ``cmd`` (``before()`` is called ahead of each, untimed)."""
    times = Times()
    for _ in range(repeat):
        if callable(before):
            before()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True)
        times.wall.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {proc.stderr.decode()}")
    return times


def rchar(cmd: list[str]) -> tuple[int, str]:
    """Bytes the run read from files (rchar), and its stdout."""
    proc = subprocess.run([sys.executable, "-c", WITH_IO, *cmd[3:]], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"cron failed ({proc.returncode}): {proc.stderr}")
    line = next(x for x in proc.stderr.splitlines() if x.startswith("RCHAR "))
    return int(line.split()[1]), proc.stdout


def baseline(big: Path, nbytes: int) -> dict[str, int]:
    """``tail -c N | awk``: 5xx per path (query cut) of the slice."""
    out = subprocess.run(
        ["bash", "-c", f"tail -c {nbytes} {big} | awk '{AWK_5XX}'"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {k: int(n) for n, k in (line.split(" ", 1) for line in out.splitlines())}


def run(big: Path, slice_mb: float, repeat: int) -> int:
    """Set up, measure, print; return the exit status."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load} (timings scale with it)")
    size = big.stat().st_size
    slice_bytes = int(slice_mb * (1 << 20))
    work = Path(tempfile.mkdtemp(prefix="cron_bench_"))
    try:
        state, base = work / "job.sqlite", work / "base.sqlite"
        offset = make_state(state, big, slice_bytes)
        shutil.copyfile(state, base)
        new = size - offset
        print(f"log: {big} ({size / 1e9:.2f} GB); slice: bytes {offset:,}..{size:,} ({new:,} B)")
        cmd = cron_cmd(state, big, "--json", "--no-normalize", "--top", "1000")
        runs = timed(cmd, repeat, before=lambda: restore(base, state))
        restore(base, state)
        read_slice, stdout = rchar(cmd)
        read_nothing, _ = rchar(cmd)  # the same job again: nothing new (modules, state, head)
        data = json.loads(stdout)
        got = {e["key"]: e["count"] for e in data["answer"]["top"]}
        inc = data["incremental"]["files"][0]
        t0 = time.perf_counter()
        truth = baseline(big, new)
        awk_s = time.perf_counter() - t0
        # each starts and ends as the CLI does (one OpenBLAS thread: cli/startup.py; os._exit:
        # no interpreter teardown), so floor and run compare
        start = "import os; os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')\n"
        leave = "\nimport os; os._exit(0)"
        floor = {
            "python -c pass": timed([sys.executable, "-c", start + "pass" + leave], repeat),
            "import polars": timed([sys.executable, "-c", start + "import polars" + leave], repeat),
            "import polars, numpy, nanoarrow": timed(
                [sys.executable, "-c", start + "import polars, numpy, nanoarrow" + leave], repeat
            ),
            "every module a cron run imports": timed(
                [sys.executable, "-c", CLI_START + CRON_IMPORTS + CLI_DONE + leave], repeat
            ),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\ncron run on the slice (start-up included): {runs}")
    for name, times in floor.items():
        print(f"  start-up floor, {name:40s} {times}")
    imports = floor["every module a cron run imports"]
    print(
        f"  the run itself (best run - best import floor): wall "
        f"{min(runs.wall) - min(imports.wall):.3f} s, CPU {min(runs.cpu) - min(imports.cpu):.3f} s"
    )
    print(f"baseline, tail -c {new} | awk (5xx per path): {awk_s:.3f} s")
    extra = read_slice - read_nothing
    print(
        f"bytes read from files: {read_slice:,} (nothing new: {read_nothing:,}); "
        f"the slice's share {extra:,} of {new:,} new bytes"
    )
    ok = True
    if inc["bytes_new"] != new or inc["slices"][0]["start"] != offset:
        print(f"FAIL: the run read {inc['slices']} instead of {offset:,}..{size:,}")
        ok = False
    if extra > 2 * new:
        print("FAIL: the run read more than the slice (the older file?)")
        ok = False
    if got != truth:
        print(f"FAIL: the run's 5xx per path differ from the awk baseline's: {got} vs {truth}")
        ok = False
    verdict = "yes" if min(runs.wall) <= TARGET_S else "no"
    print(
        f"\n<= {TARGET_S} s with start-up: {verdict} (best {min(runs.wall):.3f} s); counts = awk: {got == truth}"
    )
    return 0 if ok else 1


def main() -> int:
    """Parse the flags and run."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big", type=Path, default=DEFAULT_BIG, help="the big log (not modified)")
    ap.add_argument("--slice-mb", type=float, default=5.0, help="MiB appended since the last run")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs (best and median shown)")
    args = ap.parse_args()
    if not args.big.is_file():
        print(f"no big log at {args.big} (see benchmarks/README or pass --big)", file=sys.stderr)
        return 2
    if os.path.getsize(args.big) <= args.slice_mb * (1 << 20):
        print("the big log is not bigger than the slice", file=sys.stderr)
        return 2
    return run(args.big, args.slice_mb, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
