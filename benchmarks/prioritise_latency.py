"""Ranking time of phenotype-driven prioritisation, one case at a time, as `biorag prioritise`
and `POST /v1/prioritise` run it (HPO ids checked, genes ranked, the top 10 explained).

  python -m benchmarks.prioritise_latency --cases ../shared/data/phenopackets/dev_cases.jsonl \
      [--store PATH] [--max-features 8] [--limit N]

Prints the one-off model load and p50/p95/p99/max per case (target: p95 <= 0.5 s on 2 cores)."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from biorag.settings import load_settings
from evaluation.prioritise import capped, read_cases
from retrievers.hpo.prioritise import prioritise
from retrievers.stores.hpo_store import HpoStore, hpo_store_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, required=True)
    ap.add_argument("--store", type=Path, default=None, help="HPO store (default: the data dir's)")
    ap.add_argument("--max-features", type=int, default=8)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--top-k", type=int, default=10)
    args = ap.parse_args()
    store = HpoStore(args.store or hpo_store_path(load_settings()))
    cases = read_cases(args.cases)[:args.limit] if args.limit else read_cases(args.cases)
    t0 = time.perf_counter()
    store.model()
    load = time.perf_counter() - t0
    times = []
    for c in cases:
        t = time.perf_counter()
        prioritise(store, capped(c, args.max_features), args.top_k)
        times.append(time.perf_counter() - t)
    store.close()
    times.sort()
    q = statistics.quantiles(times, n=100)
    print(f"cases: {len(times)} (at most {args.max_features} features), top {args.top_k} explained; "
          f"cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    print(f"model load (once per process): {load:.2f} s")
    print(f"per case: p50 {q[49]:.3f} s, p95 {q[94]:.3f} s, p99 {q[98]:.3f} s, max {times[-1]:.3f} s, "
          f"mean {statistics.fmean(times):.3f} s")


if __name__ == "__main__":
    main()
