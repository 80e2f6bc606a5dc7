"""Early stopping through the real engine: settles early when it may, honest when it may not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import Status
from logagent.samples import generate
from logagent.testing import fake_env


@pytest.fixture(scope="module")
def dominant(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    path = tmp_path_factory.mktemp("early") / "dominant.log"
    return path, generate(path, scenario="dominant", size_mb=30, seed=5)


def run(path: Path, *, top: int = 1, seed: int = 1, **analysis: Any) -> Any:
    budget = analysis.pop("budget", {})
    analysis = {"seed": seed, "degrade_above": 1.0, **analysis}  # the race itself, no shortcut
    settings = load_settings(analysis=analysis, reader={"unit_size": "1KiB"}, budget=budget)
    return analyze([str(path)], Question(top=top), settings, fake_env())


def test_dominant_route_settles_before_the_end(dominant: tuple[Path, dict[str, Any]]) -> None:
    """A clear winner is settled after reading part of the file, and it is the true one."""
    path, truth = dominant
    r = run(path)
    assert r.status is Status.SETTLED
    assert 0 < r.progress.fraction_read < 1
    top = r.answer.top[0]
    assert top.key == truth["top_errors"][0][0]
    true_total = truth["top_errors"][0][1]
    assert top.low <= true_total <= top.high
    true_share = true_total / truth["lines_5xx"]
    assert top.share_low <= true_share <= top.share_high
    actions = [d.action for d in r.decisions]
    assert actions[-1] == "STOP_SETTLED" and set(actions[:-1]) <= {"CONTINUE"}
    assert r.seed == 1 and r.input.reading == "random_units"
    assert r.saving is not None and r.saving.bytes > 0


def test_a_keyed_order_settles_as_the_array_does(
    dominant: tuple[Path, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond ``MATERIALIZE_UNITS`` the orders are computed (Feistel, file order by range): the
    early stop settles on the truth, reproducibly, and ``--full`` stays exact."""
    from logagent.sources import permute

    path, truth = dominant
    monkeypatch.setattr(permute, "MATERIALIZE_UNITS", 1000)  # 30 MB in 1 KiB units: 30k units
    first, again = run(path, seed=4), run(path, seed=4)
    assert first.status is Status.SETTLED and 0 < first.progress.fraction_read < 1
    top = first.answer.top[0]
    assert top.key == truth["top_errors"][0][0]
    assert top.low <= truth["top_errors"][0][1] <= top.high
    assert first.answer == again.answer and first.progress.units_read == again.progress.units_read
    full = run(path, top=3, full=True)
    assert full.status is Status.EXACT and full.progress.fraction_read == 1.0
    assert [[e.key, e.count] for e in full.answer.top] == truth["top_errors"][:3]


def test_same_seed_same_result(dominant: tuple[Path, dict[str, Any]]) -> None:
    """--seed makes a run reproducible (same units, same decisions, same answer)."""
    path, _ = dominant
    a, b = run(path, seed=9), run(path, seed=9)
    assert a.answer == b.answer and a.progress.units_read == b.progress.units_read
    assert [d.units_read for d in a.decisions] == [d.units_read for d in b.decisions]


def test_full_reads_everything_exactly(dominant: tuple[Path, dict[str, Any]]) -> None:
    """--full gives the exact answer with a zero-width interval."""
    path, truth = dominant
    r = run(path, top=3, full=True)
    assert r.status is Status.EXACT and r.progress.fraction_read == 1.0
    assert [[e.key, e.count] for e in r.answer.top] == truth["top_errors"][:3]


def test_unsettled_race_reads_to_the_end_and_is_exact(tmp_path: Path) -> None:
    """An exact tie never settles with eps = 0: everything is read and the answer is exact."""
    path = tmp_path / "tie.log"
    truth = generate(path, scenario="tie", size_mb=3, seed=2)
    r = run(path, top=1)
    assert r.status is Status.EXACT and r.progress.fraction_read == 1.0
    assert [r.answer.top[0].key, r.answer.top[0].count] == truth["top_errors"][0]


