"""Real-system samples: each layout detected at >= 0.9, and the CLI's per-component answer
(by ERROR and by WARN, full read and early stop) equals an independent per-line reference."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.real_reference import READERS, SAMPLES, reference, zeek_reference

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "sample_logs"
ZEEK_FORMATS = ("zeek", "zeek_tsv")  # JSON and TSV: no level, every field its own


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", *args],
        capture_output=True,
        timeout=180,
        check=False,
        cwd=ROOT,
    )


def answer(name: str, *extra: str) -> tuple[int, dict[str, Any]]:
    args = ("analyze", f"sample_logs/{name}", "-q", "top-error-components", "--json")
    proc = run(*args, "--top", "100", "--llm", "off", *extra)
    return proc.returncode, json.loads(proc.stdout)


def counts(out: dict[str, Any]) -> dict[str, int]:
    return {e["key"]: e["count"] for e in (out["answer"] or {}).get("top", [])}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sidecar_equals_the_reference(name: str) -> None:
    """The committed .expected.json is what the independent reference reads."""
    side = json.loads((DIR / f"{name}.expected.json").read_text())
    text = (DIR / name).read_bytes().decode("utf-8", "replace")
    assert side["format"] == SAMPLES[name]
    assert side["errors_by_component"] == dict(reference(text, SAMPLES[name], "ERROR"))
    assert side["warns_by_component"] == dict(reference(text, SAMPLES[name], "WARN"))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_detect_names_the_layout(name: str) -> None:
    """logagent detect names the sample's layout, confidence >= 0.9, exit 0."""
    proc = run("detect", f"sample_logs/{name}")
    best = proc.stdout.decode().splitlines()[-1].split()
    assert proc.returncode == 0
    assert best[1] == SAMPLES[name] and float(best[3]) >= 0.9


@pytest.mark.parametrize("level", ["error", "warn"])
@pytest.mark.parametrize("name", sorted(n for n, f in SAMPLES.items() if f not in ZEEK_FORMATS))
def test_full_and_early_stop_answers_equal_the_reference(name: str, level: str) -> None:
    """--full counts equal the reference; the default early-stop run ranks the same keys."""
    side = json.loads((DIR / f"{name}.expected.json").read_text())
    want = side["errors_by_component" if level == "error" else "warns_by_component"]
    code, full = answer(name, "--full", "--level", level)
    assert full["input"]["format"] == SAMPLES[name]
    if not want:  # nothing at that level: a recusal, never an invented answer
        assert code == 3 and full["status"] == "recused"
        return
    assert code == 0 and full["status"] == "exact"
    assert counts(full) == want
    code, early = answer(name, "--level", level)
    assert code == 0
    assert counts(early) == want  # small samples: the early stop reads them whole


ZEEK = sorted(n for n, f in SAMPLES.items() if f in ZEEK_FORMATS)


@pytest.mark.parametrize("name", ZEEK)
def test_zeek_says_level_questions_do_not_apply(name: str) -> None:
    """A Zeek log is named by detect and a level question recuses with the note."""
    code, out = answer(name, "--full")
    assert out["input"]["format"] == SAMPLES[name] and code == 3
    assert any("level questions do not apply" in w for w in out["warnings"])
    assert "carry no level" in out["recuse"]["suggestion"]  # not "ask --level warn"


def by_field(name: str, *args: str) -> tuple[int, dict[str, Any]]:
    proc = run("analyze", f"sample_logs/{name}", "--json", "--top", "100", "--llm", "off", *args)
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("name", "key", "args"),
    [
        (n, k, a)
        for n in ZEEK
        for k, a in [
            ("rcode_name", ("--by", "rcode_name")),
            ("nxdomain_by_query", ("--by", "query", "--where", "rcode_name=NXDOMAIN")),
            ("by_orig_h", ("--by", "id.orig_h")),  # a key written with its dots
        ]
    ],
)
def test_zeek_fields_full_and_early_stop_equal_the_reference(
    name: str, key: str, args: tuple[str, ...]
) -> None:
    """Zeek's own fields (--by rcode_name; NXDOMAIN queries): --full and the default early stop
    count what the json module (JSON) or plain splitting (TSV) reads, and the sidecar holds the
    same counts."""
    text = (DIR / name).read_text(encoding="utf-8")
    want = zeek_reference(text, tsv=SAMPLES[name] == "zeek_tsv")[key]
    assert json.loads((DIR / f"{name}.expected.json").read_text())[key] == want
    code, full = by_field(name, *args, "--full")
    assert code == 0 and full["status"] == "exact"
    assert full["input"]["format"] == SAMPLES[name]
    assert counts(full) == want
    code, early = by_field(name, *args)
    assert code == 0
    assert counts(early) == want  # small samples: the early stop reads them whole


def _levels(text: str, fmt: str) -> dict[str, int]:
    """Records per level, by the independent reader (no level: ``(no level)``)."""
    out: dict[str, int] = {}
    for line in text.split("\n"):
        found = READERS[fmt](line.removesuffix("\r")) if line.strip() else None
        if found is not None:
            name = found[0] or "(no level)"
            out[name] = out.get(name, 0) + 1
    return out


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_status_on_an_app_log_is_its_level_distribution(name: str) -> None:
    """`-q status` of an application log counts records per level, never HTTP codes."""
    from logagent import Question, analyze, load_settings
    from logagent.result import QuestionKind
    from logagent.testing import fake_env

    path = DIR / name
    question = Question(kind=QuestionKind.STATUS, top=100)
    result = analyze([str(path)], question, load_settings(analysis={"full": True}), fake_env())
    assert result.recuse is None, result.recuse
    got = {e.key: e.count for e in result.answer.top}
    assert got == _levels(path.read_text(encoding="utf-8", errors="replace"), SAMPLES[name])
    assert result.answer.classes == {}  # no 2xx..5xx classes on levels
    assert "Level distribution" in (result.report.markdown if result.report else "")


