"""The state of one cron job in SQLite (EDGE: a file, a lock).

One file per job (``--state``; by default under ``$XDG_STATE_HOME/logagent/``),
in WAL mode. It holds:

* ``meta``: what the file is (``app``), its schema, and the job it was made
  for (question, format, bucket width) — a later run asking something else
  is refused rather than mixing counts of two questions;
* ``files``: per watched path, the identity of the file followed (device,
  inode, a hash of the first bytes of its content and how many) and the
  content offset read up to;
* ``known``: the heads of the files read lately (a sibling written since
  the last run whose head is not among them was born and rotated between
  two runs, and is read whole);
* ``ends``: how far the finished files (rotated away, read to their end) were read,
  by head: a logger that still writes to its old file after the rotation (Apache's
  graceful restart, ``delaycompress``) has those lines read by the next run;
* ``runs``: per run its time, the slices it read and a summary of its result;
* ``buckets``: the time-bucketed tallies, summed over runs: (start of the
  records' own time bucket, key, status/level) -> n; the pieces a windowed
  answer merges (``window_rows``);
* ``scalars``: each run's line counters (lines, bytes, malformed, ...; a
  line the question skips unparsed has no time, so these are kept by run).

A run's bucket rows and counters, its ``runs`` row and the new offsets are
written in one transaction (``commit_run``): a crash at any point leaves the
slice counted once or not at all (a power loss may undo the last commits
whole, ``synchronous=NORMAL``: the next run then reads those slices again).
Overlap is prevented by ``fcntl.flock`` on the state file itself
(``open_state``): the lock dies with its process, so a state "locked" by a
dead run is simply free again, and SQLite rolls back whatever that run had
not committed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from logagent.atomic import try_lock
from logagent.errors import LogagentError

APP = "logagent-cron"
SCHEMA = 2  # 2: tallies by the records' time bucket (1 kept them by run)
SQLITE_MAGIC = b"SQLite format 3\x00"
KNOWN_KEPT = 256  # heads of files read lately, kept to tell a new file from a moved one
TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, dev INTEGER NOT NULL, ino INTEGER NOT NULL,
    head_hash TEXT NOT NULL, head_size INTEGER NOT NULL, offset INTEGER NOT NULL,
    seen_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS known (
    head_hash TEXT NOT NULL, head_size INTEGER NOT NULL, seen_ns INTEGER NOT NULL,
    PRIMARY KEY (head_hash, head_size)
);
CREATE TABLE IF NOT EXISTS ends (
    head_hash TEXT NOT NULL, head_size INTEGER NOT NULL, end_offset INTEGER NOT NULL,
    seen_ns INTEGER NOT NULL, PRIMARY KEY (head_hash, head_size)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, time_s REAL NOT NULL, slices TEXT NOT NULL, result TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS buckets (
    bucket INTEGER NOT NULL, route TEXT NOT NULL, status INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (bucket, route, status)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS scalars (
    run_id INTEGER NOT NULL, name TEXT NOT NULL, n INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS scalars_run ON scalars (run_id);
"""


_ENDS_TABLE = TABLES[TABLES.index("CREATE TABLE IF NOT EXISTS ends") :].split(";")[0] + ";"


class StateError(LogagentError):
    """The state file cannot be used: corrupt, foreign, or made for another job (exit 2)."""


class StateLocked(LogagentError):
    """Another run holds the state's lock (exit 75, EX_TEMPFAIL)."""


@dataclass(frozen=True)
class FileState:
    """The file followed at ``path``: its identity and the content offset read up to."""

    path: str
    dev: int
    ino: int
    head_hash: str
    head_size: int
    offset: int
    seen_ns: int = 0  # when it was read (the clock of the file system's mtimes)


@dataclass(frozen=True)
class RunRecord:
    """One run's stored tally, as rows (see ``commit_run``)."""

    time_s: float
    slices: list[dict[str, Any]]
    result: dict[str, Any]
    buckets: list[tuple[int, str, int, int]]  # (bucket start, key, status, n)
    scalars: dict[str, int]


