"""Per-descriptor row counts, kept in the collection's metadata (issue 14).

The PubMed retriever scores a MeSH filter exactly when it matches few rows (HNSW's graph
walk starves there) and by HNSW otherwise; these counts tell it which, without asking the
store. They live in a collection property (`pubmed_schema.MESH_COUNTS_PROPERTY`) and are
written with every checkpoint's flush, so they describe what is durable.

`CountingLoader` is the build's loader with the counts maintained:
- an upsert first reads the MeSH of the rows it replaces (a re-upserted PMID is counted
  once, under its new headings), a DeleteCitation reads the MeSH of the rows it removes;
- a resumed build, or an index that has no counts yet (built before they were kept),
  counts the whole collection once (`count_collection`), because work replayed after a
  kill may already be in the store while the saved counts predate it.
"""

from __future__ import annotations

from collections import Counter

from biorag import pubmed_schema as ps
from indexing.loader import MilvusLoader

#: rows per page when counting a whole collection
PAGE = 4096


def count_collection(client, collection: str) -> tuple[Counter, int]:
    """(descriptor UI -> rows carrying it, rows) over the whole collection, read page by page
    (only the `mesh_ui` field, never the vectors)."""
    counts: Counter = Counter()
    rows = 0
    it = client.query_iterator(collection, batch_size=PAGE, filter="", output_fields=["mesh_ui"])
    try:
        while True:
            page = it.next()
            if not page:
                break
            for r in page:
                counts.update(set(r.get("mesh_ui") or []))
            rows += len(page)
    finally:
        it.close()
    return counts, rows


def save_counts(client, collection: str, counts: Counter | dict[str, int], rows: int) -> None:
    client.alter_collection_properties(collection, properties=ps.mesh_counts_property(dict(counts), rows))


def ensure_counts(client, collection: str) -> bool:
    """Count an index that has no descriptor counts yet; True if it had to."""
    if ps.read_mesh_counts(client.describe_collection(collection)) is not None:
        return False
    counts, rows = count_collection(client, collection)
    save_counts(client, collection, counts, rows)
    return True


class CountingLoader(MilvusLoader):
    """A MilvusLoader that keeps the per-descriptor row counts up to date."""

    def __init__(self, client, collection: str, backend: str, recount: bool = False):
        super().__init__(client, collection, backend)
        self.recount = recount
        self.counts: Counter | None = None
        self.rows = 0
        self._dirty = False

    def _loaded(self) -> Counter:
        if self.counts is None:
            stored = None if self.recount else ps.read_mesh_counts(self.client.describe_collection(self.collection))
            if stored is None:
                self.counts, self.rows = count_collection(self.client, self.collection)
                self._dirty = True
            else:
                self.counts, self.rows = Counter(stored), self._stored_rows()
        return self.counts

    def _stored_rows(self) -> int:
        import json

        raw = (self.client.describe_collection(self.collection).get("properties") or {}).get(ps.MESH_COUNTS_PROPERTY)
        return int(json.loads(raw).get("rows", 0)) if raw else 0

    def _forget(self, pmids: list[int]) -> None:
        """Uncount the rows with these PMIDs that are in the store now."""
        counts = self._loaded()
        if not pmids:
            return
        for r in self.client.get(self.collection, ids=pmids, output_fields=["mesh_ui"]):
            counts.subtract(set(r.get("mesh_ui") or []))
            self.rows -= 1
        self._dirty = True

    def create(self, dim: int, meta: str, index_type: str = "HNSW") -> None:
        super().create(dim, meta, index_type)
        self.counts, self.rows, self._dirty = Counter(), 0, True

    def upsert(self, records, vectors) -> int:
        latest = {int(rec.pmid): rec for rec in records}  # within one call the last version wins
        self._forget(list(latest))
        n = super().upsert(records, vectors)
        for rec in latest.values():
            self.counts.update(ps.record_mesh_uis(rec))
        self.rows += len(latest)
        return n

    def delete(self, pmids: list[int]) -> None:
        self._forget(sorted({int(p) for p in pmids}))
        super().delete(pmids)

    def flush(self) -> None:
        super().flush()
        if self._dirty and self.counts is not None:
            save_counts(self.client, self.collection, self.counts, self.rows)
            self._dirty = False
