"""A healthy log stops early too, through the real CLI: --negligible and the controlled abort."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from logagent.testing import combined_line
from tests.conftest import ROUTES, random_log_lines

# Small batches: with 256-byte units the default 8 MiB batch would be the whole test file.
ENV = {**os.environ, "LOGAGENT_LOG_LEVEL": "warning", "LOGAGENT_READER__BATCH_BYTES": "256KiB"}
HEALTHY = ("--negligible", "0.01", "--unit-size", "256", "--llm", "off", "--seed")


def run(*args: str) -> tuple[int, str]:
    """``logagent analyze ARGS``: exit code and stdout."""
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", *args],
        capture_output=True,
        env=ENV,
        timeout=300,
        check=False,
    )
    return proc.returncode, proc.stdout.decode()


def access_lines(n: int, error_share: float, seed: int) -> list[str]:
    """``n`` combined lines of which about ``error_share`` are 5xx (the rest 200/404)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        path = rng.choice(ROUTES).format(rng.randint(1, 10**6))
        status = rng.choice([500, 503]) if rng.random() < error_share else rng.choice([200, 404])
        out.append(combined_line(path, status))
    return out


def write(path: Path, lines: list[str]) -> Path:
    """The lines as a file."""
    path.write_text("\n".join(lines) + "\n")
    return path


def sparse(path: Path, share: float, n_lines: int, seed: int) -> Path:
    """Binary junk lines (no newline inside) with ``share`` valid combined lines spread in."""
    rng = np.random.default_rng(seed)
    keep = set(rng.choice(n_lines, round(share * n_lines), replace=False).tolist())
    return junk_with(path, n_lines, keep, rng, seed)


def junk_with(
    path: Path, n_lines: int, keep: set[int], rng: np.random.Generator, seed: int
) -> Path:
    """``n_lines`` binary junk lines (no newline inside), valid combined lines at ``keep``."""
    valid = iter(random_log_lines(seed, n_lines))
    lengths = rng.integers(20, 300, n_lines)
    junk = rng.integers(0, 256, int(lengths.sum()), dtype=np.uint8)
    junk[junk == 10] = 32
    raw, pos, out = junk.tobytes(), 0, []
    for i, n in enumerate(lengths.tolist()):
        out.append(next(valid).encode() if i in keep else raw[pos : pos + n])
        pos += n
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40,000 lines, no 5xx at all (~7 MB)."""
    return write(tmp_path_factory.mktemp("healthy") / "ok.log", access_lines(40_000, 0.0, 1))


def test_a_healthy_log_settles_nothing_worth_reporting(healthy: Path) -> None:
    """No 5xx: settled early, exit 0, the claim in JSON, in the trace and in plain words."""
    code, out = run(str(healthy), "--json", *HEALTHY, "1")
    r = json.loads(out)
    assert code == 0 and r["status"] == "settled"
    assert r["answer"]["negligible"] == {
        "rate": 0.01,
        "confidence": 0.9975,
        "events_seen": 0,
        "lines_seen": r["progress"]["lines_read"],
    }
    assert r["answer"]["top"] == [] and r["recuse"] is None
    assert r["progress"]["fraction_read"] < 0.5
    last = r["decisions"][-1]
    assert (last["action"], last["reason"]) == ("STOP_SETTLED", "negligible")
    assert "events < 1.0000% of lines at alpha 0.0025" in last["detail"]
    md = r["report"]["markdown"]
    assert (
        "No route has a meaningful number of 5xx: with 99 % confidence 5xx are under 1.00 %" in md
    )
    assert 'not "none at all"' in md


def test_the_markdown_report_says_it_in_plain_words(healthy: Path) -> None:
    """Without --json the report's headline is the negligible statement with what was read."""
    code, out = run(str(healthy), *HEALTHY, "2")
    assert code == 0
    assert "No route has a meaningful number of 5xx" in out and "Read " in out


def test_only_a_full_read_says_none_at_all(healthy: Path) -> None:
    """--negligible 0: the whole log is read and the answer is NO_MATCHING_EVENTS (exit 3)."""
    code, out = run(str(healthy), "--json", "--negligible", "0", "--llm", "off")
    r = json.loads(out)
    assert code == 3 and r["recuse"]["reason_code"] == "NO_MATCHING_EVENTS"
    assert r["progress"]["fraction_read"] == 1.0 and r["answer"].get("negligible") is None


