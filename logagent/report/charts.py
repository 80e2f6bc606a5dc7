"""Small inline SVG charts drawn from a result alone (PURE; no script, works offline).

Each chart draws only what the result holds: ``errors_over_time`` draws
``answer.timeline`` (none when the format has no timestamps).
"""

from __future__ import annotations

from html import escape

from logagent.report.overtime import events_label
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


PALETTE = ("#1d4ed8", "#b91c1c", "#15803d", "#a16207", "#7c3aed", "#0e7490")


def errors_over_time(result: Result) -> str | None:
    """Matching events per time bucket: all (grey) and each top key (a line each)."""
    timeline = result.answer.timeline
    if timeline is None or len(timeline.buckets) < 2:
        return None
    keys = list(timeline.buckets[0].counts)
    estimated = all(b.estimate is not None for b in timeline.buckets)
    if estimated:  # a sampled run: the estimated total with its band; keys as seen
        series = [(f"{events_label(result)}, estimated total (band: its interval)",
                   [b.estimate or 0.0 for b in timeline.buckets])]  # fmt: skip
        series += [(f"{k} (seen in the units read)", [b.counts.get(k, 0) for b in timeline.buckets])
                   for k in keys]  # fmt: skip
    else:
        series = [(events_label(result), [float(b.total) for b in timeline.buckets])]
        series += [(k, [float(b.counts.get(k, 0)) for b in timeline.buckets]) for k in keys]
    peak: float = max(max(v) for _, v in series) or 1
    left, plot, top, bottom = 60, WIDTH - 80, 20, 200
    height = bottom + 40 + 16 * len(series)
    step = plot / (len(timeline.buckets) - 1)
    parts = [
        _svg_open(height, "Matching events per time bucket for the top keys"),
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{bottom}" stroke="#9ca3af"/>',
        f'<line x1="{left}" x2="{left + plot}" y1="{bottom}" y2="{bottom}" stroke="#9ca3af"/>',
        _text(left - 6, top + 4, f"{peak:,.0f}", anchor="end"),
        _text(left - 6, bottom + 4, "0", anchor="end"),
        _text(left, bottom + 16, _when(timeline.buckets[0].start)),
        _text(left + plot, bottom + 16, _when(timeline.buckets[-1].start), anchor="end"),
    ]
    band = [(b.low, b.high) for b in timeline.buckets]
    if all(lo is not None and hi is not None for lo, hi in band):  # a sampled run's intervals
        peak = max(peak, *(hi or 0 for _, hi in band))
        span = bottom - top
        ys = [
            (bottom - span * (lo or 0) / peak, bottom - span * (hi or 0) / peak) for lo, hi in band
        ]
        upper = [f"{left + j * step:.1f},{y[1]:.1f}" for j, y in enumerate(ys)]
        lower = [f"{left + j * step:.1f},{y[0]:.1f}" for j, y in reversed(list(enumerate(ys)))]
        parts[3] = _text(left - 6, top + 4, f"{peak:,.0f}", anchor="end")
        parts.append(
            f'<polygon points="{" ".join(upper + lower)}" fill="#d1d5db" fill-opacity="0.6">'
            "<title>interval of each bucket's full-input total</title></polygon>"
        )
    for i, (name, values) in enumerate(series):
        color = "#9ca3af" if i == 0 else PALETTE[(i - 1) % len(PALETTE)]
        points = " ".join(
            f"{left + j * step:.1f},{bottom - (bottom - top) * v / peak:.1f}"
            for j, v in enumerate(values)
        )
        parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        y = bottom + 36 + 16 * i
        parts.append(f'<rect x="{left}" y="{y - 9}" width="10" height="10" fill="{color}"/>')
        parts.append(_text(left + 16, y, _short(name, 70)))
    return "".join([*parts, "</svg>"])


def _when(iso: str) -> str:
    return iso.replace("T", " ")[:16] + " UTC"


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
