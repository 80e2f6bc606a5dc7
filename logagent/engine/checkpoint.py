"""Checkpoints: a run's counts and reading position, saved and read back.

A checkpoint holds what a run needs to go on exactly where it stopped: the
accumulated tally, the units read (in reading order and batch by batch while
sampling, so the evidence can be replayed from the per-unit counts without
reading them again; as a set once reading everything), the permutation seed,
the question, the configuration, the decision trace and a fingerprint of each
input (a resumed run refuses an input that changed).

The pure part turns a ``Checkpoint`` into one Arrow table (rows tagged by
``kind``) with the rest of the state as JSON in the schema metadata, and back;
``seal``/``unseal`` wrap the Arrow IPC bytes in a header (magic, format
version, payload length, SHA-256 of the payload) that is checked before
pyarrow or Polars parse a byte, so a damaged file never reaches native code.
The edge (``save``/``load``) writes the file atomically (temp file, fsync,
rename) and maps every failure to read one to ``CheckpointError``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import polars as pl

from logagent.atomic import replace_atomically, try_lock
from logagent.counters.tally import (
    COUNTS_SCHEMA,
    ROUTE,
    TIMELINE_SCHEMA,
    UNIT,
    UNIT_BUCKETS_SCHEMA,
    UNITS_SCHEMA,
    N,
    Tally,
)
from logagent.errors import ConfigError, InputError
from logagent.formats.base import BUCKET, STATUS
from logagent.model import Model, error_text, is_validation_error
from logagent.result import Question
from logagent.sources.batches import I64

MAGIC = "logagent-checkpoint"
VERSION = 2  # 1: a bare Arrow IPC file, no checksum
FILE_MAGIC = b"LGACKPT\n"  # a newline, so a text-mode copy that mangles it is caught
_HEADER = struct.Struct(">8sHQ32s")  # magic, version, payload length, SHA-256 of the payload
_ARROW_MAGIC = b"ARROW1"
_META = b"logagent"
KIND = "kind"
_COUNT, _ERRORS, _REQUESTS, _BATCH, _DONE = "count", "unit_error", "unit_request", "batch", "done"
_TIMELINE, _UNIT_BUCKET = "timeline", "unit_bucket"
HEAD_BYTES = 64 << 10

if TYPE_CHECKING:
    import pyarrow as pa


@cache
def _schema() -> pa.Schema:
    """The table's schema (pyarrow is imported only when a checkpoint is written or read)."""
    import pyarrow as pa

    return pa.schema(
        [
            (KIND, pa.string()),
            (UNIT, pa.int64()),
            (ROUTE, pa.string()),
            (STATUS, pa.int32()),
            (N, pa.int64()),
        ]
    )


class CheckpointError(InputError):
    """A checkpoint is missing, corrupt, truncated, or does not fit its input."""


@dataclass(frozen=True)
class Fingerprint:
    """What identifies an input: its size, a hash of its first bytes, and its modification
    time and inode (None in a checkpoint written before they were kept). A file edited in place
    past its first bytes, its size kept, had been resumed "exact" over a mix of both files."""

    path: str
    size: int | None
    head: str
    mtime_ns: int | None = None
    inode: int | None = None

    def same_input(self, other: Fingerprint) -> bool:
        """Whether ``other`` (the input now) is this one; a time or inode either lacks is not
        compared."""
        if (self.path, self.size, self.head) != (other.path, other.size, other.head):
            return False
        pairs = ((self.mtime_ns, other.mtime_ns), (self.inode, other.inode))
        return all(a == b for a, b in pairs if a is not None and b is not None)


@dataclass(frozen=True)
class Checkpoint:
    """Everything a run needs to go on where it stopped."""

    question: dict[str, Any]
    settings: dict[str, Any]
    paths: tuple[str, ...]
    inputs: tuple[Fingerprint, ...]
    seed: int
    phase: str  # "sampled": the early-stop read; "full": reading everything
    order: str  # reading order of the full phase: "sequential" or "random"
    unit_size: int
    tally: Tally
    batches: tuple[I64, ...] = ()  # sampled phase: the units of each batch, in reading order
    done: I64 = field(default_factory=lambda: np.zeros(0, np.int64))  # full phase: units counted
    decisions: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()
    ladder: tuple[str, ...] = ()  # memory steps taken (Router-Mem DEGRADE)
    elapsed_s: float = 0.0
    cpu_s: float = 0.0
    evidence_s: float = 0.0

    @property
    def units_read(self) -> int:
        """Units whose counts the checkpoint holds."""
        return sum(len(b) for b in self.batches) if self.phase == "sampled" else len(self.done)


