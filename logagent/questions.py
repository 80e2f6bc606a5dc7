"""Which question fits which log format, and how app answers are worded (PURE).

Access logs answer ``top-errors``, ``error-rate`` and ``status`` (keys are
routes, events are 5xx). Application logs answer ``top-error-components``
and ``error-types`` (keys are components or message templates, events are
records at or above ``--level``), counted by the same engine through
``formats.adapter.AppAsAccess``; ``app_answer`` turns its level codes back
into level names.
"""

from __future__ import annotations

from logagent.errors import ConfigError
from logagent.formats.adapter import level_of_any_code, level_of_code, metric_for
from logagent.result import Answer, QuestionKind

APP_KINDS = frozenset({QuestionKind.TOP_ERROR_COMPONENTS, QuestionKind.ERROR_TYPES})
ACCESS_KINDS = frozenset({QuestionKind.TOP_ERRORS, QuestionKind.ERROR_RATE, QuestionKind.TIMELINE})
#: The metric of a level distribution (``-q status`` on an application log).
LEVEL_METRIC = "records by level"


def counts_events(kind: QuestionKind) -> bool:
    """Whether the question counts only events (5xx, or records at the level) per key."""
    return kind in (QuestionKind.TOP_ERRORS, QuestionKind.TIMELINE, *APP_KINDS)


def check_fits(kind: QuestionKind, *, fmt_name: str, app: bool) -> None:
    """Raise ConfigError when ``kind`` cannot be asked of a log in format ``fmt_name``."""
    if app and kind in ACCESS_KINDS:
        raise ConfigError(
            f"--question {kind.value} needs an access log (HTTP status per route), but the "
            f"format is {fmt_name}, an application log: ask top-error-components "
            "(or error-types) instead",
            format=fmt_name,
        )
    if not app and kind in APP_KINDS:
        raise ConfigError(
            f"--question {kind.value} needs an application log (level and component per "
            f"record), but the format is {fmt_name}, an access log: ask top-errors "
            "(or error-rate) instead",
            format=fmt_name,
        )


def level_distribution(ans: Answer) -> Answer:
    """A status distribution over level codes, as levels: keys are level names, no classes."""
    top = [e.model_copy(update={"key": level_of_any_code(e.key)}) for e in ans.top]
    return ans.model_copy(update={"top": top, "classes": {}, "metric": LEVEL_METRIC})


def app_answer(ans: Answer, level: str) -> Answer:
    """An answer over level codes, with breakdown keys as level names and the app metric."""
    top = [
        e.model_copy(update={"breakdown": {level_of_code(k): v for k, v in e.breakdown.items()}})
        for e in ans.top
    ]
    return ans.model_copy(update={"top": top, "metric": metric_for(level)})
