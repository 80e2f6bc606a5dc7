"""How the run counts the format it chose: as access records, in a window, on a timeline.

:func:`counted_format` wraps the chosen format for the question: an app log
is read as access records of its levels (``AppAsAccess``), ``--by``/``--where``
select fields, ``--since``/``--until`` narrow each plain file to its window by
bisection and filter records by time (``Windowed``), error-types mines and
freezes the component's templates, and records carry their time bucket
(``--bucket``) when the format has timestamps. :func:`stamp_reference` is the
time year-less stamps are placed by (``choose`` builds formats with it too).

EDGE through the run: a window's bisection and the error-types pilot read the
sources, and the clock is ``RunEnv``'s.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import polars as pl

from logagent.engine.run import Run
from logagent.errors import ConfigError
from logagent.formats import Format
from logagent.formats.adapter import THRESHOLDS, AppAsAccess, literal_prefilter, metric_for
from logagent.formats.app import TS
from logagent.formats.apptimes import ZONE, unknown_zones
from logagent.formats.base import STATUS
from logagent.formats.catalog import AnyFormat, is_app
from logagent.formats.levelfilter import level_prefilter
from logagent.formats.mixed import part_names
from logagent.formats.selected import selection_of
from logagent.formats.stagedtime import StagedTime
from logagent.formats.windowed import Windowed, line_kind, time_of
from logagent.log import get_logger
from logagent.questions import APP_KINDS, SELECT_KINDS, check_fits, counts_events, for_log
from logagent.result import Question, QuestionKind
from logagent.sources import Source
from logagent.sources.window import WindowView
from logagent.timeline import bucket_span, bucket_width, bucketed, sample_times
from logagent.timewindow import (
    Window,
    line_time_by,
    line_time_for,
    parse_window,
    window_for_source,
)
from logagent.timewindow.bounds import names_an_instant

log = get_logger("logagent.engine")


def counted_format(run: Run, found: AnyFormat, sample: list[str]) -> Format:
    """The chosen format as the run counts it; notes the app log, selection and question's key."""
    run.app_log = is_app(found)
    run.layout_note = getattr(found, "layout_note", None)
    run.warnings.extend(_zone_warnings(found, sample))
    answered = for_log(run.question, app=run.app_log)
    if answered != run.question:
        run.warnings.append(
            f"no question was asked and the log is an application log ({found.name}), "
            f"which has no HTTP status: answering {answered.kind.value} "
            f"({metric_for(answered.level)} per component); -q names another question"
        )
        run.question = answered
    if run.settings.analysis.level is not None and run.question.kind not in APP_KINDS:
        # probe R: an access log's 5xx answer had no word that --level warn did nothing
        instead = (
            "--where level>=warn keeps WARN+ records"
            if run.app_log
            else "-q top-4xx ranks 4xx requests, --where status>=400 any error status"
        )
        run.warnings.append(
            "--level sets the least level an application log's error questions count; this "
            f"question ({run.question.kind.value}) ignores it ({instead})"
        )
    if run.app_log and run.question.kind in APP_KINDS:  # measured only if nothing is found
        run.levelless = lambda: levelless(found, sample)
    fmt = _within_window(run, _as_access(run.question, found, sample), sample)
    run.selection = selection_of(fmt)
    if run.selection is not None:  # the field the engine chose (route or component) is said
        run.question = run.question.model_copy(update={"by": run.selection.by})
    if run.question.kind is QuestionKind.ERROR_TYPES:
        fmt = _with_templates(run, fmt, sample)
    return _with_timeline(run, fmt, sample)


def _zone_warnings(fmt: AnyFormat, sample: list[str]) -> list[str]:
    """A warning naming the zones of sampled stamps an app format reads as UTC (``ZONE``
    formats: PostgreSQL's ``PDT``, ``CEST``, ... whose offset it does not know)."""
    formats = getattr(fmt, "time_formats", ())
    if not (is_app(fmt) and any(f.endswith(ZONE) for f in formats)):
        return []
    frame = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    stamps = frame.select(fmt.fields(pl.col("line"))[TS].alias("ts"))["ts"].to_list()
    unknown = unknown_zones(stamps, formats)
    if not unknown:
        return []
    return [
        f"stamps in zone {', '.join(unknown[:3])} are read as UTC: logagent does not know "
        "its offset (times, the timeline and --since/--until may be off by it); a numeric "
        "offset or UTC in the log's stamps is read exactly"
    ]


