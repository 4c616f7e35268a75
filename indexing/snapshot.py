"""Index snapshots: `biorag index export DIR` and `biorag index import DIR`.

A snapshot is the bulk path's shard folder (`indexing.shards`: Parquet shards in the
collection's layout, a sidecar per shard, `manifest.json`), so `biorag index load` reads it
too. Its manifest adds what a user on another machine must trust before serving it: the
embedder's name, identity and a SHA-256 of its weight files, dimensions and metric, the
MeSH vocabulary version, row count and PMID range, the build's settings, and a SHA-256 per
shard.

Import is the load stage behind a verification: every shard's checksum and row count,
and the snapshot's query embedder against the one the settings name (name and weights),
are checked before anything is written; a refused snapshot leaves the serving index
untouched. The load then verifies the new collection and switches the alias as a
rebuild does (`indexing.bulk_load.load_shards`).

Export streams: one batch of rows in memory at a time, a shard closed every
`shard_rows` rows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError
from biorag.knowledge.mesh import vocabulary_version
from biorag.ml import pubmed_schema as ps
from biorag.ml.embedder import identity, weights_digest
from biorag.ml.vector_store import open_index
from indexing.collection_rows import collection_pages
from indexing.shards import MANIFEST, SHARD_SCHEMA_VERSION, _write_json, arrow_schema, read_manifest

if TYPE_CHECKING:
    from biorag.settings import Settings
    from indexing.build import BuildReport

SNAPSHOT_KIND = "biorag.index-snapshot/1"
EXPORT_FIELDS = [f for f in arrow_schema().names]
READ_BATCH = 1000
#: settings of the index section a snapshot records (what shaped the build; no secrets)
BUILD_SETTINGS = ("embedder", "query_embedder", "index_type", "min_abstract_words", "exact_filter_rows")


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class ExportReport:
    out_dir: str
    collection: str
    rows: int = 0
    shards: int = 0
    pmid_min: int | None = None
    pmid_max: int | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class _ShardSink:
    """Rows -> Parquet shards of at most `shard_rows` rows, each with its sidecar and checksum."""

    def __init__(self, out: Path, shard_rows: int):
        self.out, self.shard_rows = out, shard_rows
        self.schema = arrow_schema()
        self.entries: list[dict[str, Any]] = []
        self.writer = None
        self.rows_in_shard = 0

    def _name(self) -> str:
        return f"snapshot-{len(self.entries):05d}"

    def add(self, rows: list[dict]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        while rows:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.out / f"{self._name()}.parquet.tmp", self.schema, compression="zstd")
            take = rows[: self.shard_rows - self.rows_in_shard]
            self.writer.write_table(pa.Table.from_pylist(take, schema=self.schema))
            self.rows_in_shard += len(take)
            rows = rows[len(take):]
            if self.rows_in_shard >= self.shard_rows:
                self.close_shard()

    def close_shard(self) -> None:
        if self.writer is None:
            return
        self.writer.close()
        name = self._name()
        final = self.out / f"{name}.parquet"
        (self.out / f"{name}.parquet.tmp").replace(final)
        _write_json(self.out / f"{name}.json", {"file": f"export:{name}", "rows": self.rows_in_shard, "deletes": []})
        self.entries.append({"file": f"export:{name}", "shard": name, "rows": self.rows_in_shard,
                             "sha256": file_sha256(final), "bytes": final.stat().st_size})
        self.writer, self.rows_in_shard = None, 0


def export_index(settings: Settings, out_dir: str | Path, alias: str | None = None, shard_rows: int = 100_000,
                 client=None) -> ExportReport:
    """Write the collection behind `alias` to `out_dir` as a snapshot (see the module docstring)."""
    import time

    out = Path(out_dir).expanduser()
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"{out}: export writes a new snapshot into an empty or new folder; choose another")
    alias = alias or settings.index.collection
    t0 = time.perf_counter()
    own = client is None
    client = client or open_index(settings)
    try:
        target = ps.require_collection(client, alias, settings.milvus_uri)
        client.load_collection(target)
        meta = ps.read_meta(client.describe_collection(target))
        if not meta:
            raise InputError(f"{target} has no BioRAG metadata (embedder, dim): rebuild it with `biorag index build`")
        out.mkdir(parents=True, exist_ok=True)
        report = ExportReport(out_dir=str(out), collection=target)
        sink = _ShardSink(out, shard_rows)
        for batch in collection_pages(client, target, EXPORT_FIELDS, READ_BATCH):
            rows = [{k: r[k] for k in EXPORT_FIELDS} for r in batch]
            sink.add(rows)
            pmids = [int(r["pmid"]) for r in rows]
            report.rows += len(rows)
            report.pmid_min = min([*pmids, report.pmid_min] if report.pmid_min is not None else pmids)
            report.pmid_max = max([*pmids, report.pmid_max] if report.pmid_max is not None else pmids)
        sink.close_shard()
        report.shards = len(sink.entries)
        _write_json(out / MANIFEST, snapshot_manifest(settings, meta, target, report, sink.entries))
        report.seconds = round(time.perf_counter() - t0, 2)
        return report
    finally:
        if own:
            client.close()


def snapshot_manifest(settings: Settings, meta: dict, collection: str, report: ExportReport,
                      entries: list[dict]) -> dict[str, Any]:
    query = meta.get("query_embedder") or meta["embedder"]
    return {
        "schema": SHARD_SCHEMA_VERSION, "kind": SNAPSHOT_KIND,
        "embedder": meta["embedder"], "embedder_id": meta.get("embedder_id") or identity(meta["embedder"]),
        "embedder_sha256": weights_digest(meta["embedder"]),
        "query_embedder": meta.get("query_embedder"), "query_embedder_id": identity(query),
        "query_embedder_sha256": weights_digest(query),
        "dim": meta["dim"], "metric": "COSINE", "mesh_vocabulary": vocabulary_version(),
        "rows": report.rows, "pmid_range": [report.pmid_min, report.pmid_max],
        "build": {"collection": collection, "created": meta.get("created"), "index_type": meta.get("index_type"),
                  "settings": {k: getattr(settings.index, k) for k in BUILD_SETTINGS}},
        "exported": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": entries,
    }


@dataclass
class SnapshotCheck:
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_shards(snap: Path, manifest: dict) -> list[str]:
    """Every listed shard present, of its recorded size and checksum; the rows add up."""
    problems = []
    entries = manifest.get("inputs") or []
    if not entries:
        problems.append("the manifest lists no shards")
    for e in entries:
        p = snap / f"{e.get('shard')}.parquet"
        if not p.is_file():
            problems.append(f"shard {p.name} is missing")
        elif p.stat().st_size != e.get("bytes") or file_sha256(p) != e.get("sha256"):
            problems.append(f"shard {p.name} does not match its checksum (truncated or changed since export)")
    if sum(int(e.get("rows", 0)) for e in entries) != manifest.get("rows"):
        problems.append(f"the shards' rows do not add up to the manifest's {manifest.get('rows')}")
    return problems


def check_embedder(manifest: dict, settings: Settings) -> str | None:
    """One line saying which embedder the snapshot has and which the settings name, or None."""
    query = settings.index.query_embedder or settings.index.embedder
    snap_query = manifest.get("query_embedder") or manifest.get("embedder")
    snap_desc = f"{snap_query} (weights sha256 {str(manifest.get('query_embedder_sha256'))[:12]})"
    if manifest.get("query_embedder_id") != identity(query):
        return (f"the snapshot's query embedder is {snap_desc} but the settings' is {query}: "
                f"set index.embedder (and index.query_embedder) to the snapshot's, or build the index with yours")
    mine = weights_digest(query)
    if mine != manifest.get("query_embedder_sha256"):
        return (f"the snapshot's query embedder is {snap_desc} but the settings' {query} has weights sha256 "
                f"{mine[:12]}: the same name with other weights; use the snapshot's model files")
    return None


def verify_snapshot(snap_dir: str | Path, settings: Settings) -> tuple[dict, SnapshotCheck]:
    snap = Path(snap_dir).expanduser()
    if not snap.is_dir():
        raise InputError(f"{snap}: not a folder; give the folder `biorag index export` wrote")
    manifest = read_manifest(snap)
    if manifest.get("kind") != SNAPSHOT_KIND:
        raise InputError(f"{snap / MANIFEST}: not an index snapshot (no kind {SNAPSHOT_KIND}); shards made by "
                         "`biorag index build --to-shards` load with `biorag index load`")
    check = SnapshotCheck()
    if why := check_embedder(manifest, settings):
        check.problems.append(why)
        return manifest, check
    check.problems += check_shards(snap, manifest)
    return manifest, check


def import_snapshot(settings: Settings, snap_dir: str | Path, alias: str | None = None, rebuild: bool = False,
                    allow_shrink: bool = False, progress: bool = True) -> BuildReport:
    """Verify the snapshot, then load it (a new collection, verified, alias switched).
    A refused snapshot raises InputError before the store is touched."""
    from indexing.bulk_load import load_shards

    _, check = verify_snapshot(snap_dir, settings)
    if not check.ok:
        raise InputError(f"snapshot {snap_dir} refused: " + "; ".join(check.problems))
    return load_shards(settings, snap_dir, alias=alias, rebuild=rebuild, allow_shrink=allow_shrink, progress=progress)
