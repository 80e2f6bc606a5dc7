"""Inputs named by path or fsspec URL, opened on the driver or on a worker (EDGE: fsspec).

A local path is opened as the local engine opens it (``sources.open_source``).
A URL (``s3://``, ``gs://``, ``http(s)://``, ``file://``) becomes a
``RemoteSource``: the same ``Source`` to the framing code, whose positional
reads are ``fs.cat_file(path, start, end)``. A compressed object (magic bytes)
is a stream read forwards through fsspec's file object, decompressed as the
local engine decompresses. ``InputSpec`` is what a task is told of an input;
each worker process opens it once and keeps it.
"""

from __future__ import annotations

import bisect
import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from logagent.errors import ConfigError, InputError, InputNotFound
from logagent.magic import kind_of
from logagent.sources import Source, open_source, resolve_paths
from logagent.sources.files import STDIN, _open_stream
from logagent.sources.paths import reads_once

#: A positional read fetches at least this much, so a unit's look-back and slack cost one request.
MIN_FETCH = 64 << 10
#: Inputs a worker keeps open.
MAX_KEPT = 64


def is_url(path: str) -> bool:
    """Whether ``path`` names an fsspec URL rather than a local file."""
    return "://" in path


@dataclass(frozen=True)
class InputSpec:
    """What a task needs to open an input again: its name, planned size and compression."""

    path: str
    size: int | None
    compression: str | None


def spec_of(source: Source) -> InputSpec:
    """The spec of an opened source (the driver's view of it)."""
    return InputSpec(source.path, source.size if source.seekable else None, source.compression)


@dataclass
class RemoteSource(Source):
    """A seekable object read by ranges through fsspec; one fetched block is kept."""

    fs: Any = None
    fs_path: str = ""
    _block: tuple[int, bytes] = (0, b"")
    _ranges: dict[int, bytes] = field(default_factory=dict)  # prefetched: start -> bytes
    _starts: list[int] = field(default_factory=list)  # sorted keys of _ranges

    def prefetch(self, ranges: Sequence[tuple[int, int]]) -> None:
        """Fetch these ``[start, end)`` ranges at once (fsspec ``cat_ranges``, concurrent on s3)."""
        wanted = [(a, min(b, self.size or b)) for a, b in ranges if a < (self.size or b)]
        if not wanted:
            return
        n = len(wanted)
        try:
            got = self.fs.cat_ranges(
                [self.fs_path] * n, [a for a, _ in wanted], [b for _, b in wanted]
            )
        except Exception as exc:  # each backend has its own errors
            raise InputError(f"read failed: {type(exc).__name__}: {exc}", path=self.path) from exc
        for (a, _), data in zip(wanted, got, strict=True):
            if isinstance(data, Exception):
                raise InputError(f"read failed: {data}", path=self.path)
            self._ranges[a] = data
        self._starts = sorted(self._ranges)

    def forget(self) -> None:
        """Drop the prefetched ranges (the task that asked for them is done)."""
        self._ranges.clear()
        self._starts = []

    def read_at(self, offset: int, n: int) -> bytes:
        """Bytes ``[offset, offset+n)`` (fewer at the end of the object)."""
        if self.stop_check is not None and (stop := self.stop_check()) is not None:
            from logagent.sources.files import ReadStopped

            raise ReadStopped(stop[1], stop[0])
        assert self.size is not None
        want = min(offset + n, self.size)
        start, data = self._held(offset, want)
        if not (start <= offset and want <= start + len(data)):
            end = min(self.size, offset + max(n, MIN_FETCH))
            start, data = offset, self._fetch(offset, end)
            self._block = (start, data)
        return data[offset - start : offset - start + n]

    def _held(self, offset: int, want: int) -> tuple[int, bytes]:
        """A fetched block holding ``[offset, want)``, or the last block."""
        k = bisect.bisect_right(self._starts, offset) - 1
        if k >= 0:
            start = self._starts[k]
            data = self._ranges[start]
            if want <= start + len(data):
                return start, data
        return self._block

    def read_into(self, offset: int, view: memoryview) -> int:
        """Fill ``view`` from ``offset``; returns the bytes read."""
        assert self.size is not None
        end = min(self.size, offset + len(view))
        data = self._fetch(offset, end) if end > offset else b""
        view[: len(data)] = data
        return len(data)

    def _fetch(self, start: int, end: int) -> bytes:
        try:
            data: bytes = self.fs.cat_file(self.fs_path, start=start, end=end)
        except FileNotFoundError as exc:
            raise InputNotFound("the object vanished while it was read", path=self.path) from exc
        except OSError as exc:
            raise InputError(f"read failed: {exc}", path=self.path) from exc
        if len(data) < end - start:
            self._check_short(start + len(data))
        return data

    def close(self) -> None:
        """Nothing is held open (each read is a request)."""
        self._block = (0, b"")
        self.forget()