def test_a_few_5xx_under_the_rate_are_reported_with_intervals(tmp_path: Path) -> None:
    """5xx at 0.1 % against --negligible 1 %: settled negligible, answer.top what was seen."""
    path = write(tmp_path / "few.log", access_lines(40_000, 0.001, 3))
    code, out = run(str(path), "--json", *HEALTHY, "3")
    r = json.loads(out)
    assert code == 0 and r["answer"]["negligible"] is not None
    neg = r["answer"]["negligible"]
    assert neg["events_seen"] == sum(e["count"] for e in r["answer"]["top"])
    for e in r["answer"]["top"]:
        assert e["low"] <= e["estimate"] <= e["high"] and e["count"] <= e["high"]


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_5xx_over_the_rate_are_never_called_negligible(tmp_path: Path, seed: int) -> None:
    """5xx at 3 % against --negligible 1 %: an answer, never the negligible claim."""
    path = write(tmp_path / "errors.log", access_lines(40_000, 0.03, seed))
    code, out = run(str(path), "--json", *HEALTHY, str(seed))
    r = json.loads(out)
    assert code == 0 and r["status"] in ("settled", "exact")
    assert r["answer"]["negligible"] is None and r["answer"]["top"]
    assert all(d["reason"] != "negligible" for d in r["decisions"])


def test_two_percent_valid_lines_in_junk_are_answered(tmp_path: Path) -> None:
    """2 % valid lines spread through binary junk: answered, not recused (2 % > 1 %)."""
    path = sparse(tmp_path / "two.log", 0.02, 50_000, 7)
    code, out = run(str(path), "--json", "--llm", "off", "--seed", "7")
    r = json.loads(out)
    assert code == 0 and r["status"] in ("settled", "exact"), r.get("recuse")


def test_a_tenth_of_a_percent_valid_lines_is_recused_with_its_bound(tmp_path: Path) -> None:
    """0.1 % valid lines: UNRECOGNIZED_FORMAT (exit 3) before the end, the bound in the trace."""
    path = sparse(tmp_path / "tenth.log", 0.001, 50_000, 8)
    code, out = run(str(path), "--json", "--llm", "off", "--seed", "8")
    r = json.loads(out)
    assert code == 3 and r["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    assert r["progress"]["fraction_read"] < 1.0
    trace = [d for d in r["decisions"] if d["reason"] == "UNRECOGNIZED_FORMAT"]
    assert "proved: records of the format < 1.0000% of lines at alpha 0.001" in trace[0]["detail"]


def clustered_between_spots(path: Path, n_lines: int, per_cluster: int, seed: int) -> Path:
    """Junk with valid combined lines only in clusters midway between the 8 detection spots
    (spot i lies at i/7 of the file): the spots see junk alone."""
    keep: set[int] = set()
    for i in range(7):
        mid = int((2 * i + 1) / 14 * n_lines)
        keep |= set(range(mid - per_cluster // 2, mid + per_cluster // 2))
    return junk_with(path, n_lines, keep, np.random.default_rng(seed), seed)


def test_valid_lines_the_spots_miss_are_found_in_random_units(tmp_path: Path) -> None:
    """~3 % valid lines clustered between the detection spots: the spots parse nothing, the
    cascade over random units finds them, and the question is answered, not recused."""
    path = clustered_between_spots(tmp_path / "hidden.log", 60_000, 260, 3)
    code, out = run(str(path), "--json", "--llm", "off", "--seed", "4")
    r = json.loads(out)
    assert code == 0 and r["status"] in ("settled", "exact"), r.get("recuse")
    assert any("the detection sample (8 spots) parsed no line" in w for w in r["warnings"])
    assert r["input"]["format"] == "combined"


def test_pure_junk_is_recused_by_a_proof_before_the_end(tmp_path: Path) -> None:
    """No valid line at all: the cascade proves it at delta_abort / 2 from part of the input."""
    path = sparse(tmp_path / "junk.log", 0.0, 120_000, 9)
    code, out = run(str(path), "--json", "--llm", "off", "--seed", "5")
    r = json.loads(out)
    assert code == 3 and r["recuse"]["reason_code"] == "UNRECOGNIZED_FORMAT"
    detail = r["recuse"]["detail"]
    assert "proved: lines any known format reads are < 1.00% of all lines at alpha 0.0005" in detail
    found = re.search(r"after ([0-9,]+) random units of ([0-9,]+)", detail)
    assert found is not None, detail
    read, total = (int(x.replace(",", "")) for x in found.groups())
    assert read < total
