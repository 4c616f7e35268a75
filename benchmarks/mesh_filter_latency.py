"""Filtered vs unfiltered top-k latency on the embedded store at scale (a benchmark, not a test).

    python -m benchmarks.mesh_filter_latency --rows 100000 \
        --mesh-from /work/shared/data/pubmed_xml/pubmed_records.jsonl.gz [--naive 3]

Rows: synthetic clustered unit vectors (384-dim) carrying REAL MeSH descriptor lists, each
row copying the headings of a random real PubMed record (so descriptor frequencies follow
the real distribution). The collection uses the production schema and index
(`biorag.ml.pubmed_schema`). Queries: noisy copies of random rows; each filtered query asks
for one descriptor drawn from the real heading distribution (common and rare alike).

Searches go through the production retriever (`PubMedRetriever.search_vector`): the
descriptor counts are stored in the collection as the build stores them, and the retriever
picks the exact path (filters matching at most `--exact-rows` rows) or HNSW with the filter
pushed down. Reports p50/p95 for unfiltered and filtered top-k, their ratio (target:
filtered p95 <= 2x unfiltered p95), filter exactness (k filtered hits, each carrying the
descriptor, or every matching row when fewer), recall@k of the filtered search against
exact numpy search over the matching rows, the share of each path and its p95, and
optionally the naive `array_contains_any` on the ARRAY field.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np


def load_mesh_lists(path: str) -> list[list[str]]:
    out = []
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        for line in f:
            uis = [m["ui"] for m in json.loads(line).get("mesh") or [] if m.get("ui")]
            if uis:
                out.append(uis)
    return out


def pct(xs, q):
    return float(np.percentile(np.asarray(xs) * 1000, q))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--mesh-from", required=True, help="JSONL(.gz) of real records with a `mesh` list of {ui,...}")
    ap.add_argument("--naive", type=int, default=0, help="also time N queries with array_contains_any (slow on Lite)")
    ap.add_argument("--db", default=None, help="Milvus Lite path (default: a temp dir, removed afterwards)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json-out", default=None)
    ap.add_argument("--ef-factor", type=int, default=None,
                    help="override pubmed_schema.FILTERED_EF_FACTOR (beam widening for filtered queries)")
    ap.add_argument("--exact-rows", type=int, default=None,
                    help="filters matching at most this many rows are searched exactly, as the retriever does "
                         "(default: index.exact_filter_rows; 0 = always HNSW)")
    ap.add_argument("--reuse", action="store_true",
                    help="with --db: keep a collection of the same size from an earlier run (same --seed)")
    a = ap.parse_args(argv)

    from biorag.contracts.models import SearchFilters
    from biorag.ml import pubmed_schema as ps
    from biorag.ml.vector_store import open_store

    if a.ef_factor:
        ps.FILTERED_EF_FACTOR = a.ef_factor

    rng = np.random.default_rng(a.seed)
    mesh_lists = load_mesh_lists(a.mesh_from)
    vocab = ps.vocabulary()
    tmp = Path(a.db) if a.db else Path(tempfile.mkdtemp(prefix="meshbench-")) / "bench.db"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    client = open_store(str(tmp), create=True)
    name = "meshbench"
    reuse = a.reuse and client.has_collection(name) and client.get_collection_stats(name).get("row_count") == a.rows
    if client.has_collection(name) and not reuse:
        client.drop_collection(name)
    if not reuse:
        # indexed after the insert (below): created with its index, Lite builds each 75k-row
        # segment's HNSW in a background thread that ran minutes behind the insert at 1M rows,
        # so the first queries searched unindexed segments by brute force while it still built
        client.create_collection(collection_name=name, schema=ps.build_schema(a.dim))

    centers = rng.normal(size=(256, a.dim)).astype(np.float32)
    assign = rng.integers(0, len(centers), a.rows)
    row_mesh = [mesh_lists[i] for i in rng.integers(0, len(mesh_lists), a.rows)]
    vecs = np.empty((a.rows, a.dim), dtype=np.float32)
    t0 = time.perf_counter()
    batch = 5000
    for s in range(0, a.rows, batch):
        e = min(a.rows, s + batch)
        v = centers[assign[s:e]] + 0.6 * rng.normal(size=(e - s, a.dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        vecs[s:e] = v
        if reuse:
            continue
        rows = []
        for i in range(s, e):
            uis = [u for u in dict.fromkeys(row_mesh[i]) if ps.UI_RE.match(u)][: ps.MAX_MESH]
            rows.append({"pmid": i, "title": "", "abstract": "", "journal": "", "year": 2000,
                         "mesh_ui": uis, "mesh_name": [], "mesh_major": [], "mesh_key": ps.mesh_key(uis),
                         "pub_types": [], ps.VECTOR_FIELD: v[i - s].tolist()})
        client.insert(name, rows)
        print(f"\rinserted {e}/{a.rows}", end="", flush=True)
    if not reuse:
        client.flush(name)
    t_insert = time.perf_counter() - t0
    t0 = time.perf_counter()
    if not reuse:
        client.create_index(name, ps.index_params(client, "lite", "HNSW"))
    client.load_collection(name)  # builds (or reads back) every segment's index before returning
    t_load = time.perf_counter() - t0
    print(f"\ninsert {t_insert:.1f}s, load/index {t_load:.1f}s")

    # descriptor per query, drawn from the real heading distribution, restricted to vocabulary UIs
    all_uis = [u for ml in mesh_lists for u in ml if u in vocab.by_ui]
    q_uis = [all_uis[i] for i in rng.integers(0, len(all_uis), a.queries)]
    q_rows = rng.integers(0, a.rows, a.queries)
    queries = vecs[q_rows] + 0.3 * rng.normal(size=(a.queries, a.dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    from biorag.settings import IndexSettings
    from indexing.mesh_counts import save_counts
    from retrievers.pubmed.retriever import PubMedRetriever

    # the per-descriptor row counts the build keeps, so the retriever picks its path as in production
    # (one pass: every descriptor's rows, also the ground truth of each filtered query; a
    # scan of all rows per query descriptor took ~15 s a query at 1M rows on a loaded machine)
    rows_of: dict[str, list[int]] = {}
    for i, ml in enumerate(row_mesh):
        for u in {x for x in ml if ps.UI_RE.match(x)}:
            rows_of.setdefault(u, []).append(i)
    counts = Counter({u: len(r) for u, r in rows_of.items()})
    postings = {u: set(r) for u, r in rows_of.items() if len(r) <= ps.POSTINGS_MAX_ROWS}
    save_counts(client, name, counts, a.rows, postings)
    exact_rows = IndexSettings().exact_filter_rows if a.exact_rows is None else a.exact_rows
    retriever = PubMedRetriever(str(tmp), collection=name, client=client, exact_filter_rows=exact_rows)
    paths: list[str] = []

    def run(q, filters: SearchFilters | None):
        """The production search path (exact or HNSW, chosen from the counts), one query."""
        t = time.perf_counter()
        hits = retriever.search_vector(q, a.k, filters)
        dt = time.perf_counter() - t
        if filters is not None:
            paths.append(hits.info["path"])
        return dt, [{"entity": {"pmid": int(h.id), "mesh_ui": h.metadata["mesh_ui"]}} for h in hits]

    for q in queries[:5]:  # warm-up
        run(q, None)
    unf, fil, exact_ok, recall, selectivity, unf_recall = [], [], 0, [], [], []
    for qi, (q, ui) in enumerate(zip(queries, q_uis, strict=True)):
        dt, hits = run(q, None)
        unf.append(dt)
        # the index's own recall, for context: filtered recall cannot beat it
        truth_all = set(np.argpartition(-(vecs @ q), a.k)[: a.k].tolist())
        unf_recall.append(len(truth_all & {int(h["entity"]["pmid"]) for h in hits}) / a.k)
        dt, hits = run(q, SearchFilters(mesh=[ui]))
        hits = [h for h in hits if ui in h["entity"]["mesh_ui"]]  # widened fill-ins are not filtered hits
        fil.append(dt)
        idx = np.asarray(rows_of.get(ui, ()), dtype=np.int64)  # the rows carrying the descriptor
        selectivity.append(len(idx) / a.rows)
        exact_ok += len(hits) == min(a.k, len(idx))  # every filtered hit carries it, none missing
        truth = set(idx[np.argsort(-(vecs[idx] @ q))[: a.k]].tolist())
        got = {int(h["entity"]["pmid"]) for h in hits}
        # a descriptor no row carries: nothing to find, and returning nothing is exact
        recall.append(len(truth & got) / min(a.k, len(idx)) if len(idx) else float(not got))
        print(f"\rquery {qi + 1}/{a.queries}", end="", flush=True)
    print()
    naive = []
    for q, ui in list(zip(queries, q_uis, strict=True))[: a.naive]:
        t = time.perf_counter()
        client.search(name, data=[q.tolist()], limit=a.k, filter=f'array_contains_any(mesh_ui, ["{ui}"])',
                      anns_field=ps.VECTOR_FIELD, output_fields=["pmid"], search_params=ps.search_params("HNSW", 64, a.k, True))
        naive.append(time.perf_counter() - t)

    size_mb = sum(f.stat().st_size for f in tmp.rglob("*") if f.is_file()) / 1e6
    out = {
        "rows": a.rows, "dim": a.dim, "queries": a.queries, "k": a.k,
        "insert_s": round(t_insert, 1), "load_index_s": round(t_load, 1), "size_on_disk_mb": round(size_mb, 1),
        "unfiltered_p50_ms": round(pct(unf, 50), 1), "unfiltered_p95_ms": round(pct(unf, 95), 1),
        "filtered_p50_ms": round(pct(fil, 50), 1), "filtered_p95_ms": round(pct(fil, 95), 1),
        "p95_ratio": round(pct(fil, 95) / pct(unf, 95), 2),
        "filter_exact": f"{exact_ok}/{a.queries}",
        "filtered_recall_at_k": round(float(np.mean(recall)), 3),
        "unfiltered_recall_at_k": round(float(np.mean(unf_recall)), 3),
        "ef_factor": ps.FILTERED_EF_FACTOR,
        "exact_filter_rows": exact_rows,
        "filtered_recall_by_selectivity": _by_selectivity(selectivity, recall, fil),
        "path_share": {p: round(paths.count(p) / len(paths), 3) for p in sorted(set(paths))},
        "filtered_p95_ms_by_path": {p: round(pct([fil[i] for i, x in enumerate(paths) if x == p], 95), 1)
                                    for p in sorted(set(paths))},
        "selectivity_median": round(float(np.median(selectivity)), 4),
        "selectivity_min": round(float(np.min(selectivity)), 6),
    }
    if naive:
        out["naive_array_contains_p50_ms"] = round(pct(naive, 50), 1)
    print(json.dumps(out, indent=2))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(out, indent=2))
    retriever.close()
    if not a.db:
        shutil.rmtree(tmp.parent, ignore_errors=True)
    return out


def _by_selectivity(selectivity: list[float], recall: list[float], latency: list[float]) -> dict[str, dict]:
    """Filtered recall and latency per band of the share of rows the descriptor matches."""
    bands = [(0.0, 0.001, "<0.1%"), (0.001, 0.01, "0.1-1%"), (0.01, 0.1, "1-10%"), (0.1, 1.01, ">=10%")]
    out = {}
    for lo, hi, label in bands:
        idx = [i for i, s in enumerate(selectivity) if lo <= s < hi]
        if idx:
            out[label] = {"queries": len(idx), "recall": round(float(np.mean([recall[i] for i in idx])), 3),
                          "p95_ms": round(pct([latency[i] for i in idx], 95), 1)}
    return out


if __name__ == "__main__":
    main()
