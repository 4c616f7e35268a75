"""The bulk path's load stage: `biorag index load DIR` brings Parquet shards (made by
`biorag index build --to-shards DIR`, `indexing.shards`) into a new collection, verifies
it and switches the alias, exactly as a build does (`indexing.build.verify_and_switch`).

- **Milvus server**: each shard is handed to the server's bulk import
  (`utility.do_bulk_insert`, the API Milvus 2.3-2.5 servers share; the REST `bulk_import`
  of 2.4+ answers 404 on 2.3), before the collection is loaded, and the stage waits until
  every import completed. The server reads the files itself, so they must be on a path
  it sees (the same host, or a volume it mounts).
- **Milvus Lite**: rows are upserted in batches (Lite has no bulk import).

A bulk import cannot replace a row: a PMID met again in a later shard (an updated
version) or removed by a DeleteCitation would be imported twice or not removed. The stage
finds these from the shards' PMID columns (the ledger's bitmaps, never the rows) and,
from the first shard that has one, goes on with row upserts and deletes in input order,
which are exact. Baseline files have none.

The PMID ledger built on the way gives the verification its exact row count and samples,
the MeSH descriptor counts are counted from the collection once at the end, and the alias
moves only when every input's shard was loaded and the collection verified.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from biorag.contracts.errors import InputError, ToolError
from biorag.ml import pubmed_schema as ps
from biorag.ml.vector_store import backend_of, index_token, open_index
from indexing.ledger import PmidLedger
from indexing.shards import ShardInfo, finished, read_manifest

if TYPE_CHECKING:
    from biorag.settings import Settings
    from indexing.build import BuildReport

ROWS_PER_UPSERT = 512
IMPORT_TIMEOUT_S = 3600.0


def _live_any(ledger: PmidLedger, pmids: np.ndarray) -> bool:
    return any(ledger.live.has(int(p)) for p in pmids)


def plan_bulk(infos: list[ShardInfo], out_dir: Path) -> int:
    """How many leading shards a bulk import may take as they are: those before the first
    one whose rows would need replacing (a PMID seen before or twice) or whose
    DeleteCitations remove a PMID already loaded."""
    import pyarrow.parquet as pq

    seen = PmidLedger()
    for k, info in enumerate(infos):
        pmids = pq.read_table(out_dir / info.parquet, columns=["pmid"]).column("pmid").to_numpy()
        if len(np.unique(pmids)) != len(pmids) or _live_any(seen, pmids):
            return k
        seen.upserted(pmids.tolist())
        if any(_live_any(seen, np.asarray(d[1], dtype=np.int64)) for d in info.deletes):
            return k
    return len(infos)


def _upsert_shard(client, collection: str, path: Path, info: ShardInfo, ledger: PmidLedger) -> tuple[int, int]:
    """Row upserts and deletes of one shard, in its input order; (rows upserted, PMIDs deleted)."""
    import pyarrow.parquet as pq

    cuts = sorted(info.deletes, key=lambda d: d[0])
    up = gone = 0
    pos = 0
    pf = pq.ParquetFile(path)

    def delete(pmids: list[int]) -> None:
        nonlocal gone
        ids = ", ".join(str(int(p)) for p in pmids)
        client.delete(collection_name=collection, filter=f"pmid in [{ids}]")
        ledger.deleted(pmids)
        gone += len(pmids)

    for batch in pf.iter_batches(batch_size=ROWS_PER_UPSERT):
        rows = batch.to_pylist()
        start = 0
        while start < len(rows):
            nxt = cuts[0][0] - pos if cuts else len(rows)
            end = min(len(rows), max(start, nxt))
            if end > start:
                chunk = {r["pmid"]: r for r in rows[start:end]}  # within one call the last version wins
                client.upsert(collection_name=collection, data=list(chunk.values()))
                ledger.upserted(list(chunk))
                up += end - start
            pos += end - start
            start = end
            while cuts and cuts[0][0] == pos:
                delete(cuts.pop(0)[1])
    for _, pmids in cuts:  # deletes after the shard's last row
        delete(pmids)
    return up, gone


def _bulk_import(client, settings: Settings, collection: str, paths: list[Path]) -> None:
    """Import Parquet files with the server's bulk insert and wait until all completed."""
    from pymilvus import connections, utility

    alias = f"biorag-bulk-{id(client)}"
    connections.connect(alias=alias, uri=settings.milvus_uri, token=index_token(settings) or "")
    try:
        tasks = {utility.do_bulk_insert(collection_name=collection, files=[str(p.resolve())], using=alias): p
                 for p in paths}
        deadline = time.monotonic() + IMPORT_TIMEOUT_S
        while tasks:
            for tid, p in list(tasks.items()):
                st = utility.get_bulk_insert_state(tid, using=alias)
                if st.state_name == "Completed":
                    del tasks[tid]
                elif st.state_name == "Failed" or st.failed_reason:
                    raise ToolError("pubmed-index", f"bulk import of {p.name} failed: {st.failed_reason}")
            if tasks and time.monotonic() > deadline:
                raise ToolError("pubmed-index", f"bulk import did not finish in {IMPORT_TIMEOUT_S:.0f}s")
            if tasks:
                time.sleep(0.5)
    finally:
        connections.disconnect(alias)


