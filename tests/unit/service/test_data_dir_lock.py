"""One server per data directory: the lock, and forked children that do not keep it."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from logagent.errors import ConfigError
from logagent.service import state
from logagent.service.state import lock_data_dir


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts holding no data directory (the tests close what they took)."""
    monkeypatch.setattr(state, "_HELD", {})


def test_the_lock_refuses_another_process_and_names_the_holder(tmp_path: Path) -> None:
    """A second process is refused, told the holder's pid; this process taking it again
    (the CLI, then the app's start) gets the same lock."""
    data = str(tmp_path / "data")
    fd = lock_data_dir(data)
    assert lock_data_dir(data) == fd
    other = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from logagent.service.state import lock_data_dir; lock_data_dir({data!r})",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert other.returncode != 0 and f"pid {os.getpid()}" in other.stderr
    os.close(fd)
    state._HELD.clear()
    os.close(lock_data_dir(data))  # free again once its holder let go


def test_a_forked_child_does_not_keep_the_lock(tmp_path: Path) -> None:
    """A scan child outliving a killed server for a moment must not hold the lock against
    the restart: it lets go of its copy as it is forked."""
    fd = lock_data_dir(str(tmp_path / "data"))
    ready, up = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: stays a while, as an orphaned scan child would
        os.write(up, b"!")  # forked: its at-fork handlers have run
        time.sleep(30)
        os._exit(0)
    os.close(up)
    assert os.read(ready, 1) == b"!"
    os.close(ready)
    try:
        os.close(fd)  # the server is gone; its child is not
        other = os.open(str(tmp_path / "data" / "serve.lock"), os.O_RDWR)
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the child held it
        finally:
            os.close(other)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def test_an_unusable_data_directory_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="cannot use the data directory"):
        lock_data_dir(str(blocker / "data"))


def test_the_app_takes_the_lock_at_its_start_too(tmp_path: Path) -> None:
    """An embedder's ``create_app`` (no CLI) starts the service: the lock is taken before
    its jobs are recovered."""
    from logagent.service.config import ServiceConfig
    from logagent.service.state import Service

    service = Service(ServiceConfig(data_dir=str(tmp_path / "data"), memory_budget_bytes=1 << 30))
    service.start()
    try:
        assert os.path.realpath(tmp_path / "data") in state._HELD
    finally:
        service.stop()
        service.store.close()
        os.close(state._HELD.pop(os.path.realpath(tmp_path / "data")))
