"""Which question fits which log format, and how app answers are worded (PURE).

Access logs answer ``top-errors``, ``error-rate`` and ``status`` (keys are
routes, events are 5xx). Application logs answer ``top-error-components``
and ``error-types`` (keys are components or message templates, events are
records at or above ``--level``), counted by the same engine through
``formats.adapter.AppAsAccess``; ``app_answer`` turns its level codes back
into level names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from logagent.errors import ConfigError
from logagent.formats.adapter import NO_LEVEL, level_of_any_code, level_of_code, metric_for
from logagent.result import Answer, Question, QuestionKind

APP_KINDS = frozenset({QuestionKind.TOP_ERROR_COMPONENTS, QuestionKind.ERROR_TYPES})
ACCESS_KINDS = frozenset(
    {
        QuestionKind.TOP_ERRORS,
        QuestionKind.ERROR_RATE,
        QuestionKind.TIMELINE,
        QuestionKind.TOP_4XX,
        QuestionKind.TOP_CLIENTS,
    }
)
#: Questions answered by ranking ``--by FIELD`` among the records meeting ``--where``.
SELECT_KINDS = frozenset({QuestionKind.TOP, QuestionKind.TOP_4XX, QuestionKind.TOP_CLIENTS})
#: The named questions as ``--by`` / ``--where`` (``None``: route or component, by log kind).
PRESETS: dict[QuestionKind, tuple[str | None, tuple[str, ...]]] = {
    QuestionKind.TOP_ERRORS: ("route", ("status=5xx",)),
    QuestionKind.TOP_4XX: ("route", ("status=4xx",)),
    QuestionKind.TOP_CLIENTS: ("client", ()),
    QuestionKind.TOP_ERROR_COMPONENTS: ("component", ("level>=error",)),
    QuestionKind.TOP: (None, ()),
}
_RANKING = frozenset(PRESETS)


def asked_kind(question: str | None, by: str | None, where: Sequence[str]) -> str | None:
    """The ``-q`` a front door passes on: ``top`` when only ``--by``/``--where`` are given
    (they then define the question alone), else the one named (None: the default)."""
    return question or ("top" if by or where else None)


class Selection(NamedTuple):
    """A question's kind, ``--by``, ``--where``, ``--level`` and ``--key``, resolved."""

    kind: QuestionKind
    by: str | None
    where: tuple[str, ...]
    level: str
    key: str | None = None


def resolve_selection(
    kind: QuestionKind,
    by: str | None,
    where: Sequence[str],
    level: str = "error",
    key: str | None = None,
) -> Selection:
    """The question ``-q`` / ``--by`` / ``--where`` ask: (kind, by, where, level).

    Without ``--by``/``--where`` the named question stands (its preset filled in
    for ``top-4xx`` and ``top-clients``). With them, they refine the named
    question's preset (``-q top-4xx --by client``: clients by 4xx); ``top`` (what
    the CLI asks when ``-q`` is not given) has none, so they define it alone
    (``--by client``: every record counts). A selection that *is* a named question
    (``--by route --where status=5xx``) is asked as that question, whose reading
    is tuned for it.
    """
    wanted = kind
    if by is None and not where:
        if wanted is QuestionKind.TOP:
            raise ConfigError("--question top ranks a field: give --by FIELD (and --where COND)")
        preset_by, preset_where = PRESETS.get(wanted, (None, ()))
        if wanted in SELECT_KINDS:
            return Selection(wanted, preset_by, preset_where, level, key)
        return Selection(wanted, None, (), level, key)
    if wanted not in _RANKING:
        raise ConfigError(
            f"--by/--where rank a field; --question {wanted.value} does not (ask top, "
            "top-errors, top-4xx, top-clients or top-error-components, or leave -q out)"
        )
    preset_by, preset_where = PRESETS[wanted]
    if wanted is QuestionKind.TOP_ERROR_COMPONENTS:
        preset_where = (f"level>={level}",)
    chosen_by = by or preset_by
    # --where refines the named question: its own conditions hold too (top-errors: 5xx)
    chosen_where = tuple(dict.fromkeys((*preset_where, *where)))
    return _canonical(chosen_by, chosen_where, level)


