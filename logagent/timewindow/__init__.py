"""Time windows: ``--since``/``--until``, timestamps, and the window's byte range (PURE).

The engine calls, in order::

    since, until = parse_window(args.since, args.until, now=now, tz=tz)
    line_time = line_time_for(format_name, tz=tz, reference=now)
    window = window_for_source(source, line_time, since=since, until=until)
    # plan units inside window.byte_range; keep rows where in_window_expr(ts) holds;
    # window.to_dict() goes into the result, window.warning into its warnings.

Column-wise stamps for a parsed batch: ``parse_timestamps(series, kind, tz=...)``.
"""

from .bounds import parse_bound, parse_duration, parse_window
from .columns import parse_timestamps
from .filter import in_window_expr
from .lines import FORMAT_KINDS, LineTime, line_time_by, line_time_for
from .probe import Probe, WindowConfig, last_line_time, probe
from .search import Window, find_window, window_for_source
from .stamps import STAMP_KINDS, parse_timestamp

__all__ = [
    "FORMAT_KINDS",
    "STAMP_KINDS",
    "LineTime",
    "Probe",
    "Window",
    "WindowConfig",
    "find_window",
    "in_window_expr",
    "last_line_time",
    "line_time_by",
    "line_time_for",
    "parse_bound",
    "parse_duration",
    "parse_timestamp",
    "parse_timestamps",
    "parse_window",
    "probe",
    "window_for_source",
]
