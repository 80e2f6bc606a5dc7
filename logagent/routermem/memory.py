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
import os
import resource
import sys
from collections.abc import Callable, Mapping


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


def _libc() -> ctypes.CDLL | None:
    """The C library (glibc's soname first: ``find_library`` runs ``ldconfig -p``, a process
    at start-up); None where it cannot be loaded."""
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        from ctypes.util import find_library

        try:
            return ctypes.CDLL(find_library("c"))
        except OSError:
            return None


def _malloc_trim(libc: ctypes.CDLL | None) -> Callable[[], None]:
    """glibc's ``malloc_trim(0)``: hand freed heap pages back to the system (a no-op elsewhere).

    Batches are large short-lived buffers freed on another thread than the one
    that allocated them; glibc keeps such pages in its arenas, so RSS drifts up
    over a long run without any live data growing. Trimming now and then keeps
    the peak flat from 1 GB to 10 GB inputs.
    """
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]

    def release() -> None:
        trim(0)

    return release


#: glibc's ``mallopt`` parameters (malloc.h) and the values ``keep_freed_heap`` sets.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 64 << 20


def _mallopt(libc: ctypes.CDLL | None) -> Callable[[], None]:
    """Keep freed heap pages for the next allocation instead of mapping fresh ones each time.

    The evidence's numpy arithmetic makes many temporaries of 0.1-3 MB. glibc
    serves each from a fresh ``mmap`` (below its threshold only once one of that
    size was freed) and gives freed heap tops back past 128 KiB, so every such
    temporary faulted its pages in anew: a 3 GB top-1 run's reported intervals
    took 150 ms, 85 ms with the pages kept. Allocations under ``MMAP_THRESHOLD``
    now come from the heap, and up to ``TRIM_THRESHOLD`` of free heap top stays
    (the peak RSS moved by 2-14 MB); ``release`` still hands everything freed back
    when memory is tight. A no-op where there is no glibc ``mallopt``, and where the
    operator tuned glibc's allocator (``MALLOC_*_`` variables, ``GLIBC_TUNABLES``).
    """
    opt = getattr(libc, "mallopt", None)
    if opt is None:
        return lambda: None
    opt.argtypes = [ctypes.c_int, ctypes.c_int]

    def keep() -> None:
        if operator_tuned(os.environ):
            return
        opt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        opt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)

    return keep


def operator_tuned(environ: Mapping[str, str]) -> bool:
    """Whether glibc's allocator was tuned from the environment (left as it is then)."""
    named = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")
    return any(n in environ for n in named) or "glibc.malloc." in environ.get("GLIBC_TUNABLES", "")


_LIBC = _libc()
release = _malloc_trim(_LIBC)
keep_freed_heap = _mallopt(_LIBC)
