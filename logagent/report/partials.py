"""Why a partial answer is partial, in words, from its decision trace (PURE).

Split from ``report.sections``, which writes the headline and the reading section with it.
"""

from __future__ import annotations

from logagent.result import DecisionRecord, Result


def _last_stop(result: Result) -> DecisionRecord | None:
    """The last STOP_PARTIAL of the trace, if any."""
    return next((d for d in reversed(result.decisions) if d.action == "STOP_PARTIAL"), None)


def partial_why(result: Result) -> str:
    """Why a partial answer stopped, from the last STOP_PARTIAL of its trace."""
    last = _last_stop(result)
    if last is None:
        return "the run stopped before the answer settled"
    return PARTIAL_WHY.get(last.reason, "a budget ran out before the answer settled").format(
        detail=last.detail
    )


def whole_read(result: Result) -> bool:
    """A partial answer whose input was all read: a cron window whose counts hold lines twice
    or not all it asked (``cron.window``), not a read that stopped."""
    last = _last_stop(result)
    return last is not None and last.reason == CRON_GAP


def damaged(result: Result) -> bool:
    """The run stopped because an input is truncated or damaged."""
    return any(d.reason == INPUT_DAMAGED for d in result.decisions)


INPUT_DAMAGED = "input_damaged"  # router.Reason.INPUT_DAMAGED (the report imports no engine)
CRON_GAP = "cron_gap"  # a cron window's (cron.window): its counts miss lines, or double some
PARTIAL_WHY = {
    INPUT_DAMAGED: "{detail}; only what came before the damage was counted",
    "input_changed": "{detail}; only what was read before the change was counted",
    "time_budget": "--max-seconds ran out before the answer settled",
    "cpu_budget": "--max-cpu-seconds ran out before the answer settled",
    "fraction_budget": "--max-fraction was read before the answer settled",
    "interrupted": "the run was interrupted before the answer settled",
    "memory_forecast": "the memory budget ran out before the answer settled",
    CRON_GAP: "{detail}",
}
