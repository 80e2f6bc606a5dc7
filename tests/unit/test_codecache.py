"""The cache of the code ``dataclasses`` compiles (logagent/cli/codecache.py)."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from logagent.cli import codecache
from logagent.cli.codecache import STAMP, CodeCache

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


def _methods(cls: type) -> dict[str, object]:
    """Everything of each generated method's code but its identity (== ignores the file)."""
    out = {}
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__lt__"):
        fn = cls.__dict__.get(name)
        code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
        if code is not None:
            out[name] = tuple(
                getattr(code, a)
                for a in (
                    "co_code",
                    "co_consts",
                    "co_names",
                    "co_varnames",
                    "co_freevars",
                    "co_filename",
                    "co_name",
                    "co_qualname",
                    "co_firstlineno",
                    "co_flags",
                    "co_argcount",
                    "co_kwonlyargcount",
                    "co_linetable",
                )
            )
    return out


def test_the_cached_code_is_what_exec_of_the_text_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Methods made by ``dataclasses``' own ``exec`` and from a cache file are the same code:
    file name, flags, lines, names, constants."""
    path = str(tmp_path / "code.marshal")
    plain = _classes()
    first = CodeCache(path, force=True)
    _with(monkeypatch, first)
    first.save()
    cached = _with(monkeypatch, CodeCache(path))
    for made, loaded in zip(plain, cached, strict=True):
        assert _methods(made) and _methods(made) == _methods(loaded)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\x01junk",
        marshal.dumps((("logagent-dataclass-code", 1, "cpython", 0x020700F0), {})),
        marshal.dumps((STAMP, ["not", "a", "dict"])),
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


def _wrong_entries(path: Path, stamp: object) -> None:
    """A cache whose entries for the classes' texts are wrong: code of other texts, or no
    code at all (run, they would give the classes other methods or fail)."""
    probe = CodeCache(str(path), force=True)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(dataclasses, "exec", probe.exec, raising=False)
        _classes()
    wrong = compile("def __create_fn__(): return None", "<string>", "exec")
    texts = list(probe._code)
    entries: dict[str, object] = {t: wrong for t in texts[::2]}
    entries.update({t: 42 for t in texts[1::4]})
    entries.update({t: b"raise SystemExit(3)" for t in texts[3::4]})
    path.write_bytes(marshal.dumps((stamp, entries)))


def test_a_file_of_another_version_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    _wrong_entries(path, ("logagent-dataclass-code", 1, "cpython", 0x030B00F0))
    cache = CodeCache(str(path))
    assert _behaviour(*_with(monkeypatch, cache)) == _behaviour(*_classes())
    assert cache.hits == 0


def test_entries_that_are_no_code_are_compiled_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of a file of this interpreter only text -> code entries are used (a value that is no
    code object is never run); the trust in the code objects is a .pyc file's."""
    path = tmp_path / "code.marshal"
    _wrong_entries(path, STAMP)
    raw = marshal.loads(path.read_bytes())[1]
    codes = {k for k, v in raw.items() if type(v) is types.CodeType}
    assert codes and codes != set(raw)  # the file holds both kinds
    assert set(CodeCache(str(path))._code) == codes


def test_a_file_that_cannot_be_unmarshalled_at_all_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    path.write_bytes(b"[\xff\xff\xff\x7f")  # a list that says it holds 2**31 items

    def no_memory(data: bytes) -> object:
        raise MemoryError

    monkeypatch.setattr(marshal, "loads", no_memory)
    assert CodeCache(str(path))._code == {}


def test_past_max_entries_only_this_run_s_texts_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    old = {f"# old text {i}": compile(f"x = {i}", "<string>", "exec") for i in range(50)}
    path.write_bytes(marshal.dumps((STAMP, old)))
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 10)
    cache = CodeCache(str(path), force=True)
    _with(monkeypatch, cache)
    assert cache.save()
    kept = marshal.loads(path.read_bytes())[1]
    assert kept and not any(k.startswith("# old text") for k in kept)


def test_other_exec_calls_pass_through_unchanged(tmp_path: Path) -> None:
    cache = CodeCache(str(tmp_path / "none.marshal"))
    ns: dict[str, object] = {}
    cache.exec(compile("y = 2", "<string>", "exec"), ns)  # a code object
    assert ns["y"] == 2
    cache.exec("z_seen = 5")  # no globals: the caller's namespaces, as exec does
    assert locals()["z_seen"] == 5
    assert cache.hits == cache.misses == 0


def test_a_writer_killed_before_its_rename_leaves_nothing_for_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "code.marshal"
    left = tmp_path / "code.marshal.999.abc.tmp"
    left.write_bytes(b"half a file")
    os.utime(left, (1, 1))
    fresh = tmp_path / "code.marshal.998.abc.tmp"
    fresh.write_bytes(b"another writer, now")
    cache = CodeCache(str(path), force=True)
    _with(monkeypatch, cache)
    assert cache.save()
    assert not left.exists() and fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([fresh.name, path.name])


def test_no_cache_where_the_interpreter_has_no_cache_tag(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codecache, "PATH", None)
    monkeypatch.setattr(codecache, "_INSTALLED", None)
    assert codecache.install() is None
    assert "exec" not in vars(dataclasses)


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
