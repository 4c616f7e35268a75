"""Per-descriptor row counts (and, on Milvus Lite, rare descriptors' PMIDs), kept in the
collection's metadata.

The PubMed retriever scores a MeSH filter exactly when it matches few rows (HNSW's graph
walk starves there) and by HNSW otherwise; the counts tell it which, without asking the
store. On Milvus Lite it also needs the PMIDs of those few rows, because Lite's scalar
query by filter costs several unfiltered searches while a primary-key `get` is cheap
(`pubmed_schema.MESH_POSTINGS_PROPERTY`). Both live in collection properties and are
written with every checkpoint's flush, so they describe what is durable.

`CountingLoader` is the build's loader with both maintained:
- an upsert first reads the MeSH of the rows it replaces (a re-upserted PMID is counted
  once, under its new headings), a DeleteCitation reads the MeSH of the rows it removes;
- a descriptor's PMIDs are kept while it has at most `POSTINGS_MAX_ROWS` rows, from its
  first row on; one that grows past that loses them for good (until a full recount), and
  the retriever then uses the query by filter or HNSW;
- a resumed build, or an index that has no counts yet (built before they were kept),
  counts the whole collection once (`count_collection`), because work replayed after a
  kill may already be in the store while the saved counts predate it.
"""

from __future__ import annotations

from collections import Counter

from biorag.ml import pubmed_schema as ps
from indexing.collection_rows import collection_pages
from indexing.loader import MilvusLoader

#: rows per page when counting a whole collection
PAGE = 4096


def count_collection(client, collection: str, postings: bool = False) -> tuple[Counter, int, dict[str, set[int]]]:
    """(descriptor UI -> rows carrying it, rows, rare descriptor UI -> PMIDs) over the whole
    collection, read page by page (`pmid` and `mesh_ui` only, never the vectors). PMIDs are
    collected only with postings=True and kept for descriptors with at most
    POSTINGS_MAX_ROWS rows."""
    counts: Counter = Counter()
    ids: dict[str, set[int]] = {}
    rows = 0
    client.load_collection(collection)  # a resumed build finds it released
    for page in collection_pages(client, collection, ["pmid", "mesh_ui"], PAGE, filter=""):
        for r in page:
            uis = set(r.get("mesh_ui") or [])
            counts.update(uis)
            if postings:
                for u in uis:
                    if counts[u] <= ps.POSTINGS_MAX_ROWS:
                        ids.setdefault(u, set()).add(int(r["pmid"]))
                    else:
                        ids.pop(u, None)
        rows += len(page)
    return counts, rows, ids


def save_counts(client, collection: str, counts: Counter | dict[str, int], rows: int,
                postings: dict[str, set[int]] | None = None) -> None:
    props = ps.mesh_counts_property(dict(counts), rows)
    if postings is not None:
        props.update(ps.mesh_postings_property(postings))
    client.alter_collection_properties(collection, properties=props)


def ensure_counts(client, collection: str, backend: str = "lite", force: bool = False) -> bool:
    """Count an index that has no descriptor counts yet (or any index, with force=True: a
    recount replaces counts a crash may have left stale); True if it counted."""
    if not force and ps.read_mesh_counts(client.describe_collection(collection)) is not None:
        return False
    counts, rows, ids = count_collection(client, collection, postings=backend == "lite")
    save_counts(client, collection, counts, rows, ids if backend == "lite" else None)
    return True


class CountingLoader(MilvusLoader):
    """A MilvusLoader that keeps the per-descriptor row counts (and on Lite the rare
    descriptors' PMIDs) up to date."""

    def __init__(self, client, collection: str, backend: str, recount: bool = False):
        super().__init__(client, collection, backend)
        self.recount = recount
        self.with_postings = backend == "lite"
        self.counts: Counter | None = None
        self.postings: dict[str, set[int]] = {}
        self.rows = 0
        self._dirty = False

    def _loaded(self) -> Counter:
        if self.counts is None:
            described = self.client.describe_collection(self.collection)
            stored = None if self.recount else ps.read_mesh_counts(described)
            if stored is None:
                self.counts, self.rows, self.postings = count_collection(self.client, self.collection, self.with_postings)
                self._dirty = True
            else:
                import json

                raw = (described.get("properties") or {}).get(ps.MESH_COUNTS_PROPERTY)
                self.counts, self.rows = Counter(stored), int(json.loads(raw).get("rows", 0))
                self.postings = {u: set(v) for u, v in ps.read_mesh_postings(described).items()}
        return self.counts

    def _forget(self, pmids: list[int]) -> None:
        """Uncount the rows with these PMIDs that are in the store now."""
        counts = self._loaded()
        if not pmids:
            return
        for r in self.client.get(self.collection, ids=pmids, output_fields=["pmid", "mesh_ui"]):
            uis = set(r.get("mesh_ui") or [])
            counts.subtract(uis)
            for u in uis & self.postings.keys():
                self.postings[u].discard(int(r["pmid"]))
            self.rows -= 1
        self._dirty = True

    def _add(self, pmid: int, uis: list[str]) -> None:
        for u in uis:
            first = self.counts[u] <= 0
            self.counts[u] += 1
            if not self.with_postings:
                continue
            if first:
                self.postings[u] = {pmid}
            elif u in self.postings:
                self.postings[u].add(pmid)
                if len(self.postings[u]) > ps.POSTINGS_MAX_ROWS:
                    del self.postings[u]  # too common: the retriever uses HNSW for it

    def create(self, dim: int, meta: str, index_type: str = "HNSW", params: dict[str, int] | None = None,
               mmap_raw: bool = False) -> None:
        super().create(dim, meta, index_type, params, mmap_raw)
        self.counts, self.rows, self.postings, self._dirty = Counter(), 0, {}, True

    def upsert(self, records, vectors) -> int:
        latest = {int(rec.pmid): rec for rec in records}  # within one call the last version wins
        self._forget(list(latest))
        n = super().upsert(records, vectors)
        for pmid, rec in latest.items():
            self._add(pmid, ps.record_mesh_uis(rec))
        self.rows += len(latest)
        return n

    def delete(self, pmids: list[int]) -> None:
        self._forget(sorted({int(p) for p in pmids}))
        super().delete(pmids)

    def flush(self) -> None:
        super().flush()
        if self._dirty and self.counts is not None:
            save_counts(self.client, self.collection, self.counts, self.rows,
                        self.postings if self.with_postings else None)
            self._dirty = False
