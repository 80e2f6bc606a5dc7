"""``logagent serve``: the HTTP service front door (EDGE): flags -> ServiceConfig -> uvicorn.

Imports only click at module level; FastAPI, uvicorn, prometheus_client and
the engine load when the server starts (``pip install 'logagent[service]'``).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from logagent.cli.frontdoor import configure_logging, say
from logagent.errors import ConfigError, LogagentError


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default="logagent-data",
    show_default=True,
    help="Where uploads, checkpoints and the jobs' SQLite database are kept.",
)
@click.option(
    "--api-key-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Bearer keys, one per line. Without it the server has no auth and binds to loopback.",
)
@click.option(
    "--memory-budget",
    default="1GiB",
    show_default=True,
    help="One budget for the whole service (every job together): a size or a share (25%).",
)
@click.option("--max-jobs", type=click.IntRange(1, 64), default=2, show_default=True)
@click.option(
    "--max-queue",
    type=click.IntRange(0, 10_000),
    default=16,
    show_default=True,
    help="Jobs that may wait for memory; beyond it a POST gets 503 + Retry-After.",
)
@click.option("--max-upload", default="20GiB", show_default=True, help="Largest log accepted.")
@click.option(
    "--allow-path-root",
    "roots",
    multiple=True,
    type=click.Path(file_okay=False, exists=True),
    help='Allow {"path": ...} jobs for files under DIR (repeatable).',
)
@click.option(
    "--grace",
    type=click.FloatRange(0),
    default=10.0,
    show_default=True,
    help="SIGTERM: seconds running jobs get to finish (new ones get 503 meanwhile); those "
    "still running then are checkpointed and resumed at the next start.",
)
@click.option(
    "--expire-hours",
    type=click.FloatRange(0, min_open=True),
    default=168.0,
    show_default=True,
    help="Finished jobs and their results are forgotten after this long.",
)
@click.option("--llm", type=click.Choice(["off", "auto", "on"]), default="off", show_default=True)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML config file the jobs' settings start from (also LOGAGENT_CONFIG).",
)
def serve_cmd(**opts: Any) -> None:
    """Run the HTTP service: upload a log, get the same result as `logagent analyze`.

    Exit codes: 0 stopped cleanly, 2 usage error (bad flag, unreadable key file,
    budget below what the service needs, another server on the same --data-dir).
    """
    configure_logging()
    try:
        cfg, host = service_config(opts)
        from logagent.service.app import create_app
        from logagent.service.state import lock_data_dir

        lock_data_dir(cfg.data_dir)  # held until the process ends
    except LogagentError as exc:
        say(f"logagent: error: {exc}")
        sys.exit(2)
    except ImportError as exc:
        say(f"logagent: error: {exc.name} is missing: pip install 'logagent[service]'")
        sys.exit(2)
    import signal

    from logagent.service.server import serve

    # uvicorn raises a signal it handled again once it has stopped, for the handler it found:
    # a no-op one makes a drained server exit 0 (stopped cleanly), not "killed by SIGTERM".
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: None)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # nohup: stays ignored
        signal.signal(signal.SIGHUP, lambda signum, frame: None)
    say(f"logagent serve: http://{host}:{opts['port']} (data in {cfg.data_dir})")
    app = create_app(cfg)
    serve(app, app.state.service, host=host, port=opts["port"])


def service_config(opts: dict[str, Any]) -> tuple[Any, str]:
    """The ServiceConfig and the address to bind (loopback when no key is configured)."""
    import os

    from logagent import log
    from logagent.config import load_settings, memory_budget_bytes, parse_size
    from logagent.limits import check_start
    from logagent.routermem import memory
    from logagent.service.auth import is_loopback, load_keys
    from logagent.service.config import ServiceConfig

    keys = load_keys(opts["api_key_file"]) if opts["api_key_file"] else ()
    host = opts["host"]
    if not keys:
        if not is_loopback(host):
            host = "127.0.0.1"
        say(f"logagent serve: no --api-key-file, so no authentication: bound to {host} only")
    # the jobs' settings start from the config file: a bad one is said now, not per job
    log.set_level(load_settings(opts["config_file"]).log_level)
    budget = memory_budget_bytes(opts["memory_budget"], memory.available_bytes())
    check_start(budget, memory.rss_bytes())
    max_upload = parse_size(opts["max_upload"])
    if not isinstance(max_upload, int) or max_upload <= 0:
        raise ConfigError(f"invalid --max-upload {opts['max_upload']!r}: use a size (20GiB)")
    cfg = ServiceConfig(
        data_dir=os.path.abspath(opts["data_dir"]),
        memory_budget_bytes=budget,
        max_jobs=opts["max_jobs"],
        max_queue=opts["max_queue"],
        max_upload_bytes=max_upload,
        api_keys=keys,
        allow_path_roots=tuple(os.path.realpath(r) for r in opts["roots"]),
        config_file=opts["config_file"],
        grace_s=opts["grace"],
        expire_s=opts["expire_hours"] * 3600,
        llm=opts["llm"],
    )
    return cfg, host
