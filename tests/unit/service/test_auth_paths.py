"""Bearer keys and the allowed roots of path jobs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from logagent.errors import ConfigError
from logagent.service.auth import authorized, is_loopback, load_keys
from logagent.service.paths import PathRefused, allowed_path


def test_keys_file_skips_blanks_and_comments(tmp_path: Path) -> None:
    """One key per line; blank lines and comments are not keys."""
    f = tmp_path / "keys"
    f.write_text("# ops\nk1\n\n  k2  \n")
    assert load_keys(str(f)) == ("k1", "k2")
    f.write_text("# nothing\n")
    with pytest.raises(ConfigError):
        load_keys(str(f))


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        ("Bearer k2", True),
        ("bearer k1", True),
        ("Bearer k3", False),
        ("Bearer ", False),
        ("Basic k1", False),
        ("k1", False),
        (None, False),
    ],
)
def test_only_a_bearer_key_authorizes(header: str | None, ok: bool) -> None:
    """A configured key after 'Bearer' passes; anything else does not."""
    assert authorized(header, ("k1", "k2")) is ok


def test_loopback_addresses() -> None:
    """127.0.0.0/8, ::1 and localhost are loopback; others are not."""
    assert all(map(is_loopback, ["127.0.0.1", "127.3.0.1", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "10.0.0.1", "example.org"]))


def test_paths_only_under_allowed_roots(tmp_path: Path) -> None:
    """Inside a root passes; outside, '..' and a symlink leading out are 403."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.log").write_text("x\n")
    (outside / "b.log").write_text("x\n")
    os.symlink(outside / "b.log", root / "link.log")
    roots = (str(root),)
    assert allowed_path(str(root / "a.log"), roots) == os.path.realpath(root / "a.log")
    for bad in (outside / "b.log", root / "link.log", f"{root}/../outside/b.log"):
        with pytest.raises(PathRefused) as exc:
            allowed_path(str(bad), roots)
        assert exc.value.status == 403
    with pytest.raises(PathRefused) as exc:
        allowed_path(str(root / "missing.log"), roots)
    assert exc.value.status == 404
    with pytest.raises(PathRefused):
        allowed_path(str(root / "a.log"), ())


def test_a_name_no_file_can_have_or_a_file_that_is_no_log_is_422(tmp_path: Path) -> None:
    """A NUL or a lone surrogate in the path (os.path raised: HTTP 500), and a folder or
    FIFO under a root (it said "no such file"): 422, with what is wrong."""
    root = tmp_path / "root"
    (root / "dir").mkdir(parents=True)
    os.mkfifo(root / "pipe")
    roots = (str(root),)
    for bad, says in (
        (f"{root}/x\x00y", "NUL"),
        (f"{root}/\ud800.log", "surrogate"),
        (str(root / "dir"), "not a regular file"),
        (str(root / "pipe"), "not a regular file"),
    ):
        with pytest.raises(PathRefused) as exc:
            allowed_path(bad, roots)
        assert exc.value.status == 422 and says in exc.value.message