def _canonical(by: str | None, where: tuple[str, ...], level: str) -> Selection:
    """A selection as the named question it equals, else ``top``."""
    compact = tuple(w.replace(" ", "").lower() for w in where)
    if by == "route" and compact == ("status=5xx",):
        return Selection(QuestionKind.TOP_ERRORS, None, (), level)
    if by == "component" and compact in (("level>=error",), ("level>=warn",)):
        return Selection(QuestionKind.TOP_ERROR_COMPONENTS, None, (), compact[0].split(">=")[1])
    if by == "template":
        return _templates(where, level)
    return Selection(QuestionKind.TOP, by, where, level)


def _templates(where: tuple[str, ...], level: str) -> Selection:
    """``--by template``: one component's message templates, i.e. ``error-types --key``."""
    component = [w.split("=", 1)[1] for w in where if re.fullmatch(r"component=[^,]+", w)]
    levels = [w.split(">=", 1)[1].lower() for w in where if w.startswith("level>=")]
    rest = [w for w in where if not re.fullmatch(r"component=[^,]+|level>=\w+", w)]
    if len(component) != 1 or rest or any(lv not in ("error", "warn") for lv in levels):
        raise ConfigError(
            "--by template: templates are mined per component, so write --where "
            "component=NAME (and optionally --where level>=warn); or ask -q error-types"
        )
    return Selection(
        QuestionKind.ERROR_TYPES, None, (), levels[0] if levels else level, component[0]
    )


def selection_metric(by: str, where: Sequence[str]) -> str:
    """What a ``top`` question counts, in words ("records where status=4xx")."""
    return "records where " + " and ".join(where) if where else "records"


#: The metric of a level distribution (``-q status`` on an application log).
LEVEL_METRIC = "records by level"


def candidates_text(kind: QuestionKind, level: str) -> str:
    """What the lines a prefilter lets through could hold, in words (the scope of a
    malformed count when only those lines were parsed)."""
    if kind in SELECT_KINDS:
        return "lines that could meet the selection"
    if kind in APP_KINDS:
        return f"lines that could hold {metric_for(level)}"
    return "lines that could hold a 5xx"


def counts_events(kind: QuestionKind) -> bool:
    """Whether the question counts only events (5xx, records at the level, or the records
    meeting ``--where``) per key."""
    return kind in (QuestionKind.TOP_ERRORS, QuestionKind.TIMELINE, *APP_KINDS, *SELECT_KINDS)


def for_log(question: Question, *, app: bool) -> Question:
    """The question a run answers: the asked one, except that the default (no question
    asked, ``Question.default_kind``) is top-errors on an access log and
    top-error-components (at ``--level``) on an application log, which has no status."""
    if app and question.default_kind and question.kind is QuestionKind.TOP_ERRORS:
        return question.model_copy(update={"kind": QuestionKind.TOP_ERROR_COMPONENTS})
    return question


def check_fits(kind: QuestionKind, *, fmt_name: str, app: bool) -> None:
    """Raise ConfigError when ``kind`` cannot be asked of a log in format ``fmt_name``
    (a ``top`` question is checked against the format's fields instead)."""
    if app and kind in ACCESS_KINDS:
        over_time = " (its answer's timeline holds ERROR+ records over time)"
        raise ConfigError(
            f"--question {kind.value} needs an access log (HTTP status per route), but the "
            f"format is {fmt_name}, an application log: ask top-error-components"
            f"{over_time if kind is QuestionKind.TIMELINE else ''} (or error-types) instead",
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


def selected_answer(ans: Answer, label: Callable[[str], str], metric: str) -> Answer:
    """An answer over ``Selected`` event codes, with breakdown keys in words."""
    top = []
    for e in ans.top:
        breakdown = {label(k): v for k, v in e.breakdown.items()}
        if set(breakdown) == {NO_LEVEL}:  # a log without levels: no breakdown to show
            breakdown = {}
        top.append(e.model_copy(update={"breakdown": breakdown}))
    return ans.model_copy(update={"top": top, "metric": metric})