def _as_access(question: Question, fmt: AnyFormat, sample: list[str]) -> Format:
    """The format as the engine counts it; a question that does not fit it is a usage error."""
    app = is_app(fmt)
    check_fits(question.kind, fmt_name=fmt.name, app=app)
    if question.kind in SELECT_KINDS:  # --by/--where: the format's fields, checked
        from logagent.engine.selection import select

        view = AppAsAccess(fmt, every_level=True) if app else fmt  # type: ignore[arg-type]
        return select(question, fmt, view, sample)  # type: ignore[arg-type]
    if app:
        if question.kind is QuestionKind.STATUS:  # on an app log: the distribution of levels
            return AppAsAccess(fmt, level=question.level, every_level=True)  # type: ignore[arg-type]
        levels = THRESHOLDS.get(question.level, ())
        return AppAsAccess(
            fmt,  # type: ignore[arg-type]  # is_app: an AppFormat
            level=question.level,
            error_prefilter=level_prefilter(fmt, levels),  # JSON logs: only candidate lines
        )
    return fmt  # type: ignore[return-value]  # not app: an access Format


def _with_templates(run: Run, fmt: Format, sample: list[str]) -> Format:
    """error-types: mine the component's templates on a seed-independent pilot, then freeze."""
    base = fmt.inner if isinstance(fmt, Windowed) else fmt
    assert isinstance(base, AppAsAccess) and run.question.key is not None  # checked before
    key = run.question.key
    run.known_keys = _components(base, sample)
    from logagent.errortypes import mine_pilot, read_pilot_lines  # drain3: only for error types

    templates = mine_pilot(read_pilot_lines(run.sources, sample), fmt, base.app, key)
    run.warnings.append(
        f"error types: {len(templates.templates)} templates of `{key}` mined from "
        f"{templates.pilot_messages} events read at evenly spaced places, then frozen; "
        "messages none of them covers count as OTHER"
    )
    typed = replace(
        base, component=key, templates=templates, error_prefilter=literal_prefilter(key)
    )
    return replace(fmt, inner=typed) if isinstance(fmt, Windowed) else typed


def levelless(fmt: AnyFormat, sample: list[str]) -> tuple[int, int]:
    """(records with no level the format reads, records) among the sample's lines: where
    most have none, "no ERROR+ record" would deny errors it cannot see (Kibana's level in
    ``tags``, Serilog's ``@l``, a level word no table holds)."""
    from logagent.formats.app import LEVEL, MESSAGE, parse_app

    parsed = parse_app(fmt, pl.Series("line", sample, dtype=pl.String))  # type: ignore[arg-type]
    records = parsed.filter(pl.col(MESSAGE).is_not_null())  # a null message: no record
    return int(records[LEVEL].null_count()), records.height


def _components(fmt: AppAsAccess, sample: list[str]) -> list[str]:
    """The components the sample's records name, most frequent first (for "did you mean")."""
    from logagent.formats.app import COMPONENT

    lines = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    found = lines.select(fmt.app.fields(pl.col("line"))[COMPONENT].alias("c")).drop_nulls()
    counted = found.group_by("c").len().sort(["len", "c"], descending=[True, False])
    return [str(c) for c in counted["c"].to_list() if c not in ("", "-")]


#: Said when a window of instants meets a log whose stamps carry no zone (probe S: a
#: journal's CEST stamps read as UTC, --since ...+02:00 took in 70 records of the day before).
ZONELESS = (
    "this log's stamps carry no time zone and are read as UTC: --since/--until given as "
    "instants (24h, now, a time with a zone such as +02:00) are off by the zone the log was "
    "written in; to window by the log's own clock, give them without a zone "
    "(2021-05-09T00:00)"
)


#: A time of day in a line's head, and one followed by a zone (``Z``, an offset, a zone's
#: name: not any capitals, a level is no zone: "10:00:00,000 INFO", a review).
_CLOCK = r"^.{0,60}?[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
_ZONE_NAMES = (
    "UTC|UT|GMT|CET|CEST|EET|EEST|WET|WEST|BST|IST|MSK|JST|KST|HKT|SGT|AEST|AEDT|ACST|ACDT|"
    "AWST|NZST|NZDT|PST|PDT|MST|MDT|CST|CDT|EST|EDT|AKST|AKDT|HST|BRT|ART"
)
_ZONED = _CLOCK + rf" ?(?:Z|[+-][0-9]{{2}}:?[0-9]{{2}}|(?:{_ZONE_NAMES}))\b"
#: A stamp written as a number (``"ts":1700000000.5``): an epoch, UTC by definition.
_NUMBER = r"^[0-9]+(?:\.[0-9]+)?$"
#: Layouts whose stamps are UTC by their definition, zone or none (W3C extended logs: IIS's,
#: CloudFront's; a review found them warned of).
UTC_BY_DEFINITION = frozenset({"w3c", "cloudfront"})


