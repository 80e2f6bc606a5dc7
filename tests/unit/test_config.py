"""Configuration precedence: defaults < file < environment < flags."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from logagent.config import Settings, load_settings, parse_size
from logagent.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def _clear_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("LOGAGENT_"):
            monkeypatch.delenv(name)


def test_shipped_config_equals_builtin_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """configs/logagent.toml documents exactly the built-in defaults."""
    _clear_environment(monkeypatch)
    assert (
        load_settings(str(ROOT / "configs" / "logagent.toml")).model_dump()
        == Settings().model_dump()
    )


def test_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flag beats the environment, which beats the file, which beats the default."""
    cfg = tmp_path / "c.toml"
    cfg.write_text('[analysis]\ntop = 7\nmin_requests = 9\nformat = "common"\n')
    monkeypatch.setenv("LOGAGENT_ANALYSIS__TOP", "8")
    monkeypatch.setenv("LOGAGENT_ANALYSIS__MIN_REQUESTS", "10")
    s = load_settings(str(cfg), analysis={"top": 3})
    assert (s.analysis.top, s.analysis.min_requests, s.analysis.format) == (3, 10, "common")
    assert s.analysis.question is None  # untouched default (no question asked) survives the merge


def test_config_file_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """LOGAGENT_CONFIG names the config file when --config is absent."""
    cfg = tmp_path / "c.toml"
    cfg.write_text('[reader]\nline_cap = "4KiB"\n')
    monkeypatch.setenv("LOGAGENT_CONFIG", str(cfg))
    assert load_settings().reader.line_cap == 4096


@pytest.mark.parametrize("text", ["[analysis]\ntop = 0\n", "[nope]\nx = 1\n", "not toml ["])
def test_bad_config_is_a_config_error(tmp_path: Path, text: str) -> None:
    """Invalid values, unknown sections and broken TOML raise ConfigError."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    with pytest.raises(ConfigError):
        load_settings(str(cfg))


def test_missing_config_file_is_an_error(tmp_path: Path) -> None:
    """A named config file that does not exist is an error, not silently ignored; a folder
    is said to be one (it was "not found")."""
    with pytest.raises(ConfigError, match="not found"):
        load_settings(str(tmp_path / "missing.toml"))
    with pytest.raises(ConfigError, match="is a directory, not a config file"):
        load_settings(str(tmp_path))


@pytest.mark.parametrize(
    ("text", "value"), [("64KiB", 65536), ("1 MiB", 1 << 20), ("4096", 4096), ("2kb", 2000)]
)
def test_sizes_with_units(text: str, value: int) -> None:
    """Sizes accept binary and decimal units."""
    assert parse_size(text) == value


def test_without_environment_or_file_pydantic_settings_is_not_imported() -> None:
    """A run that sets no LOGAGENT_* variable and no config file builds its settings without
    importing pydantic-settings (start-up time); one that does, imports it."""
    code = (
        "import sys; from logagent.config import load_settings; "
        "s = load_settings(analysis={'top': 3}); "
        "print(s.analysis.top, 'pydantic_settings' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("LOGAGENT_")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["3", "False"], out.stderr
    env["logagent_reader__line_cap"] = "4KiB"  # matched case-blind, as pydantic-settings does
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["3", "True"], out.stderr


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"analysis": {"top": 3, "seed": 9}},
        {"reader": {"unit_size": "64KiB"}, "log_level": "info"},
    ],
)
def test_both_ways_build_equal_settings(
    overrides: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plain model and the one pydantic-settings fills give the same settings for the same
    values (here: an environment variable set to its default forces the sourced way)."""
    _clear_environment(monkeypatch)
    plain = load_settings(**overrides)
    monkeypatch.setenv("LOGAGENT_LOG_LEVEL", plain.log_level)
    sourced = load_settings(**overrides)
    assert type(sourced) is Settings and sourced.model_dump() == plain.model_dump()
    assert plain.model_dump() != Settings().model_dump() or not overrides


