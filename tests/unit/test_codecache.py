"""The cache of the code ``dataclasses`` compiles (logagent/cli/codecache.py)."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from logagent.cli.codecache import CodeCache

REPO = Path(__file__).resolve().parents[2]


def _classes() -> tuple[type, type]:
    """Two classes with every method ``dataclass`` writes: frozen (hash, setattr), kw_only,
    defaults and a factory; and a plain one with ordering."""

    @dataclasses.dataclass(frozen=True, kw_only=True)
    class Frozen:
        name: str
        size: int = 3
        tags: tuple[str, ...] = ()
        extra: list[int] = dataclasses.field(default_factory=list, compare=False)

    @dataclasses.dataclass(order=True)
    class Plain:
        a: int
        b: float = 0.5

    return Frozen, Plain


def _behaviour(frozen: type, plain: type) -> list[object]:
    one = frozen(name="x", tags=("a",))
    out: list[object] = [repr(one), one == frozen(name="x", tags=("a",)), hash(one)]
    out += [one == frozen(name="y"), repr(frozen.__init__.__annotations__)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.size = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        frozen("x")  # kw_only
    out += [
        repr(plain(1)),
        plain(1) < plain(2),
        plain(2, 0.1) > plain(1, 9.0),
        plain(1) == plain(1),
    ]
    return out


def _with(monkeypatch: pytest.MonkeyPatch, cache: CodeCache) -> tuple[type, type]:
    with monkeypatch.context() as m:
        m.setattr(dataclasses, "exec", cache.exec, raising=False)
        return _classes()


def test_classes_from_the_cache_behave_as_compiled_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "code.marshal")
    first = CodeCache(path, force=True)
    cached = _with(monkeypatch, first)
    assert not hasattr(dataclasses, "exec")  # the context put things back
    assert first.misses > 5 and first.hits == 0
    assert first.save() and os.path.exists(path)

    again = CodeCache(path)
    from_file = _with(monkeypatch, again)
    assert again.misses == 0 and again.hits == first.misses  # every text came from the file
    assert _behaviour(*from_file) == _behaviour(*cached) == _behaviour(*_classes())
    assert not again.save()  # nothing new: nothing written

    _, code = marshal.loads(Path(path).read_bytes())
    for source, compiled in code.items():  # the very code exec would have compiled
        assert compiled == compile(source, "<string>", "exec", dont_inherit=True)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\x01junk",
        marshal.dumps(("2.7.0 (some other build)", {})),
        marshal.dumps((sys.version, ["not", "a", "dict"])),
        marshal.dumps(42),
    ],
    ids=["empty", "junk", "other-python", "not-a-dict", "not-a-pair"],
)
def test_a_file_that_does_not_load_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    path = tmp_path / "code.marshal"
    path.write_bytes(content)
    cache = CodeCache(str(path), force=True)
    assert _behaviour(*_with(monkeypatch, cache)) == _behaviour(*_classes())
    assert cache.hits == 0 and cache.misses > 0
    assert cache.save() and CodeCache(str(path))._code  # rewritten, now loadable


def test_a_cut_file_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "code.marshal")
    first = CodeCache(path, force=True)
    _with(monkeypatch, first)
    first.save()
    Path(path).write_bytes(Path(path).read_bytes()[:-100])
    again = CodeCache(path)
    _with(monkeypatch, again)
    assert again.hits == 0 and again.misses == first.hits + first.misses


def test_nothing_is_written_when_bytecode_writing_is_off_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = str(tmp_path / "code.marshal")
    polite = CodeCache(path)
    _with(monkeypatch, polite)
    assert not polite.save() and not os.path.exists(path)
    polite.force = True
    assert polite.save() and os.path.exists(path)


def test_an_unwritable_folder_leaves_things_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder would be")
    cache = CodeCache(str(blocked / "code.marshal"), force=True)
    _with(monkeypatch, cache)
    assert not cache.save()  # no exception, no file
    assert blocked.read_text() == "a file where the folder would be"


def test_a_run_start_up_compiles_once_then_reads_the_cache(tmp_path: Path) -> None:
    """Two processes doing what ``analyze`` does at start-up (``cli.startup``): the first
    compiles and writes the file, the second compiles nothing and its settings work."""
    path = tmp_path / "code.marshal"
    probe = textwrap.dedent(
        f"""
        import json
        from logagent.cli import codecache, startup
        codecache.PATH = {str(path)!r}
        startup.defer_collection("analyze")
        from logagent.config import Settings
        from logagent.engine import analyze
        startup.imports_done()
        cache = codecache._INSTALLED
        s = Settings()
        print(json.dumps({{"hits": cache.hits, "misses": cache.misses,
                          "same": s == Settings(), "repr": repr(s)[:40]}}))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", probe], env=env, cwd=REPO, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    first = run()
    assert first["misses"] > 100 and path.exists()  # our classes and the libraries'
    second = run()
    assert second["misses"] == 0 and second["hits"] == first["misses"] + first["hits"]
    assert second["same"] is True and second["repr"] == first["repr"]