def _zoneless(fmt: Format, time: Callable[[pl.Expr], pl.Expr], sample: list[str]) -> bool:
    """Whether the sampled records whose time is read write their time of day without a zone
    (syslog's ``May 08 00:49:10``, Python's default); False when none writes a time of day
    (an epoch is UTC) or one writes a zone."""
    if fmt.name in UTC_BY_DEFINITION:
        return False
    line = pl.col("line")
    frame = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    timed = fmt.fields(line)[STATUS].is_not_null() & time(line).is_not_null()
    clock, zone = line.str.contains(_CLOCK), line.str.contains(_ZONED)
    app = getattr(fmt, "app", None) or getattr(getattr(fmt, "view", None), "app", None)
    if app is not None:  # the stamp as written too: a JSON key's may come late in the line
        stamp = app.fields(line)[TS].cast(pl.String)
        # a stamp written as a number is an epoch, UTC: a clock time in the message is none
        # (a review: zap's "ts":1700000000.5 with "backup of 10:00:00")
        timed = timed & ~stamp.str.contains(_NUMBER).fill_null(False)
        clock = clock | stamp.str.contains(_CLOCK).fill_null(False)
        zone = zone | stamp.str.contains(_ZONED).fill_null(False)
    clocked = timed & clock
    zoned = clocked & zone
    n_clocked, n_zoned = frame.select(clocked.sum(), zoned.sum().alias("z")).row(0)
    return bool(n_clocked) and not n_zoned


def _within_window(run: Run, fmt: Format, sample: list[str]) -> Format:
    """With --since/--until: narrow each plain file to its window by bisection, filter by time.

    The sources of the run are replaced by views of their windows' byte ranges;
    records are filtered by time in any case (a range includes a tolerance,
    and a stream or an unordered file is read whole).
    """
    q = run.question
    if q.since is None and q.until is None:
        return fmt
    now = run.env.wall_clock()
    since, until = parse_window(q.since, q.until, now=now)
    if since is not None and since == until:  # "--since D --until D" held midnight only
        run.warnings.append(
            f"--since and --until are one instant ({since.isoformat()}): the window holds the "
            "records of that second only (a date alone is its midnight; for that whole day, "
            "give the next day as --until)"
        )
    reference = stamp_reference(run)
    time = time_of(fmt, reference=reference)
    if time is None:
        raise ConfigError(
            f"--since/--until: no timestamp is known for format {fmt.name}", format=fmt.name
        )
    _check_stamps_read(fmt, time, sample)
    instants = any(names_an_instant(b) for b in (q.since, q.until) if b is not None)
    if instants and _zoneless(fmt, time, sample):
        run.warnings.append(ZONELESS)
    kind = line_kind(fmt.name)
    windows = []
    for i, source in enumerate(run.sources):
        if source.compression is not None or not source.seekable:
            why = "it is a stream"
            window = Window(since, until, "filter", (0, source.size or 0), 0, reason=why)
        elif run.env.backend is not None:  # its workers open the file whole: no view of it
            why = "the dask engine's workers read each file whole"
            window = Window(since, until, "filter", (0, source.size or 0), 0, reason=why)
        else:
            window = _bisected(source, kind, time, since, until, reference)
        if window.method == "bisection":
            run.sources[i] = WindowView.of(source, *window.byte_range)
        elif window.warning:
            run.warnings.append(f"{source.path}: {window.warning}")
        windows.append({"path": source.path, **window.to_dict()})
    run.window = windows[0] if len(windows) == 1 else _merged_windows(windows)
    log.info("window", windows=windows)
    return Windowed(fmt, time, since, until)


