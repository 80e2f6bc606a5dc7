"""Small inline SVG charts drawn from a result alone (PURE; no script, works offline).

Each chart draws only what the result holds. ``errors_over_time`` is the
hook for per-time counts: the result carries none yet (time windows are a
later issue), so it returns ``None`` rather than invent a series.
"""

from __future__ import annotations

from html import escape

from logagent.result import DecisionRecord, Result, TopEntry

WIDTH = 640
BAR_HEIGHT = 22
LABEL_WIDTH = 260
COLORS = {"CONTINUE": "#6b7280", "STOP_SETTLED": "#15803d", "DEGRADE": "#b45309"}


def share_intervals(entries: list[TopEntry]) -> str | None:
    """Each route's share of all 5xx as a bar, its interval as a whisker."""
    if not entries:
        return None
    plot = WIDTH - LABEL_WIDTH - 60
    height = BAR_HEIGHT * len(entries) + 30
    parts = [_svg_open(height, "Share of all 5xx per route, with its interval")]
    for i, e in enumerate(entries):
        y = 10 + i * BAR_HEIGHT
        x0, x1 = LABEL_WIDTH + plot * e.share_low, LABEL_WIDTH + plot * e.share_high
        parts += [
            _text(LABEL_WIDTH - 6, y + 14, _short(e.key), anchor="end"),
            f'<rect x="{LABEL_WIDTH}" y="{y + 4}" width="{plot * e.share:.1f}" height="14" '
            'fill="#93c5fd"/>',
            f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{y + 11}" y2="{y + 11}" stroke="#1e3a8a" '
            'stroke-width="2"/>',
            _text(LABEL_WIDTH + plot * e.share_high + 4, y + 14, f"{e.share * 100:.1f} %"),
        ]
    parts += _axis(height - 18, plot)
    return "".join([*parts, "</svg>"])


def reading_trace(decisions: list[DecisionRecord]) -> str | None:
    """The fraction read at each check of the decision trace, coloured by action.

    The y axis ends at the largest fraction read, so a run that stopped at 2 %
    is not a flat line. The interval width at each check is not in the result
    yet; when it is, it belongs on this chart too.
    """
    if not decisions:
        return None
    plot, height = WIDTH - 110, 170
    top = max(d.fraction_read for d in decisions) or 1.0
    step = plot / max(1, len(decisions) - 1)
    points = [(70 + i * step, 130 - 110 * d.fraction_read / top) for i, d in enumerate(decisions)]
    parts = [
        _svg_open(height, "Fraction of the input read at each decision"),
        '<line x1="70" x2="70" y1="20" y2="130" stroke="#9ca3af"/>',
        f'<line x1="70" x2="{70 + plot}" y1="130" y2="130" stroke="#9ca3af"/>',
        '<polyline points="{}" fill="none" stroke="#9ca3af"/>'.format(
            " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        ),
    ]
    for (x, y), d in zip(points, decisions, strict=True):
        color = COLORS.get(d.action, "#b91c1c")
        title = escape(f"{d.action} at {d.fraction_read * 100:.1f} % read: {d.reason}")
        circle = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{color}">'
        parts.append(f"{circle}<title>{title}</title></circle>")
    last = decisions[-1]
    parts += [
        _text(64, 24, f"{top * 100:.1f} %", anchor="end"),
        _text(64, 134, "0 %", anchor="end"),
        _text(70, 148, "check 1"),
        _text(70 + plot, 148, f"check {len(decisions)}", anchor="end"),
        _text(
            70 + plot, 164, f"last: {last.action} at {last.fraction_read * 100:.1f} %", anchor="end"
        ),
    ]
    return "".join([*parts, "</svg>"])


def errors_over_time(result: Result) -> str | None:
    """5xx over time for the top routes: needs per-time counts, which the result lacks yet."""
    return None


def _axis(y: float, plot: float) -> list[str]:
    ticks = []
    for pct in (0, 25, 50, 75, 100):
        x = LABEL_WIDTH + plot * pct / 100
        ticks.append(_text(x, y + 14, f"{pct} %", anchor="middle"))
    line = (
        f'<line x1="{LABEL_WIDTH}" x2="{LABEL_WIDTH + plot}" y1="{y}" y2="{y}" stroke="#9ca3af"/>'
    )
    return [line, *ticks]


def _svg_open(height: float, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(label)}">'
    )


def _text(x: float, y: float, text: str, *, anchor: str = "start") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="12" text-anchor="{anchor}">{escape(text)}</text>'
    )


def _short(key: str, limit: int = 38) -> str:
    return key if len(key) <= limit else key[: limit - 1] + "…"
