"""Small inputs get Polars' compact allocator; anything else keeps the default (cli.startup)."""

from __future__ import annotations

import gzip
from pathlib import Path

from logagent.cli.startup import COMPACT_JEMALLOC, SMALL_INPUT_BYTES, compact_allocator

NAME, OPTIONS = COMPACT_JEMALLOC
LINE = b'1.2.3.4 - - [06/Dec/2026:08:00:00 +0000] "GET /a HTTP/1.1" 500 1 "-" "x"\n'


def test_small_plain_files_get_it(tmp_path: Path) -> None:
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_bytes(LINE)
    b.write_bytes(LINE * 100)
    env: dict[str, str] = {}
    assert compact_allocator([str(a), str(b)], env, loaded=()) and env == {NAME: OPTIONS}


def test_anything_else_keeps_the_default(tmp_path: Path) -> None:
    """Over the size in all, compressed or UTF-16 (its size says nothing), stdin, a glob or
    a missing file, an allocator already set by the environment, Polars already loaded."""
    small = tmp_path / "small.log"
    small.write_bytes(LINE)
    big = tmp_path / "big.log"
    big.write_bytes(LINE * (SMALL_INPUT_BYTES // len(LINE) + 1))
    packed = tmp_path / "packed.log"
    packed.write_bytes(gzip.compress(LINE))
    wide = tmp_path / "wide.log"
    wide.write_bytes(b"\xff\xfe" + LINE.decode().encode("utf-16-le"))
    for paths in (
        [str(small), str(big)],
        [str(packed)],
        [str(wide)],
        ["-"],
        [str(tmp_path / "*.log")],
        [str(tmp_path)],
    ):
        env: dict[str, str] = {}
        assert not compact_allocator(paths, env, loaded=()) and env == {}, paths
    mine = {NAME: "narenas:4"}
    assert not compact_allocator([str(small)], mine, loaded=()) and mine == {NAME: "narenas:4"}
    env = {}
    assert not compact_allocator([str(small)], env, loaded={"polars"}) and env == {}


def test_analyze_sets_it_before_polars_loads(tmp_path: Path) -> None:
    """The analyze command itself asks for it, for the paths it was given."""
    import subprocess
    import sys

    log = tmp_path / "one.log"
    log.write_bytes(LINE)
    probe = (
        "import os, sys\n"
        "from logagent.cli import main\n"
        "try:\n"
        f"    main(['analyze', {str(log)!r}, '--json', '--quiet', '--llm', 'off'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('ALLOC=' + os.environ.get({NAME!r}, ''), file=sys.stderr)\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != NAME}
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120
    )
    # Polars puts its own options first and appends those it found (polars/__init__.py)
    assert f",{OPTIONS}\n" in proc.stderr, proc.stderr
