"""Configuration: one settings object, built only by the front doors (EDGE).

Precedence, lowest first: built-in defaults < config file (``--config`` or
``LOGAGENT_CONFIG``; TOML, the defaults are in ``configs/logagent.toml``) <
environment ``LOGAGENT_*`` (nested with ``__``: ``LOGAGENT_READER__LINE_CAP=4KiB``)
< command-line flags. Each part of the code receives only its own section.

``Settings`` is a tree of frozen dataclasses (``logagent.model``): the flags
a front door parsed are checked without pydantic when they are plainly valid,
and by pydantic otherwise. pydantic-settings reads the environment and the
TOML file into it (``_sourced``), and is imported only when one of them has
something to say: it costs ~0.2 s of start-up (asyncio, dotenv, its cloud
providers), and most runs set neither. Every way validates against the same
annotations, so they build equal settings (``tests/unit/test_config.py``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from annotated_types import Ge, Gt, Le, Lt

from logagent.errors import ConfigError
from logagent.formats.jsonl import readable_key
from logagent.formats.routes import DEFAULT_RULES
from logagent.model import (
    After,
    Before,
    Model,
    build,
    error_text,
    is_validation_error,
    model_hints,
)
from logagent.result import QuestionKind

if TYPE_CHECKING:
    from pydantic import ValidationError

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
    """``"64KiB"``, ``"1 MiB"``, ``"4096"`` or an int -> bytes; other values pass through
    (true/false is no size: ``_counted``)."""
    _counted(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", value)
        if m and m.group(2).lower() in _UNITS:
            return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    return value


def _counted(value: object) -> object:
    """A count or a size is no true/false (pydantic reads ``batch_bytes = true`` as 1)."""
    if isinstance(value, bool):
        raise ValueError(f"{str(value).lower()} is not a number")
    return value


def _finite(value: object) -> object:
    """nan and inf are no setting (``--delta nan`` was told "should be less than 1"), nor is
    their text (``LOGAGENT_ANALYSIS__DELTA=nan``)."""
    number = value
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value  # pydantic says what it is not
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(f"{value} is not a finite number")
    return value


def _memory(text: str) -> str:
    """``memory``: a size (``512MiB``) or a share of the memory available (``25%``), checked
    when the settings are read, not first when a run starts."""
    t = text.strip()
    bad = f"{text!r} is not a memory budget (use a size such as 512MiB or a share such as 25%)"
    if not t.endswith("%"):
        if not isinstance(parse_size(t), int):
            raise ValueError(bad)
        return text
    try:
        share = float(t[:-1])
    except ValueError:
        raise ValueError(bad) from None
    if not 0 <= share <= 100:
        raise ValueError(f"{text!r}: a memory budget's share of the available memory is 0% to 100%")
    return text


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regex: {exc}") from exc
    return pattern


def _named(field: str) -> str:
    if not field.strip():
        raise ValueError("name a field (route, client, level, a JSON key, ...)")
    return field


#: A count (a number of things, never true/false) and a real number that is finite.
Count = Annotated[int, Before(_counted)]
Real = Annotated[float, Before(_finite)]
Size = Annotated[int, Before(parse_size), Gt(0)]
LogLevel = Literal["debug", "info", "warning", "error", "critical"]
#: a unit or a batch is held whole in memory: at most 1 GiB (the memory check refines it)
BlockSize = Annotated[int, Before(parse_size), Gt(0), Le(1 << 30)]


@dataclass(frozen=True, kw_only=True)
class ReaderSettings(Model):
    """How inputs are cut and read."""

    unit_size: Literal["auto"] | BlockSize = "auto"
    line_cap: Size = 64 << 10
    batch_bytes: BlockSize = 8 << 20
    order: Literal["auto", "sequential", "random"] = "auto"
    #: Processes that prescan a read of everything (0: one per core; 1: none besides this one).
    scan_processes: Annotated[Count, Ge(0), Le(64)] = 0
    #: Seekable bytes from which a read of everything is prescanned by those processes.
    scan_parallel_from: Size = 256 << 20
    #: Seekable bytes from which a ranking question chooses its unit size after a pilot and
    #: Router-Mem weighs what reading by units costs against reading everything.
    adapt_from: Size = 64 << 20


@dataclass(frozen=True, kw_only=True)
class RouteRuleSettings(Model):
    """One normalization rule: a whole path segment matching ``pattern`` becomes ``replacement``."""

    name: str
    pattern: Annotated[str, After(_compiles)]
    replacement: str


@dataclass(frozen=True, kw_only=True)
class AnalysisSettings(Model):
    """Defaults of the question."""

    # None: not asked; top-errors, or top-error-components on an application log
    question: QuestionKind | None = None
    top: Annotated[Count, Ge(1), Le(1000)] = 5
    min_requests: Annotated[Count, Ge(1)] = 100
    format: str = "auto"  # auto, a built-in or a custom format (checked when it is built)
    level: Literal["error", "warn"] | None = None  # None: not asked (error for app questions)
    key: str | None = None
    by: Annotated[str, After(_named)] | None = None  # --by: the field a ``top`` question ranks
    where: tuple[str, ...] = ()  # --where: conditions every counted record meets
    since: str | None = None
    until: str | None = None
    normalize: bool = True
    seed: Count | None = None
    year: Annotated[Count, Ge(1970), Le(9999)] | None = None  # of year-less stamps; None: now
    bucket: str = "auto"  # timeline bucket: auto, off, or a width such as 5m, 1h, 1d
    min_format_confidence: Annotated[Real, Ge(0), Le(1)] = 0.01
    delta: Annotated[Real, Gt(0), Lt(1)] = 0.01
    epsilon: Annotated[Real, Ge(0), Lt(1)] = 0.0
    full: bool = False
    ranked: bool = False
    max_candidates: Annotated[Count, Ge(2), Le(64)] = 16
    assume_exchangeable: bool = False
    degrade_above: Annotated[Real, Gt(0), Le(1)] = 0.5
    #: --negligible: stop, settled, once the matching events are proved under this share of
    #: the lines ("nothing worth reporting"); 0 turns it off. 1e-4 (1 in 10,000 requests) is
    #: ten times under the error budget of a 99.9 % availability target, the tightest one
    #: commonly set, so no alert rule would act on it; and a 10 GB log proves it from a few %.
    negligible: Annotated[Real, Ge(0), Lt(1)] = 1e-4


@dataclass(frozen=True, kw_only=True)
class BudgetSettings(Model):
    """Limits of a run; exhausting one gives a partial answer (exit 4). Unset: no limit."""

    max_seconds: Annotated[Real, Gt(0)] | None = None
    max_cpu_seconds: Annotated[Real, Gt(0)] | None = None
    max_fraction: Annotated[Real, Gt(0), Le(1)] | None = None
    memory: Annotated[str, After(_memory)] = "25%"  # of the memory available, or e.g. 512MiB
    sketch_keys: Annotated[Count, Ge(10)] = 50_000  # routes kept once memory forces a sketch


@dataclass(frozen=True, kw_only=True)
class CheckpointSettings(Model):
    """Checkpoints (``--checkpoint FILE``): where, and every how many batches (also on a stop)."""

    path: str | None = None
    every: Annotated[Count, Ge(1)] = 16
    #: Whether a partial result says ``logagent resume PATH`` goes on: not where the run's
    #: owner resumes (and removes) its checkpoints itself, the service.
    hint: bool = True


@dataclass(frozen=True, kw_only=True)
class FormatSettings(Model):
    """Format options; ``json`` maps field names (status, path, ts, level, latency) to keys."""

    json_keys: dict[str, Annotated[str, After(readable_key)]] = field(default_factory=dict)
    custom_dir: str = "configs/formats"  # custom format files (*.toml), used when it exists


@dataclass(frozen=True, kw_only=True)
class RoutesSettings(Model):
    """Route normalization rules, applied in order."""

    rules: list[RouteRuleSettings] = field(
        default_factory=lambda: [
            RouteRuleSettings(name=r.name, pattern=r.pattern, replacement=r.replacement)
            for r in DEFAULT_RULES
        ]
    )


@dataclass(frozen=True, kw_only=True)
class LLMSettings(Model):
    """The LLM that writes the report's prose (through Ollama); its numbers are checked."""

    mode: Literal["auto", "on", "off"] = "auto"
    host: str = ""  # empty: OLLAMA_HOST, else http://127.0.0.1:11434
    model: str = "qwen2.5:0.5b"
    timeout_s: Annotated[Real, Gt(0)] = 60.0  # the whole report stage, retry included
    connect_timeout_s: Annotated[Real, Gt(0)] = 3.0  # the server must list its models by then
    temperature: Annotated[Real, Ge(0), Le(2)] = 0.0


