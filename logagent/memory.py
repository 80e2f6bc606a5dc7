"""Memory readings of this process (EDGE: psutil, resource).

Kept tiny and replaceable: the engine receives these functions as arguments,
so tests pass fakes (``logagent.testing``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import resource
import sys
from collections.abc import Callable

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


def _malloc_trim() -> Callable[[], None]:
    """glibc's ``malloc_trim(0)``: hand freed heap pages back to the system (a no-op elsewhere).

    Batches are large short-lived buffers freed on another thread than the one
    that allocated them; glibc keeps such pages in its arenas, so RSS drifts up
    over a long run without any live data growing. Trimming now and then keeps
    the peak flat from 1 GB to 10 GB inputs.
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]

    def release() -> None:
        trim(0)

    return release


release = _malloc_trim()
