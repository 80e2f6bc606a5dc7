"""top-error-components: application logs through the access engine, exact and early-stopped."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Status
from logagent.samples.app import generate
from logagent.samples.app_samples import BUILDERS
from logagent.testing import fake_env

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
APP_SAMPLES = tuple(BUILDERS)  # every committed app-log sample
#: Samples added with syslog RFC 5424, the apache error log and Hadoop/HDFS, checked over the CLI.
CLI_SAMPLES = ("syslog5424.log", "apache_error.log", "hadoop.log", "hdfs.log")


def ask(path: Path, *, level: str = "error", seed: int = 7, **analysis: Any) -> Any:
    settings = load_settings(analysis={"seed": seed, **analysis})
    question = Question(kind=QuestionKind.TOP_ERROR_COMPONENTS, top=1000, level=level)
    return analyze([str(path)], question, settings, fake_env())


def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "analyze", *args, "--llm", "off"],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.parametrize("name", APP_SAMPLES)
def test_full_answer_equals_sidecar(name: str) -> None:
    """--full per-component ERROR+ counts equal the sample's .expected.json, format detected."""
    expected = json.loads((SAMPLES / f"{name}.expected.json").read_text())
    result = ask(SAMPLES / name, full=True)
    assert result.status is Status.EXACT
    assert result.input.format == expected["format"]
    assert {e.key: e.count for e in result.answer.top} == expected["errors_by_component"]
    assert result.answer.metric == "ERROR+ records"
    assert set().union(*(e.breakdown for e in result.answer.top)) <= {"FATAL", "ERROR"}


@pytest.mark.parametrize("name", CLI_SAMPLES)
def test_cli_full_json_answer_equals_sidecar(name: str) -> None:
    """analyze --question top-error-components --full --json gives the sidecar's counts."""
    expected = json.loads((SAMPLES / f"{name}.expected.json").read_text())
    question = ("--question", "top-error-components", "--full", "--json")
    proc = cli(f"sample_logs/{name}", *question, "--top", "50")  # 50: no component left out
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert (out["status"], out["input"]["format"]) == ("exact", expected["format"])
    assert {e["key"]: e["count"] for e in out["answer"]["top"]} == expected["errors_by_component"]


@pytest.mark.parametrize("name", CLI_SAMPLES)
def test_cli_detect_names_the_sidecar_format(name: str) -> None:
    """logagent detect prints the sidecar's format as best (hadoop ties log4j, nested: no flag)."""
    expected = json.loads((SAMPLES / f"{name}.expected.json").read_text())
    proc = subprocess.run(
        [sys.executable, "-m", "logagent", "detect", f"sample_logs/{name}"],
        capture_output=True,
        timeout=120,
        check=True,
        cwd=ROOT,
    )
    best = proc.stdout.decode().splitlines()[-1]
    assert best.startswith(f"best: {expected['format']} confidence: ")
    assert "(" not in best  # neither ambiguous nor low confidence


def test_warn_level_counts_more_and_names_warn() -> None:
    """--level warn adds WARN records: counts grow and breakdowns name WARN."""
    errors = ask(SAMPLES / "app_log4j.log", full=True)
    warns = ask(SAMPLES / "app_log4j.log", full=True, level="warn")
    assert warns.answer.total > errors.answer.total
    assert warns.answer.metric == "WARN+ records"
    assert any("WARN" in e.breakdown for e in warns.answer.top)


