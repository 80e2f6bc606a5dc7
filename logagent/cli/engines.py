"""``--engine``: where a run's units are counted (EDGE). Dask loads only when asked for."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from logagent.errors import ConfigError

if TYPE_CHECKING:
    from logagent.config import Settings
    from logagent.engine.tallied import Backend


@contextlib.contextmanager
def backend_for(opts: dict[str, Any], settings: Settings) -> Iterator[Backend | None]:
    """None for the local engine; a Dask backend (cluster connected or started) for dask."""
    engine, scheduler, workers = opts.get("engine"), opts.get("scheduler"), opts.get("workers")
    if engine != "dask":
        if scheduler is not None or workers is not None:
            raise ConfigError("--scheduler and --workers go with --engine dask")
        yield None
        return
    if scheduler is not None and workers is not None:
        raise ConfigError(
            "--workers starts a local cluster; with --scheduler the cluster has its own"
        )
    if settings.checkpoint.path is not None:
        raise ConfigError("--checkpoint is not supported with --engine dask (resume is local)")
    try:
        from logagent.distributed.backend import dask_backend
    except ImportError as exc:
        raise ConfigError(
            f"--engine dask needs the dask extra ({exc.name} is missing): "
            "pip install 'logagent[dask]'"
        ) from exc
    from logagent.config import memory_budget_bytes
    from logagent.routermem import memory

    limit = memory_budget_bytes(settings.budget.memory, memory.available_bytes())
    with dask_backend(scheduler=scheduler, workers=workers, memory_limit_bytes=limit) as backend:
        yield backend
