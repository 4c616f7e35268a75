"""The local SQLite stores (gene store, HPO store, gene -> MeSH counts): how one is written
and how it is opened.

Every store is written by a builder in `indexing/` and read at run time (in `retrievers/`
or the core), so both sides share these steps:

- `build_atomically`: the file is written under a temporary name with its tables and a
  ``meta`` table, and renamed into place only when the builder finished; a failed build
  leaves no half-written file and the store that served before keeps serving.
- the build record: a JSON summary under ``meta.key = 'build'`` (inputs, counts, date),
  written with `write_build_record` and read with `read_build_record`.
- `open_read_only`: a read-only connection any thread may use; a missing file is one
  `NotBuilt` line saying how to build it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from biorag.contracts.errors import NotBuilt

META_TABLE = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"


@contextmanager
def build_atomically(out: Path, schema: str) -> Iterator[sqlite3.Connection]:
    """A connection to a new store for `out`, with `schema` and the meta table created.
    Committed and moved to `out` when the block ends; removed if it raises."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    try:
        con.executescript(schema + "\n" + META_TABLE)
        yield con
        con.commit()
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)  # no half-built file left
        raise
    con.close()
    tmp.replace(out)


def write_build_record(con: sqlite3.Connection, record: dict[str, Any]) -> None:
    con.execute("INSERT OR REPLACE INTO meta VALUES ('build', ?)", (json.dumps(record),))


def read_build_record(con: sqlite3.Connection) -> dict[str, Any]:
    """The store's build record; {} when it has none."""
    row = con.execute("SELECT value FROM meta WHERE key='build'").fetchone()
    return json.loads(row[0]) if row else {}


def open_read_only(path: Path, source: str = "store", build_hint: str | None = None,
                   rows: bool = False) -> sqlite3.Connection:
    """A read-only connection shared by threads; `rows`: rows as `sqlite3.Row`. A missing
    file raises NotBuilt(source, build_hint)."""
    path = Path(path)
    if not path.exists():
        raise NotBuilt(source, build_hint or f"no store at {path}")
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    if rows:
        con.row_factory = sqlite3.Row
    return con