@pytest.mark.parametrize(
    ("budget", "reason"),
    [
        ({"max_fraction": 0.05}, "fraction_budget"),
        ({"max_seconds": 0.0001}, "time_budget"),
        ({"max_cpu_seconds": 0.0001}, "cpu_budget"),
    ],
)
def test_budgets_stop_with_a_partial_answer(
    dominant: tuple[Path, dict[str, Any]], budget: dict[str, float], reason: str
) -> None:
    """An exhausted budget stops with the current answer, its intervals and a warning."""
    path, _ = dominant
    r = run(path, top=2, budget=budget)
    assert r.status is Status.PARTIAL
    assert r.decisions[-1].action == "STOP_PARTIAL" and r.decisions[-1].reason == reason
    assert r.progress.fraction_read < 1 and any("partial answer" in w for w in r.warnings)
    first = r.answer.top[0]
    assert first.low <= first.estimate <= first.high


@pytest.mark.parametrize(
    ("budget", "reason"), [("max_cpu_seconds", "cpu_budget"), ("max_seconds", "time_budget")]
)
def test_budgets_stop_a_read_of_everything_too(
    dominant: tuple[Path, dict[str, Any]], budget: str, reason: str
) -> None:
    """``--full`` watches the time and CPU budgets as the early stop does (the CPU clock is
    read only when a CPU budget is set: ``Run.cpu_for_budget``)."""
    path, _ = dominant
    r = run(path, top=2, full=True, budget={budget: 0.0001})
    assert r.status is Status.PARTIAL and r.progress.fraction_read < 1
    assert r.decisions[-1].reason == reason


def test_cli_partial_exits_4_and_stdin_is_labelled(dominant: tuple[Path, dict[str, Any]]) -> None:
    """The CLI exits 4 on an exhausted budget; a stream says it was read in order."""
    path, _ = dominant
    cmd = [sys.executable, "-m", "logagent", "analyze", "--json", "--max-fraction", "0.02"]
    env = {**os.environ, "LOGAGENT_ANALYSIS__DEGRADE_ABOVE": "1"}
    proc = subprocess.run([*cmd, str(path)], capture_output=True, timeout=120, check=False, env=env)
    assert proc.returncode == 4 and json.loads(proc.stdout)["status"] == "partial"
    head = path.read_bytes()[:2_000_000]
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", "--json", "-"],
        input=head,
        capture_output=True,
        timeout=120,
        check=False,
    )
    r = json.loads(proc.stdout)
    assert r["input"]["reading"] == "stream" and r["status"] in ("exact", "recused")
    assert any("read in order" in w for w in r["warnings"])


def test_a_race_forecast_to_need_most_of_the_input_degrades_to_a_full_read(tmp_path: Path) -> None:
    """When the evidence would need most of the file, Router-Mem switches to an exact full read."""
    path = tmp_path / "close.log"
    truth = generate(path, scenario="close", size_mb=5, seed=4)
    settings = load_settings(analysis={"seed": 3}, reader={"unit_size": "4KiB"})
    r = analyze([str(path)], Question(top=2), settings, fake_env())
    assert r.status is Status.EXACT and r.input.reading == "sequential"
    assert [d.action for d in r.decisions[-2:]] == ["DEGRADE", "STOP_SETTLED"]
    assert r.decisions[-2].reason == "full_read_cheaper" and r.decisions[-1].reason == "exhausted"
    assert [[e.key, e.count] for e in r.answer.top] == truth["top_errors"][:2]


