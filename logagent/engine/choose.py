"""Which format the run reads its inputs with: detected among all, or the one named.

Detection runs on the format sample (``sources.sample``); an input the overall
format reads too little of gets its own detection, and inputs of different
access formats are read together by ``FirstOf``, as are the ``common`` and ``combined`` lines
of one input (a server whose log format changed). The engine (``core``) calls
:func:`choose_format` once per run, and again through the detection cascade
(``cascade``) when the sampled spots parse nothing; :func:`build_options` is
what building a format needs besides the sample.

EDGE through the run: custom formats are read from their directory, and the
clock (for year-less stamps) is ``RunEnv``'s.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import polars as pl

from logagent.engine.run import Run
from logagent.engine.views import stamp_reference
from logagent.errors import ConfigError
from logagent.formats.app import TIME, TS
from logagent.formats.apptimes import YEAR, parse_times, year_reference, yearless
from logagent.formats.catalog import ACCESS_NAMES, APP_NAMES, AnyFormat, build_any_format, is_app
from logagent.formats.custom import load_custom_formats
from logagent.formats.detect import LAST_RESORT, Detection, app_share, detect_all
from logagent.formats.mixed import APP_MIXES, FirstOf, combined_app
from logagent.questions import ACCESS_KINDS, APP_KINDS
from logagent.result import QuestionKind

PER_INPUT_SHARE = 0.5  # an input the run's format reads less of than this is detected alone
#: A second access format is read next to the detected one, line by line, when it reads at
#: least this share of the sample more (the share of malformed lines always warned of).
MIXED_GAIN = 0.01
#: The formats one server writes into one file when its log format changes: apache's and
#: nginx's two standard ones. Lines of another format inside a file stay malformed (a JSON
#: line with a "status" key is no request of a combined log).
CHANGED_FORMATS = frozenset({"combined", "common"})


def choose_format(
    run: Run, sample: list[str], samples: list[list[str]]
) -> tuple[Detection, AnyFormat]:
    """Detect the format among all (access, app, custom), or build the one named.

    Each input is checked on its own sample: an input the overall format does
    not read gets its own detection, and inputs of different formats are read
    together by ``FirstOf`` (never one format for all, which would drop the
    others' records).
    """
    detection, fmt = _chosen(run, sample, samples)
    latest = _last_stamp(run, fmt, samples)
    if latest is None:
        return detection, fmt
    run.stamp_ref = latest
    now = run.env.wall_clock()
    if any(_created(lines) is not None for lines in samples):
        run.warnings.append(
            f"{fmt.name} stamps carry no year: they are placed after the date the file's "
            f"header names (Log file created at: ...), the latest in {latest.year}; --year "
            "names the year"
        )
    elif latest < now - STALE_LOG:
        run.warnings.append(
            f"{fmt.name} stamps carry no year: the log's latest ({latest:%b %d %H:%M}) is "
            f"placed in {latest.year}, the last such date up to now, and each other line in "
            "that year or, where its date would come after the latest, the year before; "
            "--year names the year"
        )
    build = build_options(run)
    named = run.settings.analysis.format
    name = detection.best if named == "auto" else named
    rebuilt = build_any_format(
        name, sample, json_keys=build["json_keys"], year=latest, custom=build["custom"]
    )
    return detection, rebuilt


#: A log whose last year-less stamp lies this long before now has its year said to be a guess.
STALE_LOG = datetime.timedelta(days=2)


def _last_stamp(run: Run, fmt: AnyFormat, samples: list[list[str]]) -> datetime.datetime | None:
    """The latest of the inputs' last stamps, when ``fmt``'s stamps carry no year: what they
    are placed from (``views.stamp_reference``) instead of now, so that a log is read in its
    own time order. Placed from now, each stamp took the year that put it before today: a
    log of Dec 3 to Jan 3 read on Dec 7 had its January lines eleven months before its
    December ones, and one that ran past today's date was cut in two years (an input's
    reference: ``apptimes.year_reference``). None with ``--year``, or unless every input is
    a file whose sample ends with its last line."""
    if run.settings.analysis.year is not None or not (is_app(fmt) and yearless(fmt)):
        return None
    files = all(s.seekable and s.size is not None for s in run.sources)
    if not files or len(samples) != len(run.sources):
        return None
    cols = fmt.fields(pl.col("line"))  # an AppFormat (is_app)
    dated = [f for f in getattr(fmt, "time_formats", ()) if not f.startswith(YEAR)]
    lasts, undated = [], 0
    for lines in samples:
        stamps = pl.DataFrame({"line": lines}, schema={"line": pl.String}).select(
            t=cols[TIME], dated=parse_times(cols[TS], dated).is_not_null()
        )
        undated += stamps.filter(pl.col("t").is_not_null() & ~pl.col("dated")).height
        last = year_reference(stamps["t"].drop_nulls().to_list())
        if last is not None:
            lasts.append(_after_creation(last, lines))
    # a layout with stamps of both kinds (logcat: threadtime's MM-DD, Android Studio's date)
    return max(lasts, default=None) if undated else None


#: glog's first lines: ``Log file created at: 2019/08/20 20:28:26`` (klog's too).
_CREATED = re.compile(r"Log file created at: ([0-9]{4})/([0-9]{2})/([0-9]{2}) ([0-9:]{8})\s*$")


def _created(lines: list[str]) -> re.Match[str] | None:
    """The glog header among the first lines of an input's sample, if any."""
    return next((m for m in map(_CREATED.match, lines[:64]) if m is not None), None)


