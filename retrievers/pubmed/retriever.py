"""PubMed retriever over the local Milvus index built by `biorag index build`.

Cosine top-k over abstract embeddings (k = `settings.sources["pubmed"].top_k`, 4 by
default), optionally restricted by `SearchFilters.mesh` (descriptor names or UIs, resolved
against the bundled MeSH vocabulary; unknown terms raise InputError, nothing is ever pasted
into the filter expression) and by year bounds. The filter expression comes from
`biorag.ml.pubmed_schema.build_filter` (see its docstring for the design).

Concurrency: every search goes through one micro-batcher per retriever
(`biorag.ml.microbatch`): searches that arrive together share one query-embedding call (the
embedder also keeps an LRU of query vectors) and one Milvus call per filter expression.
`search` blocks; `submit` returns a Future (the API awaits it without holding a thread).

How a MeSH filter is searched (`SearchFilters.mesh_mode`):
- `filter`: the build keeps per-descriptor row counts in the collection's metadata. A
  filter matching at most `index.exact_filter_rows` rows is scored exactly (the matching
  rows' vectors are fetched from Milvus by the filter and scored in numpy: HNSW's graph walk
  starves when few rows pass); a broader one is searched by HNSW with the filter pushed
  down and a wider beam. When fewer than k hits come back, the ANN search is retried with a
  much wider beam, then with `index.mesh_widen = "drop_filter"` (default) the list is filled
  from the same search without the MeSH condition (year bounds still apply), the combined
  list ordered by similarity; `"none"` keeps the short list.
- `boost`: no MeSH condition; `mesh.boost_pool` x k nearest records are re-ranked by
  cosine + `mesh.boost_weight` x (share of the requested descriptors the record carries).
  On an index with a lexical side index that re-ranked list is fused with BM25 like a plain
  search's (retrievers/pubmed/hybrid.py): the embedded preset tags most literature questions
  with MeSH, and before that its searches never reached the lexical side.

What the search did is returned with the hits (`SearchHits.info`): `filter` (the
expression), `mesh` (UIs), `mesh_mode`, `path` (`exact`, `ann`, or `none` when the counts
say nothing matches), `matching_rows` (from the counts), `filtered_hits`, `widened`,
`widen_mode`, `batch` (searches that shared the embedding call), `note` (one sentence for
the trace). Each Evidence's `metadata` (a `PubMedRecord`, retrievers/pubmed/record.py)
carries `mesh_filter` (UIs requested), `mesh_match` (the record carries one of them),
`widened` (a fill-in hit from the unfiltered search); plus `pmid`, `year`, `journal`, `mesh`
(names), `mesh_ui`, `mesh_major`.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError, SourceUnavailable, ToolError
from biorag.contracts.models import Evidence, SearchFilters, SearchHits
from biorag.contracts.sources import PASSAGES
from biorag.knowledge.catalogues import record_url
from biorag.loop.prompts import MANUALS
from biorag.ml import pubmed_schema as ps
from biorag.ml.microbatch import MicroBatcher
from biorag.ml.vector_store import backend_of, index_token, open_store
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.pubmed.hybrid import FusionParams, fuse_hits, hybrid_options, open_lexical
from retrievers.pubmed.record import PubMedRecord

if TYPE_CHECKING:
    import numpy as np

    from biorag.ml.embedder import Embedder
    from biorag.settings import Settings

log = logging.getLogger(__name__)

MANUAL = MANUALS["pubmed"]  # the text lives with every other prompt
#: HNSW beam for the retry of a filtered search that came back short
RETRY_EF = 512
#: Lite: filters matching at most this many rows are scored exactly from rows fetched by PMID;
#: broader ones up to `exact_filter_rows` take the wide-beam HNSW search (see _run_batch)
BEAM_MIN_ROWS = 64
#: ... and that beam is this many times the filtered beam (ef x FILTERED_EF_FACTOR): at
#: 100k rows the graph walk starves on filters matching 0.1-1% of rows. Quiet 2-core machine,
#: benchmarks/mesh_filter_latency.py, 100k rows, 200 queries, top-4 (filtered recall@4 /
#: p95 ratio to unfiltered / this path's p95): x1 0.943 / 1.76 / 86 ms, x2 0.971 / 1.85 /
#: 86 ms, x3 0.981 / 1.90 / 88 ms, x4 0.983 / 2.04 / 101 ms. Widening every filtered beam
#: instead (FILTERED_EF_FACTOR x2, x3) gave 0.979 / 1.89 and 0.989 / 2.06: broad filters do
#: not need it
SELECTIVE_BEAM_WIDEN = 3


def encoder_workers() -> int:
    """Batch workers for the search batcher: the cores over torch's thread count in this
    thread, at least 1.

    A lone process (the CLI, the agent) gives torch every core: one worker, so the query
    encoder is always called from the same thread (torch's OpenMP team belongs to its caller;
    two workers taking turns kept two teams spinning on 2 cores: a lone caller got 52 q/s
    with two workers, 72 with one). `biorag serve` gives torch fewer (serve.torch_threads),
    and then each worker encodes its share of the queue on cores of its own: on 2 cores,
    1 thread encodes 4 queries in 23 ms and 2 in 14 ms, 2 threads 4 in 18 ms at twice the
    CPU (benchmarks/results/2026-11-25/README.md)."""
    import torch

    from biorag.host.device import available_cores

    return max(1, available_cores() // max(1, torch.get_num_threads()))


def _hit(h: dict) -> dict:
    ent = dict(h.get("entity") or {})
    pmid = ent.get("pmid", h.get("pmid", h.get("id")))
    return {"id": int(pmid), "distance": float(h.get("distance", 0.0)), "entity": ent}


def exact_search_many(client, collection: str, vecs: np.ndarray, k: int, expr: str, max_rows: int,
                      output_fields: list[str] | None = None, ids: list[int] | None = None,
                      years: tuple[int | None, int | None] = (None, None)) -> list[list[dict]] | None:
    """Exact cosine top-k, for each query vector, over the rows `expr` matches; None if it
    matches more than `max_rows` rows (then ANN search is the right tool).

    The matching rows' ids and vectors come from one scalar query by `expr` or, when the
    caller knows their PMIDs (`ids`, Milvus Lite: see pubmed_schema.MESH_POSTINGS_PROPERTY),
    one primary-key fetch, with the year bounds applied here. Never the whole collection.
    numpy scores them against every query of the batch at once, and one primary-key fetch
    brings the full records of the winners."""
    import numpy as np

    if ids is not None:
        rows = client.get(collection, ids=list(ids), output_fields=["pmid", "year", ps.VECTOR_FIELD]) if ids else []
        lo, hi = years
        rows = [r for r in rows if (lo is None or (r.get("year") or 0) >= lo) and (hi is None or (r.get("year") or 0) <= hi)]
    else:
        rows = client.query(collection, filter=expr, output_fields=["pmid", ps.VECTOR_FIELD], limit=max_rows + 1)
    if len(rows) > max_rows:
        return None
    if not rows:
        return [[] for _ in range(len(vecs))]
    mat = np.asarray([r[ps.VECTOR_FIELD] for r in rows], dtype=np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True) + 1e-12  # COSINE, as the index
    q = np.asarray(vecs, dtype=np.float32)
    q = q / (np.linalg.norm(q, axis=1, keepdims=True) + 1e-12)
    sims = q @ mat.T  # (queries, matching rows)
    kk = min(k, len(rows))
    tops = [np.argsort(-s)[:kk] for s in sims]
    pmids = [int(r["pmid"]) for r in rows]
    wanted = sorted({pmids[i] for top in tops for i in top})
    fields = output_fields or ps.OUTPUT_FIELDS
    ents = {int(e["pmid"]): e for e in client.get(collection, ids=wanted, output_fields=fields)} if wanted else {}
    return [[{"id": pmids[i], "distance": float(s[i]), "entity": ents.get(pmids[i], {"pmid": pmids[i]})} for i in top]
            for s, top in zip(sims, tops, strict=True)]


def exact_filtered_search(client, collection: str, vec: list[float], k: int, expr: str, max_rows: int,
                          output_fields: list[str] | None = None) -> list[dict] | None:
    """`exact_search_many` for one query vector."""
    import numpy as np

    res = exact_search_many(client, collection, np.asarray([vec], dtype=np.float32), k, expr, max_rows, output_fields)
    return None if res is None else res[0]


@dataclass
class _Request:
    """One search, planned in the caller's thread (bad input fails there, at once)."""

    query: str
    k: int
    mesh_uis: set[str]
    mode: str  # "filter", "boost" or "plain"
    expr: str  # the whole filter (MeSH and years) for "filter"; the years only otherwise
    base_expr: str  # the years only: the widened / boosted search
    path: str  # "exact", "ann" or "none" (the counts say no row matches)
    matching_rows: int | None
    ids: list[int] | None = None  # the exact path's rows by PMID (Lite postings), else by filter
    years: tuple[int | None, int | None] = (None, None)
    info: dict[str, Any] = field(default_factory=dict)
    vec: Any = None
    hits: list[dict] = field(default_factory=list)


