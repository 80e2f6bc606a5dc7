"""Numbers in words: the formatting every report shares (PURE)."""

from __future__ import annotations

from logagent.result import RecuseCode, Result, TopEntry

DASH = "\u2013"  # the en dash of a range: 58-64 % reads as a subtraction


def pct(fraction: float, digits: int = 1) -> str:
    """``0.605`` -> ``"60.5 %"``."""
    return f"{fraction * 100:.{digits}f} %"


def pct_range(low: float, high: float, digits: int = 0) -> str:
    """``(0.58, 0.64)`` -> ``"58-64 %"`` (with an en dash)."""
    return f"{low * 100:.{digits}f}{DASH}{high * 100:.{digits}f} %"


def size(n_bytes: float) -> str:
    """Decimal units, as disks are sold: ``10_400_000_000`` -> ``"10.4 GB"``."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,.0f} B"


def confidence(result: Result) -> str:
    """``delta = 0.01`` -> ``"99 %"``."""
    return f"{(1 - result.question.delta) * 100:g} %"


def mostly(entry: TopEntry) -> str:
    """The dominant status of an entry's 5xx: ``"mostly 503 (71 %)"``."""
    if not entry.breakdown:
        return "no 5xx"
    status, share = max(entry.breakdown.items(), key=lambda kv: kv[1])
    return f"mostly {status} ({pct(share, 0)})"


def status_mix(entry: TopEntry, limit: int | None = None) -> str:
    """``"503 71 %, 504 27 %"``, largest first."""
    items = sorted(entry.breakdown.items(), key=lambda kv: -kv[1])[:limit]
    return ", ".join(f"{status} {pct(share, 0)}" for status, share in items)


def rate(entry: TopEntry) -> str:
    """The 5xx rate, with its interval when the answer was settled from a sample."""
    text = pct(entry.rate or 0, 2)
    if entry.rate_low is None or entry.rate_high is None:
        return text
    return f"{text} ({pct_range(entry.rate_low, entry.rate_high, 2)})"


def window_bytes(result: Result) -> tuple[int, int] | None:
    """The byte range of the input a time window's bisection found (what a run then reads:
    ``input.bytes_total`` is its size), or None when no window narrowed the input (or
    several inputs were narrowed: ``bisected``)."""
    window = result.input.window or {}
    span = window.get("byte_range")  # a filtered window has one too: the whole input
    return (int(span[0]), int(span[1])) if span and window.get("method") == "bisection" else None


def bisected(result: Result) -> tuple[int, int]:
    """How many inputs a time window's bisection narrowed, of how many (0, 0 without one)."""
    window = result.input.window or {}
    each = window.get("sources") or ([window] if window else [])
    return sum(w.get("method") == "bisection" for w in each), len(each)


def reading(result: Result) -> str:
    """``"Read 2.1 % of 10.4 GB in 0.84 s."`` (a stream has no known size); of a time window's
    byte range, where one was found ("of 1.2 MB" had read as the whole file)."""
    p = result.progress
    total = result.input.bytes_total
    span = window_bytes(result)
    narrowed, inputs = bisected(result)
    if total and span:
        return (
            f"Read {pct(p.fraction_read)} of the time window's {size(total)} (bytes "
            f"{span[0]:,} to {span[1]:,} of the input, found by bisection) in {p.elapsed_s:.2f} s."
        )
    if total and narrowed:
        return (
            f"Read {pct(p.fraction_read)} of the time window's {size(total)} (found by bisection "
            f"in {narrowed} of the {inputs} inputs) in {p.elapsed_s:.2f} s."
        )
    if total:
        return f"Read {pct(p.fraction_read)} of {size(total)} in {p.elapsed_s:.2f} s."
    text = transcoded(result)
    if text:
        return f"Read {text} text, {size(p.bytes_read)} as UTF-8, in {p.elapsed_s:.2f} s."
    return f"Read {size(p.bytes_read)} of a stream (whole size unknown) in {p.elapsed_s:.2f} s."


def transcoded(result: Result) -> str | None:
    """The encodings (``UTF-16``) of the inputs when every one was text read as it was turned
    into UTF-8: files, no streams (probe T: a UTF-16 file had been "a stream"); else None
    (a plain file among them is no UTF-16 text, a review)."""
    codecs = result.input.compression
    if codecs and all(c is not None and c.startswith("utf-") for c in codecs):
        return ", ".join(sorted({c.upper() for c in codecs if c}))
    return None


RECUSE_WHY = {
    RecuseCode.UNRECOGNIZED_FORMAT: "no log format logagent knows reads enough of the input",
    RecuseCode.NO_MATCHING_EVENTS: "nothing in the input matches the question",
    RecuseCode.EMPTY_INPUT: "the input is empty",
    RecuseCode.INPUT_UNREADABLE: "the input cannot be read",
    RecuseCode.MEMORY_EXHAUSTED: "the run ran out of memory before it could answer",
}