def test_zeek_tsv_early_stop_on_units_without_the_header(tmp_path: Path) -> None:
    """A 30 MB Zeek TSV log (the real sample's records repeated, one header): units read in a
    random order hold no #fields line, yet each record is read by the fitted header; the
    leading rcode_name and its count interval hold the plain-splitting truth."""
    lines = (DIR / "zeek_dns.log").read_text(encoding="utf-8").splitlines()
    head = [x for x in lines if x.startswith("#") and not x.startswith("#close")]
    rows = [x for x in lines if not x.startswith("#")]
    text = "\n".join([*head, *rows * 400, "#close\t2024-04-12-19-34-07"]) + "\n"
    path = tmp_path / "dns.log"
    path.write_text(text, encoding="utf-8")
    want = zeek_reference(text, tsv=True)["rcode_name"]
    proc = run("analyze", str(path), "--by", "rcode_name", "-k", "1", "--json", "--llm", "off")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["input"]["format"] == "zeek_tsv"
    top = out["answer"]["top"][0]
    assert top["key"] == max(want, key=lambda k: want[k])
    assert top["low"] <= want[top["key"]] <= top["high"]
    assert out["progress"]["malformed_lines"] == 0
    assert out["progress"]["fraction_read"] < 1.0, "expected an early stop on 30 MB"


def test_a_level_distribution_of_inferred_levels_says_so() -> None:
    """`-q status` on syslog without <PRI> counts levels guessed from words: the result and the
    report say they are inferred (issue 13: reported as if exact)."""
    code, out = by_field("linux_syslog.log", "-q", "status", "--full")
    assert code == 0 and out["input"]["format"] == "syslog3164"
    assert any("inferred" in w for w in out["warnings"])
    assert "inferred" in out["report"]["markdown"]


@pytest.mark.parametrize("name", ZEEK)
def test_a_level_condition_on_zeek_is_a_usage_error(name: str) -> None:
    """Zeek writes no level: --where level>=warn is exit 2 saying so, not "no record" (exit 3)."""
    proc = run("analyze", f"sample_logs/{name}", "--by", "query", "--where", "level>=warn")
    assert proc.returncode == 2
    assert b"carry no level" in proc.stderr and b"Traceback" not in proc.stderr


@pytest.mark.parametrize("name", ["cri_otel.log", "cri_handmade.log"])
def test_cri_is_not_also_read_as_syslog(name: str) -> None:
    """CRI lines are no syslog: detection names cri alone, not an ambiguous tie."""
    from logagent.formats.detect import detect_all

    lines = (DIR / name).read_text(encoding="utf-8").splitlines()
    found = detect_all(lines, year=2024)
    assert found.best == "cri" and not found.ambiguous
    assert dict(found.scores)["syslog3164"] < 0.5


def test_macos_indented_lines_continue_their_syslog_record() -> None:
    """macOS syslogd writes a record's further lines indented with tabs: they belong to the
    record (no malformed line), while a line of junk still starts a (malformed) record."""
    from logagent import Question, analyze, load_settings
    from logagent.result import QuestionKind
    from logagent.testing import fake_env

    question = Question(kind=QuestionKind.STATUS, top=100)
    settings = load_settings(analysis={"full": True, "format": "syslog3164"})
    mac = analyze([str(DIR / "macos_syslog.log")], question, settings, fake_env())
    lines = (DIR / "macos_syslog.log").read_text(encoding="utf-8").splitlines()
    indented = sum(line.startswith("\t") for line in lines)
    assert indented == 10 and mac.progress.malformed_lines == 0
    assert {e.key: e.count for e in mac.answer.top} == {"INFO": len(lines) - indented}
    junk = analyze([str(DIR / "syslog.log")], question, settings, fake_env())
    # its junk line, its cut last line (the blank line continues the record before it)
    assert junk.progress.malformed_lines == 2


def _hpc_time(line: str) -> datetime:
    """A BGL or Thunderbird record's time, read with datetime: the epoch field (UTC), not the
    written stamps (local Pacific time, without a zone)."""
    return datetime.fromtimestamp(int(line.split(" ")[1]), UTC)


@pytest.mark.parametrize(
    "name", sorted(n for n, f in SAMPLES.items() if f in ("bgl", "thunderbird"))
)
def test_hpc_time_window_counts_the_reference_records_inside_it(name: str) -> None:
    """--since/--until on BGL and Thunderbird: the levels of the records whose time (``_hpc_time``:
    the epoch, not the Pacific stamps) lies in the window, as the reference reads them; the
    window is found by bisection on that epoch field."""
    fmt = SAMPLES[name]
    lines = [ln.removesuffix("\r") for ln in (DIR / name).read_text().split("\n") if ln.strip()]
    records = [(found[0], _hpc_time(ln)) for ln in lines if (found := READERS[fmt](ln))]
    times = sorted({t for _, t in records})
    since, until = times[len(times) // 4], times[(3 * len(times)) // 4]
    want = Counter(level for level, t in records if since <= t <= until)
    code, out = by_field(
        name, "-q", "status", "--since", since.isoformat(), "--until", until.isoformat()
    )
    assert code == 0 and out["status"] == "exact", out.get("recuse")
    assert counts(out) == dict(want)
    assert out["input"]["window"]["method"] == "bisection"