def encode(cp: Checkpoint) -> pa.Table:
    """The checkpoint as one Arrow table, its scalar state in the schema metadata (PURE)."""
    t = cp.tally
    parts = [
        t.counts.select(
            pl.lit(_COUNT).alias(KIND), pl.lit(None, pl.Int64).alias(UNIT), ROUTE, STATUS, N
        ),
        _unit_rows(t.unit_errors, _ERRORS),
        _unit_rows(t.unit_requests, _REQUESTS),
        _unit_rows(t.timeline.rename({BUCKET: UNIT}), _TIMELINE),  # the bucket in the unit column
        _unit_rows(  # the bucket as text in the route column
            t.unit_buckets.select(UNIT, pl.col(BUCKET).cast(pl.String).alias(ROUTE), N),
            _UNIT_BUCKET,
        ),
        _positions(cp.batches, _BATCH),
        _positions((cp.done,), _DONE),
    ]
    frame = pl.concat(parts, how="vertical_relaxed")
    meta = {
        "magic": MAGIC,
        "version": VERSION,
        "question": cp.question,
        "settings": cp.settings,
        "paths": list(cp.paths),
        "inputs": [vars(f) for f in cp.inputs],
        "seed": cp.seed,
        "phase": cp.phase,
        "order": cp.order,
        "unit_size": cp.unit_size,
        "scalars": t.scalars(),
        "decisions": list(cp.decisions),
        "warnings": list(cp.warnings),
        "ladder": list(cp.ladder),
        "elapsed_s": cp.elapsed_s,
        "cpu_s": cp.cpu_s,
        "evidence_s": cp.evidence_s,
    }
    table = frame.to_arrow().cast(_schema())
    return table.replace_schema_metadata({_META: json.dumps(meta).encode()})


def decode(table: pa.Table) -> Checkpoint:
    """The checkpoint an Arrow table holds (PURE); CheckpointError when it is not one of ours."""
    raw = (table.schema.metadata or {}).get(_META)
    if raw is None:
        raise CheckpointError("not a logagent checkpoint (no logagent metadata)")
    meta = _metadata(raw)
    if not table.schema.equals(_schema(), check_metadata=False):
        raise CheckpointError("checkpoint columns are not the expected ones")
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    rows = frame.partition_by(KIND, as_dict=True)
    empty = frame.clear()

    def part(kind: str) -> pl.DataFrame:
        return rows.get((kind,), empty)

    tally = Tally(
        counts=part(_COUNT).select(ROUTE, STATUS, N).cast(COUNTS_SCHEMA),  # type: ignore[arg-type]
        unit_errors=part(_ERRORS).select(UNIT, ROUTE, N).cast(UNITS_SCHEMA),  # type: ignore[arg-type]
        unit_requests=part(_REQUESTS).select(UNIT, ROUTE, N).cast(UNITS_SCHEMA),  # type: ignore[arg-type]
        timeline=part(_TIMELINE).select(pl.col(UNIT).alias(BUCKET), ROUTE, N).cast(TIMELINE_SCHEMA),  # type: ignore[arg-type]
        unit_buckets=part(_UNIT_BUCKET)
        .select(UNIT, pl.col(ROUTE).cast(pl.Int64).alias(BUCKET), N)
        .cast(UNIT_BUCKETS_SCHEMA),  # type: ignore[arg-type]
        **{k: int(v) for k, v in meta["scalars"].items()},
    )
    batch_rows = part(_BATCH)
    batches = tuple(
        g[UNIT].to_numpy().astype(np.int64)
        for _, g in sorted(batch_rows.group_by(N, maintain_order=True), key=lambda kv: kv[0])
    )
    return Checkpoint(
        question=meta["question"],
        settings=meta["settings"],
        paths=tuple(meta["paths"]),
        inputs=tuple(Fingerprint(**f) for f in meta["inputs"]),
        seed=int(meta["seed"]),
        phase=str(meta["phase"]),
        order=str(meta["order"]),
        unit_size=int(meta["unit_size"]),
        tally=tally,
        batches=batches,
        done=part(_DONE)[UNIT].to_numpy().astype(np.int64),
        decisions=tuple(meta["decisions"]),
        warnings=tuple(meta["warnings"]),
        ladder=tuple(meta["ladder"]),
        elapsed_s=float(meta["elapsed_s"]),
        cpu_s=float(meta["cpu_s"]),
        evidence_s=float(meta["evidence_s"]),
    )