def _bisected(
    source: Source,
    kind: str | None,
    time: Callable[[pl.Expr], pl.Expr],
    since: datetime.datetime | None,
    until: datetime.datetime | None,
    reference: datetime.datetime | None,
) -> Window:
    """The window of a plain file: bisected by the probes of its stamp kind, or, where an
    application format has no kind or no probe read one (HDFS's ``081109 203615`` under
    hadoop, a PostgreSQL zone), by the format's own time (``line_time_by``), which the
    filter reads the stamps by. A filter window where neither bisects."""
    window = None
    if kind is not None:
        line_time = line_time_for(kind, reference=reference)
        window = window_for_source(source, line_time, since=since, until=until)
        if window.method == "bisection" or window.first_time is not None:
            return window  # bisected, or its stamps were read and are out of order
    if not isinstance(time, StagedTime):
        # An access layout's time need not be when its line was written (HAProxy's is the
        # accept date: a 30-minute request is logged 30 minutes later, and a bisection by
        # it dropped such lines, "exact"); an application record's time is. Filter.
        why = "the format's line stamps are unknown"
        return window or Window(since, until, "filter", (0, source.size or 0), 0, reason=why)
    by_format = window_for_source(source, line_time_by(time), since=since, until=until)
    return by_format if window is None or by_format.method == "bisection" else window


#: A mix of layouts (``mixed(a+b)``) whose sampled records lack a readable stamp in more than
#: one in this many is refused a window (``_check_stamps_read``).
UNTIMED_SHARE = 100


def _check_stamps_read(fmt: Format, time: Callable[[pl.Expr], pl.Expr], sample: list[str]) -> None:
    """A window needs times: if no sampled record's stamp can be read, say so (every record
    would otherwise be dropped as outside it, and "nothing in the window" would be false)."""
    line = pl.col("line")
    frame = pl.DataFrame({"line": sample}, schema={"line": pl.String})
    record = fmt.fields(line)[STATUS].is_not_null()
    records, timed = frame.select(
        record.sum().alias("records"), (record & time(line).is_not_null()).sum().alias("timed")
    ).row(0)
    if records and not timed:
        raise ConfigError(
            f"--since/--until: logagent reads no timestamp in the {records:,} sampled records of "
            f"{fmt.name}, so it cannot place them in a window; leave the window out, or name a "
            "format (or a custom one) that parses their stamps",
            format=fmt.name,
        )
    # a mix's records are each one of its layouts': one whose records carry no date (log4j's
    # time-only stamps beside Tomcat's) would all be "outside the window", the answer "exact"
    # without them (a review)
    if part_names(fmt.name) and (records - timed) * UNTIMED_SHARE > records:
        raise ConfigError(
            f"--since/--until: {records - timed:,} of the {records:,} sampled records of "
            f"{fmt.name} carry no timestamp logagent reads (one of its layouts writes no date), "
            "so they cannot be placed in a window; leave the window out, or name a format",
            format=fmt.name,
        )


def _with_timeline(run: Run, fmt: Format, sample: list[str]) -> Format:
    """Records carry their time bucket (``--bucket``) when the format has timestamps."""
    time = fmt.time if isinstance(fmt, Windowed) else time_of(fmt, reference=stamp_reference(run))
    if time is None:
        return fmt
    q = run.question
    window: tuple[datetime.datetime | None, ...] = (None, None)
    if q.since or q.until:
        window = parse_window(q.since, q.until, now=run.env.wall_clock())
    setting = run.settings.analysis.bucket
    if setting == "off":
        return fmt
    times = sample_times(time, sample)  # once: the width (auto) and the span both read them
    try:
        run.bucket_s = bucket_width(setting, times, window)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    if run.bucket_s is None:
        return fmt
    run.bucket_span = bucket_span(run.bucket_s, times, window)
    # A question that parses every line stamps its 5xx lines only (the timeline counts
    # those); one that parses only its candidates stamps them all (they are nearly all
    # events, and the extra stage would cost an app log's JSON keys a second parse); cron
    # keeps every record by its bucket (on_records).
    every_line = not counts_events(q.kind)
    return bucketed(fmt, time, run.bucket_s, events_only=every_line and run.env.on_records is None)


def stamp_reference(run: Run) -> datetime.datetime:
    """The time year-less stamps (syslog, glog) are placed by: the end of ``--year``, else
    the inputs' last stamp (``engine.choose``), else now."""
    year = run.settings.analysis.year
    if year is None:
        return run.stamp_ref or run.env.wall_clock()
    return datetime.datetime(year, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)


def _merged_windows(windows: list[dict[str, Any]]) -> dict[str, Any]:
    """One description of several inputs' windows: bounds, method(s) and each input's."""
    methods = sorted({w["method"] for w in windows})
    return {
        "since": windows[0]["since"],
        "until": windows[0]["until"],
        "method": methods[0] if len(methods) == 1 else "mixed",
        "sources": windows,
    }
