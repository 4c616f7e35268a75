"""Job records that outlive the server: one small SQLite file beside the index.

Each record is a job's JSON (id, inputs, state, progress, timings, error, result, alias
before and after) plus its owner: the host, the process id and a token drawn when that
process's job manager started. Several API replicas may share one data folder (and one
Milvus server), so a replica reads another's record as it stands and only marks it
`interrupted` when it can tell the owner is gone: same host, and the process no longer
exists, or the same process id now belongs to another start (a restarted container often
gets the same pid).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import uuid
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    state TEXT NOT NULL,
    record TEXT NOT NULL,
    owner_host TEXT NOT NULL,
    owner_pid INTEGER NOT NULL,
    owner_token TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_created ON jobs (created_at);
"""


class Owner:
    """Who runs a job: this host, this process, this start of the job manager."""

    def __init__(self) -> None:
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.token = uuid.uuid4().hex[:12]

    def as_dict(self) -> dict[str, Any]:
        return {"host": self.host, "pid": self.pid}

    def is_gone(self, host: str, pid: int, token: str) -> bool:
        """Whether the owner of a record is certainly gone (False when it may still run)."""
        if host != self.host:
            return False  # another replica's process: nothing here can tell
        if pid == self.pid:
            return token != self.token
        return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


class JobStore:
    """The records, one row per job; every write is its own transaction."""

    def __init__(self, path: str | Path, owner: Owner):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.owner = owner
        self._lock = threading.Lock()
        self._con = sqlite3.connect(self.path, check_same_thread=False, timeout=10, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.executescript(SCHEMA)

    def save(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._con.execute(
                "INSERT OR REPLACE INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (record["id"], record["created_at"], record["state"], json.dumps(record, default=str),
                 self.owner.host, self.owner.pid, self.owner.token))

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple[dict[str, Any], str, int, str]]:
        with self._lock:
            rows = self._con.execute(sql, args).fetchall()
        return [(json.loads(rec), host, pid, token) for rec, host, pid, token in rows]

    def get(self, job_id: str) -> tuple[dict[str, Any], bool] | None:
        """(record, whether its owner is gone), or None."""
        rows = self._rows("SELECT record, owner_host, owner_pid, owner_token FROM jobs WHERE id = ?", (job_id,))
        if not rows:
            return None
        rec, host, pid, token = rows[0]
        return rec, self.owner.is_gone(host, pid, token)

    def recent(self, limit: int) -> list[tuple[dict[str, Any], bool]]:
        rows = self._rows("SELECT record, owner_host, owner_pid, owner_token FROM jobs "
                          "ORDER BY created_at DESC LIMIT ?", (limit,))
        return [(rec, self.owner.is_gone(host, pid, token)) for rec, host, pid, token in rows]

    def unfinished(self) -> list[tuple[dict[str, Any], bool]]:
        rows = self._rows("SELECT record, owner_host, owner_pid, owner_token FROM jobs "
                          "WHERE state IN ('queued', 'running', 'cancelling')")
        return [(rec, self.owner.is_gone(host, pid, token)) for rec, host, pid, token in rows]

    def close(self) -> None:
        with self._lock:
            self._con.close()