@dataclass(frozen=True, kw_only=True)
class _Meta(Model):
    """The JSON a checkpoint keeps in its schema metadata: checked (by pydantic) before use."""

    magic: Literal["logagent-checkpoint"]
    version: int
    question: dict[str, Any]
    settings: dict[str, Any]
    paths: list[str]
    inputs: list[Fingerprint]
    seed: int
    phase: Literal["sampled", "full", "degraded"]
    order: str
    unit_size: int
    scalars: dict[str, int]
    decisions: list[dict[str, Any]]
    warnings: list[str]
    ladder: list[str]
    elapsed_s: float
    cpu_s: float
    evidence_s: float


def _metadata(raw: bytes) -> dict[str, Any]:
    """The checked metadata; CheckpointError for anything that is not what ``encode`` wrote."""
    try:
        meta = _Meta.model_validate_json(raw)
        Question.model_validate(meta.question)
    except ValueError as exc:
        if not is_validation_error(exc):
            raise
        first = exc.errors()[0]  # type: ignore[attr-defined]
        where = ".".join(str(p) for p in first["loc"]) or "metadata"
        raise CheckpointError(
            f"corrupt checkpoint metadata ({where}: {error_text(first)})"
        ) from exc
    if meta.version != VERSION:
        raise CheckpointError(
            f"checkpoint version {meta.version} is not supported (this logagent reads "
            f"version {VERSION}); start a new run"
        )
    out = meta.model_dump()
    return out


def seal(payload: bytes) -> bytes:
    """The checkpoint file's bytes: a header that lets ``unseal`` check them, then the payload."""
    digest = _sha256(payload)
    return _HEADER.pack(FILE_MAGIC, VERSION, len(payload), digest) + payload


def unseal(data: bytes) -> bytes:
    """The payload of a checkpoint file, checked (PURE); CheckpointError if damaged or foreign."""
    if not data:
        raise CheckpointError("empty file, not a checkpoint")
    if data.startswith(_ARROW_MAGIC):
        raise CheckpointError(
            "checkpoint in the old format (version 1, without a checksum), which this "
            "logagent no longer reads; start a new run"
        )
    if not data.startswith(FILE_MAGIC):
        raise CheckpointError("not a logagent checkpoint (no checkpoint header)")
    if len(data) < _HEADER.size:
        raise CheckpointError("truncated checkpoint (the header is cut short)")
    _, version, length, digest = _HEADER.unpack_from(data)
    if version != VERSION:
        raise CheckpointError(
            f"checkpoint format version {version} is not supported (this logagent reads "
            f"version {VERSION}); start a new run"
        )
    payload = data[_HEADER.size :]
    if len(payload) != length:
        cut = "truncated" if len(payload) < length else "has trailing bytes"
        raise CheckpointError(
            f"checkpoint {cut} ({len(payload)} bytes after the header, {length} expected)"
        )
    if _sha256(payload) != digest:
        raise CheckpointError("checkpoint is damaged (its SHA-256 checksum does not match)")
    return payload


def _unit_rows(frame: pl.DataFrame, kind: str) -> pl.DataFrame:
    return frame.select(
        pl.lit(kind).alias(KIND), UNIT, ROUTE, pl.lit(None, pl.Int32).alias(STATUS), N
    )


def _positions(groups: tuple[I64, ...], kind: str) -> pl.DataFrame:
    units = np.concatenate(groups) if groups else np.zeros(0, np.int64)
    index = np.repeat(np.arange(len(groups), dtype=np.int64), [len(g) for g in groups])
    return pl.DataFrame(
        {
            KIND: pl.Series([kind] * len(units), dtype=pl.String),
            UNIT: pl.Series(units, dtype=pl.Int64),
            ROUTE: pl.Series([None] * len(units), dtype=pl.String),
            STATUS: pl.Series([None] * len(units), dtype=pl.Int32),
            N: pl.Series(index, dtype=pl.Int64),
        }
    )


def head_hash(data: bytes) -> str:
    """The fingerprint hash of an input's first bytes."""
    return _sha256(data).hex()


def _sha256(data: bytes) -> bytes:
    """The SHA-256 digest of ``data``. hashlib is imported here, not with the module: it maps
    OpenSSL's libcrypto (3.3 MiB of a run's RSS, ~4 ms), and only runs that keep or resume a
    checkpoint hash anything (the engine imports this module on every run)."""
    import hashlib

    return hashlib.sha256(data).digest()


# --- edge: files ---------------------------------------------------------------------------