def test_stack_trace_lines_are_counted_not_malformed() -> None:
    """Continuation lines of a log4j sample are reported in a warning, not as malformed, by a
    question that parses every line (the levels' distribution); one that parses only the lines
    its level prefilter lets through says so of its malformed count, and finds none."""
    settings = load_settings(analysis={"seed": 7, "full": True})
    question = Question(kind=QuestionKind.STATUS)
    result = analyze([str(SAMPLES / "app_log4j.log")], question, settings, fake_env())
    text = (SAMPLES / "app_log4j.log").read_text(errors="replace").splitlines()
    indented = sum(1 for line in text if line[:1] in ("\t", " ") or line.startswith("Caused by"))
    note = next(w for w in result.warnings if "continue multi-line records" in w)
    assert int(note.split()[0]) >= indented > 0
    assert (result.progress.malformed_lines, result.progress.malformed_scope) == (0, "all_lines")
    errors = ask(SAMPLES / "app_log4j.log", full=True)
    assert (errors.progress.malformed_lines, errors.progress.malformed_scope) == (
        0,
        "prefiltered_lines",
    )
    assert errors.progress.lines_parsed < errors.progress.lines_read


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["sample_logs/app_log4j.log", "-q", "top-errors"], "top-error-components"),
        (["sample_logs/app_log4j.log", "-q", "error-rate"], "top-error-components"),
        (["sample_logs/nginx_access.log", "-q", "top-error-components"], "top-errors"),
        (["sample_logs/nginx_access.log", "--format", "nope"], "unknown format"),
    ],
)
def test_question_that_does_not_fit_is_a_usage_error(args: list[str], says: str) -> None:
    """A question on the wrong kind of log, or an unknown format, exits 2 naming what fits."""
    proc = cli(*args)
    assert proc.returncode == 2
    assert says in proc.stderr.decode()


@pytest.mark.parametrize("log", ["sample_logs/app_log4j.log", "sample_logs/app.jsonl"])
def test_no_question_on_an_app_log_answers_its_components(log: str) -> None:
    """Without -q an app log is asked top-error-components (it has no status), and says so;
    the answer is the one -q top-error-components gives."""
    asked = cli(log, "-q", "top-error-components", "--json", "--quiet", "--llm", "off")
    default = cli(log, "--json", "--quiet", "--llm", "off")
    assert (asked.returncode, default.returncode) == (0, 0), default.stderr.decode()
    a, d = json.loads(asked.stdout), json.loads(default.stdout)
    assert d["question"]["kind"] == "top-error-components" and d["question"]["default_kind"]
    assert not a["question"]["default_kind"]
    assert d["answer"]["top"] == a["answer"]["top"] and d["answer"]["top"]
    assert [w for w in d["warnings"] if "no question was asked" in w]
    assert not [w for w in a["warnings"] if "no question was asked" in w]


def test_no_question_on_an_access_log_is_top_errors() -> None:
    """The default stays top-errors on an access log, with no note about it."""
    proc = cli("sample_logs/nginx_access.log", "--json", "--quiet", "--llm", "off")
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["question"]["kind"] == "top-errors" and out["question"]["default_kind"]
    assert not [w for w in out["warnings"] if "no question was asked" in w]


def test_cli_names_an_app_format() -> None:
    """--format log4j with --level warn over the CLI gives an exact JSON answer."""
    proc = cli("sample_logs/app_log4j.log", "-q", "top-error-components", "--format", "log4j")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "Components with the most error records" in proc.stdout.decode()


def _as_log4j(jsonl: Path, out: Path) -> Counter[str]:
    """Render the generator's JSON records as log4j lines; returns ERROR+ records per logger."""
    errors: Counter[str] = Counter()
    with jsonl.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for raw in src:
            rec = json.loads(raw)
            ts = rec["ts"][:23].replace("T", " ").replace(".", ",")
            dst.write(f"{ts} {rec['level']:<5} [main] {rec['logger']} - {rec['message']}\n")
            if rec["level"] in ("ERROR", "FATAL"):
                errors[rec["logger"]] += 1
    return errors


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_early_stop_settles_on_the_true_top_component(tmp_path: Path, seed: int) -> None:
    """A ~14 MB generated log4j app log stops early, settled, on the generator's top component."""
    jsonl = tmp_path / "app.jsonl"
    truth = generate(jsonl, size_mb=20, seed=seed)
    errors = _as_log4j(jsonl, tmp_path / "app.log")
    by_logger = {k: v.get("ERROR", 0) + v.get("FATAL", 0) for k, v in truth["loggers"].items()}
    assert +Counter(by_logger) == errors  # the rendering kept every record
    # The guarantee is the point here, not the saving: never trade sampling for a full read.
    settings = load_settings(analysis={"seed": seed, "degrade_above": 1.0})
    question = Question(kind=QuestionKind.TOP_ERROR_COMPONENTS, top=1)
    result = analyze([str(tmp_path / "app.log")], question, settings, fake_env())
    assert result.status is Status.SETTLED
    assert result.progress.fraction_read < 1
    assert result.answer.top[0].key == errors.most_common(1)[0][0]