def _after_creation(last: datetime.datetime, lines: list[str]) -> datetime.datetime:
    """``last`` moved to the year that puts it at or after the creation a glog header in
    ``lines`` names (the file's stamps follow it; placed from now, a 2019 kubelet log was
    read in 2026, and a window on its real dates held nothing: probe R); else ``last``."""
    found = _created(lines)
    if found is None:
        return last
    year, month, day = (int(g) for g in found.groups()[:3])
    try:
        created = datetime.datetime.fromisoformat(f"{year:04d}-{month:02d}-{day:02d}T{found[4]}")
        moved = last.replace(year=year)
        if moved >= created.replace(tzinfo=last.tzinfo):
            return moved
        return last.replace(year=year + 1)
    except ValueError:  # no such date (a Feb 29 in another year): placed from now, as before
        return last


def _chosen(run: Run, sample: list[str], samples: list[list[str]]) -> tuple[Detection, AnyFormat]:
    """``choose_format`` with year-less stamps placed from now (or ``--year``)."""
    name = run.settings.analysis.format
    build = build_options(run)
    keys, year, custom = build["json_keys"], build["year"], build["custom"]
    if name == "auto":
        app_only = run.question.kind in APP_KINDS  # no access layout answers it
        detection = detect_all(
            sample, json_keys=keys, year=year, custom=custom, specific_first=not app_only
        )
        detection = _access_first(run, detection)
        fmt = build_any_format(detection.best, sample, json_keys=keys, year=year, custom=custom)
        if len(samples) > 1:
            mixed = _per_input(run, detection, fmt, samples, keys=keys, year=year, custom=custom)
            if mixed is not None:
                return mixed
        within = _within_input(run, detection, fmt, sample, keys=keys, year=year)
        if within is not None:
            return within
        if detection.ambiguous:
            (best, top), (second, score) = detection.scores[:2]
            run.warnings.append(
                f"format detection is ambiguous: {best} parses {top:.1%} of sampled lines, "
                f"{second} {score:.1%}; name one with --format"
            )
        return detection, fmt
    fmt = build_any_format(name, sample, json_keys=keys, year=year, custom=custom)
    share = app_share(fmt, pl.Series("line", sample, dtype=pl.String))
    return Detection(((name, share),), len(sample)), fmt


