"""The question of ``POST /v1/analyses``, from its query string (PURE).

The parameters are the CLI's flags of the same names, mapped onto the same
settings sections (``cli.analyze.overrides``), so a service job and
``logagent analyze`` with the same values ask the engine the same question.
Anything malformed is a ``ParamError`` naming the field (HTTP 422).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from logagent.result import QuestionKind

#: parameters the issue names whose logic the engine does not have yet
NOT_SUPPORTED = ("by", "where")


class ParamError(Exception):
    """A malformed query: ``errors`` is a FastAPI-style list naming each field."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{e['loc'][-1]}: {e['msg']}" for e in errors))
        self.errors = errors


class AnalysisParams(BaseModel):
    """What a job asks: the ``logagent analyze`` flags of the same names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: QuestionKind | None = None
    top: int | None = Field(default=None, ge=1, le=1000)
    format: str | None = None
    level: Literal["error", "warn"] | None = None
    key: str | None = None
    since: str | None = None
    until: str | None = None
    full: bool | None = None
    delta: float | None = Field(default=None, gt=0, lt=1)
    epsilon: float | None = Field(default=None, ge=0, lt=1)
    ranked: bool | None = None
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    min_requests: int | None = Field(default=None, ge=1)
    max_seconds: float | None = Field(default=None, gt=0)
    max_fraction: float | None = Field(default=None, gt=0, le=1)
    now: str | None = None  # the "now" relative --since counts from (reproducible runs)

    def overrides(self) -> dict[str, Any]:
        """The settings sections these values set (None: the configured default)."""
        return {
            "analysis": {
                "question": self.question,
                "top": self.top,
                "format": self.format,
                "level": self.level,
                "key": self.key,
                "since": self.since,
                "until": self.until,
                "seed": self.seed,
                "min_requests": self.min_requests,
                "delta": self.delta,
                "epsilon": self.epsilon,
                "full": self.full,
                "ranked": self.ranked,
            },
            "budget": {"max_seconds": self.max_seconds, "max_fraction": self.max_fraction},
        }


class Request(BaseModel):
    """The query of one POST: the question and how long to wait for the answer."""

    model_config = ConfigDict(frozen=True)

    params: AnalysisParams
    wait_s: float = Field(default=0.0, ge=0, le=3600)


def parse_query(items: list[tuple[str, str]]) -> Request:
    """The request a query string asks for; ``ParamError`` naming every bad field."""
    values: dict[str, str] = {}
    errors: list[dict[str, Any]] = []
    for name, value in items:
        if name in values:
            errors.append(_error(name, "given more than once"))
        values[name] = value
    for name in NOT_SUPPORTED:
        if name in values:
            errors.append(_error(name, "not supported yet"))
            values.pop(name)
    wait = values.pop("wait", None)
    if errors:
        raise ParamError(errors)
    try:
        params = AnalysisParams.model_validate(values)
        return Request(params=params, wait_s=wait or 0.0)  # type: ignore[arg-type]  # pydantic parses the text
    except ValidationError as exc:
        raise ParamError(
            [_error(".".join(str(p) for p in e["loc"]) or "query", e["msg"]) for e in exc.errors()]
        ) from exc


def _error(field: str, msg: str) -> dict[str, Any]:
    name = field.removeprefix("params.")
    if name == "wait_s":
        name = "wait"
    return {"loc": ["query", name], "msg": msg, "type": "value_error"}
