"""What ``logagent cron`` prints: the window's result with its ``incremental`` section,
``--status``, ``--history`` lines; and ``--reset`` (EDGE: reads and removes the state).
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
from typing import TYPE_CHECKING, Any

from logagent.cron.alerts import Fired, describe
from logagent.cron.state import SQLITE_MAGIC, StateError, _lock, open_state
from logagent.cron.window import GAPS

if TYPE_CHECKING:
    from logagent.cron.runner import CronOutcome


def iso(time_s: float) -> str:
    """A Unix time as ISO 8601 UTC."""
    return datetime.datetime.fromtimestamp(time_s, datetime.UTC).isoformat().replace("+00:00", "Z")


def render_outcome(outcome: CronOutcome, fired: list[Fired], *, as_json: bool) -> str:
    """The result (schema v1) plus ``incremental`` and ``alerts``; or its Markdown report."""
    from logagent.report.markdown import render

    result = outcome.result
    alerts = [{"alert": f.alert.text, "level": f.level, "detail": describe(f)} for f in fired]
    if as_json:
        data = result.model_dump(mode="json")
        data["report"]["markdown"] = render(result)
        data["incremental"] = outcome.incremental
        data["alerts"] = alerts
        return json.dumps(data, indent=2) + "\n"
    inc = outcome.incremental
    span = inc.get("window") or {}
    window = (
        f"the records stamped {span['from']} to {span['to']} (the last {inc['window_s']} s "
        f"before {span['anchored_at']}, by whole buckets)"
        if inc["window_s"] and span.get("from")
        else "since the first run"
    )
    lines = [
        render(result).rstrip(),
        "",
        "## Incremental run",
        "",
        f"Run {inc['run']}: the answer covers {window}, merged from {inc['runs_merged']} "
        f"run(s) (state `{inc['state']}`); {inc['rotations']} rotation(s) detected.",
        "",
        "| file | new bytes | new lines | rotation |",
        "|---|---:|---:|---|",
    ]
    for f in inc["files"]:
        rot = f["rotation"] or "-"
        if f["rotated_from"]:
            rot += f" (finished `{f['rotated_from']}`)"
        lines.append(f"| `{f['path']}` | {f['bytes_new']:,} | {f['lines_new']:,} | {rot} |")
    lines += [f"\n**Alert**: {a['alert']} fired: {a['detail']}" for a in alerts]
    return "\n".join(lines) + "\n"


def history_line(outcome: CronOutcome, fired: list[Fired]) -> str:
    """One JSON line per run for ``--history``."""
    r = outcome.result
    return (
        json.dumps(
            {
                "run": outcome.incremental["run"],
                "status": r.status.value,
                "total": r.answer.total,
                "top": [{"key": e.key, "count": e.count} for e in r.answer.top],
                "incremental": outcome.incremental,
                "alerts": [f.alert.text for f in fired],
            }
        )
        + "\n"
    )


def status_data(path: str) -> dict[str, Any]:
    """The state: job, files and offsets, runs, the last run, and the runs that counted
    lines twice (a window that holds their records is partial: ``cron.window``)."""
    with open_state(path, create=False, lock=False) as state:
        runs = state.runs()
        doubled = [
            {"id": run_id, "time": iso(time_s), **_span(summary[GAPS])}
            for run_id, time_s, summary in state.runs_with(GAPS)
        ]
        first, last, rows = state.db.execute(
            "SELECT MIN(bucket), MAX(bucket), COUNT(*) FROM buckets"
        ).fetchone()
        return {
            "state": path,
            "job": state.job(),
            "format": state.meta("format"),
            "kept_window_s": _kept(state.meta("keep_s")),
            "files": [
                {"path": f.path, "offset": f.offset, "inode": f.ino, "head_bytes": f.head_size}
                for f in state.files().values()
            ],
            "runs": len(runs),
            "buckets": {
                "rows": int(rows),
                "first": None if first is None else iso(first),
                "last": None if last is None else iso(last),
            },
            "first_run": iso(runs[0][1]) if runs else None,
            "last_run": {"id": runs[-1][0], "time": iso(runs[-1][1]), **runs[-1][2]}
            if runs
            else None,
            "runs_counted_twice": doubled,
        }


def _span(gaps: dict[str, Any]) -> dict[str, Any]:
    """A run's ``gaps`` record for ``--status``: its warnings and the first and last bucket
    (their start) of its records."""
    lo, hi = gaps.get("records_from"), gaps.get("records_to")
    return {
        "warnings": list(gaps.get("warnings") or []),
        "records_from": None if lo is None else iso(lo),
        "records_to": None if hi is None else iso(hi),
    }


def render_status(path: str, *, as_json: bool) -> str:
    """``--status`` as JSON or text."""
    data = status_data(path)
    if as_json:
        return json.dumps(data, indent=2) + "\n"
    lines = [f"state: {path}", f"format: {data['format'] or '-'}", f"runs: {data['runs']}"]
    if data["first_run"]:
        lines.append(f"first run: {data['first_run']}")
    last = data["last_run"]
    if last:
        lines.append(
            f"last run: #{last['id']} at {last['time']}: {last.get('bytes_new', 0):,} new bytes, "
            f"{last.get('lines_new', 0):,} new lines"
        )
    buckets = data["buckets"]
    if buckets["rows"]:
        lines.append(
            f"counts: {buckets['rows']:,} rows (bucket x key x status), records stamped "
            f"{buckets['first']} to {buckets['last']}"
        )
    window = data["kept_window_s"]
    lines.append(f"window kept: {f'{window} s' if window else 'everything since the first run'}")
    lines += [f"file: {f['path']} read to byte {f['offset']:,}" for f in data["files"]]
    for run in data["runs_counted_twice"]:
        span = (
            f"records in the buckets {run['records_from']} to {run['records_to']}"
            if run["records_from"]
            else "no records"
        )
        lines.append(
            f"run #{run['id']} at {run['time']} counted lines twice ({span}): a window that "
            f"holds that run or those records is partial: {'; '.join(run['warnings'])}"
        )
    return "\n".join(lines) + "\n"


def _kept(value: str | None) -> int | None:
    """The longest window the state keeps, in seconds; None: everything (``KEEP_ALL``)."""
    from logagent.cron.window import KEEP_ALL

    return None if value in (None, KEEP_ALL) else int(value) or None


def reset_state(path: str) -> None:
    """Remove the state (under its lock); refuses a file that is not SQLite at all."""
    if not os.path.exists(path):
        return
    with open(path, "rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    if head and head != SQLITE_MAGIC:
        raise StateError("not a logagent cron state file (not SQLite): not removed", path=path)
    fd = os.open(path, os.O_RDWR)
    try:
        _lock(fd, path)
        for suffix in ("-wal", "-shm", ""):
            if os.path.exists(path + suffix):
                os.unlink(path + suffix)
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