#: An access layout that reads this share of the sample makes the log an access log, whatever
#: application layout reads more: a wrapper (syslog, CRI, compose, ``docker logs`` of nginx's
#: image, where its error lines join the requests) reads every line, and had hidden the 5xx
#: under "no ERROR+ record".
ACCESS_OVER_APP = 0.5
#: The share from which an access question asked by name (top-errors, error-rate, ...) is
#: answered by the best access layout rather than refused for the application layout's sake.
ACCESS_ASKED = 0.1
#: The application layouts that wrap other programs' lines (a server's requests among them):
#: only these give way. An application's own log (Python's, with urllib3's DEBUG lines of its
#: outbound calls) stays one: a review found its ERROR records lost to generic_access.
WRAPPERS = frozenset(
    {"syslog3164", "syslog5424", "cri", "compose", "docker_json", "journald", "nginx_error",
     "uvicorn", "zap_json",
     # Traefik v3's console log, its access log written to the same stdout (probe R)
     "zerolog"}
)  # fmt: skip


def _access_first(run: Run, detection: Detection) -> Detection:
    """``detection`` with the best access layout first when the best is a layout that wraps
    other programs' lines (``WRAPPERS``) and the question is one an access log answers
    (``ACCESS_OVER_APP``, ``ACCESS_ASKED``): not the default question with ``--level``, which
    only an application log's questions read."""
    q = run.question
    if q.kind in APP_KINDS or q.kind is QuestionKind.TOP or detection.best not in WRAPPERS:
        return detection
    if q.default_kind and run.settings.analysis.level is not None:
        return detection  # --level asks an application's question (probe T: uvicorn's log)
    access = [(n, share) for n, share in detection.scores if n in ACCESS_NAMES]
    if not access:
        return detection
    asked = q.kind in ACCESS_KINDS and not q.default_kind
    (name, share), (best, top) = access[0], detection.scores[0]
    if share < (ACCESS_ASKED if asked else ACCESS_OVER_APP):
        return detection
    run.warnings.append(
        f"read as an access log ({name}, {share:.1%} of sampled lines) though {best} reads "
        f"{top:.1%} of them: {'the question asks for requests' if asked else 'its requests'}"
        f"{'' if asked else ' are the most of it'}; the other lines are no records of it "
        "(--format names a layout)"
    )
    rest = [s for s in detection.scores if s[0] != name]
    return Detection(((name, share), *rest), detection.sample_lines)


def build_options(run: Run) -> dict[str, Any]:
    """What building a format needs besides the sample: JSON keys, a year, custom formats."""
    settings = run.settings
    return {
        "json_keys": settings.formats.json_keys,
        # year-less stamps (syslog): the window's reference (app.YearOf: now, the year before
        # for a stamp that would lie ahead; or the end of --year, which places all in it)
        "year": stamp_reference(run),
        "custom": load_custom_formats(
            settings.formats.custom_dir, reserved=(*ACCESS_NAMES, *APP_NAMES)
        ),
    }


