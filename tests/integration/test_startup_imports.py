"""Start-up is a product feature: a run imports only what it uses (issue 11).

A default ``analyze`` (the template report, no checkpoint, no error types)
runs in a fresh interpreter; afterwards the modules it loaded are listed. The
heavy optional libraries must not be among them: pyarrow (checkpoints and
the sample generator only: 41 MiB and ~40 ms), scipy (calibration only),
drain3 (error types only), the ollama client (only once a server answers),
pydantic-settings (only when an environment variable or a file sets
something).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from logagent.testing import combined_line

NOT_AT_RUN_TIME = ("pyarrow", "scipy", "drain3", "ollama", "pydantic_settings")

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


def test_a_default_analyze_imports_no_optional_library(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    log.write_text(
        "".join(
            combined_line(f"/api/{i % 5}", 500 if i % 7 == 0 else 200) + "\n" for i in range(200)
        )
    )
    loaded = loaded_by("analyze", str(log), "--json", "--llm", "off", "--quiet")
    assert "polars" in loaded  # the probe sees what the run imported
    assert not loaded & set(NOT_AT_RUN_TIME), sorted(loaded & set(NOT_AT_RUN_TIME))


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
