"""Time of `biorag geneset` on 100 real genes (a benchmark, not a test; target <= 2 s).

    python -m benchmarks.geneset_latency --go-terms ../shared/data/geneagent/GO_terms.csv [--runs 5]

The genes: the 100 first genes of the largest gene set of GeneAgent's GO benchmark (real
genes of one process, as a user would paste them). Each run is the whole command in a new
process (`biorag geneset GENES... --json`: start-up, imports, stores, libraries, enrichment
against every configured library, naming, claim checks), timed from outside, in the user's
data dir (BIORAG_DATA_DIR): build the gene store and the HPO store first, and the PubMed
index for the MeSH library. The first run also writes the libraries' array cache; it is
reported apart. The in-process time of the interpretation itself (`ms` in the JSON) is
printed too.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def genes_from(go_terms: Path, n: int) -> list[str]:
    with open(go_terms, newline="") as fh:
        rows = list(csv.DictReader(fh))
    biggest = max(rows, key=lambda r: len(r["Genes"].split()))
    return biggest["Genes"].split()[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--go-terms", type=Path, required=True, help="GeneAgent's GO_terms.csv")
    ap.add_argument("--genes", type=int, default=100)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    genes = genes_from(args.go_terms, args.genes)
    cmd = [sys.executable, "-m", "cli.main", "geneset", *genes, "--json"]
    walls, inner = [], []
    for i in range(args.runs + 1):
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t
        if out.returncode != 0:
            sys.exit(f"biorag geneset failed: {out.stderr.strip()}")
        d = json.loads(out.stdout)
        if i == 0:
            print(f"first run (writes the library cache): {wall:.2f} s; name: {d['answer']}")
            print(f"libraries: {', '.join(d['enriched'])}; notes: {'; '.join(d['notes']) or 'none'}")
            continue
        walls.append(wall)
        inner.append(d["ms"] / 1000)
    print(f"biorag geneset on {len(genes)} genes, {args.runs} runs: median {statistics.median(walls):.2f} s, "
          f"max {max(walls):.2f} s (whole command); interpretation in process: median {statistics.median(inner):.2f} s")
    print(f"target <= 2 s: {'met' if statistics.median(walls) <= 2 else 'NOT met'} (median)")


if __name__ == "__main__":
    main()
