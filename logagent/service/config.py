"""What ``logagent serve`` was started with (PURE: plain values, built by the CLI)."""

from __future__ import annotations

import os
from dataclasses import dataclass

GIB = 1 << 30


@dataclass(frozen=True)
class ServiceConfig:
    """The service's limits and places; one budget for every job together."""

    data_dir: str
    memory_budget_bytes: int
    max_jobs: int = 2
    max_queue: int = 16
    max_upload_bytes: int = 20 * GIB
    api_keys: tuple[str, ...] = ()
    allow_path_roots: tuple[str, ...] = ()
    config_file: str | None = None  # the TOML the jobs' settings start from (as the CLI's)
    grace_s: float = 10.0  # SIGTERM: how long running jobs get to checkpoint and stop
    expire_s: float = 7 * 24 * 3600.0  # finished jobs (and their results) are then forgotten
    llm: str = "off"  # report prose: off (template), auto or on, as ``analyze --llm``
    retry_after_s: int = 5  # told to a client refused with 503

    @property
    def uploads_dir(self) -> str:
        """Where uploaded logs are stored while their job needs them."""
        return os.path.join(self.data_dir, "uploads")

    @property
    def checkpoints_dir(self) -> str:
        """Where running jobs keep their checkpoints."""
        return os.path.join(self.data_dir, "checkpoints")

    @property
    def db_path(self) -> str:
        """The SQLite file of the jobs."""
        return os.path.join(self.data_dir, "jobs.sqlite")
