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
    """A missing key file, an empty one, a budget too small or a bad size: exit 2, one line."""
    empty = tmp_path / "keys"
    empty.write_text("\n# none\n")
    for args in (
        ["--api-key-file", str(tmp_path / "missing")],
        ["--api-key-file", str(empty)],
        ["--memory-budget", "1KiB"],
        ["--max-upload", "lots"],
    ):
        proc = serve("--data-dir", str(tmp_path / "d"), *args)
        assert proc.returncode == 2, proc.stderr
        assert "error:" in proc.stderr and "Traceback" not in proc.stderr