class PubMedRetriever(Retriever):
    name = "pubmed"
    manual = MANUAL
    query_format = "a focused natural-language query (a sentence, not keywords); MeSH terms go in the filter"
    supports_mesh = True
    accepts = ("free_text",)
    answers = (PASSAGES,)

    def __init__(self, uri: str, collection: str = "pubmed", embedder: Embedder | None = None,
                 token: str | None = None, widen: str = "drop_filter", index_type: str = "HNSW",
                 ef: int = 64, nprobe: int = 32, exact_filter_rows: int = 1024, filtered_probe_rows: int = 0,
                 client=None, boost_weight: float = 0.02,
                 boost_pool: int = 5, batch_workers: int = 0, max_batch: int = 32, batch_wait_ms: float = 3.0,
                 lexical_root: str | None = None, fusion: FusionParams | None = None, gene_names=None):
        self.uri = uri
        self.alias = ps.check_collection_name(collection)
        self.backend = backend_of(uri)
        self.widen = widen
        self.index_type = index_type
        self.ef = ef
        self.nprobe = nprobe
        self.exact_filter_rows = exact_filter_rows
        self.filtered_probe_rows = filtered_probe_rows
        self.boost_weight = boost_weight
        self.boost_pool = boost_pool
        self._token = token
        self._embedder = embedder
        self._client = client
        self._collection: str | None = None
        self._lock = threading.Lock()
        self.meta: dict[str, Any] = {}
        #: per-descriptor row counts from the build (None: an index built before they were kept)
        self.mesh_counts: dict[str, int] | None = None
        #: Lite: PMIDs of the rows carrying each rare descriptor (the exact path reads them by id)
        self.mesh_postings: dict[str, list[int]] = {}
        self._batch_workers = batch_workers
        self._max_batch = max_batch
        self._batch_wait_s = batch_wait_ms / 1000
        self._batcher: MicroBatcher | None = None
        #: hybrid search (retrievers/pubmed/hybrid.py): the folder of the lexical side indexes
        #: (None: dense only), the fusion constants, and a gene-name expander for the query
        #: Lite: selective filters take the filtered HNSW search with a beam at least as wide as
        #: `exact_filter_rows` instead of fetching the rows by PMID (see _run_batch)
        self.exact_by_beam = backend_of(uri) == "lite" and ef * ps.FILTERED_EF_FACTOR >= exact_filter_rows
        self.lexical_root = lexical_root
        self.fusion = fusion or FusionParams()
        self.gene_names = gene_names
        self.lexical = None

    @classmethod
    def from_settings(cls, settings: Settings) -> PubMedRetriever:
        from biorag.ml.embedder import Embedder

        ix = settings.index
        return cls(
            uri=settings.milvus_uri, collection=ix.collection, embedder=Embedder.from_settings(settings),
            token=index_token(settings), widen=ix.mesh_widen,
            index_type=ix.index_type, ef=ix.search_ef, nprobe=ix.search_nprobe, exact_filter_rows=ix.exact_filter_rows,
            filtered_probe_rows=ix.filtered_probe_rows, boost_weight=settings.mesh.boost_weight, boost_pool=settings.mesh.boost_pool,
            batch_wait_ms=ix.batch_wait_ms, **hybrid_options(settings),
        )

    # ---- connection ----------------------------------------------------------------
    def _open(self):
        """Connect lazily (building the agent must not need the index) and load the
        collection behind the alias; errors say how to build it."""
        with self._lock:
            if self._client is not None and self._collection is not None:
                return self._client, self._collection
            if self._client is None:  # one-line errors (no store, held by another process, server down)
                self._client = open_store(self.uri, self._token, owner=self)
            target = ps.require_collection(self._client, self.alias, self.uri)
            self._client.load_collection(target)
            described = self._client.describe_collection(target)
            self.meta = ps.read_meta(described)
            self.mesh_counts = ps.read_mesh_counts(described)
            if self.mesh_counts is None:
                log.warning("index %s has no MeSH descriptor counts (built before they were kept): every MeSH "
                            "filter takes HNSW; `biorag index count-mesh` counts it once", target)
            self.mesh_postings = ps.read_mesh_postings(described)
            emb = self.embedder
            dim = ps.vector_dim(self._client, target)
            if dim is not None and dim != emb.dim:
                raise SourceUnavailable(
                    "pubmed",
                    f"collection {target} holds {dim}-dim vectors but the query embedder "
                    f"{emb.query_name or emb.name} makes {emb.dim}-dim ones: set index.embedder to "
                    f"{self.meta.get('embedder', 'the model it was built with')} or rebuild",
                )
            from biorag.ml.embedder import mismatch

            problem = mismatch(self.meta, emb.name)
            if problem:
                raise SourceUnavailable("pubmed", problem)
            self.lexical = open_lexical(self.lexical_root, target)
            self._collection = target
            return self._client, target

    @property
    def is_open(self) -> bool:
        """Store connected and model loaded: `submit` no longer blocks on set-up."""
        return self._collection is not None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from biorag.ml.embedder import Embedder

            self._embedder = Embedder()
        return self._embedder

    @property
    def batcher(self) -> MicroBatcher:
        """As many workers as torch's thread team fits in the cores (`encoder_workers`)."""
        with self._lock:
            if self._batcher is None:
                workers = self._batch_workers or encoder_workers()
                self._batcher = MicroBatcher(self._run_batch, max_batch=self._max_batch, max_wait_s=self._batch_wait_s,
                                             workers=workers, name="pubmed-search")
            return self._batcher

    def close(self) -> None:
        with self._lock:
            batcher, self._batcher = self._batcher, None
        if batcher is not None:
            batcher.close()  # finishes what is queued
        with self._lock:
            if self._client is not None:
                self._client.close()
            self._client, self._collection = None, None
            if self.lexical is not None:
                self.lexical.close()
                self.lexical = None

    # ---- search ----------------------------------------------------------------------
    def search(self, request: SearchRequest) -> SearchHits:
        return self.submit(request).result()

    def submit(self, request: SearchRequest) -> Future:
        """Queue a search; the Future's result is `SearchHits`. Bad input and a missing
        index raise here, in the caller's thread."""
        req = self._plan(request.text, request.k, request.filters)
        return self.batcher.submit(req)

    def search_vector(self, vec, k: int, filters: SearchFilters | None = None) -> SearchHits:
        """The same search for a query vector (benchmarks/mesh_filter_latency.py), unbatched."""
        req = self._plan("(vector)", k, filters or SearchFilters())
        req.vec = vec
        res = self._run_batch([req])[0]
        if isinstance(res, BaseException):
            raise res
        return res

    def _plan(self, query: str, k: int, filters: SearchFilters) -> _Request:
        query = (query or "").strip()
        if not query:
            raise InputError("empty PubMed query: give a natural-language question or statement")
        descriptors = ps.resolve_mesh(filters.mesh) if filters.mesh else []  # InputError on bad terms
        mesh_uis = {d.ui for d in descriptors}
        years = SearchFilters(year_from=filters.year_from, year_to=filters.year_to)
        base_expr = ps.build_filter(years, self.backend)
        self._open()
        if not mesh_uis:
            return _Request(query, k, mesh_uis, "plain", base_expr, base_expr, "ann", None,
                            years=(filters.year_from, filters.year_to))
        if filters.mesh_mode == "boost":
            return _Request(query, k, mesh_uis, "boost", base_expr, base_expr, "ann", None)
        expr = ps.build_filter(filters, self.backend, descriptors)
        matching = None
        path = "ann"
        if self.mesh_counts is not None:
            # an upper bound: a record carrying two of the descriptors is counted twice
            matching = sum(self.mesh_counts.get(u, 0) for u in mesh_uis)
            if matching == 0:
                path = "none"
            elif matching <= self.exact_filter_rows:
                path = "exact"
        ids = None
        if path == "exact" and all(u in self.mesh_postings or not self.mesh_counts.get(u) for u in mesh_uis):
            ids = sorted({i for u in mesh_uis for i in self.mesh_postings.get(u, ())})
        return _Request(query, k, mesh_uis, "filter", expr, base_expr, path, matching, ids,
                        (filters.year_from, filters.year_to))

    def _run_batch(self, reqs: list[_Request]) -> list[SearchHits | BaseException]:
        """One embedding call for the whole batch, then one Milvus call per filter
        expression and kind of search."""
        import numpy as np

        t0 = time.perf_counter()
        client, collection = self._open()
        todo = [r for r in reqs if r.vec is None]
        if todo:
            for r, v in zip(todo, self.embedder.embed_queries([r.query for r in todo]), strict=True):
                r.vec = v
        embed_ms = (time.perf_counter() - t0) * 1000
        failed: dict[int, BaseException] = {}

        def grouped(items: list[_Request], key) -> dict[Any, list[_Request]]:
            groups: dict[Any, list[_Request]] = {}
            for r in items:
                if id(r) not in failed:
                    groups.setdefault(key(r), []).append(r)
            return groups

        def ann(group: list[_Request], expr: str, limit: int, ef: int, filtered: bool) -> list[list[dict]] | None:
            nprobe = self.probes(group[0].matching_rows if filtered else None)
            for r in group:
                if self.index_type.startswith("IVF"):
                    r.info["nprobe"] = max(nprobe, r.info.get("nprobe", 0))
            try:
                return self._search(client, collection, np.stack([r.vec for r in group]), limit, expr, ef, filtered,
                                    nprobe)
            except ToolError as e:
                for r in group:
                    failed[id(r)] = e
                return None

        # 1. the main search: exact over few matching rows, else HNSW (filter pushed down)
        # (a boosted and a plain search with the same year bounds share one call)
        for (path, expr, filtered), group in grouped(reqs, lambda r: (r.path, r.expr, r.mode == "filter")).items():
            if path == "none":
                continue
            if path == "exact" and self.exact_by_beam and (group[0].matching_rows or 0) > BEAM_MIN_ROWS:
                # Lite 3.x materialises every column of every row a get() returns, in Python
                # (~1-3 ms a row under load: a 1,024-row exact fetch took ~2.9 s at p95); faiss
                # walks the HNSW graph with the filter's rows selected and a beam (ef x
                # FILTERED_EF_FACTOR) at least as wide as the rows the exact path takes. A
                # handful of rows is still fetched by PMID: cheap, and a beam starves on them
                for r in group:
                    r.info["exact_by"] = "beam"
                res = ann(group, expr, max(r.k for r in group), self.ef * SELECTIVE_BEAM_WIDEN, True)
            elif path == "exact":
                try:
                    res = exact_search_many(client, collection, np.stack([r.vec for r in group]),
                                            max(r.k for r in group), expr, self.exact_filter_rows,
                                            ids=group[0].ids, years=group[0].years)
                except Exception as e:  # noqa: BLE001
                    res, err = None, ToolError("pubmed", f"filtered search failed: {e}")
                    for r in group:
                        failed[id(r)] = err
                    continue
                if res is None:  # the counts were stale: more rows match than they said
                    for r in group:
                        r.path = "ann"
                    res = ann(group, expr, max(r.k for r in group), self.ef, True)
            else:
                limit = max(self._pool(r) for r in group)
                res = ann(group, expr, limit, self.ef, filtered)
            for r, hits in zip(group, res or [], strict=False):
                r.hits = hits[: self._pool(r)]

        # 2. a filtered HNSW search that came back short: retry with a much wider beam
        short = [r for r in reqs if r.mode == "filter" and len(r.hits) < r.k
                 and (r.path == "ann" or r.info.get("exact_by") == "beam")]
        for expr, group in grouped(short, lambda r: r.expr).items():
            res = ann(group, expr, max(r.k for r in group), max(self.ef * 8, RETRY_EF), True)
            for r, hits in zip(group, res or [], strict=False):
                r.hits = hits[: r.k]
        for r in reqs:
            if r.mode == "filter":
                r.info["filtered_hits"] = len(r.hits)

        # 3. still short: fill from the same search without the MeSH condition
        if self.widen == "drop_filter":
            short = [r for r in reqs if r.mode == "filter" and len(r.hits) < r.k]
            for expr, group in grouped(short, lambda r: r.base_expr).items():
                res = ann(group, expr, max(r.k + len(r.hits) for r in group), self.ef, False)
                for r, extra in zip(group, res or [], strict=False):
                    seen = {h["id"] for h in r.hits}
                    extra = [h for h in extra if h["id"] not in seen][: r.k - len(r.hits)]
                    # every filtered hit stays; the combined list is ordered by similarity, so
                    # a weak filtered match does not outrank a better unfiltered one (measured on
                    # PubMedQA with tagger MeSH: widened questions had R@1 0.65 with filtered
                    # hits first, while R@10 was 0.99)
                    r.hits = sorted(r.hits + extra, key=lambda h: -h["distance"])
                    r.info["widened"] = bool(extra)

        total_ms = (time.perf_counter() - t0) * 1000
        out: list[SearchHits | BaseException] = []
        for r in reqs:
            if id(r) in failed:
                out.append(failed[id(r)])
                continue
            if r.mode == "boost":
                # the boosted order is the dense list that is fused, when the index has a lexical side
                r.hits = self._boosted(r) if not self._hybrid(r) else self._boosted(r, len(r.hits))
            if self._hybrid(r):
                try:
                    r.hits, fusion_info = fuse_hits(client, collection, r.query, r.vec, r.hits, self.lexical, r.k,
                                                    self.fusion, self.gene_names, r.years)
                except Exception as e:  # noqa: BLE001
                    out.append(ToolError("pubmed", f"lexical search failed: {e}"))
                    continue
                r.info.update(fusion_info)
            else:
                r.hits = r.hits[: r.k]
            out.append(self._result(r, collection, len(reqs), embed_ms, total_ms))
        return out

    def _pool(self, r: _Request) -> int:
        """How many candidates the main search fetches for a request."""
        boost = max(r.k * self.boost_pool, r.k + 16) if r.mode == "boost" else r.k
        if self._hybrid(r):
            return max(boost, self.fusion.depth)  # the dense list that is fused
        return boost

    def _hybrid(self, r: _Request) -> bool:
        """A search without a MeSH filter (plain, or with MeSH as a boost), of a question (not a
        bare vector), on an index with a lexical side index: fused with BM25
        (retrievers/pubmed/hybrid.py)."""
        return r.mode in ("plain", "boost") and self.lexical is not None and r.query != "(vector)"

    def _boosted(self, r: _Request, keep: int | None = None) -> list[dict]:
        """Boost mode: cosine + weight x share of the requested descriptors the record carries;
        the first `keep` (k) of them."""
        for h in r.hits:
            share = len(r.mesh_uis & set(h["entity"].get("mesh_ui") or [])) / len(r.mesh_uis)
            h["similarity"] = h["distance"]
            h["distance"] = h["distance"] + self.boost_weight * share
        return sorted(r.hits, key=lambda h: -h["distance"])[: keep or r.k]

    def _result(self, r: _Request, collection: str, batch: int, embed_ms: float, total_ms: float) -> SearchHits:
        info = r.info
        info.update({"collection": collection, "filter": r.expr, "batch": batch,
                     "embed_ms": round(embed_ms, 1), "batch_ms": round(total_ms, 1)})
        if r.mesh_uis:
            terms = ", ".join(sorted(r.mesh_uis))
            info.update({"mesh": sorted(r.mesh_uis), "mesh_mode": r.mode})
            if r.mode == "boost":
                matched = sum(1 for h in r.hits if r.mesh_uis & set(h["entity"].get("mesh_ui") or []))
                info.update({"path": "ann", "boost_weight": self.boost_weight, "candidates": self._pool(r)})
                info["note"] = (f"MeSH boost [{terms}]: {matched} of {len(r.hits)} hits carry a requested "
                                f"descriptor (re-ranked from {self._pool(r)} unfiltered candidates)")
            else:
                info.setdefault("widened", False)
                info.update({"path": r.path, "matching_rows": r.matching_rows, "widen_mode": self.widen,
                             "exact_filter_rows": self.exact_filter_rows})
                note = f"MeSH filter [{terms}] matched {info['filtered_hits']} of {r.k}"
                if r.path == "exact":
                    if info.get("exact_by") == "beam":
                        note += f" (at most {r.matching_rows} matching rows: HNSW with a beam as wide as them)"
                    else:
                        note += f" (at most {r.matching_rows} matching rows: searched exactly)"
                        info["exact_by"] = "pmid" if r.ids is not None else "filter"
                elif r.path == "none":
                    note += " (no indexed record carries it)"
                elif r.matching_rows is None:
                    note += f" ({self.index_type}; this index keeps no descriptor counts, rebuild it to enable exact search)"
                else:
                    probed = f", {info['nprobe']} lists probed" if "nprobe" in info else ""
                    note += f" ({self.index_type} over about {r.matching_rows} matching rows{probed})"
                if info["widened"]:
                    note += f"; filled {len(r.hits) - info['filtered_hits']} from unfiltered search"
                elif info["filtered_hits"] < r.k:
                    note += "; not widened (index.mesh_widen=none)" if self.widen == "none" else "; nothing more to add"
                info["note"] = note
        else:
            info["path"] = "ann"
        filter_uis = r.mesh_uis if r.mode == "filter" else set()
        hits = [self._evidence(h, r.mesh_uis, filter_uis) for h in r.hits]
        return SearchHits(hits, info)

    def probes(self, matching_rows: int | None) -> int:
        """IVF lists to probe. A MeSH-filtered search probes enough lists to hold about
        `index.filtered_probe_rows` matching rows (matching x nprobe / nlist, the filter's rows
        spread evenly over the lists), at least `search_nprobe`, at most nlist: with a fixed
        nprobe a selective filter leaves few candidates in the probed lists and recall falls
        (0.79 at 200k rows, nprobe 256; benchmarks/results/2026-11-26)."""
        if not self.index_type.startswith("IVF"):
            return self.nprobe
        nlist = int((self.meta.get("index_params") or {}).get("nlist") or 0)
        return ps.filtered_nprobe(self.nprobe, self.filtered_probe_rows, nlist, matching_rows)

    def _search(self, client, collection: str, vecs, k: int, expr: str, ef: int, filtered: bool,
                nprobe: int | None = None) -> list[list[dict]]:
        try:
            res = client.search(
                collection, data=[v.tolist() for v in vecs], limit=k, filter=expr, anns_field=ps.VECTOR_FIELD,
                output_fields=ps.OUTPUT_FIELDS, search_params=ps.search_params(self.index_type, ef, k, filtered=filtered,
                                                                                nprobe=nprobe or self.nprobe),
            )
        except Exception as e:  # noqa: BLE001
            raise ToolError("pubmed", f"search failed: {e}") from None
        return [[_hit(h) for h in (res[i] if res and i < len(res) else [])] for i in range(len(vecs))]

    @staticmethod
    def _evidence(hit: dict, mesh_uis: set[str], filter_uis: set[str]) -> Evidence:
        """`widened` marks a hit outside an active MeSH filter (never set in boost mode)."""
        e = hit["entity"]
        pmid = str(hit["id"])
        uis = list(e.get("mesh_ui") or [])
        match = bool(mesh_uis & set(uis)) if mesh_uis else None
        return Evidence(
            source="pubmed",
            id=pmid,
            title=e.get("title", ""),
            text=e.get("abstract", ""),
            url=record_url("pubmed", pmid),
            score=hit["distance"],
            year=_year(e.get("year")),
            metadata=PubMedRecord(
                pmid=pmid, year=e.get("year") or None, journal=e.get("journal", ""),
                mesh=list(e.get("mesh_name") or []), mesh_ui=uis, mesh_major=list(e.get("mesh_major") or []),
                mesh_filter=sorted(mesh_uis), mesh_match=match, widened=bool(filter_uis) and not match,
                **({"similarity": hit["similarity"]} if "similarity" in hit else {}),
            ).as_metadata(),
        )


def _year(value: object) -> int | None:
    """A stored year as a number (the index keeps 0 or "" where the record has none)."""
    try:
        return int(value) or None if value not in (None, "") else None
    except (TypeError, ValueError):
        return None