@dataclass(frozen=True, kw_only=True)
class Settings(Model):
    """All settings of a run (a default is checked like a given value, as pydantic-settings
    does)."""

    reader: ReaderSettings = field(default_factory=ReaderSettings)
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)
    formats: FormatSettings = field(default_factory=FormatSettings)
    routes: RoutesSettings = field(default_factory=RoutesSettings)
    budget: BudgetSettings = field(default_factory=BudgetSettings)
    checkpoint: CheckpointSettings = field(default_factory=CheckpointSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    #: structlog's threshold (``LOGAGENT_LOG_LEVEL`` too); the front doors set it (``log``)
    log_level: Annotated[LogLevel, Before(_lower)] = "warning"


#: Environment variables read into the settings (pydantic-settings matches them case-blind).
ENV_PREFIX = "LOGAGENT_"


#: Other names of the levels (``LOGAGENT_LOG_LEVEL=warn`` ran before ``log_level`` was
#: checked: the logger read any unknown name as warning, an empty one too).
_LEVEL_ALIASES = {"warn": "warning", "fatal": "critical", "trace": "debug", "": "warning"}


def _lower(value: object) -> object:
    """A level's name in lower case, its aliases (``warn``, ``fatal``, ...) as the name."""
    if not isinstance(value, str):
        return value
    name = value.strip().lower()
    return _LEVEL_ALIASES.get(name, name)


def memory_budget_bytes(text: str, available_bytes: int) -> int:
    """``"25%"`` of the available memory, or an absolute size such as ``"512MiB"``."""
    try:
        _memory(text)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if text.strip().endswith("%"):
        return int(available_bytes * float(text.strip()[:-1]) / 100)
    value = parse_size(text.strip())
    assert isinstance(value, int)  # _memory said so
    return value


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Build the settings from defaults, a TOML file, the environment and ``overrides``."""
    path = config_file or os.environ.get("LOGAGENT_CONFIG")
    if path and not Path(path).is_file():
        what = (
            "is a directory, not a config file" if Path(path).is_dir() else "config file not found"
        )
        raise ConfigError(what, path=path)
    try:
        if path or _environment_sets_something():
            return Settings.model_validate(_sourced(path, _drop_none(overrides)))
        return build(Settings, _drop_none(overrides))
    except ValueError as exc:  # pydantic's ValidationError is one; so is malformed TOML
        if is_validation_error(exc):
            raise ConfigError(_describe(exc), path=path) from exc  # type: ignore[arg-type]
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

    class _Base(BaseSettings):
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

    sourced = _mirror(Settings, base=_Base)
    return sourced(**overrides).model_dump()  # type: ignore[no-any-return]


def _mirror(cls: type, base: Any = None) -> Any:
    """A pydantic model with the fields of the dataclass ``cls``, its sections mirrored too:
    pydantic-settings decodes a nested variable's JSON (``LOGAGENT_ANALYSIS__WHERE='["..."]'``)
    only inside pydantic models."""
    from pydantic import ConfigDict, Field, create_model

    hints = model_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint):
            section = _mirror(hint)  # type: ignore[arg-type]
            fields[f.name] = (section, Field(default_factory=section))
        elif callable(f.default_factory):
            fields[f.name] = (hint, Field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hint, f.default)
    if base is not None:
        return create_model(cls.__name__, __base__=base, **fields)
    return create_model(cls.__name__, __config__=ConfigDict(extra="forbid"), **fields)


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


#: The settings given in bytes (``Size``, ``BlockSize``): a bad one is said to be no size.
_SIZES = frozenset({"unit_size", "line_cap", "batch_bytes", "scan_parallel_from", "adapt_from"})


def _describe(exc: ValidationError) -> str:
    """One phrase per setting in error, without pydantic's validator names."""
    parts: dict[str, str] = {}
    for e in exc.errors():
        loc = ".".join(str(p) for p in e["loc"] if _is_name(p))
        msg = error_text(e)
        sized = loc.rsplit(".", 1)[-1] in _SIZES  # a count such as top is no size
        if sized and ("valid integer" in msg or "Input should be 'auto'" in msg):
            msg = f"{e['input']!r} is not a size (use e.g. 4096, 64KiB, 1MiB)"
        parts.setdefault(loc, parts.get(loc, msg))
        if "1073741824" in msg:
            parts[loc] = f"{e['input']!r} is larger than 1 GiB"
    return "invalid configuration: " + "; ".join(f"{k}: {v}" for k, v in parts.items())


def _is_name(part: object) -> bool:
    """A setting's name in an error location (not a validator's or a union branch's label)."""
    return isinstance(part, int) or (isinstance(part, str) and part.isidentifier())
