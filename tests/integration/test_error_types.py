"""error-types: templates mined on a seed-independent pilot, counted exactly per component."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from logagent import Question, analyze, load_settings
from logagent.result import QuestionKind, Status
from logagent.samples.app import generate
from logagent.templates import OTHER
from logagent.testing import fake_env

pytestmark = pytest.mark.slow
COMPONENT = "svc.payments"


@pytest.fixture(scope="module")
def app_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A ~6 MB generated JSON-lines app log and its truth."""
    path = tmp_path_factory.mktemp("types") / "app.jsonl"
    return path, generate(path, size_mb=6, seed=5)


def ask(path: Path, *, seed: int, key: str | None, level: str = "error", **analysis: Any) -> Any:
    settings = load_settings(reader={"order": "random"}, analysis={"seed": seed, **analysis})
    question = Question(kind=QuestionKind.ERROR_TYPES, top=50, key=key, level=level)
    return analyze([str(path)], question, settings, fake_env())


def truth_counts(truth: dict[str, Any], component: str, levels: tuple[str, ...]) -> list[int]:
    """The generator's per-template counts of ``component`` at ``levels``, largest first."""
    counts = [
        t["by_logger"].get(component, 0)
        for t in truth["templates"].values()
        if t["level"] in levels
    ]
    return sorted((c for c in counts if c), reverse=True)


@pytest.mark.parametrize(
    ("level", "levels"), [("error", ("ERROR", "FATAL")), ("warn", ("ERROR", "FATAL", "WARN"))]
)
def test_full_counts_equal_truth(
    app_log: tuple[Path, dict[str, Any]], level: str, levels: tuple[str, ...]
) -> None:
    """--full error-types of one component equal the generator's per-template counts."""
    path, truth = app_log
    result = ask(path, seed=1, key=COMPONENT, level=level, full=True)
    assert result.status is Status.EXACT
    counts = {e.key: e.count for e in result.answer.top}
    assert OTHER not in counts
    assert sorted(counts.values(), reverse=True) == truth_counts(truth, COMPONENT, levels)


def test_templates_do_not_depend_on_the_seed(app_log: tuple[Path, dict[str, Any]]) -> None:
    """Two seeds (two reading orders) give the same template texts and counts."""
    path, _ = app_log
    runs = [ask(path, seed=s, key=COMPONENT, full=True) for s in (1, 2)]
    keys = [[(e.key, e.count) for e in r.answer.top] for r in runs]
    assert keys[0] == keys[1] and keys[0]
    assert runs[0].seed != runs[1].seed


def test_without_key_the_top_component_is_settled_first(
    app_log: tuple[Path, dict[str, Any]],
) -> None:
    """No --key: the top component (truth's) is found first, then its types; both are noted."""
    path, truth = app_log
    errors = {lg: v.get("ERROR", 0) + v.get("FATAL", 0) for lg, v in truth["loggers"].items()}
    top = max(errors, key=lambda lg: errors[lg])
    result = ask(path, seed=3, key=None)
    assert result.question.key == top
    assert result.question.delta == 0.01
    assert any("settled it first at delta/2" in w for w in result.warnings)
    kinds = [d.detail for d in result.decisions]
    assert len(kinds) >= 2
    counts = sorted((e.count for e in result.answer.top if e.key != OTHER), reverse=True)
    assert counts == truth_counts(truth, top, ("ERROR", "FATAL"))[: len(counts)]


def test_access_log_refuses_error_types(tmp_path: Path) -> None:
    """error-types on an access log is a usage error naming the question that fits."""
    from logagent.errors import ConfigError

    root = Path(__file__).resolve().parents[2]
    with pytest.raises(ConfigError, match="top-errors"):
        ask(root / "sample_logs" / "nginx_access.log", seed=1, key="x")


def test_without_key_a_partial_first_step_claims_no_error_types(
    app_log: tuple[Path, dict[str, Any]],
) -> None:
    """A budget that stops the run before the top component is settled: no key, no types."""
    path, _ = app_log
    settings = load_settings(
        analysis={"seed": 4, "question": "error-types", "degrade_above": 1.0},
        budget={"max_fraction": 0.02},
    )
    q = Question(kind=QuestionKind.ERROR_TYPES)
    result = analyze([str(path)], q, settings, fake_env())
    assert result.status is Status.PARTIAL
    assert result.question.kind is QuestionKind.TOP_ERROR_COMPONENTS
    assert any("error-types needs the top component settled first" in w for w in result.warnings)
