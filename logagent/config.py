"""Configuration: one settings object, built only by the front doors (EDGE).

Precedence, lowest first: built-in defaults < config file (``--config`` or
``LOGAGENT_CONFIG``; TOML, the defaults are in ``configs/logagent.toml``) <
environment ``LOGAGENT_*`` (nested with ``__``: ``LOGAGENT_READER__LINE_CAP=4KiB``)
< command-line flags. Each part of the code receives only its own section.

``Settings`` is a plain pydantic model. pydantic-settings reads the environment
and the TOML file into it (``_sourced``), and is imported only when one of them
has something to say: it costs ~0.2 s of start-up (asyncio, dotenv, its cloud
providers), and most runs set neither. Both ways validate with the same model,
so they build equal settings (``tests/unit/test_config.py``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from logagent.errors import ConfigError
from logagent.formats.routes import DEFAULT_RULES
from logagent.result import QuestionKind

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 10**6,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 10**9,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 10**12,
    "tib": 1 << 40,
}


def parse_size(value: object) -> object:
    """``"64KiB"``, ``"1 MiB"``, ``"4096"`` or an int -> bytes; other values pass through."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value)
        if m and m.group(2).lower() in _UNITS:
            return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    return value


Size = Annotated[int, BeforeValidator(parse_size), Field(gt=0)]
#: a unit or a batch is held whole in memory: at most 1 GiB (the memory check refines it)
BlockSize = Annotated[int, BeforeValidator(parse_size), Field(gt=0, le=1 << 30)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReaderSettings(_Section):
    """How inputs are cut and read."""

    unit_size: Literal["auto"] | BlockSize = "auto"
    line_cap: Size = 64 << 10
    batch_bytes: BlockSize = 8 << 20
    order: Literal["auto", "sequential", "random"] = "auto"
    #: Processes that prescan a read of everything (0: one per core; 1: none besides this one).
    scan_processes: int = Field(default=0, ge=0, le=64)
    #: Seekable bytes from which a read of everything is prescanned by those processes.
    scan_parallel_from: Size = 256 << 20
    #: Seekable bytes from which a ranking question chooses its unit size after a pilot and
    #: Router-Mem weighs what reading by units costs against reading everything.
    adapt_from: Size = 64 << 20


class RouteRuleSettings(_Section):
    """One normalization rule: a whole path segment matching ``pattern`` becomes ``replacement``."""

    name: str
    pattern: str
    replacement: str

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"not a valid regex: {exc}") from exc
        return pattern


class AnalysisSettings(_Section):
    """Defaults of the question."""

    question: QuestionKind = QuestionKind.TOP_ERRORS
    top: int = Field(default=5, ge=1, le=1000)
    min_requests: int = Field(default=100, ge=1)
    format: str = "auto"  # auto, a built-in or a custom format (checked when it is built)
    level: Literal["error", "warn"] = "error"
    key: str | None = None
    by: str | None = None  # --by: the field a ``top`` question ranks
    where: tuple[str, ...] = ()  # --where: conditions every counted record meets
    since: str | None = None
    until: str | None = None
    normalize: bool = True
    seed: int | None = None
    year: int | None = Field(default=None, ge=1970, le=9999)  # of year-less stamps; None: now
    bucket: str = "auto"  # timeline bucket: auto, off, or a width such as 5m, 1h, 1d
    min_format_confidence: float = Field(default=0.01, ge=0, le=1)
    delta: float = Field(default=0.01, gt=0, lt=1)
    epsilon: float = Field(default=0.0, ge=0, lt=1)
    full: bool = False
    ranked: bool = False
    max_candidates: int = Field(default=16, ge=2, le=64)
    assume_exchangeable: bool = False
    degrade_above: float = Field(default=0.5, gt=0, le=1)
    #: --negligible: stop, settled, once the matching events are proved under this share of
    #: the lines ("nothing worth reporting"); 0 turns it off. 1e-4 (1 in 10,000 requests) is
    #: ten times under the error budget of a 99.9 % availability target, the tightest one
    #: commonly set, so no alert rule would act on it; and a 10 GB log proves it from a few %.
    negligible: float = Field(default=1e-4, ge=0, lt=1)


class BudgetSettings(_Section):
    """Limits of a run; exhausting one gives a partial answer (exit 4). Unset: no limit."""

    max_seconds: float | None = Field(default=None, gt=0)
    max_cpu_seconds: float | None = Field(default=None, gt=0)
    max_fraction: float | None = Field(default=None, gt=0, le=1)
    memory: str = "25%"  # of the memory available at start, or a size such as 512MiB
    sketch_keys: int = Field(default=50_000, ge=10)  # routes kept once memory forces a sketch


class CheckpointSettings(_Section):
    """Checkpoints (``--checkpoint FILE``): where, and every how many batches (also on a stop)."""

    path: str | None = None
    every: int = Field(default=16, ge=1)


