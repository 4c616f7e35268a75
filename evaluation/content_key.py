"""What an evaluation result depends on beyond the settings: the code, the local stores
and the index, each reduced to a short identity that changes when its content changes.

- code: the package version, plus the git commit (and whether the tree had local changes)
  when the code runs from a git checkout;
- each local SQLite store (gene store, HPO store): its build record (which names its
  inputs, counts and build date), or the file's size and modification time when it has
  none; "absent" when the file does not exist;
- the index: the physical collection the alias points to (its name carries the build's
  time stamp) and its row count; "unavailable" when the store cannot be opened.

A store or index that changes between two runs changes the configuration's key, so its
cached answers are not reused.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def code_version() -> dict[str, Any]:
    try:
        version = metadata.version("biorag")
    except metadata.PackageNotFoundError:
        version = "unknown"
    out: dict[str, Any] = {"package": version}
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return out
    out["commit"] = commit
    if dirty:  # uncommitted edits: the commit alone does not name this code
        out["local_changes"] = hashlib.sha256(_diff()).hexdigest()[:12]
    return out


def _diff() -> bytes:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "diff", "HEAD"], capture_output=True, timeout=30,
                              check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return b"?"


def store_identity(path: Path) -> str:
    """A short id of one local SQLite store's content."""
    path = Path(path)
    if not path.exists():
        return "absent"
    record = ""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key='build'").fetchone()
            record = row[0] if row else ""
        finally:
            con.close()
    except sqlite3.Error:
        record = ""
    st = path.stat()
    blob = record or f"{st.st_size}:{st.st_mtime_ns}"
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def index_identity(settings) -> dict[str, Any]:
    """The collection the alias serves and its rows, read from the store itself."""
    from biorag.ml import pubmed_schema as ps
    from biorag.ml.vector_store import open_store

    alias = settings.index.collection
    out: dict[str, Any] = {"alias": alias}
    uri = settings.milvus_uri
    if "://" not in uri and not Path(uri).exists():
        out["collection"] = "absent"
        return out
    try:
        client = open_store(uri)
    except Exception as e:  # noqa: BLE001 - a store that cannot be opened is part of the identity
        out["collection"] = f"unavailable ({type(e).__name__})"
        return out
    try:
        target = ps.alias_target(client, alias) or (alias if client.has_collection(alias) else None)
        out["collection"] = target or "absent"
        if target:
            client.load_collection(target)
            out["rows"] = ps.row_count(client, target)
    except Exception as e:  # noqa: BLE001
        out["collection"] = f"unavailable ({type(e).__name__})"
    finally:
        client.close()
    return out


def content_identity(settings, store_paths: dict[str, Path], index: bool) -> dict[str, Any]:
    """The code, stores and (when the configuration searches it) index identity."""
    out: dict[str, Any] = {"code": code_version(),
                           "stores": {name: store_identity(p) for name, p in sorted(store_paths.items())}}
    if index:
        out["index"] = index_identity(settings)
    return out


def question_key(config_key: str, question: str, gold: Any, options: Any) -> str:
    """One question's result key: the configuration's key and what was asked and expected."""
    blob = json.dumps([config_key, question, gold, options], sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]