def default_state_path(name: str) -> str:
    """``$XDG_STATE_HOME/logagent/NAME.sqlite`` (``~/.local/state`` when unset)."""
    home = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(home, "logagent", f"{name}.sqlite")


class State:
    """An open, locked state file; use through ``open_state``."""

    def __init__(self, path: str, db: sqlite3.Connection) -> None:
        self.path = path
        self.db = db

    # -- meta -------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        """A ``meta`` value, or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def job(self) -> dict[str, Any] | None:
        """The job the state was made for (None for a new state)."""
        text = self.meta("job")
        return None if text is None else dict(json.loads(text))

    # -- files ------------------------------------------------------------
    def files(self) -> dict[str, FileState]:
        """Every watched path's file state."""
        rows = self.db.execute(
            "SELECT path, dev, ino, head_hash, head_size, offset, seen_ns FROM files"
        )
        return {r[0]: FileState(*r) for r in rows}

    def known(self) -> list[tuple[str, int]]:
        """(head hash, head size) of the files read lately."""
        rows = self.db.execute("SELECT head_hash, head_size FROM known")
        return [(str(h), int(n)) for h, n in rows]

    def ends(self) -> dict[tuple[str, int], int]:
        """How far each finished file read lately was read, by (head hash, head size)."""
        rows = self.db.execute("SELECT head_hash, head_size, end_offset FROM ends")
        return {(str(h), int(n)): int(e) for h, n, e in rows}

    # -- runs -------------------------------------------------------------
    def commit_run(
        self,
        run: RunRecord,
        files: list[FileState],
        meta: Sequence[tuple[str, str]] = (),
        known: Sequence[tuple[str, int, int]] = (),
        ends: Sequence[tuple[str, int, int, int]] = (),
    ) -> int:
        """Store a run's tally, the new offsets, ``meta``, ``known`` heads and the ``ends`` of
        finished files in one transaction."""
        with self.db:  # BEGIN ... COMMIT, or ROLLBACK on any failure (or none, if killed)
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(meta))
            self.db.executemany("INSERT OR REPLACE INTO known VALUES (?, ?, ?)", list(known))
            self.db.executemany("INSERT OR REPLACE INTO ends VALUES (?, ?, ?, ?)", list(ends))
            self.db.execute(
                "DELETE FROM ends WHERE rowid NOT IN "
                "(SELECT rowid FROM ends ORDER BY seen_ns DESC LIMIT ?)",
                (KNOWN_KEPT,),
            )
            self.db.execute(
                "DELETE FROM known WHERE rowid NOT IN "
                "(SELECT rowid FROM known ORDER BY seen_ns DESC LIMIT ?)",
                (KNOWN_KEPT,),
            )
            cur = self.db.execute(
                "INSERT INTO runs (time_s, slices, result) VALUES (?, ?, ?)",
                (run.time_s, json.dumps(run.slices), json.dumps(run.result)),
            )
            run_id = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO buckets VALUES (?, ?, ?, ?) ON CONFLICT (bucket, route, status) "
                "DO UPDATE SET n = n + excluded.n",
                run.buckets,
            )
            self.db.executemany(
                "INSERT INTO scalars VALUES (?, ?, ?)",
                [(run_id, k, v) for k, v in run.scalars.items() if v],
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (f.path, f.dev, f.ino, f.head_hash, f.head_size, f.offset, f.seen_ns)
                    for f in files
                ],
            )
        return run_id

    def runs(self, since_s: float | None = None) -> list[tuple[int, float, dict[str, Any]]]:
        """(id, time, result summary) of the runs at or after ``since_s``, oldest first."""
        rows = self.db.execute(
            "SELECT id, time_s, result FROM runs WHERE time_s >= ? ORDER BY id",
            (float("-inf") if since_s is None else since_s,),
        )
        return [(int(r[0]), float(r[1]), dict(json.loads(r[2]))) for r in rows]

    def runs_with(self, key: str) -> list[tuple[int, float, dict[str, Any]]]:
        """(id, time, result summary) of the runs whose summary holds ``key``, oldest first
        (SQLite selects them: the runs' rows are kept for good, one a run)."""
        rows = self.db.execute(
            "SELECT id, time_s, result FROM runs WHERE json_extract(result, ?) IS NOT NULL "
            "ORDER BY id",
            (f"$.{key}",),
        )
        return [(int(r[0]), float(r[1]), dict(json.loads(r[2]))) for r in rows]

    def last_run(self) -> tuple[int, float, dict[str, Any]] | None:
        """The latest run, if any."""
        row = self.db.execute("SELECT id, time_s, result FROM runs ORDER BY id DESC").fetchone()
        return None if row is None else (int(row[0]), float(row[1]), dict(json.loads(row[2])))

    def window_rows(
        self, lo: int | None = None, hi: int | None = None
    ) -> list[tuple[int, str, int, int]]:
        """The bucket rows with ``lo <= bucket < hi`` (None: unbounded), merged over runs."""
        rows = self.db.execute(
            "SELECT bucket, route, status, n FROM buckets WHERE bucket >= ? AND bucket < ?",
            (-(2**62) if lo is None else lo, 2**62 if hi is None else hi),
        )
        return [(int(b), str(r), int(s), int(n)) for b, r, s, n in rows]

    def scalars(self, run_ids: list[int]) -> dict[str, int]:
        """The summed line counters of the runs ``run_ids``."""
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS pick (id INTEGER PRIMARY KEY)")
        self.db.execute("DELETE FROM pick")
        self.db.executemany("INSERT INTO pick VALUES (?)", [(i,) for i in run_ids])
        rows = self.db.execute(
            "SELECT name, SUM(n) FROM scalars JOIN pick ON run_id = pick.id GROUP BY name"
        )
        return {str(k): int(v) for k, v in rows}

    def prune(self, before_s: float, before_bucket: int) -> int:
        """Drop the buckets before ``before_bucket`` and the counters of runs before ``before_s``.

        The ``runs`` rows stay (``--status``, the previous run's top keys).
        """
        with self.db:
            n = self.db.execute("DELETE FROM buckets WHERE bucket < ?", (before_bucket,)).rowcount
            n += self.db.execute(
                "DELETE FROM scalars WHERE run_id IN (SELECT id FROM runs WHERE time_s < ?)",
                (before_s,),
            ).rowcount
        return n