def test_stream_may_stop_early_only_when_assumed_exchangeable(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """stdin reads to the end; --assume-exchangeable stops early, labelled model-based."""
    path, truth = dominant
    data = path.read_bytes()
    base = [sys.executable, "-m", "logagent", "analyze", "--json", "-k", "1", "-"]
    plain = json.loads(
        subprocess.run(base, input=data, capture_output=True, timeout=300, check=False).stdout
    )
    assert plain["status"] == "exact" and plain["progress"]["bytes_read"] == len(data)
    env = {
        **os.environ,
        "LOGAGENT_READER__UNIT_SIZE": "1KiB",
        "LOGAGENT_READER__BATCH_BYTES": "1MiB",
    }
    proc = subprocess.run(
        [*base, "--assume-exchangeable"],
        input=data,
        capture_output=True,
        timeout=300,
        check=False,
        env=env,
    )
    model = json.loads(proc.stdout)
    assert model["status"] == "settled" and model["progress"]["bytes_read"] < len(data)
    assert model["answer"]["top"][0]["key"] == truth["top_errors"][0][0]
    assert any("model-based" in w for w in model["warnings"])


def test_error_rate_settles_on_the_true_leader_when_rest_is_bounded(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """error-rate among routes with many requests: settled (or exact) on the true leader."""
    path, truth = dominant
    n_min = 2000
    rates = {
        r: v["5xx"] / v["requests"] for r, v in truth["routes"].items() if v["requests"] >= n_min
    }
    leader = max(rates, key=lambda r: (rates[r], r))
    settings = load_settings(
        analysis={"seed": 2, "min_requests": n_min}, reader={"unit_size": "1KiB"}
    )
    q = Question(kind="error-rate", top=1, min_requests=n_min)
    r = analyze([str(path)], q, settings, fake_env())
    assert r.status in (Status.SETTLED, Status.EXACT)
    top = r.answer.top[0]
    assert top.key == leader
    if r.status is Status.SETTLED:
        assert top.rate_low is not None and top.rate_high is not None
        assert top.rate_low <= rates[leader] <= top.rate_high


def test_error_rate_race_settles_with_few_routes(tmp_path: Path) -> None:
    """Three busy routes, one failing 30 %: the rate race settles early on it, interval right."""
    import random

    from logagent.testing import combined_line

    rng = random.Random(3)
    rates_true = {"/pay": 0.30, "/cart": 0.02, "/home": 0.01}
    lines = []
    for _ in range(120_000):
        route = rng.choice(list(rates_true))
        lines.append(combined_line(route, 503 if rng.random() < rates_true[route] else 200))
    path = tmp_path / "rates.log"
    path.write_text("".join(x + "\n" for x in lines))
    # n_min large: routes never seen must hold 30 % of 10000 5xx to matter, which a sample rules
    # out early; with a small n_min only a (nearly) full read can (and the forecast says so).
    analysis = {"seed": 4, "degrade_above": 1.0, "min_requests": 10_000}
    settings = load_settings(analysis=analysis, reader={"unit_size": "1KiB"})
    q = Question(kind="error-rate", top=1, min_requests=10_000)
    r = analyze([str(path)], q, settings, fake_env())
    assert r.status is Status.SETTLED and r.progress.fraction_read < 1
    top = r.answer.top[0]
    assert top.key == "/pay"
    observed = sum(1 for x in lines if '"GET /pay ' in x and '" 503 ' in x)
    true_rate = observed / sum(1 for x in lines if '"GET /pay ' in x)
    assert top.rate_low is not None and top.rate_high is not None
    assert top.rate_low <= true_rate <= top.rate_high
    small = load_settings(analysis={"seed": 4}, reader={"unit_size": "1KiB"})
    exact = analyze([str(path)], Question(kind="error-rate", top=1), small, fake_env())
    assert exact.status is Status.EXACT and exact.decisions[-2].action == "DEGRADE"


def test_a_memory_budget_below_start_up_is_a_usage_error(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """--memory-budget 1MiB can never be met (the process needs more to start): exit 2 up front.

    (Memory stops of a full read are driven in-process, with fake readings, in
    tests/integration/test_memory_ladder.py.)
    """
    path, _ = dominant
    cmd = [sys.executable, "-m", "logagent", "analyze", "--json", "--full", "--memory-budget"]
    proc = subprocess.run([*cmd, "1MiB", str(path)], capture_output=True, timeout=120, check=False)
    assert proc.returncode == 2 and b"below what logagent needs" in proc.stderr
    assert proc.stdout == b""


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--max-seconds", "0.000001"], "time_budget"),
    ],
)
def test_budgets_and_memory_also_stop_a_full_read(
    dominant: tuple[Path, dict[str, Any]], args: list[str], reason: str
) -> None:
    """--full still honours time and memory budgets: partial answer, exit 4, reason in the trace."""
    path, _ = dominant
    cmd = [sys.executable, "-m", "logagent", "analyze", "--json", "--full", *args, str(path)]
    proc = subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert proc.returncode == 4, proc.stderr
    r = json.loads(proc.stdout)
    assert r["status"] == "partial" and r["decisions"][-1]["reason"] == reason
    assert r["progress"]["lines_read"] > 0


def test_a_fraction_budget_does_not_cut_a_stream(dominant: tuple[Path, dict[str, Any]]) -> None:
    """A stream's total is unknown, so --max-fraction cannot apply to it: it is read to the end."""
    path, _ = dominant
    data = path.read_bytes()[:3_000_000]
    cmd = [sys.executable, "-m", "logagent", "analyze", "--json", "--max-fraction", "0.1", "-"]
    proc = subprocess.run(cmd, input=data, capture_output=True, timeout=120, check=False)
    r = json.loads(proc.stdout)
    assert r["status"] in ("exact", "recused") and r["progress"]["bytes_read"] == len(data)


def test_bad_memory_budget_is_a_usage_error(dominant: tuple[Path, dict[str, Any]]) -> None:
    """An unreadable --memory-budget is one clear line and exit 2."""
    path, _ = dominant
    cmd = [sys.executable, "-m", "logagent", "analyze", "--memory-budget", "lots", str(path)]
    proc = subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert (
        proc.returncode == 2 and b"memory budget" in proc.stderr and b"Traceback" not in proc.stderr
    )


def test_a_selection_settles_early_on_the_same_evidence(
    dominant: tuple[Path, dict[str, Any]],
) -> None:
    """--by route --where status=5xx --where method!=OPTIONS (no named question) stops early
    with the true leader and its interval, like top-errors: the same race over the same units."""
    path, truth = dominant
    settings = load_settings(
        analysis={"seed": 1, "degrade_above": 1.0}, reader={"unit_size": "1KiB"}
    )
    q = Question(kind="top", top=1, by="route", where=("status=5xx", "method!=OPTIONS"))
    r = analyze([str(path)], q, settings, fake_env())
    plain = run(path)
    assert r.status is Status.SETTLED and 0 < r.progress.fraction_read < 1
    assert r.answer.top[0].key == truth["top_errors"][0][0] == plain.answer.top[0].key
    true_total = truth["top_errors"][0][1]  # the generator writes no OPTIONS request
    assert r.answer.top[0].low <= true_total <= r.answer.top[0].high
    assert set(r.answer.top[0].breakdown) <= {str(c) for c in range(500, 600)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_partial_read_in_file_order_bounds_each_key_by_what_was_not_read(
    dominant: tuple[Path, dict[str, Any]], seed: int
) -> None:
    """A read of everything stopped by a budget has counts of a prefix, not estimates: each
    key's interval is [count, count + the events the unread units can hold (M each)], and
    holds the truth (it was [count, count]: "about 56 (56-56) in the whole input" for a key
    with 141). The report says the counts are of the part read."""
    path, truth = dominant
    fraction = 0.05 * seed
    budget = {"max_fraction": fraction}
    r = run(path, top=3, full=True, seed=seed, budget=budget, degrade_above=1.0)
    assert r.status is Status.PARTIAL and r.progress.fraction_read < 1
    routes = {k: v["5xx"] for k, v in truth["routes"].items()}
    for e in r.answer.top:
        assert e.estimate == e.low == e.count < e.high
        assert e.low <= routes[e.key] <= e.high, (e.key, routes[e.key], e.low, e.high)
        assert e.share_low <= routes[e.key] / sum(routes.values()) <= e.share_high
    assert "in the part read" in r.report.markdown.split("\n\n")[1]


@pytest.mark.parametrize(
    ("fraction", "full"), [(0.05, False), (0.1, False), (0.02, True), (0.3, True)]
)
def test_a_fraction_budget_is_overshot_by_one_small_batch_at_most(
    dominant: tuple[Path, dict[str, Any]], fraction: float, full: bool
) -> None:
    """--max-fraction is checked between batches, so a batch is at most an eighth of it: 8
    MiB batches (and a prescan's eight of them) had read 2-8x the budget (0.05 -> 41 %)."""
    path, _ = dominant
    r = run(path, top=2, full=full, budget={"max_fraction": fraction}, degrade_above=1.0)
    assert r.status is Status.PARTIAL and r.decisions[-1].reason == "fraction_budget"
    assert fraction <= r.progress.fraction_read <= fraction * (1 + 1 / 8) + 1e-3


@pytest.mark.parametrize("full", [False, True])
def test_progress_counts_the_lines_read_so_far(
    dominant: tuple[Path, dict[str, Any]], full: bool
) -> None:
    """The progress a front door shows (the service's ``progress.lines_read``) is a running
    total, ending at the result's: it was the last batch's (~73k, then 32,631 at 100 % of a
    run that read 2.75 M lines)."""
    from dataclasses import replace

    path, _ = dominant
    seen: list[tuple[int, int]] = []
    env = replace(fake_env(), on_progress=lambda e: seen.append((e.bytes_read, e.lines_read)))
    settings = load_settings(analysis={"seed": 1, "full": full}, reader={"unit_size": "1KiB"})
    r = analyze([str(path)], Question(top=1), settings, env)
    assert len(seen) > 2
    lines = [n for _, n in seen]
    assert lines == sorted(lines) and [b for b, _ in seen] == sorted({b for b, _ in seen})
    assert lines[-1] == r.progress.lines_read