def _per_input(
    run: Run,
    detection: Detection,
    fmt: AnyFormat,
    samples: list[list[str]],
    **build: Any,
) -> tuple[Detection, AnyFormat] | None:
    """None if the overall format reads every input; else each input's own, read together.

    The last resort's (generic) reading of every input is no reading of each: a ZooKeeper
    and a Hadoop log read together had generic's guessed components (ZooKeeper's errors
    keyed by thread and line, Hadoop's by thread), each read right alone."""
    chosen: dict[str, AnyFormat] = {detection.best: fmt}
    per_path: list[tuple[str, str]] = []
    guessed = detection.best in LAST_RESORT
    for source, lines in zip(run.sources, samples, strict=True):
        own = detection.best
        if lines and (guessed or _share(fmt, lines) < PER_INPUT_SHARE):
            found = detect_all(
                lines, json_keys=build["keys"], year=build["year"], custom=build["custom"]
            )
            if found.confidence >= PER_INPUT_SHARE and not (guessed and found.best in LAST_RESORT):
                own = found.best
                if own not in chosen:
                    chosen[own] = build_any_format(
                        own,
                        lines,
                        json_keys=build["keys"],
                        year=build["year"],
                        custom=build["custom"],
                    )
        per_path.append((source.path, own))
    owns = {own for _, own in per_path}
    if guessed and detection.best in owns:  # an input only generic reads: generic reads all
        return None  # (refused instead, a log4j log beside an unknown one had been an error)
    if guessed and len(owns) == 1:  # one layout after all
        (own,) = owns
        share = _share(chosen[own], [line for each in samples for line in each])
        return Detection(((own, share), *detection.scores), detection.sample_lines), chosen[own]
    if guessed:  # the last resort read no input on its own: it is no part of the reading
        chosen = {name: f for name, f in chosen.items() if name in owns}
    if len(chosen) == 1:
        return None
    kinds = {is_app(f) for f in chosen.values()}
    listing = ", ".join(f"{path} is {name}" for path, name in per_path)
    if len(kinds) > 1:
        raise ConfigError(
            f"the inputs hold different kinds of log ({listing}): access and application logs "
            "answer different questions; analyze them separately"
        )
    if any(is_app(f) for f in chosen.values()):
        raise ConfigError(
            f"the inputs are application logs of different formats ({listing}); "
            "analyze each format separately or name one with --format"
        )
    mixed = FirstOf(tuple(chosen.values()))  # type: ignore[arg-type]  # access formats
    share = _share(mixed, [line for each in samples for line in each])
    run.warnings.append(f"inputs of different formats, each read under its own: {listing}")
    scores = ((mixed.name, share), *detection.scores)
    return Detection(scores, detection.sample_lines), mixed


def _within_input(
    run: Run, detection: Detection, fmt: AnyFormat, sample: list[str], **build: Any
) -> tuple[Detection, AnyFormat] | None:
    """Two access formats in one input, read line by line by ``FirstOf``, when the runner-up
    reads lines the best does not (``MIXED_GAIN``): a server whose log format changed mid-file
    (``combined`` lines after ``common`` ones). Read by the best alone, the others' records,
    5xx or not, were malformed and the answer counted only the best's. So are two application
    layouts one file holds together (``mixed.APP_MIXES``), read as one (``combined_app``):
    Tomcat's catalina.out, whose 18 SEVERE records had been stack-trace lines of log4j's."""
    # the last resort that reads any request line does not hide the two layouts that name it
    named = [s for s in detection.scores if s[0] not in LAST_RESORT]
    if len(named) < 2 or named[0][1] >= 1.0:
        return None
    (best, top), (second, second_share) = named[:2]
    pair = {best, second}
    if (pair != CHANGED_FORMATS and pair not in APP_MIXES) or not sample:
        return None
    if best != detection.best:
        fmt = build_any_format(best, sample, json_keys=build["keys"], year=build["year"])
    other = build_any_format(second, sample, json_keys=build["keys"], year=build["year"])
    mixed: AnyFormat | None = (
        combined_app((fmt, other)) if pair in APP_MIXES else FirstOf((fmt, other))  # type: ignore[arg-type]
    )
    if mixed is None:
        return None
    share = _share(mixed, sample)
    if share < top + MIXED_GAIN:
        return None
    run.warnings.append(
        f"lines of two formats in one input ({best} {top:.1%}, {second} {second_share:.1%} "
        f"of sampled lines): each line is read under the one that parses it ({share:.1%})"
    )
    return Detection(((mixed.name, share), *detection.scores), detection.sample_lines), mixed


def _share(fmt: Any, lines: list[str]) -> float:
    return app_share(fmt, pl.Series("line", lines, dtype=pl.String))