def check_file(path: str) -> None:
    """A state file that exists must be a SQLite database (never overwrite anything else)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise StateError("--state names a directory; name a file", path=path) from None
    except OSError as exc:
        raise StateError(f"cannot read the state file ({exc.strerror})", path=path) from exc
    if head and head != SQLITE_MAGIC:
        raise StateError(
            "not a logagent cron state file (not SQLite); it was left as it is: "
            "name another --state",
            path=path,
        )


@contextmanager
def open_state(
    path: str, *, create: bool = True, lock: bool = True, make_folder: bool = False
) -> Iterator[State]:
    """The state at ``path``, locked for this process (``StateLocked`` if another holds it).

    ``lock=False`` (``--status``): read it beside a running job (WAL readers do not block).
    ``make_folder``: create a missing folder (the default location); a missing
    folder of a path the user named is an error.
    """
    check_file(path)
    if not create and not os.path.exists(path):
        raise StateError("no state yet (no run has used this --state)", path=path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        if make_folder:
            os.makedirs(folder, exist_ok=True)
        elif not os.path.isdir(folder):
            raise StateError(f"--state: the folder {folder} does not exist", path=path)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StateError(f"cannot open the state file ({exc.strerror})", path=path) from exc
    try:
        if lock:
            _lock(fd, path)
        db = _connect(path)
        try:
            yield State(path, db)
        except sqlite3.DatabaseError as exc:  # said, not a "bug": SQLite undid the transaction
            raise _state_error(exc, path) from exc
        finally:
            db.close()
    finally:
        os.close(fd)  # after SQLite's own descriptor: closing ours first would drop its locks


def _lock(fd: int, path: str) -> None:
    try:
        free = try_lock(fd)
    except OSError as exc:
        raise StateError(f"cannot lock the state file ({exc.strerror})", path=path) from exc
    if not free:
        raise StateLocked(
            "another `logagent cron` run holds this state; this run changed nothing "
            "(it exits with 75, EX_TEMPFAIL: try again later)",
            path=path,
        )


#: Seconds a run waits for a transaction another process holds on the state (``_connect``).
BUSY_WAIT = 2.0
#: SQLite's primary result codes of a write the file system refused (permission, read-only,
#: I/O error, full, cannot open, no large files): the state is not corrupt, and --reset would
#: throw its counts away for nothing.
_CANNOT_WRITE = frozenset({3, 8, 10, 13, 14, 22})


#: SQLite's primary result codes of a database another connection holds (BUSY, LOCKED): a
#: ``sqlite3`` shell or a backup script in a transaction on the state.
_HELD = frozenset({5, 6})
#: ... and of a damaged or foreign file (CORRUPT, NOTADB), found past its first pages.
_CORRUPT = frozenset({11, 26})


def _state_error(exc: sqlite3.DatabaseError, path: str) -> Exception:
    """What a SQLite error during a run means for the user (``exc`` itself: a bug)."""
    code = _primary_code(exc)
    if code in _HELD:
        return StateLocked(
            f"another process holds the state file's database ({exc}: a sqlite3 shell, a "
            "backup); this run changed nothing (it exits with 75, EX_TEMPFAIL: try again later)",
            path=path,
        )
    if code in _CANNOT_WRITE:  # a write the disk refused
        return StateError(
            f"cannot write the state file ({exc}); SQLite commits a run whole or not at "
            "all, so the state was left consistent: free space (or fix its access) and run "
            "again, and the lines not committed are read then",
            path=path,
        )
    if code in _CORRUPT:
        return StateError(
            f"the state file is corrupt ({exc}); this run changed nothing in it: move it "
            "away or use --reset",
            path=path,
        )
    return exc


def _primary_code(exc: sqlite3.Error) -> int | None:
    """The primary result code of a SQLite error (its extended code's low byte)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _connect(path: str) -> sqlite3.Connection:
    """Open and check the database; a corrupt or foreign one is a ``StateError``."""
    try:
        # a transaction another process holds (a backup) is waited for a little
        db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_WAIT)
        db.isolation_level = "DEFERRED"  # `with db:` opens and commits transactions
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if names:  # checked before anything is written: a foreign file stays byte for byte
            _check_meta(db)
        db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: no fsync per commit (a small run's largest wait on a busy disk). A
        # killed process loses nothing committed; a power loss may undo the last runs whole,
        # their counts with their offsets, so the next run reads those slices again: still once.
        db.execute("PRAGMA synchronous=NORMAL")
        if not names:  # one transaction: a run killed here leaves an empty, new state
            db.executescript(
                f"BEGIN; {TABLES} INSERT INTO meta VALUES ('app', '{APP}'), "
                f"('schema', '{SCHEMA}'); COMMIT;"
            )
        _check_meta(db)
        if "ends" not in names and names:  # a state made before the table was: added
            db.executescript(f"BEGIN; {_ENDS_TABLE} COMMIT;")
    except sqlite3.DatabaseError as exc:
        if _primary_code(exc) in _CANNOT_WRITE:  # a full disk is no reason to --reset
            raise StateError(
                f"cannot use the state file ({exc}); it was left as it is and nothing was "
                "read: free space (or fix its access) and run again",
                path=path,
            ) from exc
        raise StateError(
            f"the state file is corrupt or unreadable ({exc}); it was left as it is: "
            "move it away or use --reset",
            path=path,
        ) from exc
    except StateError as exc:
        raise StateError(exc.message, path=path) from exc
    return db


def _check_meta(db: sqlite3.Connection) -> None:
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in names:
        raise StateError("a SQLite file, but not a logagent cron state; it was left as it is")
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("app") != APP:
        raise StateError("a SQLite file, but not a logagent cron state; it was left as it is")
    if str(meta.get("schema")) != str(SCHEMA):
        raise StateError(
            f"state schema {meta.get('schema')} is not {SCHEMA} (made by another version); "
            "it was left as it is: --reset starts over, or name another --state"
        )
