"""The result contract, schema version 1 (PURE pydantic models).

Every front door returns this; ``--json`` prints it. Later versions may add
keys, never rename or drop them (see DESIGN.md, "The result contract").
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Question(_Frozen):
    """The question of a run."""

    kind: QuestionKind = QuestionKind.TOP_ERRORS
    top: int = Field(default=5, ge=1, le=1000)
    delta: float = Field(default=0.01, gt=0, lt=1)
    epsilon: float = Field(default=0.0, ge=0)
    since: str | None = None
    until: str | None = None
    min_requests: int = Field(default=100, ge=1)
    normalize: bool = True
    level: Literal["error", "warn"] = "error"  # app questions: least level that is an event
    key: str | None = None  # error-types: the component whose error types are asked
    by: str | None = None  # top / presets: the field ranked
    where: tuple[str, ...] = ()  # top / presets: conditions every counted record meets


class InputInfo(_Frozen):
    """What was read."""

    paths: list[str]
    bytes_total: int | None
    format: str | None
    format_confidence: float | None
    seekable: bool
    format_scores: dict[str, float] = Field(default_factory=dict)
    unit_size: int | None = None
    compression: list[str | None] = Field(default_factory=list)
    reading: str = "sequential"  # sequential | random_units | stream
    window: dict[str, Any] | None = None  # --since/--until: the window and how it was found


class TopEntry(_Frozen):
    """One ranked key (route or status) with its counts and full-input interval."""

    key: str
    count: int
    estimate: float
    low: float
    high: float
    share: float
    share_low: float
    share_high: float
    breakdown: dict[str, float] = Field(default_factory=dict)
    requests: int | None = None
    rate: float | None = None
    rate_low: float | None = None
    rate_high: float | None = None


class TimelineBucket(_Frozen):
    """One time bucket: its start, all matching events in it, and each top key's."""

    start: str  # ISO 8601, UTC
    total: int  # seen, when sampled
    counts: dict[str, int] = Field(default_factory=dict)  # seen, when sampled
    estimate: float | None = None  # sampled: the bucket's full-input total, and its interval
    low: float | None = None
    high: float | None = None


class Timeline(_Frozen):
    """Matching events over time (``--bucket``): every bucket from the first to the last."""

    bucket_s: int
    basis: Literal["exact", "seen"]  # seen: counts in the units read by an early-stopped run
    buckets: list[TimelineBucket] = Field(default_factory=list)
    interval: str | None = None  # how a sampled run's bucket intervals were made (the method)


class Negligible(_Frozen):
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


class Answer(_Frozen):
    """The ranked answer; ``total`` is the count the shares are taken of."""

    top: list[TopEntry] = Field(default_factory=list)
    ties: list[list[str]] = Field(default_factory=list)
    classes: dict[str, int] = Field(default_factory=dict)  # status: lines per class (2xx, 5xx...)
    keyless: int = 0  # events of records without a usable key (no path): counted, never ranked
    timeline: Timeline | None = None
    total: int = 0
    distinct_keys: int = 0
    metric: str = ""
    count_error: int = 0  # memory-bounded summary: each count may be low by at most this
    negligible: Negligible | None = None  # settled "nothing worth reporting" (--negligible)


class Progress(_Frozen):
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


class DecisionRecord(_Frozen):
    """One entry of the decision trace."""

    units_read: int
    fraction_read: float
    action: str
    reason: str
    detail: str = ""


class Recuse(_Frozen):
    """A structured "cannot answer"."""

    reason_code: RecuseCode
    detail: str
    suggestion: str
    attempted: str


class Report(_Frozen):
    """The human report and where its prose came from."""

    source: Literal["template", "llm"] = "template"
    model: str | None = None
    fallback_reason: Literal["llm_unavailable", "llm_rejected"] | None = None
    markdown: str = ""
    fallback_detail: str | None = None  # why the LLM's prose was not used, in words


class Saving(_Frozen):
    """What early stopping saved against a full read (estimated for CPU)."""

    bytes: int
    cpu_s: float
    evidence_share: float  # CPU time in evidence + Router-Mem over the run's wall time


class Result(_Frozen):
    """Everything a run returns."""

    schema_version: int = SCHEMA_VERSION
    question: Question
    input: InputInfo
    status: Status
    answer: Answer
    progress: Progress
    decisions: list[DecisionRecord] = Field(default_factory=list)
    recuse: Recuse | None = None
    warnings: list[str] = Field(default_factory=list)
    report: Report = Field(default_factory=Report)
    seed: int | None = None
    saving: Saving | None = None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``Result`` (draft 2020-12), as published in ``configs/``."""
    schema = Result.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
    }
