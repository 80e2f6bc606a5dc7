"""Exact (full-read) answers equal the generator's truth and the committed samples' expectations."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Status
from logagent.samples import generate
from logagent.testing import fake_env

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"


def run(
    path: Path | str,
    kind: QuestionKind = QuestionKind.TOP_ERRORS,
    *,
    top: int = 1000,
    normalize: bool = True,
    **analysis: Any,
) -> Any:
    settings = load_settings(analysis={"seed": 7, **analysis})
    question = Question(kind=kind, top=top, normalize=normalize)
    return analyze([str(path)], question, settings, fake_env())


@pytest.fixture(scope="module")
def scenario_files(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[tuple[str, str], tuple[Path, dict[str, Any]]]:
    out = {}
    base = tmp_path_factory.mktemp("scenarios")
    cases = [
        (s, "combined")
        for s in (
            "dominant",
            "close",
            "tie",
            "late_incident",
            "high_cardinality",
            "no_errors",
            "garbage",
        )
    ]
    cases += [("dominant", "common"), ("dominant", "jsonl")]
    for scenario, fmt in cases:
        path = base / f"{scenario}.{fmt}.log"
        truth = generate(path, scenario=scenario, size_mb=3, seed=11, fmt=fmt)
        out[(scenario, fmt)] = (path, truth)
    return out


@pytest.mark.parametrize(
    ("scenario", "fmt"),
    [
        ("dominant", "combined"),
        ("close", "combined"),
        ("tie", "combined"),
        ("late_incident", "combined"),
        ("high_cardinality", "combined"),
        ("dominant", "common"),
        ("dominant", "jsonl"),
    ],
)
def test_top_errors_equal_truth(scenario_files: dict, scenario: str, fmt: str) -> None:  # type: ignore[type-arg]
    """A full read ranks every route exactly as the generator counted, in both reading orders."""
    path, truth = scenario_files[(scenario, fmt)]
    for order in ("sequential", "random"):
        settings = load_settings(analysis={"seed": 3}, reader={"order": order})
        r = analyze([str(path)], Question(top=1000), settings, fake_env())
        assert r.status is Status.EXACT and r.input.format == fmt
        assert [[e.key, e.count] for e in r.answer.top] == truth["top_errors"]
        assert r.progress.lines_read == truth["lines"]
        assert r.progress.fraction_read == 1.0


def test_raw_paths_without_normalization(scenario_files: dict) -> None:  # type: ignore[type-arg]
    """--no-normalize ranks raw paths (query dropped) exactly as the generator counted."""
    path, truth = scenario_files[("high_cardinality", "combined")]
    r = run(path, top=20, normalize=False)
    assert [[e.key, e.count] for e in r.answer.top] == truth["top_errors_raw"]


def test_status_and_error_rate_equal_truth(scenario_files: dict) -> None:  # type: ignore[type-arg]
    """status counts and per-route requests equal the truth."""
    path, truth = scenario_files[("dominant", "combined")]
    status = Counter()  # type: ignore[var-annotated]
    for route in truth["routes"].values():
        status.update({k: v for k, v in route["status"].items()})
    r = run(path, QuestionKind.STATUS, top=1000)
    assert {e.key: e.count for e in r.answer.top} == dict(status)
    rate = run(path, QuestionKind.ERROR_RATE, top=1000, min_requests=1)
    for e in rate.answer.top:
        assert (e.requests, e.count) == (
            truth["routes"][e.key]["requests"],
            truth["routes"][e.key]["5xx"],
        )


def test_late_incident_full_read_is_not_fooled(scenario_files: dict) -> None:  # type: ignore[type-arg]
    """The full read finds the late route even though the first 90 % point elsewhere."""
    path, truth = scenario_files[("late_incident", "combined")]
    assert truth["prefix_90_top"] != truth["top_errors"][0][0]
    assert run(path, top=1).answer.top[0].key == truth["top_errors"][0][0]


def test_no_errors_recuses_with_no_matching_events(scenario_files: dict) -> None:  # type: ignore[type-arg]
    """No 5xx anywhere: recused after the full read, and the status mix is still answered."""
    path, truth = scenario_files[("no_errors", "combined")]
    r = run(path)
    assert r.status is Status.RECUSED and r.recuse.reason_code == "NO_MATCHING_EVENTS"
    assert r.progress.fraction_read == 1.0
    assert run(path, QuestionKind.STATUS).answer.total == truth["valid_lines"]


def test_garbage_recuses_early_or_counts_its_few_valid_lines(scenario_files: dict) -> None:  # type: ignore[type-arg]
    """Auto-detection recuses on junk by a bound over random units (a 4 MB file is smaller
    than the ~16,000 units of 512 B that bound needs, so it is read whole: no guess); a forced
    format counts the valid lines exactly."""
    path, truth = scenario_files[("garbage", "combined")]
    r = run(path)
    assert r.status is Status.RECUSED and r.recuse.reason_code == "UNRECOGNIZED_FORMAT"
    assert r.recuse.detail.startswith(("proved: lines any known format", "none of the"))
    assert r.progress.bytes_read > 0 and r.decisions[-1].action == "RECUSE"
    forced = run(path, QuestionKind.STATUS, format="combined")
    assert forced.answer.total == truth["valid_lines"]
    lines = path.read_bytes().split(b"\n")[:-1]
    blank = sum(not line.decode("utf-8", "replace").strip(" \t\r\v\f") for line in lines)
    assert blank > 0  # neither records nor malformed: the rest of the junk is
    assert forced.progress.malformed_lines == len(lines) - truth["valid_lines"] - blank


@pytest.mark.parametrize("name", ["nginx_access.log", "apache_access.log", "app_access.jsonl"])
def test_committed_samples_match_their_expected_answers(name: str) -> None:
    """Each bundled sample gives its expected top errors, status mix and malformed count."""
    expected = json.loads((SAMPLES / f"{name}.expected.json").read_text())
    top = run(SAMPLES / name, top=5)
    assert top.input.format == expected["format"]
    assert [[e.key, e.count] for e in top.answer.top] == expected["top_errors"]
    assert top.answer.total == expected["routes_5xx_total"]
    status = run(SAMPLES / name, QuestionKind.STATUS)
    assert {e.key: e.count for e in status.answer.top} == expected["status"]
    assert status.progress.malformed_lines == expected["malformed_lines"]
    assert status.progress.lines_read == expected["lines"]
