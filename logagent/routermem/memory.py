"""Memory readings of this process (EDGE: /proc, psutil, resource).

Kept tiny and replaceable: the engine receives these functions as arguments,
so tests pass fakes (``logagent.testing``). On Linux the readings come from
``/proc`` (cheap, and no psutil import at start-up); elsewhere from psutil.

The peak is ``VmHWM``, this process image's own high-water mark: ``ru_maxrss``
survives ``execve``, so a logagent started by a large parent (a test runner
that built a 1 GB string, a service worker) would report the parent's peak.
"""

from __future__ import annotations

import ctypes
import resource
import sys
from collections.abc import Callable


def _proc_kib(path: str, key: bytes) -> int | None:
    """A ``key: N kB`` field of a /proc file, in bytes; None where there is no such file."""
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_bytes() -> int:
    """Current resident set size of this process."""
    found = _proc_kib("/proc/self/status", b"VmRSS:")
    if found is not None:
        return found
    import psutil

    return int(psutil.Process().memory_info().rss)


def peak_rss_bytes() -> int:
    """Peak resident set size of this process image so far (see the module on exec)."""
    found = _proc_kib("/proc/self/status", b"VmHWM:")
    if found is not None:
        return found
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def available_bytes() -> int:
    """Memory the system can still give without swapping."""
    found = _proc_kib("/proc/meminfo", b"MemAvailable:")
    if found is not None:
        return found
    import psutil

    return int(psutil.virtual_memory().available)


def _malloc_trim() -> Callable[[], None]:
    """glibc's ``malloc_trim(0)``: hand freed heap pages back to the system (a no-op elsewhere).

    Batches are large short-lived buffers freed on another thread than the one
    that allocated them; glibc keeps such pages in its arenas, so RSS drifts up
    over a long run without any live data growing. Trimming now and then keeps
    the peak flat from 1 GB to 10 GB inputs.
    """
    try:  # glibc's soname first: ``find_library`` runs ``ldconfig -p`` (a process at start-up)
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        from ctypes.util import find_library

        try:
            libc = ctypes.CDLL(find_library("c"))
        except OSError:
            return lambda: None
    try:
        trim = libc.malloc_trim
    except AttributeError:
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]

    def release() -> None:
        trim(0)

    return release


release = _malloc_trim()
