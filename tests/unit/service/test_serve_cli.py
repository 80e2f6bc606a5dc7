"""`logagent serve`: light to import, usage errors are exit 2 with one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "logagent", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_serve_module_imports_no_server_stack() -> None:
    """The CLI registration imports neither FastAPI, uvicorn, prometheus_client nor Polars."""
    code = (
        "import sys, logagent.cli.serve; "
        "print(sorted(m for m in ('fastapi', 'uvicorn', 'prometheus_client', 'polars') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    """A missing key file, an empty one, a budget too small or above all the memory, a bad
    size, a config file the jobs could not use: exit 2 at start, one line."""
    empty = tmp_path / "keys"
    empty.write_text("\n# none\n")
    bad = tmp_path / "c.toml"
    bad.write_text("[analysis]\ndelta = 2\n")  # every job would have failed on it
    for args, says in (
        (["--api-key-file", str(tmp_path / "missing")], "key"),
        (["--api-key-file", str(empty)], "key"),
        (["--memory-budget", "1KiB"], "below what logagent needs"),
        (["--memory-budget", "150%"], "share of the available memory is 0% to 100%"),
        (["--max-upload", "lots"], "--max-upload"),
        (["--config", str(bad)], "analysis.delta"),
    ):
        proc = serve("--data-dir", str(tmp_path / "d"), *args)
        assert proc.returncode == 2, proc.stderr
        assert "error:" in proc.stderr and "Traceback" not in proc.stderr
        assert says in proc.stderr