def test_error_types_recusal_is_said_of_error_types() -> None:
    """error-types without --key on a log with no ERROR record: its first step (the top
    component) recuses, and the result and its report speak of the question asked."""
    path = ROOT / "sample_logs" / "zeek_dns.log"  # Zeek writes no level at all
    question = Question(kind=QuestionKind.ERROR_TYPES)
    result = analyze([str(path)], question, load_settings(), fake_env())
    assert result.status is Status.RECUSED
    assert result.question.kind is QuestionKind.ERROR_TYPES
    markdown = result.report.markdown if result.report else ""
    assert markdown.startswith("# logagent: Most frequent error types")
    assert "Components with the most error records" not in markdown


@pytest.mark.parametrize("key", ["NoSuchComponent", "Client", "Clent"])
def test_an_unknown_key_is_said_so_on_a_log_read_whole(key: str) -> None:
    """error-types --key K on a small log (every unit read, no event): the recusal says that no
    record names K, and offers the full name a short name or a typo stands for (issue 13)."""
    path = ROOT / "sample_logs" / "hadoop.log"
    question = Question(kind=QuestionKind.ERROR_TYPES, key=key)
    result = analyze([str(path)], question, load_settings(), fake_env())
    assert result.status is Status.RECUSED and result.recuse is not None
    assert "no record in a sample of the log names it" in result.recuse.detail
    if key != "NoSuchComponent":
        assert "did you mean `org.apache.hadoop.ipc.Client`" in result.recuse.suggestion


def test_a_log_whose_only_error_words_are_in_stack_traces_has_no_error_record(
    tmp_path: Path,
) -> None:
    """The level prefilter lets through only the stack-trace lines that say "ERROR" (a JDBC
    cause): none is a record, which says nothing against the format. The full read answers
    "no ERROR+ record", as parsing every line does, and counts no line malformed."""
    lines = [
        f"2024-01-02 03:00:{i % 60:02d},123 INFO  [main] com.example.Svc - ok {i}"
        for i in range(300)
    ]
    for i in range(5):
        lines += [
            f"2024-01-02 03:01:{i:02d},123 WARN  [main] com.example.Dao - query failed",
            "org.springframework.jdbc.BadSqlGrammarException: bad SQL",
            "\tat com.example.Dao.run(Dao.java:42)",
            'Caused by: org.postgresql.util.PSQLException: ERROR: relation "t" does not exist',
        ]
    log = tmp_path / "app.log"
    log.write_text("\n".join(lines) + "\n")
    result = ask(log, full=True)
    assert result.status is Status.RECUSED and result.recuse is not None
    assert result.recuse.reason_code == "NO_MATCHING_EVENTS", result.recuse
    assert (result.progress.malformed_lines, result.progress.malformed_scope) == (
        0,
        "prefiltered_lines",
    )
    note = "5 lines among the lines that could hold ERROR+ records continue multi-line records"
    assert any(w.startswith(note) for w in result.warnings), result.warnings
    warns = ask(log, full=True, level="warn")  # the WARN records are there, and counted
    assert {e.key: e.count for e in warns.answer.top} == {"com.example.Dao": 5}


