"""What a run says when nothing can be ranked or placed (issue 13's second review): real events
are never denied, a window on unreadable stamps is refused, an empty window is no exact answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAD = '1.2.3.4 - - [10/Oct/2023:13:55:36 +0000] "'


def run(*args: str) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", *args, "--json", "--llm", "off"],
        capture_output=True, timeout=120, check=False, cwd=ROOT,
    )  # fmt: skip
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    return proc.returncode, out, proc.stderr.decode()


def test_5xx_without_a_usable_route_are_said_not_denied(tmp_path: Path) -> None:
    """Only requests without a target: a recusal that counts their 5xx, not "no 5xx line"."""
    log = tmp_path / "keyless.log"
    log.write_text(
        f'{HEAD}GET HTTP/1.1" 503 1 "-" "x"\n{HEAD}\\x16\\x03" 500 1 "-" "x"\n'
        f'{HEAD}GET /ok HTTP/1.1" 200 1 "-" "x"\n'
    )
    code, out, _ = run(str(log), "--full")
    assert code == 3 and out["recuse"]["reason_code"] == "NO_MATCHING_EVENTS"
    assert out["recuse"]["detail"].startswith("2 5xx in the whole input")


def test_options_star_and_connect_are_ranked(tmp_path: Path) -> None:
    """``OPTIONS *`` and ``CONNECT host:443`` are request targets HTTP allows: ranked."""
    log = tmp_path / "targets.log"
    log.write_text(
        f'{HEAD}OPTIONS * HTTP/1.1" 503 1 "-" "x"\n' * 2
        + f'{HEAD}CONNECT example.com:443 HTTP/1.1" 503 1 "-" "x"\n'
    )
    code, out, _ = run(str(log), "--full")
    assert code == 0
    assert [(e["key"], e["count"]) for e in out["answer"]["top"]] == [
        ("*", 2),
        ("example.com:443", 1),
    ]


def test_a_window_on_stamps_no_layout_reads_is_refused(tmp_path: Path) -> None:
    """Records whose stamps the layout cannot read: --since is exit 2 saying so, not an exact
    "nothing in the window" (every record would have been dropped as outside it)."""
    # BGL's head without its alert field: generic reads these records, not their stamps (BGL
    # itself is read, stamps and all, by the bgl layout: test_real_layouts' window test)
    log = tmp_path / "bgl_like.log"
    lines = [
        f"11178385{i:02d} 2005.06.03 R02-M1-N0 2005-06-03-15.42.{i:02d}.675872 R02-M1-N0 RAS "
        f"KERNEL {'FATAL' if i % 3 == 0 else 'INFO'} instruction cache parity error corrected"
        for i in range(60)
    ]
    log.write_text("\n".join(lines) + "\n")
    code, _, err = run(str(log), "-q", "status", "--since", "2005-06-04")
    assert code == 2 and "reads no timestamp" in err and "Traceback" not in err


def test_an_empty_window_of_a_distribution_is_a_recusal() -> None:
    """-q status with a window that holds no record: NO_MATCHING_EVENTS (exit 3), never exact."""
    code, out, _ = run(
        "sample_logs/apache_access.log", "-q", "status", "--since", "2020-01-01",
        "--until", "2020-01-02",
    )  # fmt: skip
    assert code == 3 and out["status"] == "recused"
    assert "time window" in out["recuse"]["detail"]
    assert "--since/--until" in out["recuse"]["suggestion"]


def test_error_types_of_a_component_without_errors_names_it(tmp_path: Path) -> None:
    """A component that has records, none at ERROR: the recusal says it of that component."""
    log = tmp_path / "comp.log"
    log.write_text(
        "2024-01-02 03:00:00,123 INFO [main] quiet - hello\n"
        "2024-01-02 03:00:01,123 ERROR [main] loud - boom\n"
    )
    code, out, _ = run(str(log), "-q", "error-types", "--key", "quiet")
    assert code == 3
    assert out["recuse"]["detail"] == "no ERROR+ record of component `quiet` in the whole input"


def test_zeek_tsv_directives_are_said_as_directives() -> None:
    code, out, _ = run("sample_logs/zeek_dns.log", "--by", "rcode_name")
    assert code == 0
    assert any("# directives" in w for w in out["warnings"])
    assert not any("stack traces" in w for w in out["warnings"])


def test_records_without_the_ranked_field_are_said_plainly() -> None:
    """A --by field some records lack: "N records have no `F` value", not "records on records"."""
    code, out, _ = run("sample_logs/zeek_dns.log", "--by", "rcode_name", "--full")
    assert code == 0
    markdown = out["report"]["markdown"]
    assert "56 records have no `rcode_name` value" in markdown
    assert "records on records" not in markdown


@pytest.mark.parametrize("every", [20, 5])
def test_lines_of_another_layout_are_said_even_when_few(tmp_path: Path, every: int) -> None:
    """A combined log with every 20th line a JSON access record: top-errors parses only its
    5xx candidates, so the JSON 503s are no records and not even malformed. The answer is
    exact for the combined records, and it says the other lines are not counted (5 % had
    said nothing; 20 % said they were "counted as malformed", and malformed_lines was 0)."""
    lines = []
    for i in range(5000):
        if i % every == 0:
            lines.append(json.dumps({"time": "2026-12-06T10:00:00Z", "path": "/j", "status": 503}))
        else:
            stamp = f"06/Dec/2026:10:{i // 60 % 60:02d}:{i % 60:02d} +0000"
            status = 500 if i % 7 == 0 else 200
            lines.append(f'10.0.0.1 - - [{stamp}] "GET /c/{i % 3} HTTP/1.1" {status} 5 "-" "ua"')
    log = tmp_path / "mixed.log"
    log.write_text("\n".join(lines) + "\n")
    code, r, _ = run(str(log), "--full")
    assert code == 0 and r["status"] == "exact"
    said = [w for w in r["warnings"] if "parse as combined" in w]
    assert said and "a 5xx line of another layout is missed" in said[0]
    assert "counted as malformed" not in said[0]


@pytest.mark.parametrize("fmt", ["jsonl", "hadoop"])
def test_a_named_format_that_reads_no_sampled_line_is_said(tmp_path: Path, fmt: str) -> None:
    """--format jsonl on a combined log larger than its sample: none of the lines sampled
    across it parse. Its records may be rare, so the run reads on, but it says the format
    read no sampled line (it had only said "no 5xx line in the whole input" of a log full of
    them). A review showed refusing outright would block one access line in 20,000."""
    head = '10.0.0.1 - - [06/Dec/2026:10:00:00 +0000] "GET /c/'
    lines = [
        f'{head}{i % 3} HTTP/1.1" {500 if i % 5 == 0 else 200} 5 "-" "ua"' for i in range(40000)
    ]
    log = tmp_path / "big.log"
    log.write_text("\n".join(lines) + "\n")  # ~3 MB: the sample is spots of it
    code, r, _ = run(str(log), "--format", fmt)
    assert code == 3
    said = [w for w in r["warnings"] if f"--format {fmt} reads none of the" in w]
    assert said and "or the format is wrong" in said[0]


def test_a_clean_generic_log_gets_no_warning_of_unparsed_lines(tmp_path: Path) -> None:
    """Detection scores the fallback formats at 0.9 of their share (``GENERIC_DISCOUNT``):
    a generic log whose every line parses scores 0.900, and the warning of unparsed lines
    (under 99 %) had fired on it, with 0 malformed lines."""
    levels = ("INFO", "WARN", "ERROR")
    lines = [
        f"2024-07-20 22:{i // 60 % 60:02d}:{i % 60:02d},672:{levels[i % 3]}:worker{i % 4}: "
        f"request {i} done"
        for i in range(600)
    ]
    log = tmp_path / "gen.log"
    log.write_text("\n".join(lines) + "\n")
    code, r, _ = run(str(log))
    assert code == 0
    assert r["input"]["format"] == "generic", r["input"]["format"]
    assert not [w for w in r["warnings"] if "of sampled lines parse as" in w], r["warnings"]


def test_many_malformed_5xx_candidates_are_still_refused(tmp_path: Path) -> None:
    """A few malformed 5xx candidates among lines the format reads are counted as malformed
    (a line cut by a rotation); many are still refused, "none of the N lines parsed is a
    record" (a review: 40 of 100 had become "no 5xx line in the whole input")."""
    from logagent import Question, analyze, load_settings
    from logagent.testing import combined_line, fake_env

    good = "".join(combined_line(f"/a/{i}", 200) + "\n" for i in range(60))
    bad = "".join(f'garbage "GET /pay/{i} HTTP/1.1" 503 12\n' for i in range(40))
    path = tmp_path / "a.log"
    path.write_text(good + bad)
    settings = load_settings(analysis={"full": True, "format": "combined"})
    many = analyze([str(path)], Question(top=5), settings, fake_env())
    assert many.recuse is not None and "none of the 40 lines parsed" in many.recuse.detail
    path.write_text(good + bad.splitlines(keepends=True)[0])
    few = analyze([str(path)], Question(top=5), settings, fake_env())
    assert few.progress.malformed_lines == 1
    assert few.recuse is None or "none of the" not in few.recuse.detail


def test_an_unknown_log_shows_its_entries_and_names_only_formats_that_read_some(
    tmp_path: Path,
) -> None:
    """A refusal quoted the header lines (``#Version``, ``#Fields``) as its examples, and
    listed every format at 0.0 % (probe H, Windows Firewall logs): the examples are entries,
    and the formats that read none of it are counted, not listed."""
    log = tmp_path / "pfirewall.log"
    head = "#Version: 1.5\n#Software: Microsoft Windows Firewall\n#Time Format: Local\n"
    rows = "".join(
        f"2021-06-22 12:19:{i % 60:02d} DROP UDP 192.168.1.{i % 250} 224.0.0.251 5353 5353 73 "
        "- - - - - - - RECEIVE\n"
        for i in range(300)
    )
    log.write_text(head + rows)
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", str(log), "--json", "--llm", "off"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 3, proc.stderr
    recuse = json.loads(proc.stdout)["recuse"]
    assert "DROP UDP" in recuse["detail"] and "#Version" not in recuse["detail"]
    assert "that read none of it" in recuse["attempted"]
    assert " 0.0%" not in recuse["attempted"]