def save(path: str, cp: Checkpoint) -> None:
    """Write the checkpoint atomically: a reader sees the old file or the new one, never a mix."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    path = os.path.realpath(path)  # a symlink: write its target, the link stays
    table = encode(cp)
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = seal(sink.getvalue().to_pybytes())
    replace_atomically(path, data, mode=0o600)  # a checkpoint holds counts of private logs


def load(path: str) -> Checkpoint:
    """Read a checkpoint; CheckpointError (exit 2) for a missing, corrupt or foreign file."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    try:
        payload = unseal(_read(path))
        table = ipc.open_file(pa.BufferReader(payload)).read_all()
        return decode(table)
    except CheckpointError as exc:
        raise CheckpointError(exc.message, path=path) from exc
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint ({exc})", path=path) from exc
    except (KeyError, TypeError, pl.exceptions.PolarsError) as exc:
        raise CheckpointError(
            f"corrupt checkpoint ({type(exc).__name__}: {exc})", path=path
        ) from exc


@contextlib.contextmanager
def held(path: str) -> Iterator[None]:
    """The checkpoint at ``path`` for this run alone, while it runs: an exclusive lock on
    ``path.lock`` (a checkpoint is replaced by a rename, which a lock on it would not
    survive); another run holding it is a ConfigError. Two runs had both written there, and
    both said "progress saved": one's work was lost. A folder where no lock can be made
    (read-only) leaves the run without one: its saves fail there anyway, and say so.

    A lock file is never written, so one that holds bytes is someone's file of that name:
    it is locked as it is and left there (removing it at the end had deleted it)."""
    lock = f"{os.path.realpath(path)}.lock"  # a link to the file and the file: one lock
    fd = _lock_file(lock, path)
    if fd is None:
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # still held: no other run has it meanwhile
            if os.fstat(fd).st_size == 0:
                os.unlink(lock)
        os.close(fd)


def _lock_file(lock: str, path: str) -> int | None:
    """An open descriptor of ``lock`` locked by this process (None: none can be made)."""
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None
        try:
            free = try_lock(fd)
            there = os.stat(lock) if free else None
        except OSError as exc:
            os.close(fd)
            if exc.errno == errno.ENOENT:  # its holder ended and removed it: lock anew
                continue
            return None
        if there is None:
            os.close(fd)
            raise ConfigError(
                "--checkpoint: another run is using this checkpoint; wait for it to end or "
                "name another file",
                path=path,
            )
        if os.fstat(fd).st_ino == there.st_ino:
            return fd
        os.close(fd)  # removed and made again meanwhile: that one is the lock


def check_replaceable(path: str) -> None:
    """Refuse (ConfigError) a ``--checkpoint`` path that holds something else than a
    checkpoint: saving would replace it (a log named by mistake was lost so). A new path, an
    empty file and a checkpoint (this logagent's, or one it no longer reads) are fine."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(FILE_MAGIC))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"--checkpoint: cannot read it ({exc.strerror})", path=path) from exc
    if head and not (head.startswith((FILE_MAGIC, _ARROW_MAGIC)) or FILE_MAGIC.startswith(head)):
        raise ConfigError(
            "--checkpoint: the file holds something else than a logagent checkpoint, which "
            "saving would replace; name a new file (or remove this one)",
            path=path,
        )


def _read(path: str) -> bytes:
    """The file's bytes; CheckpointError when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError as exc:
        raise CheckpointError("no such checkpoint file") from exc
    except IsADirectoryError as exc:
        raise CheckpointError("is a directory, not a checkpoint file") from exc
    except PermissionError as exc:
        raise CheckpointError("no permission to read the checkpoint") from exc
    except OSError as exc:
        raise CheckpointError(f"cannot read the checkpoint ({exc.strerror})") from exc


@dataclass(frozen=True)
class CheckpointFile:
    """A checkpoint sink writing one file (the run's ``--checkpoint FILE``)."""

    path: str

    def save(self, cp: Checkpoint) -> None:
        """Replace the file with ``cp``, atomically."""
        save(self.path, cp)

    def discard(self) -> None:
        """Remove the file: the run finished, nothing is left to resume."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def fingerprint(path: str) -> Fingerprint:
    """Size and head hash of the file at ``path`` (stdin and pipes: no size, not resumable)."""
    if path == "-":
        return Fingerprint(path, None, "")
    try:
        st = os.stat(path)
        if not os.path.isfile(path):
            return Fingerprint(path, None, "")
        with open(path, "rb") as f:
            head = head_hash(f.read(HEAD_BYTES))
        return Fingerprint(os.path.abspath(path), st.st_size, head, st.st_mtime_ns, st.st_ino)
    except OSError:
        return Fingerprint(path, None, "")
