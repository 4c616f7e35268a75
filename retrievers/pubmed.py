"""PubMed retriever over the local Milvus index built by `biorag index build`.

Cosine top-k over abstract embeddings (k = `settings.sources["pubmed"].top_k`, 4 by
default), optionally restricted by `SearchFilters.mesh` (descriptor names or UIs, resolved
against the bundled MeSH vocabulary; unknown terms raise InputError, nothing is ever pasted
into the filter expression) and by year bounds. The filter expression comes from
`biorag.pubmed_schema.build_filter` (see its docstring for the design).

When the MeSH filter leaves fewer than k hits:
1. the filtered search is retried with a wider HNSW beam (a very selective filter can
   starve HNSW's graph walk), then
2. with `index.mesh_widen = "drop_filter"` (default) the list is filled from the same
   search without the MeSH condition (year bounds still apply) and the combined list is
   ordered by similarity; `"none"` keeps the short list.

How the agent learns what happened (two places, same facts):
- each Evidence's `metadata`: `mesh_filter` (UIs requested), `mesh_match` (True if the
  record carries one of them), `widened` (True for a fill-in hit from the unfiltered
  search); plus `pmid`, `year`, `journal`, `mesh` (names), `mesh_ui`, `mesh_major`;
- `retriever.last_search`: a dict with `filter` (the expression), `mesh` (UIs),
  `filtered_hits`, `widened` (bool), `widen_mode`, `note` (one sentence for the trace,
  e.g. "MeSH filter [D000544] matched 2 of 4; filled 2 from unfiltered search").
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from biorag import pubmed_schema as ps
from biorag.errors import SourceUnavailable, ToolError
from biorag.models import Evidence, SearchFilters
from biorag.prompts import MANUALS
from biorag.sources import PASSAGES
from biorag.vector_store import open_store
from retrievers.base import Retriever

if TYPE_CHECKING:
    from biorag.embedder import Embedder
    from biorag.settings import Settings

BUILD_HINT = "build it with `biorag index build --input FILES_OR_DIRS` (e.g. the bundled sample: `biorag index build --input {sample}`)"

MANUAL = MANUALS["pubmed"]  # the text lives with every other prompt



def exact_filtered_search(client, collection: str, vec: list[float], k: int, expr: str, max_rows: int,
                          output_fields: list[str] | None = None) -> list[dict] | None:
    """Exact cosine top-k over the rows a selective filter matches, or None if it matches
    more than `max_rows` rows (then ANN search is the right tool).

    Why: HNSW walks a graph; when a filter allows only a few rows in a thousand, most of
    the walk lands on excluded nodes and recall drops (measured at 100k rows with the
    default beam: recall@4 0.50 for descriptors on <0.1% of rows vs 0.99 on >=10%,
    benchmarks/mesh_filter_latency.py).
    Those are exactly the filters whose matching rows are few enough to score directly:
    one scalar query for at most max_rows+1 ids, one primary-key fetch of their vectors, a
    dot product. Works the same on Milvus Lite and on a server; on Lite the scalar query is
    slow (~230-340 ms at 100k rows, whatever the descriptor), hence opt-in
    (`index.exact_filter_rows`). On a server the INVERTED index on mesh_ui serves it."""
    import numpy as np

    ids = [r["pmid"] for r in client.query(collection, filter=expr, output_fields=["pmid"], limit=max_rows + 1)]
    if len(ids) > max_rows:
        return None
    if not ids:
        return []
    rows = client.get(collection, ids=ids, output_fields=["pmid", ps.VECTOR_FIELD])
    mat = np.asarray([r[ps.VECTOR_FIELD] for r in rows], dtype=np.float32)
    q = np.asarray(vec, dtype=np.float32)
    sims = (mat @ q) / (np.linalg.norm(mat, axis=1) * np.linalg.norm(q) + 1e-12)  # COSINE, as the index
    top = np.argsort(-sims)[:k]
    top_ids = [int(rows[i]["pmid"]) for i in top]
    fields = output_fields or ps.OUTPUT_FIELDS
    ents = {int(e["pmid"]): e for e in client.get(collection, ids=top_ids, output_fields=fields)}
    return [{"id": pid, "distance": float(sims[i]), "entity": ents.get(pid, {"pmid": pid})}
            for pid, i in zip(top_ids, top, strict=True)]


def sample_dir() -> str:
    """The bundled demo sample (shipped with the indexing package)."""
    from pathlib import Path

    return str(Path(__file__).resolve().parent.parent / "indexing" / "resources" / "pubmed_sample")


class PubMedRetriever(Retriever):
    name = "pubmed"
    manual = MANUAL
    query_format = "a focused natural-language query (a sentence, not keywords); MeSH terms go in the filter"
    supports_mesh = True
    accepts = ("free_text",)
    answers = (PASSAGES,)

    def __init__(self, uri: str, collection: str = "pubmed", embedder: Embedder | None = None,
                 token: str | None = None, widen: str = "drop_filter", index_type: str = "HNSW",
                 ef: int = 64, exact_filter_rows: int = 0, client=None):
        self.uri = uri
        self.alias = ps.check_collection_name(collection)
        self.backend = ps.backend_of(uri)
        self.widen = widen
        self.index_type = index_type
        self.ef = ef
        self.exact_filter_rows = exact_filter_rows
        self._token = token
        self._embedder = embedder
        self._client = client
        self._collection: str | None = None
        self._lock = threading.Lock()
        self.meta: dict[str, Any] = {}
        self.last_search: dict[str, Any] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> PubMedRetriever:
        from biorag.embedder import Embedder

        ix = settings.index
        return cls(
            uri=settings.milvus_uri, collection=ix.collection, embedder=Embedder.from_settings(settings),
            token=ix.token.get_secret_value() if ix.token else None, widen=ix.mesh_widen,
            index_type=ix.index_type, ef=ix.search_ef, exact_filter_rows=ix.exact_filter_rows,
        )

    # ---- connection ----------------------------------------------------------------
    def _unavailable(self, why: str) -> SourceUnavailable:
        return SourceUnavailable("pubmed", f"{why}; {BUILD_HINT.format(sample=sample_dir())}")

    def _open(self):
        """Connect lazily (building the agent must not need the index) and load the
        collection behind the alias; errors say how to build it."""
        with self._lock:
            if self._client is not None and self._collection is not None:
                return self._client, self._collection
            if self._client is None:
                try:  # one-line errors (store held by another process, server down)
                    self._client = open_store(self.uri, self._token, owner=self)
                except FileNotFoundError:
                    raise self._unavailable(f"no PubMed index at {self.uri}") from None
            target = ps.resolve_collection(self._client, self.alias)
            if target is None:
                raise self._unavailable(f"the index at {self.uri} has no collection '{self.alias}'")
            self._client.load_collection(target)
            self.meta = ps.read_meta(self._client.describe_collection(target))
            emb = self.embedder
            dim = ps.vector_dim(self._client, target)
            if dim is not None and dim != emb.dim:
                raise SourceUnavailable(
                    "pubmed",
                    f"collection {target} holds {dim}-dim vectors but the query embedder "
                    f"{emb.query_name or emb.name} makes {emb.dim}-dim ones: set index.embedder to "
                    f"{self.meta.get('embedder', 'the model it was built with')} or rebuild",
                )
            from biorag.embedder import mismatch

            problem = mismatch(self.meta, emb.name)
            if problem:
                raise SourceUnavailable("pubmed", problem)
            self._collection = target
            return self._client, target

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from biorag.embedder import Embedder

            self._embedder = Embedder()
        return self._embedder

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
            self._client, self._collection = None, None

    # ---- search ----------------------------------------------------------------------
    def _search(self, client, collection: str, vec, k: int, expr: str, ef: int) -> list[dict]:
        try:
            res = client.search(
                collection, data=[vec], limit=k, filter=expr, anns_field=ps.VECTOR_FIELD,
                output_fields=ps.OUTPUT_FIELDS, search_params=ps.search_params(self.index_type, ef, k, filtered="mesh_" in expr),
            )
        except Exception as e:  # noqa: BLE001
            raise ToolError("pubmed", f"search failed: {e}") from None
        out = []
        for h in (res[0] if res else []):
            ent = dict(h.get("entity") or {})
            pmid = ent.get("pmid", h.get("pmid", h.get("id")))
            out.append({"id": int(pmid), "distance": float(h.get("distance", 0.0)), "entity": ent})
        return out

    def search(self, query: str, k: int, filters: SearchFilters | None = None) -> list[Evidence]:
        query = (query or "").strip()
        if not query:
            from biorag.errors import InputError

            raise InputError("empty PubMed query: give a natural-language question or statement")
        filters = filters or SearchFilters()
        descriptors = ps.resolve_mesh(filters.mesh) if filters.mesh else []  # InputError on bad terms
        mesh_uis = {d.ui for d in descriptors}
        expr = ps.build_filter(filters, self.backend, descriptors)
        client, collection = self._open()
        vec = self.embedder.embed_query(query).tolist()

        exact = None
        if mesh_uis and self.exact_filter_rows:
            try:
                exact = exact_filtered_search(client, collection, vec, k, expr, self.exact_filter_rows)
            except Exception as e:  # noqa: BLE001
                raise ToolError("pubmed", f"filtered search failed: {e}") from None
        hits = exact if exact is not None else self._search(client, collection, vec, k, expr, self.ef)
        info: dict[str, Any] = {"filter": expr, "mesh": sorted(mesh_uis), "widen_mode": self.widen,
                                "widened": False, "filtered_hits": len(hits), "collection": collection,
                                "search": "exact" if exact is not None else "ann"}
        if mesh_uis and len(hits) < k:
            if exact is None:  # an exact search already found every matching row
                hits = self._search(client, collection, vec, k, expr, max(self.ef * 8, 512))
                info["filtered_hits"] = len(hits)
            if len(hits) < k and self.widen == "drop_filter":
                rest = ps.build_filter(SearchFilters(year_from=filters.year_from, year_to=filters.year_to), self.backend)
                seen = {h["id"] for h in hits}
                extra = [h for h in self._search(client, collection, vec, k + len(hits), rest, self.ef) if h["id"] not in seen]
                # every filtered hit stays; the combined list is ordered by similarity, so a
                # weak filtered match does not outrank a better unfiltered one (measured on
                # PubMedQA with tagger MeSH: widened questions had R@1 0.65 with filtered hits
                # first, while R@10 was 0.99)
                hits = sorted(hits + extra[: k - len(hits)], key=lambda h: -h["distance"])
                info["widened"] = bool(extra)
        if mesh_uis:
            note = f"MeSH filter [{', '.join(sorted(mesh_uis))}] matched {info['filtered_hits']} of {k}"
            if exact is not None:
                note += " (few matching rows: searched exactly)"
            if info["widened"]:
                note += f"; filled {len(hits) - info['filtered_hits']} from unfiltered search"
            elif info["filtered_hits"] < k:
                note += "; not widened (index.mesh_widen=none)" if self.widen == "none" else "; nothing more to add"
            info["note"] = note
        self.last_search = info
        return [self._evidence(h, mesh_uis) for h in hits]

    @staticmethod
    def _evidence(hit: dict, mesh_uis: set[str]) -> Evidence:
        e = hit["entity"]
        pmid = str(hit["id"])
        uis = list(e.get("mesh_ui") or [])
        match = bool(mesh_uis & set(uis)) if mesh_uis else None
        return Evidence(
            source="pubmed",
            id=pmid,
            title=e.get("title", ""),
            text=e.get("abstract", ""),
            url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
            score=hit["distance"],
            metadata={
                "pmid": pmid,
                "year": e.get("year") or None,
                "journal": e.get("journal", ""),
                "mesh": list(e.get("mesh_name") or []),
                "mesh_ui": uis,
                "mesh_major": list(e.get("mesh_major") or []),
                "mesh_filter": sorted(mesh_uis),
                "mesh_match": match,
                "widened": bool(mesh_uis) and not match,
            },
        )
