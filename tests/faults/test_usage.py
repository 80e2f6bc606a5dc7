"""Settings that can never work: a one-line usage error (exit 2) before anything is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.faults.conftest import clean, cli, result

SAMPLE = "sample_logs/nginx_access.log"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seed", "-1"], "--seed"),
        (["--unit-size", "1TiB"], "larger than 1 GiB"),
        (["--unit-size", "lots"], "not a size"),
        (["--memory-budget", "1KiB"], "below what logagent needs"),
        (["--memory-budget", "0"], "below what logagent needs"),
        (["--memory-budget", "lots"], "memory budget"),
        (["--line-cap", "2GiB", "--memory-budget", "400MiB"], "--line-cap"),
    ],
)
def test_impossible_settings_are_usage_errors(args: list[str], says: str) -> None:
    """Each: exit 2, the flag named, no traceback, nothing printed on stdout."""
    proc = cli("analyze", SAMPLE, *args)
    err = clean(proc)
    assert proc.returncode == 2 and says in err and proc.stdout == b""


def test_tiny_units_on_a_large_file_are_refused(big: tuple[Path, dict[str, Any]]) -> None:
    """--unit-size 1 on 120 MB under 300 MiB: refused (its bookkeeping could never fit)."""
    proc = cli("analyze", str(big[0]), "--unit-size", "1", "--memory-budget", "300MiB")
    err = clean(proc)
    assert proc.returncode == 2 and "--unit-size" in err


def test_a_malformed_ollama_host_breaks_no_command() -> None:
    """OLLAMA_HOST=foo:bar:: : --version works, and analyze warns and uses the template."""
    env = {"OLLAMA_HOST": "foo:bar::", "LOGAGENT_LLM__MODE": "auto"}
    version = cli("--version", env=env)
    assert version.returncode == 0 and b"version" in version.stdout
    proc = cli("analyze", SAMPLE, "--json", env=env)
    err = clean(proc)
    assert proc.returncode == 0 and "not a valid address" in err
    assert result(proc)["report"]["fallback_reason"] == "llm_unavailable"


def test_every_command_has_help() -> None:
    """``logagent CMD --help`` works for every command (exit 0, its usage shown)."""
    from logagent.cli import COMMANDS

    for name in COMMANDS:
        proc = cli(name, "--help")
        assert proc.returncode == 0 and b"Usage:" in proc.stdout
        assert f"logagent {name} [OPTIONS]".encode() in proc.stdout


def test_status_and_error_rate_finish_under_a_budget_they_fit(
    big: tuple[Path, dict[str, Any]],
) -> None:
    """A full read that peaks below 300 MiB is not given up under a 300 MiB budget."""
    for question in ("status", "error-rate"):
        proc = cli("analyze", str(big[0]), "-q", question, "--full", "--memory-budget", "300MiB",
                   "--json", timeout=300)  # fmt: skip
        clean(proc)
        r = result(proc)
        assert proc.returncode == 0 and r["status"] == "exact", r["decisions"][-1]
        assert r["progress"]["peak_rss_bytes"] <= 300 << 20


def test_year_places_year_less_stamps_for_a_window() -> None:
    """syslog stamps carry no year: with --year 2015 a 2015 window finds its records; without
    it they are placed in this year or the last, and the window holds none."""
    args = ["analyze", "sample_logs/syslog.log", "-q", "top-error-components", "--full", "--json",
            "--since", "2015-03-05T12:00:00Z", "--until", "2015-03-05T12:10:00Z"]  # fmt: skip
    with_year = cli(*args, "--year", "2015")
    clean(with_year)
    r = result(with_year)
    assert with_year.returncode == 0 and r["answer"]["total"] > 0
    without = cli(*args)
    assert (
        without.returncode == 3 and result(without)["recuse"]["reason_code"] == "NO_MATCHING_EVENTS"
    )


def test_an_unknown_component_is_named_with_the_closest_ones() -> None:
    """error-types --key with a typo: "no record of component", the closest names first."""
    proc = cli("analyze", "sample_logs/app_log4j.log", "-q", "error-types",
               "--key", "com.shop.pay.StripeClien", "--json")  # fmt: skip
    clean(proc)
    recuse = result(proc)["recuse"]
    assert proc.returncode == 3 and "of component `com.shop.pay.StripeClien`" in recuse["detail"]
    assert recuse["suggestion"].startswith("did you mean `com.shop.pay.StripeClient`")


def test_an_app_log_recusal_never_suggests_a_status_mix(tmp_path: Path) -> None:
    """No ERROR record in an app log: the suggestion is --level warn, not an HTTP status mix."""
    log = tmp_path / "quiet.log"
    log.write_text(
        "".join(
            f"2024-03-05 12:00:{i:02d},000 INFO  [main] com.x.A - fine {i}\n" for i in range(50)
        )
    )
    proc = cli("analyze", str(log), "-q", "top-error-components", "--json")
    clean(proc)
    recuse = result(proc)["recuse"]
    assert proc.returncode == 3 and "--level warn" in recuse["suggestion"]
    assert "status" not in recuse["suggestion"]


def test_tiny_units_beyond_the_array_limit_cost_no_bookkeeping(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """64 B units of 120 MB (1.9M units, 90 MB of bookkeeping as arrays) are refused under
    150 MiB, and accepted once orders that long are computed instead of stored (the array
    limit lowered)."""
    from logagent.errors import ConfigError
    from logagent.limits import check_fixed_costs
    from logagent.sources import permute

    args = {"budget_bytes": 150 << 20, "line_cap": 1 << 20, "unit_size": 64}
    with pytest.raises(ConfigError, match="bookkeeping"):
        check_fixed_costs(**args, total_bytes=120_000_000)
    monkeypatch.setattr(permute, "MATERIALIZE_UNITS", 100_000)
    check_fixed_costs(**args, total_bytes=120_000_000)


@pytest.mark.parametrize("lines", [50, 12_000])  # detection's own sample; the cascade's read
@pytest.mark.parametrize("named", [False, True])
def test_a_line_cap_that_cuts_every_line_is_named(tmp_path: Path, lines: int, named: bool) -> None:
    """--line-cap 20 leaves no format anything to read, and cuts every 5xx out of its line: the
    recusal says the cap did it (it said only "see which format parses it", or "no 5xx line in
    the whole input"), and a cap that cuts no line is not blamed."""
    from logagent.testing import combined_line

    log = tmp_path / "access.log"
    log.write_text(
        "".join(combined_line(f"/p/{i % 7}", 200 + 300 * (i % 2)) + "\n" for i in range(lines))
    )
    fmt = ["--format", "combined"] if named else []
    r = result(cli("analyze", str(log), "--json", "--line-cap", "20", *fmt))
    assert r["status"] == "recused"
    assert r["recuse"]["reason_code"] in ("UNRECOGNIZED_FORMAT", "NO_MATCHING_EVENTS")
    said = r["recuse"]["suggestion"]
    assert "longer than --line-cap (20 bytes)" in said and "raise --line-cap" in said
    assert said.startswith(f"{lines:,} of {lines:,} lines")
    other = tmp_path / "prose.log"
    other.write_text("".join(f"just words, number {i}\n" for i in range(lines)))
    r = result(cli("analyze", str(other), "--json", "--line-cap", "4KiB", *fmt))
    assert r["status"] == "recused" and "--line-cap" not in r["recuse"]["suggestion"]