def test_nested_variables_hold_json_lists_and_dicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A section's list or dict setting is set by one variable holding JSON, as before."""
    _clear_environment(monkeypatch)
    monkeypatch.setenv("LOGAGENT_ANALYSIS__WHERE", '["status=5xx"]')
    monkeypatch.setenv("LOGAGENT_FORMATS__JSON_KEYS", '{"status": "code"}')
    monkeypatch.setenv(
        "LOGAGENT_ROUTES__RULES", '[{"name": "n", "pattern": "[0-9]+", "replacement": ":n"}]'
    )
    s = load_settings()
    assert s.analysis.where == ("status=5xx",)
    assert s.formats.json_keys == {"status": "code"}
    assert [(r.name, r.pattern) for r in s.routes.rules] == [("n", "[0-9]+")]
    assert type(s.routes.rules[0]).__name__ == "RouteRuleSettings"


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"reader": {"nope": 1}}, "reader.nope: Extra inputs are not permitted"),
        ({"budget": {"max_seconds": 2**1100}}, "budget.max_seconds"),
        ({"analysis": {"top": 0}}, "analysis.top: Input should be greater than or equal to 1"),
        ({"reader": {"unit_size": "2TiB"}}, "larger than 1 GiB"),
        ({"reader": {"line_cap": "abc"}}, "reader.line_cap: 'abc' is not a size"),
        ({"analysis": {"top": "five"}}, "analysis.top: Input should be a valid integer"),  # no size
        # pydantic's lax mode read true as 1 (a batch of 1 byte) and nan as "not less than 1"
        ({"reader": {"batch_bytes": True}}, "reader.batch_bytes: true is not a number"),
        ({"analysis": {"top": True}}, "analysis.top: true is not a number"),
        ({"checkpoint": {"every": False}}, "checkpoint.every: false is not a number"),
        ({"analysis": {"delta": float("nan")}}, "analysis.delta: nan is not a finite number"),
        ({"budget": {"max_fraction": float("nan")}}, "budget.max_fraction: nan is not a finite"),
        ({"llm": {"timeout_s": float("inf")}}, "llm.timeout_s: inf is not a finite number"),
        # a share above all the memory there is was taken; a broken one was said only at run time
        (
            {"budget": {"memory": "200%"}},
            "budget.memory: '200%': a memory budget's share of the available memory is 0% to 100%",
        ),
        ({"budget": {"memory": "-5%"}}, "budget.memory: '-5%': a memory budget's share"),
        (
            {"budget": {"memory": "lots%"}},
            "budget.memory: 'lots%' is not a memory budget (use a size",
        ),
        ({"budget": {"memory": "lots"}}, "budget.memory: 'lots' is not a memory budget"),
        # log_level was read by no one, whatever its value
        ({"log_level": "loud"}, "log_level: Input should be 'debug', 'info', 'warning'"),
    ],
)
def test_invalid_values_are_config_errors_in_pydantics_words(
    overrides: dict[str, object], words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the quick check refuses is told as before: one phrase per setting, no traceback."""
    _clear_environment(monkeypatch)
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_settings(**overrides)


@pytest.mark.parametrize(
    ("analysis", "for_log", "default_kind"),
    [
        ({}, True, True),  # nothing asked: the engine may answer by the log's kind
        ({}, False, False),  # a scheduled job pins its question
        ({"question": "top-errors"}, True, False),  # asked, even when it is the default
        ({"by": "client"}, True, False),
        ({"where": ("status=4xx",)}, True, False),
        ({"key": "db"}, True, False),  # --key belongs to error-types: not left to the log
    ],
)
def test_default_question_is_marked_only_when_nothing_was_asked(
    monkeypatch: pytest.MonkeyPatch, analysis: dict[str, object], for_log: bool, default_kind: bool
) -> None:
    """``question_from`` marks a question the user did not ask (``Question.default_kind``)."""
    from logagent.cli.analyze import question_from

    _clear_environment(monkeypatch)
    question = question_from(load_settings(analysis=analysis), for_log=for_log)
    assert question.default_kind is default_kind
    if not analysis:
        assert question.kind.value == "top-errors"


def test_a_question_set_in_a_config_file_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``question = ...`` in the config file or the environment is a question asked."""
    from logagent.cli.analyze import question_from

    _clear_environment(monkeypatch)
    cfg = tmp_path / "c.toml"
    cfg.write_text('[analysis]\nquestion = "top-errors"\n')
    assert not question_from(load_settings(str(cfg))).default_kind
    monkeypatch.setenv("LOGAGENT_ANALYSIS__QUESTION", "status")
    env = question_from(load_settings())
    assert (env.kind.value, env.default_kind) == ("status", False)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("DEBUG", "debug"),
        (" Info ", "info"),
        ("error", "error"),
        # names runs were given before log_level was checked (a review: each now exited 2)
        ("warn", "warning"),
        ("FATAL", "critical"),
        ("trace", "debug"),
        ("", "warning"),
    ],
)
def test_log_level_is_read_in_any_case(
    given: str, kept: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``log_level`` takes a level's name as ``LOGAGENT_LOG_LEVEL`` always did (any case)."""
    _clear_environment(monkeypatch)
    assert load_settings(log_level=given).log_level == kept
    monkeypatch.setenv("LOGAGENT_LOG_LEVEL", given)
    assert load_settings().log_level == kept


@pytest.mark.parametrize("memory", ["25%", "100%", "0.5 %", "512MiB", " 1GiB ", "4096"])
def test_valid_memory_budgets_stay_valid(memory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sizes and shares of 0-100 % are taken as before; the bytes are what the run budgets."""
    from logagent.config import memory_budget_bytes

    _clear_environment(monkeypatch)
    settings = load_settings(budget={"memory": memory})
    got = memory_budget_bytes(settings.budget.memory, 8 << 30)
    share = memory.strip().endswith("%")
    assert got == (
        int(8 * 2**30 * float(memory.strip()[:-1]) / 100) if share else parse_size(memory.strip())
    )


@pytest.mark.parametrize("text", ["nan", "inf", "-Infinity"])
def test_nan_from_the_environment_is_named(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LOGAGENT_ANALYSIS__DELTA=nan`` arrives as text: told as --delta nan is."""
    _clear_environment(monkeypatch)
    monkeypatch.setenv("LOGAGENT_ANALYSIS__DELTA", text)
    with pytest.raises(ConfigError, match=f"analysis.delta: {re.escape(text)} is not a finite"):
        load_settings()
