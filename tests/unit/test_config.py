"""Configuration precedence: defaults < file < environment < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from logagent.config import Settings, load_settings, parse_size
from logagent.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_config_equals_builtin_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """configs/logagent.toml documents exactly the built-in defaults."""
    monkeypatch.delenv("LOGAGENT_CONFIG", raising=False)
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
    assert s.analysis.question.value == "top-errors"  # untouched default survives the merge


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
    """A named config file that does not exist is an error, not silently ignored."""
    with pytest.raises(ConfigError, match="not found"):
        load_settings(str(tmp_path / "missing.toml"))


@pytest.mark.parametrize(
    ("text", "value"), [("64KiB", 65536), ("1 MiB", 1 << 20), ("4096", 4096), ("2kb", 2000)]
)
def test_sizes_with_units(text: str, value: int) -> None:
    """Sizes accept binary and decimal units."""
    assert parse_size(text) == value
