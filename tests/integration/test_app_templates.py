"""Acceptance: error-types of a generated JSON-lines app log equal the generator's truth."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from logagent.samples.app import generate, main
from logagent.samples.app_render import TEMPLATES
from logagent.templates import OTHER, mine
from logagent.templates import match as match_templates

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, dict[str, object]]:
    """A ~8 MB generated app log (read back as a frame) and its truth sidecar."""
    path = tmp_path_factory.mktemp("app") / "app.jsonl"
    truth = generate(path, size_mb=8, seed=5)
    with open(f"{path}.truth.json", encoding="utf-8") as fh:
        assert json.load(fh) == truth
    return pl.read_ndjson(path), truth


def _errors(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.filter(pl.col("level").is_in(["ERROR", "WARN"]))


def _truth_counts(truth: dict[str, object]) -> list[int]:
    tpl = truth["templates"]
    assert isinstance(tpl, dict)
    return sorted((v["count"] for v in tpl.values() if v["level"] != "INFO"), reverse=True)


@pytest.mark.parametrize("seed", [1, 2])
def test_pilot_then_match_equals_truth(
    app_log: tuple[pl.DataFrame, dict[str, object]], seed: int
) -> None:
    """Mining on a seeded 2,000-message pilot then matching everything gives the true counts."""
    frame, truth = app_log
    errors = _errors(frame)
    ts = mine(errors.sample(2000, seed=seed)["message"])
    ids = match_templates(ts, errors["message"])
    counts = ids.value_counts()
    assert OTHER not in counts["template"].to_list()
    assert sorted(counts["count"].to_list(), reverse=True) == _truth_counts(truth)
    assert len(ts.templates) == sum(t.level != "INFO" for t in TEMPLATES)


def test_each_true_type_maps_to_one_template(
    app_log: tuple[pl.DataFrame, dict[str, object]],
) -> None:
    """Per logger and template, mined counts equal the truth's by-logger counts."""
    frame, truth = app_log
    errors = _errors(frame)
    ts = mine(errors.head(3000)["message"])
    mined = errors.with_columns(t=match_templates(ts, errors["message"]))
    got = sorted(mined.group_by("t", "logger").len()["len"].to_list())
    tpl = truth["templates"]
    assert isinstance(tpl, dict)
    want = sorted(n for v in tpl.values() if v["level"] != "INFO" for n in v["by_logger"].values())
    assert got == want


def test_pilots_from_different_seeds_agree(app_log: tuple[pl.DataFrame, dict[str, object]]) -> None:
    """Two pilots that both cover every type give the same frozen templates (texts and ids)."""
    errors = _errors(app_log[0])["message"]
    a, b = mine(errors.sample(2500, seed=10)), mine(errors.sample(2500, seed=11))
    assert [t.id for t in a.templates] == [t.id for t in b.templates]


def test_cli_writes_file_and_truth(tmp_path: Path) -> None:
    """The module CLI writes the log and its truth sidecar."""
    out = tmp_path / "a.jsonl"
    assert main(["--size-mb", "0.2", "--seed", "3", "-o", str(out)]) == 0
    assert out.stat().st_size > 150_000
    assert (tmp_path / "a.jsonl.truth.json").exists()
