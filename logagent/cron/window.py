"""The window of a cron job: its bounds, its answer from the stored buckets, pruning (EDGE).

The window is anchored at the run's clock (``--now`` for tests and replays,
else the wall clock): the whole buckets covering ``--window`` that end with
the bucket holding "now" (``tallies.window_bounds``), picked by each record's
own time. Records without a time were stored at their run's bucket; the line
counters (lines, bytes, malformed: the rate's denominator) are those of the
runs made within the window. Buckets older than the longest window any run
of the job asked for are pruned; a run without ``--window`` asked for
everything since the first run, and then nothing is ever pruned.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from logagent.cron.state import State
from logagent.cron.tallies import UNTIMED, window_bounds, window_tally

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.result import Question, Result

#: ``meta`` ``keep_s`` once a run asked for no window: nothing is pruned.
KEEP_ALL = "all"
#: ``meta``: the start (epoch s) of what the state still holds, once a prune dropped counts.
KEPT_FROM = "kept_from"
DEFAULT_BUCKET = "1h"  # every run must cut the timeline alike: "auto" would vary by slice
#: A run record's warnings of lines counted twice, with the record time they span.
GAPS = "gaps"
#: The least head (bytes) a file must share with one read before to be called that file read
#: again, and the window partial for it: a line or two (a banner: "INFO:root:Starting
#: server") may begin a new file too, and only the warning says so.
GAP_HEAD_BYTES = 256


def store_bucket_s(settings: Settings) -> int:
    """The width of the stored buckets: the job's timeline bucket (1h with ``--bucket off``)."""
    from logagent.formats.bucketed import parse_bucket

    bucket = settings.analysis.bucket
    width = None if bucket in (None, "off") else parse_bucket(bucket)
    return width or parse_bucket(DEFAULT_BUCKET) or 3600


def keep_s(state: State, window_s: int | None) -> int | None:
    """The longest window any run of this state asked for (what pruning must keep), this
    run's ``window_s`` too; None when one asked for no window (everything: ``KEEP_ALL``).
    A later ``--window 1h`` run had pruned all but the last hour of such a job for good."""
    kept = state.meta("keep_s")
    keep = None if kept == KEEP_ALL or window_s is None else max(int(kept or 0), window_s)
    value = KEEP_ALL if keep is None else str(keep)
    with state.db:
        state.db.execute("INSERT OR REPLACE INTO meta VALUES ('keep_s', ?)", (value,))
    return keep


def prune(state: State, now_s: float, window_s: int | None, bucket_s: int) -> bool:
    """Drop what no window of this job can reach any more (the longest one asked); False when
    the state keeps everything."""
    keep = keep_s(state, window_s)
    if keep is None:
        return False
    keep_lo, _ = window_bounds(now_s, keep, bucket_s)
    if state.prune(keep_lo, keep_lo):  # a later, longer window cannot reach before it
        kept = state.meta(KEPT_FROM)
        with state.db:
            state.db.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (KEPT_FROM, str(max(keep_lo, int(kept or 0)))),
            )
    return True


def window_result(
    state: State,
    question: Question,
    settings: Settings,
    now_s: float,
    *,
    window_s: int | None,
    paths: list[str],
) -> tuple[Result, int, dict[str, Any]]:
    """The answer over the window, from the stored buckets; the runs merged; the window."""
    from logagent.engine.exact import answer_tally
    from logagent.formats.bucketed import parse_bucket

    width = store_bucket_s(settings)
    lo, hi = (None, None) if window_s is None else window_bounds(now_s, window_s, width)
    runs = state.runs(lo)
    ids = [run_id for run_id, _, _ in runs]
    scalars = state.scalars(ids)
    tally = window_tally(state.window_rows(lo, hi), scalars)
    bucket = settings.analysis.bucket
    bucket_s = None if bucket == "off" else parse_bucket(bucket or DEFAULT_BUCKET)
    fmt = state.meta("format") or settings.analysis.format
    result = answer_tally(tally, question, settings, fmt=fmt, bucket_s=bucket_s, paths=paths)
    if result.recuse is not None and lo is not None and hi is not None:  # of the window's counts
        span = f"the window {_iso(lo)} to {_iso(hi)}"
        detail = result.recuse.detail.replace("the whole input", span)
        if detail == "no line was read":  # by this job's runs in the window: none was stored
            detail = f"no record is stored for {span}"
        recuse = result.recuse.model_copy(
            update={
                "detail": detail,
                "attempted": f"the counts stored for {span}, by record time "
                f"({len(ids)} run(s) of this job made in it)",
            }
        )
        result = result.model_copy(update={"recuse": recuse})
    kept = state.meta(KEPT_FROM)
    start = lo
    doubled = _doubled(state, lo, hi, width)
    missing = []
    if doubled:
        ended = "--reset starts the job over" if lo is None else "until they leave the window"
        missing.append(
            f"{doubled} run(s) whose records the window holds read a file again from its start "
            f"(each said so when it ran), so some lines are counted twice ({ended})"
        )
    if kept is not None and (lo is None or lo < int(kept)):  # pruned by a shorter window
        start = int(kept)
        asked = "since the first run" if lo is None else f"from {_iso(lo)}"
        missing.append(
            f"the window asked ({asked}) reaches before what this state keeps: runs "
            f"with a shorter --window pruned the counts before {_iso(start)}, so the "
            f"answer covers {_iso(start)} on only (--reset starts the job over)"
        )
    if missing:
        result = _not_exact(result, missing)
    window = {
        "by": "record time",
        "anchored_at": _iso(now_s),
        "from": None if start is None else _iso(start),
        "asked_from": None if lo is None else _iso(lo),
        "to": None if hi is None else _iso(hi),
        "bucket_s": width,
        "untimed_records": scalars.get(UNTIMED, 0),
    }
    return result, len(ids), window


def _doubled(state: State, lo: int | None, hi: int | None, width: int) -> int:
    """How many runs that counted lines twice (``GAPS``) the window holds: made in it, or
    whose records' time reaches into it (a record may be stamped after its run: clock skew,
    local stamps read as UTC)."""
    count = 0
    for _, time_s, summary in state.runs_with(GAPS):
        gap = summary[GAPS]
        first, last = gap.get("records_from"), gap.get("records_to")
        made_in = lo is None or time_s >= lo
        held = first is not None and last is not None
        held = held and (lo is None or last + width > lo) and (hi is None or first < hi)
        count += made_in or held
    return count


def _not_exact(result: Result, why: list[str]) -> Result:
    """``result`` said partial for ``why`` (each a warning): the window's counts miss lines,
    or hold some twice, so the answer is not exact."""
    from logagent.engine.resultparts import made_partial
    from logagent.report.partials import CRON_GAP

    detail = "the window's counts hold some lines twice, or not all it asked (see the warnings)"
    return made_partial(result, CRON_GAP, detail, [f"partial answer: {w}" for w in why])


def _iso(time_s: float) -> str:
    return datetime.fromtimestamp(time_s, UTC).isoformat().replace("+00:00", "Z")
