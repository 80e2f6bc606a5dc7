"""A job run by the engine: what its result calls the input."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from logagent.engine.run import RunEnv
from logagent.service.config import ServiceConfig
from logagent.service.execute import DEFAULT_BATCH_BYTES, run_job
from logagent.service.store import Job
from tests.conftest import random_log_lines


@pytest.mark.parametrize(("filename", "shown"), [("access.log", "access.log"), (None, "upload:j1")])
def test_an_upload_is_called_by_its_name_never_by_its_place(
    tmp_path: Path, write_log: Callable[..., Path], filename: str | None, shown: str
) -> None:
    """input.paths, warnings and the report name the upload, never the data directory."""
    data = tmp_path / "server-data"
    upload = data / "uploads" / "j1.log"
    upload.parent.mkdir(parents=True)
    upload.write_bytes(write_log(random_log_lines(1, 3000)).read_bytes() + b"not a log line\n")
    job = Job(
        "j1",
        "running",
        time.time(),
        time.time(),
        {"query": {"seed": 3, "full": True}, "filename": filename},
        upload=str(upload),
    )
    cfg = ServiceConfig(data_dir=str(data), memory_budget_bytes=1 << 30)
    result = run_job(job, cfg, RunEnv(), batch_bytes=DEFAULT_BATCH_BYTES)
    assert result.input.paths == [shown]
    assert str(data) not in result.model_dump_json()
    assert result.report is not None and str(data) not in result.report.markdown
