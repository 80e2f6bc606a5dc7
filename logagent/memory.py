"""Memory readings of this process (EDGE: psutil, resource).

Kept tiny and replaceable: the engine receives these functions as arguments,
so tests pass fakes (``logagent.testing``).
"""

from __future__ import annotations

import resource
import sys

import psutil


def rss_bytes() -> int:
    """Current resident set size of this process."""
    return int(psutil.Process().memory_info().rss)


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def available_bytes() -> int:
    """Memory the system can still give without swapping."""
    return int(psutil.virtual_memory().available)
