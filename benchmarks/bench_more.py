"""`make bench` part two: questions that parse every line, app logs, long lines, against awk.

Each row is timed back to back with its awk baseline in the same run (medians
of ``--repeat`` runs); ratios are awk's time over logagent's (above 1: faster).
Imported by bench.py; figures to read, not pass/fail thresholds.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from bench import DATA, Measure, measure

GAWK = "/usr/bin/gawk"
STATUS_AWK = r"{ c[$9]++ } END { for (k in c) print c[k], k }"
# Routes folded as logagent's default rules do ({id}, {uuid}, {hex} segments, query and an
# absolute URI's host dropped) and logagent's min_requests (100): the same question.
RATE_AWK = r"""{ p = $7; sub(/[?#].*/, "", p); sub(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\/]*/, "", p)
  n = split(p, s, "/"); q = s[1]
  for (i = 2; i <= n; i++) { t = s[i]
    if (t ~ /^[0-9]+$/) t = "{id}"
    else if (t ~ /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/) t = "{uuid}"
    else if (t ~ /^[0-9a-fA-F]+$/ && length(t) >= 16) t = "{hex}"
    q = q "/" t }
  r[q]++; if ($9 ~ /^5/) e[q]++ }
END { for (k in e) if (r[k] >= 100) printf "%.6f %s\n", e[k] / r[k], k }"""
# --no-normalize keeps the raw path cut at the query string (README), and so does this.
RAW_AWK = r"""$9 ~ /^5[0-9][0-9]$/ { p = $7; sub(/[?#].*/, "", p); c[p]++ }
END { for (k in c) print c[k], k }"""
APP_AWK = r"""{ if (match($0, /"logger": *"[^"]*"/)) { s = substr($0, RSTART, RLENGTH);
  sub(/^"logger": *"/, "", s); sub(/"$/, "", s); c[s]++ } }
END { for (k in c) print c[k], k }"""
# log4j's "date time LEVEL [thread] logger - message": the logger is the fifth field.
LOG4J_AWK = r"""$3 ~ /^(ERROR|FATAL)$/ { c[$5]++ } END { for (k in c) print c[k], k }"""
# The level mix of the same log4j log: the records' third field (stack-trace lines skipped).
LOG4J_STATUS_AWK = (
    r"""$1 ~ /^[0-9][0-9][0-9][0-9]-/ { c[$3]++ } END { for (k in c) print c[k], k }"""
)
# A log4j layout of the JSON app log's records; one ERROR record in ten (by its stamp's last
# digit) carries a three-line stack trace, as Java services write them.
_LOG4J_SCRIPT = r"""
import sys, polars as pl
ts = pl.col("ts")
stamp = pl.format("{} {},{}", ts.str.slice(0, 10), ts.str.slice(11, 8), ts.str.slice(20, 3))
trace = pl.when((pl.col("level") == "ERROR") & (ts.str.slice(22, 1) == "7")).then(
    pl.format("\njava.lang.IllegalStateException: {}\n\tat com.example.svc.Handler.handle"
              "(Handler.java:118)\n\tat com.example.svc.Dispatcher.run(Dispatcher.java:64)"
              "\n\tat java.base/java.lang.Thread.run(Thread.java:833)", pl.col("message"))
).otherwise(pl.lit(""))
line = pl.format("{} {} [http-nio-8080-exec-{}] {} - {}{}", stamp, pl.col("level").str.pad_end(5),
                 ts.str.slice(22, 1), pl.col("logger"), pl.col("message"), trace)
pl.scan_ndjson(sys.argv[1]).select(line).sink_csv(sys.argv[2], include_header=False,
                                                  quote_style="never")
"""


def prefix_log(path: Path, size_mb: int) -> Path:
    """The first ``size_mb`` MB of ``path`` (whole lines), for the slower parse-every-line rows."""
    out = DATA / f"{path.stem}_first{size_mb}mb.log"
    if not out.exists():
        with open(path, "rb") as src, open(out, "wb") as dst:
            left = size_mb * 10**6
            while left > 0:  # in pieces: this process's RSS is the floor of its children's
                piece = src.read(min(left, 16 << 20))
                if not piece:
                    break
                dst.write(piece)
                left -= len(piece)
            dst.write(src.readline())
    return out


def long_line_log(path: Path, size_mb: int, share: float = 0.05) -> Path:
    """A copy of the first ``size_mb`` MB where ``share`` of the lines carry an 8 KB query string."""
    out = DATA / f"{path.stem}_long{size_mb}mb.log"
    if out.exists():
        return out
    rng = random.Random(1)
    pad = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8192))
    with open(path, "rb") as src, open(out, "wb") as dst:
        for line in src:
            if dst.tell() >= size_mb * 10**6:
                break
            if rng.random() < share:
                line = line.replace(b" HTTP/", f"&q={pad} HTTP/".encode(), 1)
            dst.write(line)
    return out


def app_log(size_mb: int) -> Path:
    """A JSON-lines application log from ``logagent.samples.app``."""
    out = DATA / f"app_{size_mb}mb_s1.jsonl"
    if not out.exists():
        cmd = [sys.executable, "-m", "logagent.samples.app", "--size-mb", str(size_mb)]
        subprocess.run([*cmd, "--seed", "1", "-o", str(out)], check=True)
    return out


def log4j_log(size_mb: int) -> Path:
    """A log4j log of ~``size_mb`` MB: the records of a JSON app log (15 % larger, seed 2) in
    log4j's layout, with stack traces (``_LOG4J_SCRIPT``)."""
    out = DATA / f"log4j_{size_mb}mb_s2.log"
    if not out.exists():
        source = DATA / f"app_{size_mb * 115 // 100}mb_s2.jsonl"
        cmd = [sys.executable, "-m", "logagent.samples.app", "--size-mb", str(size_mb * 115 // 100)]
        subprocess.run([*cmd, "--seed", "2", "-o", str(source)], check=True)
        part = out.with_suffix(".part")
        subprocess.run([sys.executable, "-c", _LOG4J_SCRIPT, str(source), str(part)], check=True)
        part.rename(out)
        source.unlink()
        source.with_name(source.name + ".truth.json").unlink(missing_ok=True)
    return out


def awk_top(out: str) -> list[str]:
    """Top keys of ``count key`` lines, most first."""
    rows = [line.split(maxsplit=1) for line in out.strip().splitlines() if line.strip()]
    rows.sort(key=lambda r: (-float(r[0]), r[1]))
    return [r[1] for r in rows[:5]]


def la_top(out: str) -> list[str]:
    """Top keys of a logagent JSON result (status: the classes' top statuses)."""
    if not out:  # the run failed (bench.run_measured): no answer
        return []
    answer = json.loads(out)["answer"]
    return [str(e["key"]) for e in answer.get("top") or []][:5]


def rows(la: list[str], repeat: int, size_mb: int) -> list[tuple[str, int, Measure, Measure]]:
    """(name, bytes, logagent, awk) for each comparison."""
    base = DATA / "dominant_1000mb_s1.log"
    small = prefix_log(base, size_mb)
    longf = long_line_log(base, size_mb)
    app = app_log(1000)
    log4j = log4j_log(1000)
    out: list[tuple[str, int, Measure, Measure]] = []
    if shutil.which(GAWK) is None:
        print(
            f"\n{GAWK} is not installed (apt-get install gawk): the parse-every-line rows are left out"
        )
        return out

    def pair(name: str, path: Path, extra: list[str], awk: str, grep: str = "") -> None:
        # gawk in the C locale on both sides of a pipe: in a UTF-8 locale (C.UTF-8 here) its
        # match() ran the app row's awk 3.4x slower (0.97 -> 3.3 s), a baseline too easy to beat
        gawk = f"LC_ALL=C {GAWK} '{awk}'"
        shell = f"{grep} {path} | {gawk}" if grep else f"{gawk} {path}"
        a = measure(f"gawk {name}", [shell], awk_top, repeat, shell=True)
        m = measure(f"logagent {name}", [*la, str(path), *extra], la_top, repeat)
        out.append((name, path.stat().st_size, m, a))

    pair("-q status", small, ["-q", "status", "--full"], STATUS_AWK)
    pair("-q error-rate", small, ["-q", "error-rate", "--full"], RATE_AWK)
    pair("--no-normalize", small, ["--full", "--no-normalize"], RAW_AWK)
    if size_mb < 1000:  # the same on the whole 1 GB log: the start-up, ~0.4 s, weighs less
        pair("-q status, 1 GB", base, ["-q", "status", "--full"], STATUS_AWK)
        pair("--no-normalize, 1 GB", base, ["--full", "--no-normalize"], RAW_AWK)
    pair("long lines -q status", longf, ["-q", "status", "--full"], STATUS_AWK)
    pair("long lines top-errors", longf, ["--full", "--no-normalize"], RAW_AWK)
    if size_mb < 1000:  # the same share of long lines in 1 GB: the start-up weighs less
        pair(
            "long lines -q status, 1 GB",
            long_line_log(base, 1000),
            ["-q", "status", "--full"],
            STATUS_AWK,
        )
    grep = "LC_ALL=C grep -E 'ERROR|FATAL'"
    pair("app top-error-components", app, ["-q", "top-error-components", "--full"], APP_AWK, grep)
    components = ["-q", "top-error-components", "--full"]
    pair("log4j top-error-components", log4j, components, LOG4J_AWK, grep)
    # an app log's parse-every-line question: its timeline buckets the events from the staged
    # time (stop 52: 200 MB 8.0 -> 2.3 s), where it had parsed each ERROR line again
    pair(
        "log4j -q status", prefix_log(log4j, size_mb), ["-q", "status", "--full"], LOG4J_STATUS_AWK
    )
    return out


def report(table: list[tuple[str, int, Measure, Measure]]) -> None:
    """One line per comparison: MB/s of each, the ratio, peak RSS, same top keys."""
    print(f"\nparse-every-line questions, app logs, long lines (baseline {GAWK})")
    print(
        f"{'question':<28}{'MB':>7}{'logagent s':>12}{'MB/s':>8}{'gawk s':>9}{'MB/s':>8}"
        f"{'ratio':>8}{'RSS MiB':>9}{'same top':>10}"
    )
    for name, size, m, a in table:
        print(
            f"{name:<28}{size / 1e6:>7.0f}{m.median_s:>12.2f}{size / 1e6 / m.median_s:>8.0f}"
            f"{a.median_s:>9.2f}{size / 1e6 / a.median_s:>8.0f}{a.median_s / m.median_s:>7.2f}x"
            f"{m.peak_rss / 2**20:>9.0f}{bool(m.top) and set(m.top) == set(a.top)!s:>10}"
        )