def open_input(path: str) -> Source:
    """Open one input, a local path or a URL; errors are ``InputError`` with the path."""
    if not is_url(path):
        return open_source(path)
    import fsspec

    try:
        fs, fs_path = fsspec.core.url_to_fs(path)
        info = fs.info(fs_path)
    except FileNotFoundError as exc:
        raise InputNotFound("no such object", path=path) from exc
    except Exception as exc:  # each fsspec backend has its own errors (botocore: no credentials)
        raise InputError(f"cannot open: {type(exc).__name__}: {exc}", path=path) from exc
    if info.get("type") == "directory":
        raise InputError("is a directory (prefix), not a log object", path=path)
    size = int(info["size"])
    head = fs.cat_file(fs_path, start=0, end=min(4, size)) if size else b""
    kind = kind_of(head)
    if kind is not None:
        return _open_stream(path, kind, fs.open(fs_path, "rb"))
    return RemoteSource(path, seekable=True, size=size, compression=None, fs=fs, fs_path=fs_path)


def open_inputs(paths: Sequence[str]) -> list[Source]:
    """Open every input for a run whose tasks open them again on the workers.

    Standard input and pipes exist only in this process: a worker cannot read them.
    """
    if STDIN in paths:
        raise ConfigError("standard input cannot be read by Dask workers: name a file or URL")
    sources: list[Source] = []
    try:
        for path in resolve_inputs(list(paths)):
            if not is_url(path) and reads_once(path):  # refused before its open waits
                raise ConfigError(
                    "a pipe or FIFO cannot be read by Dask workers: name a file or URL",
                    path=path,
                )
            sources.append(open_input(path))
            if not sources[-1].seekable and sources[-1].compression is None:
                raise ConfigError(
                    "a pipe or FIFO cannot be read by Dask workers: name a file or URL",
                    path=path,
                )
    except BaseException:
        for source in sources:
            source.close()
        raise
    return sources


def resolve_inputs(paths: list[str]) -> list[str]:
    """Local paths and globs as the local engine resolves them; URL globs by fsspec."""
    out: list[str] = []
    local = [p for p in paths if not is_url(p)]
    out.extend(resolve_paths(local) if local else [])
    for url in (p for p in paths if is_url(p)):
        if not any(c in url for c in "*?["):
            out.append(url)
            continue
        import fsspec

        fs, fs_path = fsspec.core.url_to_fs(url)
        protocol = url.split("://", 1)[0]
        found = sorted(fs.glob(fs_path))
        if not found:
            raise InputNotFound("no object matches this pattern", path=url)
        out.extend(f"{protocol}://{p}" for p in found)
    return out


_KEPT: OrderedDict[tuple[int, InputSpec], Source] = OrderedDict()


def worker_source(spec: InputSpec) -> Source:
    """The input as a worker reads it, opened once per process (checked against the plan)."""
    key = (os.getpid(), spec)
    kept = _KEPT.get(key)
    if kept is not None and kept.seekable:
        _KEPT.move_to_end(key)
        return kept
    source = open_input(spec.path)
    if spec.size is not None and source.size != spec.size:
        raise InputError(
            f"the input holds {source.size} bytes on this worker, {spec.size} when planned",
            path=spec.path,
        )
    if source.seekable:
        _KEPT[key] = source
        while len(_KEPT) > MAX_KEPT:
            _KEPT.popitem(last=False)[1].close()
    return source
