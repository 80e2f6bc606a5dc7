"""Jobs and their results, kept in SQLite in the data directory (EDGE: sqlite3).

One table, one row per job; the result is the schema-v1 JSON the engine
returned. WAL mode: readers (status polls) never wait for the writer (a job
saving its progress), and a killed server loses at most the last commit.
One connection shared by the threads, behind a lock (sqlite3 objects may
cross threads with ``check_same_thread=False`` when access is serialized).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

#: every state a job can be in; the last three are final
STATES = ("queued", "running", "done", "failed", "cancelled")
FINAL = frozenset({"done", "failed", "cancelled"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    params TEXT NOT NULL,
    upload TEXT,
    bytes_uploaded INTEGER NOT NULL DEFAULT 0,
    checkpoint TEXT,
    progress TEXT NOT NULL DEFAULT '{}',
    trace TEXT NOT NULL DEFAULT '[]',
    result TEXT,
    error TEXT
);
CREATE INDEX IF NOT EXISTS jobs_status ON jobs(status);
"""


@dataclass
class Job:
    """One job as stored."""

    id: str
    status: str
    created_at: float
    updated_at: float
    params: dict[str, Any]
    upload: str | None = None
    bytes_uploaded: int = 0
    checkpoint: str | None = None
    progress: dict[str, Any] = field(default_factory=dict)
    trace: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: str | None = None

    def public(self) -> dict[str, Any]:
        """What ``GET /v1/analyses/{id}`` shows."""
        return {
            "id": self.id,
            "status": self.status,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "progress": self.progress,
            "trace": self.trace,
            "error": self.error,
            "result": self.result,
        }


_JSON = ("params", "progress", "trace", "result")


class JobStore:
    """The jobs table of ``path``."""

    def __init__(self, path: str) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        with self._tx() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    def close(self) -> None:
        """Close the database."""
        with self._tx() as db:
            db.close()

    def add(self, job: Job) -> None:
        """Insert a new job."""
        row = self._row(job)
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self._tx() as db:
            db.execute(f"INSERT INTO jobs ({names}) VALUES ({marks})", tuple(row.values()))

    def update(self, job_id: str, **values: Any) -> None:
        """Set some columns of one job (and its ``updated_at``)."""
        values["updated_at"] = time.time()
        for key in _JSON:
            if key in values:
                values[key] = json.dumps(values[key])
        sets = ", ".join(f"{k} = ?" for k in values)
        with self._tx() as db:
            db.execute(f"UPDATE jobs SET {sets} WHERE id = ?", (*values.values(), job_id))

    def get(self, job_id: str) -> Job | None:
        """The job, or None."""
        with self._tx() as db:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return self._job(row) if row is not None else None

    def with_status(self, *statuses: str) -> list[Job]:
        """Jobs in these states, oldest first."""
        marks = ", ".join("?" for _ in statuses)
        with self._tx() as db:
            rows = db.execute(
                f"SELECT * FROM jobs WHERE status IN ({marks}) ORDER BY created_at", statuses
            ).fetchall()
        return [self._job(r) for r in rows]

    def counts(self) -> dict[str, int]:
        """Jobs per state (every state, zero included)."""
        with self._tx() as db:
            rows = db.execute("SELECT status, COUNT(*) FROM jobs GROUP BY status").fetchall()
        found = {str(r[0]): int(r[1]) for r in rows}
        return {s: found.get(s, 0) for s in STATES}

    def expired(self, before: float) -> list[Job]:
        """Final jobs last changed before ``before`` (epoch seconds)."""
        marks = ", ".join("?" for _ in FINAL)
        with self._tx() as db:
            rows = db.execute(
                f"SELECT * FROM jobs WHERE status IN ({marks}) AND updated_at < ?",
                (*sorted(FINAL), before),
            ).fetchall()
        return [self._job(r) for r in rows]

    def delete(self, job_id: str) -> None:
        """Forget a job."""
        with self._tx() as db:
            db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))

    @staticmethod
    def _row(job: Job) -> dict[str, Any]:
        row = dict(vars(job))
        for key in _JSON:
            row[key] = json.dumps(row[key])
        return row

    @staticmethod
    def _job(row: sqlite3.Row) -> Job:
        values = dict(row)
        for key in _JSON:
            values[key] = json.loads(values[key]) if values[key] is not None else None
        return Job(**values)
