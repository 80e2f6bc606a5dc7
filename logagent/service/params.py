"""The question of ``POST /v1/analyses``, from its query string (EDGE: no I/O, the CLI's parsers).

The parameters are ``logagent analyze``'s flags of the same names, and each
value is converted and range-checked by the very click option of that flag
(``cli.analyze.analyze_cmd``), so the service never keeps a second copy of
the CLI's rules. The values then go onto the same settings sections as the
CLI's (``AnalysisParams.overrides``), and ``execute.check_params`` runs the
checks the engine would only run later (settings, question, time window,
format name) before the body is stored. Anything malformed is a
``ParamError`` naming the field (HTTP 422).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

if TYPE_CHECKING:
    import click

#: parameters that may be given more than once (``where=status=5xx&where=method=GET``)
REPEATABLE = ("where",)

#: query parameter -> the ``logagent analyze`` option (its click ``name``) that parses it
FLAGS = {
    "question": "question",
    "top": "top",
    "format": "fmt",
    "level": "level",
    "key": "key",
    "by": "by",
    "where": "where",
    "since": "since",
    "until": "until",
    "full": "full",
    "delta": "delta",
    "epsilon": "epsilon",
    "ranked": "ranked",
    "seed": "seed",
    "min_requests": "min_requests",
    "max_seconds": "max_seconds",
    "max_fraction": "max_fraction",
    "now": "now",  # the "now" relative --since counts from (reproducible runs)
}


class ParamError(Exception):
    """A malformed query: ``errors`` is a FastAPI-style list naming each field."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{e['loc'][-1]}: {e['msg']}" for e in errors))
        self.errors = errors


class AnalysisParams(BaseModel):
    """What a job asks: the ``logagent analyze`` flags of the same names, already parsed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str | None = None
    top: int | None = None
    format: str | None = None
    level: str | None = None
    key: str | None = None
    by: str | None = None
    where: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    full: bool | None = None
    delta: float | None = None
    epsilon: float | None = None
    ranked: bool | None = None
    seed: int | None = None
    min_requests: int | None = None
    max_seconds: float | None = None
    max_fraction: float | None = None
    now: str | None = None

    def overrides(self) -> dict[str, Any]:
        """The settings sections these values set (None: the configured default)."""
        from logagent.questions import asked_kind

        return {
            "analysis": {
                "question": asked_kind(self.question, self.by, self.where),
                "top": self.top,
                "format": self.format,
                "level": self.level,
                "key": self.key,
                "by": self.by,
                "where": self.where or None,
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
    values: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    wait: str | None = None
    for name, text in items:
        if name in seen and name not in REPEATABLE:
            errors.append(param_error(name, "given more than once"))
            continue
        seen.add(name)
        if name == "wait":
            wait = text
        elif name not in FLAGS:
            errors.append(param_error(name, f"unknown parameter (known: {_known()})"))
        else:
            try:
                value = _convert(name, text)
                if name in REPEATABLE:
                    values[name] = (*values.get(name, ()), value)
                else:
                    values[name] = value
            except ValueError as exc:
                errors.append(param_error(name, str(exc)))
    try:
        req = Request(params=AnalysisParams(**values), wait_s=wait or 0.0)  # type: ignore[arg-type]  # pydantic parses the text
    except ValidationError as exc:
        errors += [param_error("wait", e["msg"]) for e in exc.errors()]
    if errors:
        raise ParamError(errors)
    return req


def param_error(field: str, msg: str) -> dict[str, Any]:
    """One entry of a 422's ``detail``: the query parameter and what is wrong with it."""
    return {"loc": ["query", field], "msg": msg, "type": "value_error"}


def _convert(name: str, text: str) -> Any:
    """``text`` as the CLI's option parses it; ValueError with click's own message."""
    import click

    option = _options()[FLAGS[name]]
    if option.is_flag:  # a flag on the command line is a boolean here (full=true)
        kind: click.ParamType[Any] = click.BOOL
    else:
        kind = option.type
    try:
        return kind.convert(text, option, None)
    except click.BadParameter as exc:
        raise ValueError(exc.message) from exc


def _options() -> dict[str, click.Option]:
    """``logagent analyze``'s options by name (click only: the CLI module imports no engine)."""
    import click

    from logagent.cli.analyze import analyze_cmd

    return {p.name: p for p in analyze_cmd.params if isinstance(p, click.Option) and p.name}


def _known() -> str:
    return ", ".join((*FLAGS, "wait"))