def _wait_rows(client, collection: str, rows: int, timeout_s: float = 300.0) -> None:
    """Imported segments become queryable a moment after the load; wait for them."""
    from indexing.verify import count_rows

    deadline = time.monotonic() + timeout_s
    while count_rows(client, collection) < rows and time.monotonic() < deadline:
        time.sleep(0.5)


def load_shards(settings: Settings, shard_dir: str | Path, alias: str | None = None, rebuild: bool = False,
                allow_shrink: bool = False, client=None, embedder=None, progress: bool = True) -> BuildReport:
    """Load the shards of `shard_dir` into a new collection behind `alias`; see the module
    docstring. The report is a build's (`indexing.build.BuildReport`)."""
    from tqdm import tqdm

    from biorag.ml.embedder import Embedder
    from biorag.ml.embedder import identity as embedder_identity
    from indexing.build import BuildReport, _expectation, verify_and_switch
    from indexing.mesh_counts import CountingLoader, ensure_counts

    out = Path(shard_dir).expanduser()
    manifest = read_manifest(out)
    alias = ps.check_collection_name(alias or settings.index.collection)
    embedder = embedder or Embedder.from_settings(settings)
    if manifest.get("embedder_id") != embedder_identity(embedder.name):
        raise InputError(f"the shards in {out} were embedded with {manifest.get('embedder')} but index.embedder is "
                         f"{embedder.name}: set index.embedder to it, or embed again with this one")
    entries = manifest.get("inputs", [])
    infos = [finished(out, e["shard"]) for e in entries]
    t_start = time.perf_counter()
    own_client = client is None
    try:
        if client is None:
            client = open_index(settings, create=True, source="pubmed-index")
        backend = backend_of(settings.milvus_uri)
        current = ps.resolve_collection(client, alias)
        if current == alias:
            raise ToolError("pubmed-index", f"'{alias}' is a plain collection, not an alias; load with --collection OTHER_NAME")
        if current and not rebuild:
            raise InputError(f"'{alias}' already serves {current}: a bulk load writes a new collection; add --rebuild "
                             "to replace it once the new one verifies (updates go through `biorag index build`)")
        mode = "rebuild" if current else "fresh"
        target = f"{alias}_{datetime.now(UTC):%Y%m%d_%H%M%S_%f}"
        dim = int(manifest["dim"])
        report = BuildReport(alias=alias, collection=target, mode=mode, files=len(entries), embedder=embedder.name,
                             dim=dim, previous_collection=current)
        report.failed_files = {e["file"]: f"no finished shard {e['shard']} in {out} (re-run the embed stage)"
                               for e, i in zip(entries, infos, strict=True) if i is None}
        done = [i for i in infos if i is not None]
        loader = CountingLoader(client, target, backend)
        loader.create(dim, ps.make_meta(embedder.name, manifest.get("query_embedder"), dim, settings.index.index_type,
                                        embedder_id=manifest["embedder_id"],
                                        index_overrides=settings.index.index_params), settings.index.index_type,
                      settings.index.index_params, settings.index.mmap_raw)
        report.seconds["startup"] = time.perf_counter() - t_start
        ledger = PmidLedger()
        t0 = time.perf_counter()
        n_bulk = plan_bulk(done, out) if backend == "server" else 0
        if n_bulk:
            import pyarrow.parquet as pq

            client.release_collection(target)  # import first, then load: imported rows are then served
            _bulk_import(client, settings, target, [out / i.parquet for i in done[:n_bulk]])
            for i in done[:n_bulk]:
                pmids = pq.read_table(out / i.parquet, columns=["pmid"]).column("pmid").to_numpy()
                ledger.upserted(pmids.tolist())
                report.upserted += len(pmids)
                for _, gone in i.deletes:  # PMIDs never loaded: nothing to remove, but the ledger knows
                    ledger.deleted(gone)
                    report.deleted += len(gone)
            client.load_collection(target)
            _wait_rows(client, target, ledger.live_count)
        report.seconds["bulk_import"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in tqdm(done[n_bulk:], desc="loading shards", unit="shard", disable=not progress):
            up, gone = _upsert_shard(client, target, out / i.parquet, i, ledger)
            report.upserted += up
            report.deleted += gone
        loader.flush()
        ensure_counts(client, target, backend, force=True)  # imported rows were never counted
        report.seconds["load"] = time.perf_counter() - t0
        report.read = report.kept = sum(i.rows for i in done)
        report.files_skipped = 0
        verify_and_switch(client, settings, report, embedder, _expectation(ledger, "fresh", 0), allow_shrink)
        report.seconds["wall"] = time.perf_counter() - t_start
        report.bulk_imported_shards = n_bulk
        return report
    finally:
        if own_client and client is not None:
            client.close()
