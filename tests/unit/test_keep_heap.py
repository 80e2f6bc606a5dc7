"""``memory.keep_freed_heap``: freed heap pages serve the next allocations (glibc ``mallopt``),
and every run sets it up through its environment (``RunEnv.keep_heap``)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from logagent import Question, analyze, load_settings
from logagent.engine.run import RunEnv
from logagent.result import QuestionKind
from logagent.routermem import memory

CYCLES = textwrap.dedent(
    """
    import resource, sys
    from logagent.routermem import memory
    if sys.argv[1] == "keep":
        memory.keep_freed_heap()
    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    sizes = [(s % 7 + 2) << 20 for s in range(40)]  # 2-8 MiB buffers, made and freed in turn
    before = faults()
    for size in sizes:
        buf = bytearray(size)  # touches every page
        del buf
    print(faults() - before)
    """
)


def _faults(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", CYCLES, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc",
    reason="mallopt's thresholds are glibc's: elsewhere keep_freed_heap does nothing to measure",
)
def test_freed_pages_are_reused_not_faulted_in_again() -> None:
    """40 buffers of 2-8 MiB made and freed in turn: with the pages kept, the page faults are
    about those of the largest buffer once (2,048 pages of 8 MiB), not of every buffer."""
    kept = _faults("keep")
    default = _faults("default")
    assert kept < 4 * 2048, (kept, default)
    assert default > 2 * kept, (kept, default)  # glibc's defaults fault pages in again


def test_every_run_sets_the_heap_up(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    log.write_text('1.2.3.4 - - [01/Dec/2026:10:00:00 +0000] "GET / HTTP/1.1" 500 1 "-" "x"\n')
    calls: list[int] = []
    env = RunEnv(keep_heap=lambda: calls.append(1))
    analyze([str(log)], Question(kind=QuestionKind.TOP_ERRORS, top=1), load_settings(), env)
    assert calls == [1]


class _Libc:
    """A C library whose ``mallopt`` records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

        def mallopt(param: int, value: int) -> int:
            self.calls.append((param, value))
            return 1

        self.mallopt = mallopt


def test_operator_tuning_from_the_environment_is_left_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    libc = _Libc()
    keep = memory._mallopt(libc)  # type: ignore[arg-type]
    for name in list(os.environ):
        if name.startswith("MALLOC_") or name == "GLIBC_TUNABLES":
            monkeypatch.delenv(name)
    keep()
    assert libc.calls == [
        (memory.M_MMAP_THRESHOLD, memory.MMAP_THRESHOLD),
        (memory.M_TRIM_THRESHOLD, memory.TRIM_THRESHOLD),
    ]
    for name, value in (
        ("MALLOC_TRIM_THRESHOLD_", "1000000"),
        ("MALLOC_MMAP_THRESHOLD_", "65536"),
        ("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1000000"),
    ):
        libc.calls.clear()
        with monkeypatch.context() as env:
            env.setenv(name, value)
            keep()
        assert libc.calls == [], name
    libc.calls.clear()
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0")  # not the allocator's
    keep()
    assert len(libc.calls) == 2
