"""Local gene store: build time and size from the bundled snapshot, and in-process lookup latency.

    .venv/bin/python -m benchmarks.gene_store_lookup [--store PATH] [--n 2000] [--json]

What it does:
1. builds the full human store (`biorag data gene-store build`'s code path, bundled snapshot,
   disease dictionary included) into a temporary file, unless `--store` names a built one,
   and prints the build time and file size;
2. times, in process, `--n` calls of each kind against real names taken by rule from the
   shipped files (every k-th HGNC symbol, previous symbol and alias; every k-th ClinVar
   disease name), through the gene source's local backend (`LocalGeneRetriever.search`, which
   builds the evidence records the agent receives), `GeneStore.find_diseases` and
   `GeneStore.genes_for_disease`, and through the omim source's local backend;
3. prints p50/p95/p99 and max per kind. The issue's target: at most 50 ms at p95.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import statistics
import tempfile
import time
from pathlib import Path

from biorag.understanding.search_request import SearchRequest
from cli.commands.data import build_store
from indexing.gene_store_build import snapshot_paths
from retrievers.gene.retriever import LocalGeneRetriever
from retrievers.omim.local import LocalOmimRetriever
from retrievers.stores.gene_store import GeneStore


def _every_kth(items: list[str], n: int) -> list[str]:
    step = max(1, len(items) // n)
    return items[::step][:n]


def names(n: int) -> dict[str, list[str]]:
    with gzip.open(snapshot_paths()["hgnc"], "rt", encoding="utf-8") as fh:
        rows = list(csv.DictReader(io.StringIO(fh.read()), delimiter="\t", quoting=csv.QUOTE_NONE))
    split = lambda v: [x for x in v.strip('"').split("|") if x]  # noqa: E731
    with gzip.open(snapshot_paths()["gene_condition"], "rt", encoding="utf-8") as fh:
        diseases = [line.split("\t")[4] for line in fh.read().splitlines()[1:]]
    return {
        "symbol": _every_kth([r["symbol"] for r in rows], n),
        "previous": _every_kth([p for r in rows for p in split(r["prev_symbol"])], n),
        "alias": _every_kth([a for r in rows for a in split(r["alias_symbol"])], n),
        "disease": _every_kth(list(dict.fromkeys(diseases)), n),
    }


def percentiles(ms: list[float]) -> dict[str, float]:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"n": len(ms), "p50": round(q[49], 3), "p95": round(q[94], 3), "p99": round(q[98], 3),
            "max": round(max(ms), 3)}


def timed(fn, inputs: list[str]) -> list[float]:
    out = []
    for x in inputs:
        t = time.perf_counter()
        fn(x)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, help="an already built store (skips the build)")
    ap.add_argument("--n", type=int, default=2000, help="calls per kind")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = args.store
        if path is None:
            path = Path(tmp) / "gene_store.sqlite"
            t = time.perf_counter()
            summary = build_store(path, dict(snapshot_paths()))
            report["build"] = {"seconds": round(time.perf_counter() - t, 2),
                               "size_mb": round(path.stat().st_size / 1e6, 1),
                               "genes": summary["genes"], "diseases": summary["disease_ids"]}
        store = GeneStore(path)
        gene, omim = LocalGeneRetriever(store), LocalOmimRetriever(store)
        inputs = names(args.n)
        disease_ids = [h["disease_id"] for d in inputs["disease"] for h in store.find_diseases(d)[:1]]
        report["lookup_ms"] = {
            "gene source, symbol": percentiles(timed(lambda q: gene.search(SearchRequest.of(q, 10)), inputs["symbol"])),
            "gene source, previous symbol": percentiles(timed(lambda q: gene.search(SearchRequest.of(q, 10)), inputs["previous"])),
            "gene source, alias": percentiles(timed(lambda q: gene.search(SearchRequest.of(q, 10)), inputs["alias"])),
            "find_diseases": percentiles(timed(store.find_diseases, inputs["disease"])),
            "genes_for_disease": percentiles(timed(store.genes_for_disease, disease_ids)),
            "omim source (local), disease name": percentiles(timed(lambda q: omim.search(SearchRequest.of(q, 10)), inputs["disease"])),
        }
        store.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return
    if "build" in report:
        b = report["build"]
        print(f"build: {b['seconds']} s, {b['size_mb']} MB, {b['genes']:,} genes, {b['diseases']:,} diseases")
    for kind, p in report["lookup_ms"].items():
        print(f"{kind:36s} n={p['n']:5d}  p50 {p['p50']:7.3f} ms  p95 {p['p95']:7.3f} ms  "
              f"p99 {p['p99']:7.3f} ms  max {p['max']:7.3f} ms")


if __name__ == "__main__":
    main()
