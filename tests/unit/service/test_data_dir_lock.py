"""One server per data directory: the lock, and forked children that do not keep it."""

from __future__ import annotations

import fcntl
import os
import signal
import time
from pathlib import Path

import pytest

from logagent.errors import ConfigError
from logagent.service.state import lock_data_dir


def test_the_lock_refuses_a_second_holder_and_names_the_first(tmp_path: Path) -> None:
    fd = lock_data_dir(str(tmp_path / "data"))
    try:
        with pytest.raises(ConfigError, match=f"pid {os.getpid()}"):
            lock_data_dir(str(tmp_path / "data"))
    finally:
        os.close(fd)
    os.close(lock_data_dir(str(tmp_path / "data")))  # free again once its holder let go


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