class FormatSettings(_Section):
    """Format options; ``json`` maps field names (status, path, ts, level, latency) to keys."""

    json_keys: dict[str, str] = Field(default_factory=dict)
    custom_dir: str = "configs/formats"  # custom format files (*.toml), used when it exists


class RoutesSettings(_Section):
    """Route normalization rules, applied in order."""

    rules: list[RouteRuleSettings] = Field(
        default_factory=lambda: [
            RouteRuleSettings(name=r.name, pattern=r.pattern, replacement=r.replacement)
            for r in DEFAULT_RULES
        ]
    )


class LLMSettings(_Section):
    """The LLM that writes the report's prose (through Ollama); its numbers are checked."""

    mode: Literal["auto", "on", "off"] = "auto"
    host: str = ""  # empty: OLLAMA_HOST, else http://127.0.0.1:11434
    model: str = "qwen2.5:0.5b"
    timeout_s: float = Field(default=60.0, gt=0)  # the whole report stage, retry included
    connect_timeout_s: float = Field(default=3.0, gt=0)  # the server must list its models by then
    temperature: float = Field(default=0.0, ge=0, le=2)


class Settings(BaseModel):
    """All settings of a run."""

    # validate_default as pydantic-settings does: a default is checked like a given value
    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    reader: ReaderSettings = Field(default_factory=ReaderSettings)
    analysis: AnalysisSettings = Field(default_factory=AnalysisSettings)
    formats: FormatSettings = Field(default_factory=FormatSettings)
    routes: RoutesSettings = Field(default_factory=RoutesSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    checkpoint: CheckpointSettings = Field(default_factory=CheckpointSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    log_level: str = "warning"


#: Environment variables read into the settings (pydantic-settings matches them case-blind).
ENV_PREFIX = "LOGAGENT_"


def memory_budget_bytes(text: str, available_bytes: int) -> int:
    """``"25%"`` of the available memory, or an absolute size such as ``"512MiB"``."""
    if text.strip().endswith("%"):
        return int(available_bytes * float(text.strip()[:-1]) / 100)
    value = parse_size(text)
    if not isinstance(value, int):
        raise ConfigError(f"invalid memory budget {text!r}: use a size (512MiB) or a percentage")
    return value


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Build the settings from defaults, a TOML file, the environment and ``overrides``."""
    path = config_file or os.environ.get("LOGAGENT_CONFIG")
    if path and not Path(path).is_file():
        raise ConfigError("config file not found", path=path)
    try:
        if path or _environment_sets_something():
            return Settings.model_validate(_sourced(path, _drop_none(overrides)))
        return Settings(**_drop_none(overrides))
    except ValidationError as exc:
        raise ConfigError(_describe(exc), path=path) from exc
    except ValueError as exc:  # malformed TOML or environment value
        raise ConfigError(f"invalid configuration: {exc}", path=path) from exc


def _environment_sets_something() -> bool:
    """Whether a ``LOGAGENT_*`` variable (other than the config file's path) is set."""
    names = (k.upper() for k in os.environ)
    return any(k.startswith(ENV_PREFIX) and k != "LOGAGENT_CONFIG" for k in names)


def _sourced(path: str | None, overrides: dict[str, Any]) -> dict[str, Any]:
    """Flags > environment > config file > defaults, merged by pydantic-settings (validated
    there too), as the values of a ``Settings``."""
    from pydantic_settings import (
        BaseSettings,
        PydanticBaseSettingsSource,
        SettingsConfigDict,
        TomlConfigSettingsSource,
    )

    class _Sourced(BaseSettings, Settings):
        model_config = SettingsConfigDict(
            env_prefix=ENV_PREFIX,
            env_nested_delimiter="__",
            extra="forbid",
            frozen=True,
            toml_file=path,
        )

        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            """Flags > environment > config file > defaults."""
            return init_settings, env_settings, TomlConfigSettingsSource(settings_cls)

    return _Sourced(**overrides).model_dump()


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            value = _drop_none(value)
            if not value:
                continue
        if value is not None:
            out[key] = value
    return out


def _describe(exc: ValidationError) -> str:
    """One phrase per setting in error, without pydantic's validator names."""
    parts: dict[str, str] = {}
    for e in exc.errors():
        loc = ".".join(str(p) for p in e["loc"] if _is_name(p))
        msg = e["msg"]
        if "valid integer" in msg or "Input should be 'auto'" in msg:
            msg = f"{e['input']!r} is not a size (use e.g. 4096, 64KiB, 1MiB)"
        parts.setdefault(loc, parts.get(loc, msg))
        if "1073741824" in msg:
            parts[loc] = f"{e['input']!r} is larger than 1 GiB"
    return "invalid configuration: " + "; ".join(f"{k}: {v}" for k, v in parts.items())


def _is_name(part: object) -> bool:
    """A setting's name in an error location (not a validator's or a union branch's label)."""
    return isinstance(part, int) or (isinstance(part, str) and part.isidentifier())
