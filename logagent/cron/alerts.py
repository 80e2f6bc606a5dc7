"""Alert conditions over a window's result, and the monitoring-plugin status line (PURE).

Conditions (``--alert``, repeatable):

* ``rate>X`` — matching events (5xx lines, or error-level records) per line read;
* ``count>N`` — matching events in the window;
* ``share>X`` — the top key's share of them;
* ``new-key`` — a key in the window's top-k that was not in the previous run's.

``rate>W,C`` gives a warning and a critical threshold (monitoring plugins'
``warn;crit``); one threshold is critical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from logagent.errors import ConfigError
from logagent.result import Result

METRICS = ("rate", "count", "share")
_NUM = r"(\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?"
_COND = re.compile(rf"\s*({'|'.join(METRICS)})\s*>\s*({_NUM})\s*(?:,\s*({_NUM}))?\s*", re.I)
OK, WARNING, CRITICAL, UNKNOWN = 0, 1, 2, 3
LEVEL_NAMES = {OK: "OK", WARNING: "WARNING", CRITICAL: "CRITICAL", UNKNOWN: "UNKNOWN"}


@dataclass(frozen=True)
class Alert:
    """One ``--alert`` condition."""

    text: str
    metric: str  # rate | count | share | new-key
    warn: float | None = None
    crit: float | None = None


@dataclass(frozen=True)
class Fired:
    """An alert that fired, at which level, with the value that made it."""

    alert: Alert
    level: int
    value: float | list[str]


def parse_alert(text: str) -> Alert:
    """``rate>0.02``, ``count>500``, ``share>0.4,0.5``, ``new-key``; else a ``ConfigError``."""
    if text.strip().lower() == "new-key":
        return Alert(text, "new-key")
    m = _COND.fullmatch(text)
    if m is None:
        raise ConfigError(
            f"--alert {text!r}: use rate>X, count>N, share>X (optionally >WARN,CRIT) or new-key"
        )
    metric, first, second = m.group(1).lower(), float(m.group(2)), m.group(4)
    crit = first if second is None else float(second)
    if metric in ("rate", "share") and crit >= 1:  # a fraction: it could never fire
        raise ConfigError(f"--alert {text!r}: a {metric} is a fraction under 1 (0.05 is 5 %)")
    if second is None:
        return Alert(text, metric, crit=first)
    if first > crit:  # nagios would then say CRITICAL under the warning level
        raise ConfigError(
            f"--alert {text!r}: the warning level ({first:g}) is above the critical one"
        )
    return Alert(text, metric, warn=first, crit=crit)


def measures(result: Result) -> dict[str, float]:
    """The window's rate, count and share."""
    ans = result.answer
    lines = result.progress.lines_read
    return {
        "rate": round(ans.total / lines, 6) if lines else 0.0,
        "count": float(ans.total),
        "share": round(ans.top[0].share, 6) if ans.top else 0.0,
    }


def evaluate(alerts: list[Alert], result: Result, previous_top: list[str] | None) -> list[Fired]:
    """The alerts that fire over ``result`` (``previous_top``: the last run's top keys)."""
    values = measures(result)
    fired = []
    for alert in alerts:
        if alert.metric == "new-key":
            if previous_top is None:
                continue  # the first run: every key is new, none is news
            new = [e.key for e in result.answer.top if e.key not in previous_top]
            if new:
                fired.append(Fired(alert, WARNING, new))
            continue
        value = values[alert.metric]
        if alert.crit is not None and value > alert.crit:
            fired.append(Fired(alert, CRITICAL, value))
        elif alert.warn is not None and value > alert.warn:
            fired.append(Fired(alert, WARNING, value))
    return fired


def describe(fired: Fired) -> str:
    """One line saying what fired."""
    if isinstance(fired.value, list):
        return f"new-key: {', '.join(fired.value)} entered the top"
    return f"{fired.alert.metric} {fired.value:g} > {_limit(fired):g}"


def _limit(fired: Fired) -> float:
    a = fired.alert
    if fired.level == CRITICAL and a.crit is not None:
        return a.crit
    return a.warn if a.warn is not None else a.crit or 0.0


def nagios(alerts: list[Alert], fired: list[Fired], result: Result) -> tuple[int, str]:
    """The plugin exit code and its one status line with performance data."""
    level = max((f.level for f in fired), default=OK)
    values = measures(result)
    what = "; ".join(describe(f) for f in fired) or (
        f"{values['count']:g} {result.answer.metric or 'events'} in the window"
    )
    if result.status.value == "partial":  # counts not exact: no OK on them (cron.window)
        level = max(level, WARNING)
        what += " (partial: the window's counts hold some lines twice or not all it asked)"
    perf = []
    for metric in METRICS:
        limits = [a for a in alerts if a.metric == metric]
        warn = _fmt(limits[0].warn) if limits else ""
        crit = _fmt(limits[0].crit) if limits else ""
        perf.append(f"'{metric}'={values[metric]:g};{warn};{crit}")
    return level, f"LOGAGENT {LEVEL_NAMES[level]} - {what} | {' '.join(perf)}"


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:g}"