@pytest.mark.parametrize("unread", [0, 24, 36, 60])  # of 60 records: the hint from half on
def test_no_error_record_is_not_said_of_records_whose_level_is_unread(
    tmp_path: Path, unread: int
) -> None:
    """Kibana 7 writes its level in ``tags`` (a real log: 41 warnings of 66 records), which no
    layout reads: "no WARN+ record in the whole input" denied them. Where most sampled records
    carry no level the recusal says so and how to name it; with levels read, it is as before."""
    tags = ["warning", "info", "info"]
    lines = [
        json.dumps(
            {
                "type": "log",
                "@timestamp": f"2021-03-11T16:32:{i % 60:02d}+00:00",
                **({"level": "info"} if i >= unread else {"tags": [tags[i % 3], "plugins"]}),
                "pid": 2268,
                "message": f"Plugin number {i} is disabled.",
            }
        )
        for i in range(60)
    ]
    log = tmp_path / "kibana.log"
    log.write_text("".join(line + "\n" for line in lines))
    result = ask(log, level="warn", full=True)
    assert result.status is Status.RECUSED
    said = f"{result.recuse.detail} {result.recuse.suggestion}"
    assert said.startswith("no WARN+ record in the whole input")
    hint = unread * 2 >= 60
    assert (f"{unread} of 60 sampled records carry no level" in said) is hint
    assert ("json_keys" in said) is hint


def test_inputs_generic_reads_together_are_each_detected(tmp_path: Path) -> None:
    """A ZooKeeper and a Hadoop log given together: generic read both (the last resort reads
    anything), with guessed components (ZooKeeper's errors keyed by thread and line); each
    input's own layout is looked for, and two application layouts are a usage error naming
    both. The same log twice keeps its own layout; a log only generic reads stays generic."""
    import subprocess
    import sys

    samples = Path(__file__).parents[2] / "sample_logs"

    def run(*paths: Path) -> subprocess.CompletedProcess[str]:
        args = ["analyze", *map(str, paths), "--json", "--llm", "off"]
        return subprocess.run(
            [sys.executable, "-m", "logagent", *args], capture_output=True, text=True
        )

    both = run(samples / "zookeeper.log", samples / "hadoop.log")
    assert both.returncode == 2 and "zookeeper.log is zookeeper" in both.stderr
    assert "hadoop.log is hadoop" in both.stderr and "Traceback" not in both.stderr
    twice = run(samples / "zookeeper.log", samples / "zookeeper.log")
    assert twice.returncode == 0 and json.loads(twice.stdout)["input"]["format"] == "zookeeper"
    odd = tmp_path / "odd.log"
    odd.write_text(
        "".join(f"2026-01-01 00:00:0{i} ERROR frobnicate {i} went wrong\n" for i in range(6))
    )
    alone = run(odd, odd)
    assert alone.returncode == 0 and json.loads(alone.stdout)["input"]["format"] == "generic"


def test_a_known_layout_beside_one_only_generic_reads_stays_generic(tmp_path: Path) -> None:
    """Only when every input has a layout of its own is the last resort given up: a log4j log
    beside a log only generic reads is read by generic, as before (a review found it refused
    as "application logs of different formats")."""
    import subprocess
    import sys

    sample = Path(__file__).parents[2] / "sample_logs" / "app_log4j.log"
    log4j = tmp_path / "svc.log"  # a few records: generic reads the two inputs best
    log4j.write_bytes(b"".join(sample.read_bytes().splitlines(keepends=True)[:10]))
    odd = tmp_path / "worker.log"
    odd.write_text(
        "".join(
            f"12/01/2026 10:00:{i:02d} | ERROR | worker-1 | job {i} failed\n" for i in range(60)
        )
    )
    args = ["analyze", str(log4j), str(odd), "--json", "--llm", "off"]
    proc = subprocess.run([sys.executable, "-m", "logagent", *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["input"]["format"] == "generic"
