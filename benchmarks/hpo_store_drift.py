"""What a second HPO store answers differently from a reference store, on the lookups the
team's HPO probes exercise (disease -> genes, phenotype names -> terms, phenotype pairs ->
genes). Built for comparing a store built from another release (indexing/hpo_release_export.py)
with the default one; it measures agreement with the reference, not correctness.

    PYTHONPATH=. .venv/bin/python -m benchmarks.hpo_store_drift REF.sqlite OTHER.sqlite [--every 10]

- disease -> genes: every Nth disease HPO links to a gene in REF; share whose gene set in
  OTHER is the same (and share where OTHER keeps at least REF's genes).
- names: every Nth name and text synonym of REF (as `find_terms` reads them); share that OTHER
  reads as the same term, names and synonyms apart.
- phenotype pairs -> genes: for every Nth linked OMIM disease in REF, its two most specific
  phenotype terms (by IC over diseases) asked as a pair; share where one of the disease's genes
  is in the first 10 of `rank_genes`, in each store.
"""

from __future__ import annotations

import argparse
import sqlite3
from collections import defaultdict
from pathlib import Path

from retrievers.stores.hpo_store import HpoStore


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute(sql).fetchall()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ref", type=Path)
    ap.add_argument("other", type=Path)
    ap.add_argument("--every", type=int, default=10)
    args = ap.parse_args()
    ref, other = HpoStore(args.ref), HpoStore(args.other)
    print(f"reference HPO {ref.release}, other HPO {other.release}")

    genes = defaultdict(set)
    for g, d in _rows(args.ref, "SELECT gene_id, disease_id FROM gene_diseases"):
        genes[d].add(g)
    sample = sorted(genes)[::args.every]
    same = kept = 0
    for d in sample:
        got = {g for g, _ in other.genes_of_disease(d)}
        same += got == genes[d]
        kept += got >= genes[d]
    print(f"disease -> genes, {len(sample)} diseases: same genes {same / len(sample):.3f}, "
          f"reference's genes kept {kept / len(sample):.3f}")

    names = _rows(args.ref, "SELECT n.name_norm, t.id, n.kind FROM term_names n JOIN terms t ON t.term=n.term "
                  "ORDER BY n.name_norm, t.id")[::args.every]
    for kind in ("name", "synonym"):
        rows = [(text, hp) for text, hp, k in names if k == kind]
        read = [r for r in rows if [m.id for m in ref.find_terms(r[0])][:1] == [r[1]]]
        agree = sum([m.id for m in other.find_terms(text)][:1] == [hp] for text, hp in read)
        print(f"{kind}s read by the reference as their term: {len(read)}; read the same by the other: "
              f"{agree / max(1, len(read)):.3f}")

    ic = dict(_rows(args.ref, "SELECT id, ic_disease FROM terms"))
    terms = defaultdict(set)
    for d, hp in _rows(args.ref, "SELECT x.disease_id, t.id FROM disease_terms x JOIN terms t ON t.term=x.term "
                       "WHERE x.aspect='P' AND x.negated=0 AND x.disease_id LIKE 'OMIM:%'"):
        terms[d].add(hp)
    pairs = [(d, sorted(terms[d], key=lambda t: (-ic[t], t))[:2]) for d in sample
             if d.startswith("OMIM:") and len(terms[d]) >= 2]
    for label, store in (("reference", ref), ("other", other)):
        hit = 0
        for d, pair in pairs:
            top = {int(r.id) for r in store.rank_genes(pair, limit=10)}
            hit += bool(top & genes[d])
        print(f"phenotype pairs -> genes, {len(pairs)} pairs: a gene of the disease in the first 10, "
              f"{label}: {hit / max(1, len(pairs)):.3f}")
    ref.close()
    other.close()


if __name__ == "__main__":
    main()
