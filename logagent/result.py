"""The result contract, schema version 1 (PURE frozen dataclasses; ``logagent.model``).

Every front door returns this; ``--json`` prints it. Later versions may add
keys, never rename or drop them (see DESIGN.md, "The result contract").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal

from annotated_types import Ge, Gt, Le, Lt

from logagent.model import Model

SCHEMA_VERSION = 1

#: At most this many tie pairs are named (5,000 paths seen once each would make 25,000).
MAX_TIE_PAIRS = 10


class QuestionKind(StrEnum):
    """What is asked of the log."""

    TOP_ERRORS = "top-errors"
    ERROR_RATE = "error-rate"
    STATUS = "status"
    TOP_ERROR_COMPONENTS = "top-error-components"
    ERROR_TYPES = "error-types"
    TIMELINE = "timeline"  # matching events per time bucket alone (answer.timeline), no ranking
    TOP = "top"  # --by FIELD --where COND: any field ranked among the matching records
    TOP_4XX = "top-4xx"  # preset: --by route --where status=4xx
    TOP_CLIENTS = "top-clients"  # preset: --by client (requests per client)


class Status(StrEnum):
    """How the answer was reached."""

    SETTLED = "settled"
    EXACT = "exact"
    PARTIAL = "partial"
    RECUSED = "recused"


class RecuseCode(StrEnum):
    """Why a question cannot be answered."""

    UNRECOGNIZED_FORMAT = "UNRECOGNIZED_FORMAT"
    NO_MATCHING_EVENTS = "NO_MATCHING_EVENTS"
    EMPTY_INPUT = "EMPTY_INPUT"
    INPUT_UNREADABLE = "INPUT_UNREADABLE"
    MEMORY_EXHAUSTED = "MEMORY_EXHAUSTED"


@dataclass(frozen=True, kw_only=True)
class Question(Model):
    """The question of a run."""

    _checked = True  # the public API builds it (``Question(kind="status", top=3)``)

    kind: QuestionKind = QuestionKind.TOP_ERRORS
    top: Annotated[int, Ge(1), Le(1000)] = 5
    delta: Annotated[float, Gt(0), Lt(1)] = 0.01
    epsilon: Annotated[float, Ge(0)] = 0.0
    since: str | None = None
    until: str | None = None
    min_requests: Annotated[int, Ge(1)] = 100
    normalize: bool = True
    level: Literal["error", "warn"] = "error"  # app questions: least level that is an event
    key: str | None = None  # error-types: the component whose error types are asked
    by: str | None = None  # top / presets: the field ranked
    where: tuple[str, ...] = ()  # top / presets: conditions every counted record meets
    #: No question was asked: ``kind`` is the default, top-errors, which the engine answers as
    #: top-error-components when the log is an application log (``questions.for_log``).
    default_kind: bool = False


@dataclass(frozen=True, kw_only=True)
class InputInfo(Model):
    """What was read."""

    paths: list[str]
    bytes_total: int | None
    format: str | None
    format_confidence: float | None
    seekable: bool
    format_scores: dict[str, float] = field(default_factory=dict)
    unit_size: int | None = None
    compression: list[str | None] = field(default_factory=list)
    reading: str = "sequential"  # sequential | random_units | stream
    window: dict[str, Any] | None = None  # --since/--until: the window and how it was found


@dataclass(frozen=True, kw_only=True)
class TopEntry(Model):
    """One ranked key (route or status) with its counts and full-input interval."""

    key: str
    count: int
    estimate: float
    low: float
    high: float
    share: float
    share_low: float
    share_high: float
    breakdown: dict[str, float] = field(default_factory=dict)
    requests: int | None = None
    rate: float | None = None
    rate_low: float | None = None
    rate_high: float | None = None


@dataclass(frozen=True, kw_only=True)
class TimelineBucket(Model):
    """One time bucket: its start, all matching events in it, and each top key's."""

    start: str  # ISO 8601, UTC
    total: int  # seen, when sampled
    counts: dict[str, int] = field(default_factory=dict)  # seen, when sampled
    estimate: float | None = None  # sampled: the bucket's full-input total, and its interval
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True, kw_only=True)
class Timeline(Model):
    """Matching events over time (``--bucket``): every bucket from the first to the last."""

    bucket_s: int
    basis: Literal["exact", "seen"]  # seen: counts in the units read by an early-stopped run
    buckets: list[TimelineBucket] = field(default_factory=list)
    interval: str | None = None  # how a sampled run's bucket intervals were made (the method)


@dataclass(frozen=True, kw_only=True)
class Negligible(Model):
    """``--negligible``: the matching events are proved under ``rate`` of the lines.

    Nothing worth reporting: with probability at least ``confidence`` the
    whole input holds fewer than ``rate`` times its lines of matching events
    (a one-sided WoR bound, valid at any stop). Not "none at all": only a full
    read can say that.
    """

    rate: float
    confidence: float  # of this claim alone (its share of delta)
    events_seen: int
    lines_seen: int


@dataclass(frozen=True, kw_only=True)
class Answer(Model):
    """The ranked answer; ``total`` is the count the shares are taken of."""

    top: list[TopEntry] = field(default_factory=list)
    ties: list[list[str]] = field(default_factory=list)
    classes: dict[str, int] = field(default_factory=dict)  # status: lines per class (2xx, 5xx...)
    keyless: int = 0  # events of records without a usable key (no path): counted, never ranked
    timeline: Timeline | None = None
    total: int = 0
    distinct_keys: int = 0
    metric: str = ""
    count_error: int = 0  # memory-bounded summary: each count may be low by at most this
    negligible: Negligible | None = None  # settled "nothing worth reporting" (--negligible)


@dataclass(frozen=True, kw_only=True)
class Progress(Model):
    """How much was read and what it cost."""

    units_read: int
    units_total: int | None
    fraction_read: float
    bytes_read: int
    lines_read: int
    lines_parsed: int
    malformed_lines: int
    malformed_scope: Literal["all_lines", "prefiltered_lines"]
    invalid_utf8_lines: int
    truncated_lines: int
    elapsed_s: float
    cpu_s: float
    peak_rss_bytes: int


@dataclass(frozen=True, kw_only=True)
class DecisionRecord(Model):
    """One entry of the decision trace."""

    units_read: int
    fraction_read: float
    action: str
    reason: str
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class Recuse(Model):
    """A structured "cannot answer"."""

    reason_code: RecuseCode
    detail: str
    suggestion: str
    attempted: str


@dataclass(frozen=True, kw_only=True)
class Report(Model):
    """The human report and where its prose came from."""

    source: Literal["template", "llm"] = "template"
    model: str | None = None
    fallback_reason: Literal["llm_unavailable", "llm_rejected"] | None = None
    markdown: str = ""
    fallback_detail: str | None = None  # why the LLM's prose was not used, in words


@dataclass(frozen=True, kw_only=True)
class Saving(Model):
    """What early stopping saved against a full read (estimated for CPU)."""

    bytes: int
    cpu_s: float
    evidence_share: float  # CPU time in evidence + Router-Mem over the run's wall time


@dataclass(frozen=True, kw_only=True)
class Result(Model):
    """Everything a run returns."""

    schema_version: int = SCHEMA_VERSION
    question: Question
    input: InputInfo
    status: Status
    answer: Answer
    progress: Progress
    decisions: list[DecisionRecord] = field(default_factory=list)
    recuse: Recuse | None = None
    warnings: list[str] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    seed: int | None = None
    saving: Saving | None = None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``Result`` (draft 2020-12), as published in ``configs/``."""
    schema = Result.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
    }
