"""Start-up is a product feature: a run imports only what it uses (issue 11).

A default ``analyze`` (the template report, no checkpoint, no error types)
runs in a fresh interpreter; afterwards the modules it loaded are listed. The
heavy optional libraries must not be among them: pyarrow (checkpoints and
the sample generator only: 41 MiB and ~40 ms), scipy (calibration only),
drain3 (error types only), the ollama client (only once a server answers),
pydantic-settings (only when an environment variable or a file sets
something), pydantic itself (~0.1 s: it validates what comes from outside,
and a default run's flags are checked without it; ``logagent.model``); and
OpenSSL's hashes (``_hashlib`` maps libcrypto, 3.3 MiB of the run's RSS: only
checkpoints and cron hash anything; Polars 2 imports it itself, one reason it
is held below 2 in pyproject.toml).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from logagent.testing import combined_line

NOT_AT_RUN_TIME = ("pyarrow", "scipy", "drain3", "ollama", "pydantic_settings", "pydantic")

PROBE = (
    "import atexit, json, sys\n"
    "def _dump():\n"
    "    sys.stderr.write('MODULES ' + json.dumps(sorted(sys.modules)) + '\\n')\n"
    "atexit.register(_dump)\n"
    "sys.argv = ['logagent', *sys.argv[1:]]\n"
    "from logagent.cli import entry\n"
    "entry()\n"
)


def loaded_by(*args: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOGAGENT_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return {m.split(".")[0] for m in json.loads(line.removeprefix("MODULES "))}


def access_log(tmp_path: Path) -> Path:
    log = tmp_path / "access.log"
    log.write_text(
        "".join(
            combined_line(f"/api/{i % 5}", 500 if i % 7 == 0 else 200) + "\n" for i in range(200)
        )
    )
    return log


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["-q", "status", "--top", "3", "--unit-size", "4KiB", "--max-seconds", "30"],
        ["-q", "error-rate", "--min-requests", "5", "--delta", "0.05", "--memory-budget", "256MiB"],
    ],
)
def test_an_analyze_imports_no_optional_library(tmp_path: Path, flags: list[str]) -> None:
    """A default run, and runs with flags of every type (a question, sizes, floats)."""
    log = access_log(tmp_path)
    loaded = loaded_by("analyze", str(log), "--json", "--llm", "off", "--quiet", *flags)
    assert "polars" in loaded  # the probe sees what the run imported
    assert not loaded & set(NOT_AT_RUN_TIME), sorted(loaded & set(NOT_AT_RUN_TIME))
    assert "_hashlib" not in loaded


def test_a_cron_run_imports_no_optional_library(tmp_path: Path) -> None:
    """A scheduled run (every minute, say) pays no pydantic either, first run or later."""
    log, state = access_log(tmp_path), tmp_path / "job.sqlite"
    for _ in range(2):
        loaded = loaded_by("cron", str(log), "--state", str(state), "--json")
        assert "sqlite3" in loaded
        assert not loaded & set(NOT_AT_RUN_TIME), sorted(loaded & set(NOT_AT_RUN_TIME))


def test_a_flag_out_of_bounds_is_told_by_pydantic(tmp_path: Path) -> None:
    """The other side of the quick check: what it does not accept, pydantic says (exit 2)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOGAGENT_")}
    args = ["analyze", str(access_log(tmp_path)), "--unit-size", "2TiB", "--llm", "off"]
    done = subprocess.run(
        [sys.executable, "-m", "logagent", *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 2 and "larger than 1 GiB" in done.stderr, done.stderr


def test_the_probe_sees_a_library_the_run_needs(tmp_path: Path) -> None:
    """The other side: error types mine templates with drain3, and the probe sees it."""
    log = tmp_path / "app.log"
    log.write_text(
        "".join(
            f"2026-12-01 10:00:{i:02d},123 ERROR [main] com.shop.Db - "
            f"connection to db-{i % 3} refused after {i} ms\n"
            for i in range(60)
        )
    )
    loaded = loaded_by(
        "analyze", str(log), "--json", "--llm", "off", "--quiet", "-q", "error-types"
    )
    assert "drain3" in loaded


GC_PROBE = (
    "import atexit, gc, sys\n"
    "def _dump():\n"
    "    sys.stderr.write(f'GC {gc.isenabled()} {gc.get_freeze_count()}\\n')\n"
    "atexit.register(_dump)\n"
    "sys.argv = ['logagent', *sys.argv[1:]]\n"
    "from logagent.cli import entry\n"
    "entry()\n"
)


def gc_after(*args: str) -> tuple[bool, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOGAGENT_")}
    done = subprocess.run(
        [sys.executable, "-c", GC_PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("GC "))
    enabled, frozen = line.split()[1:]
    return enabled == "True", int(frozen)


def test_the_collector_is_on_again_once_the_imports_are_done(tmp_path: Path) -> None:
    """analyze and cron start with the collector off (cli/startup.py); when they read, it is on
    again, with what the imports made frozen out of its reach."""
    log = access_log(tmp_path)
    for args in (
        ["analyze", str(log), "--json", "--llm", "off", "--quiet"],
        ["cron", str(log), "--state", str(tmp_path / "job.sqlite"), "--json"],
    ):
        enabled, frozen = gc_after(*args)
        assert enabled and frozen > 10_000, (args[0], enabled, frozen)
    enabled, frozen = gc_after("--help")  # a command that does not defer: untouched
    assert enabled and frozen == 0


BLAS_PROBE = (
    "import atexit, ctypes, glob, os, sys\n"
    "def _dump():\n"
    "    import numpy\n"
    "    libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, 'numpy.libs',"
    " 'libscipy_openblas*'))\n"
    "    count = getattr(ctypes.CDLL(libs[0]), 'scipy_openblas_get_num_threads64_', None)"
    " if libs else None\n"
    "    sys.stderr.write(f'BLAS {count() if count else -1}\\n')\n"
    "atexit.register(_dump)\n"
    "sys.argv = ['logagent', *sys.argv[1:]]\n"
    "from logagent.cli import entry\n"
    "entry()\n"
)


def blas_threads(*args: str, env_extra: dict[str, str]) -> int:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("LOGAGENT_") and k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    }
    done = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, *args],
        capture_output=True,
        text=True,
        env={**env, **env_extra},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return int(next(x for x in done.stderr.splitlines() if x.startswith("BLAS ")).split()[1])


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: OpenBLAS starts one thread anyway")
def test_a_run_has_one_blas_thread_unless_the_environment_names_a_count(tmp_path: Path) -> None:
    """numpy's OpenBLAS would start a thread a core at import (~50 ms of start-up here); the
    commands ask for one (cli/startup.py), and a count the user set is kept."""
    args = ["analyze", str(access_log(tmp_path)), "--json", "--llm", "off", "--quiet"]
    asked = blas_threads(*args, env_extra={"OPENBLAS_NUM_THREADS": "2"})
    if asked == -1:  # the probe found no OpenBLAS of numpy's wheel to ask
        pytest.skip("numpy here is not built with the scipy-openblas library")
    assert asked == 2
    assert blas_threads(*args, env_extra={}) == 1
