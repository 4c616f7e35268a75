"""Cross-catalogue disease-name linking: how often a disease named the way ANOTHER catalogue
names it reaches the right disease and genes offline (a benchmark, not a test).

    python -m benchmarks.disease_names [--work DIR] [--limit N]

GeneTuring-style questions name a disease by an OMIM title or alternative title, which is
often in none of the offline dictionaries word for word. To measure how the local `omim`
backend copes with names it has never seen, without looking at any benchmark question, two
gene stores are built from the bundled snapshot, each missing one catalogue's names:

- ``no-clinvar``: HPO + mim2gene_medgen + MeSH; asked with ClinVar's DiseaseName of each
  OMIM phenotype (with a gene ClinVar associates) that both ClinVar and HPO name, where the
  two names differ beyond case and punctuation;
- ``no-hpo``: ClinVar + mim2gene_medgen + MeSH; asked with HPO's name of the same diseases.

Per direction it prints: ``reached`` (the OMIM id is among the diseases found, directly or
as an xref), ``top`` (it is the first hit), ``gene`` (the local `omim` retriever's answer
contains a gene the other catalogue links to that disease), ``wrong`` (answered, but with
none of those genes) and ``none`` (no answer), with examples of misses.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import random
import re
import time
from functools import partial
from pathlib import Path

from biorag.understanding.search_request import SearchRequest
from indexing import hpo_files
from indexing.disease_dictionary import add_disease_dictionary
from indexing.gene_store_build import build_gene_store, snapshot_paths
from retrievers.omim.local import LocalOmimRetriever
from retrievers.stores.gene_store import GeneStore


def clinvar_rows() -> list[dict[str, str]]:
    with gzip.open(snapshot_paths()["gene_condition"], "rt", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = [c.lstrip("#") for c in rows[0]]
    return [dict(zip(header, r, strict=False)) for r in rows[1:]]


def pairs() -> list[tuple[str, str, str, set[int]]]:
    """(OMIM id, ClinVar name, HPO name, genes ClinVar associates) where the names differ."""
    hpo = hpo_files.read_disease_names()
    by_id: dict[str, tuple[str, set[int]]] = {}
    for r in clinvar_rows():
        did = "OMIM:" + r["DiseaseMIM"]
        if r["DiseaseMIM"].isdigit() and did in hpo:
            name, genes = by_id.setdefault(did, (r["DiseaseName"], set()))
            if r["AssociatedGenes"] and r["GeneID"].isdigit():
                genes.add(int(r["GeneID"]))
    return [(did, c, hpo[did], genes) for did, (c, genes) in sorted(by_id.items())
            if genes and _plain(c) != _plain(hpo[did])]


def _plain(name: str) -> str:
    """Lower case, letters and digits only: names that differ beyond this are the test
    (fixed here rather than taken from `biorag.knowledge.names`, so that every version of the
    matching is measured on the same names)."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", name.lower()).split())


def build(path: Path, clinvar: bool, hpo_names: bool) -> GeneStore:
    if not path.exists():
        files = snapshot_paths()
        extend = partial(add_disease_dictionary, gene_condition=files["gene_condition"] if clinvar else None,
                         hpo=hpo_names)
        build_gene_store(path, files["gene_info"], files["hgnc"], files["mim2gene"], files["mim2gene_medgen"],
                         extend=extend)
    return GeneStore(path)


def run(store: GeneStore, items: list[tuple[str, str, set[int]]], label: str) -> None:
    omim = LocalOmimRetriever(store)
    counts = dict.fromkeys(("reached", "top", "gene", "wrong", "none"), 0)
    by_match: dict[str, list[int]] = {}
    misses: list[str] = []
    t0 = time.perf_counter()
    for did, name, genes in items:
        hits = store.find_diseases(name, forms=True)
        reached = [h for h in hits if did == h["disease_id"] or did in h["xrefs"]]
        counts["reached"] += bool(reached)
        counts["top"] += bool(hits) and hits[0] in reached
        evs = omim.search(SearchRequest.of(name, 10))
        got = {g for ev in evs for g in ev.metadata.get("gene_ids") or []}
        ok = bool(got & genes)
        counts["gene" if ok else "wrong" if got else "none"] += 1
        kind = evs[0].metadata.get("match", "name") if evs else "-"
        by_match.setdefault(kind, [0, 0])[0] += 1
        by_match[kind][1] += ok
        if not ok:
            misses.append(f"  {did} asked {name!r}: got {[ev.title for ev in evs[:2]]}")
    n = len(items)
    ms = 1000 * (time.perf_counter() - t0) / max(n, 1)
    print(f"{label}: {n} names; " + ", ".join(f"{k} {v} ({v / n:.1%})" for k, v in counts.items())
          + f"; {ms:.1f} ms per name")
    print("  answered by match kind (answers, right): "
          + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(by_match.items())))
    random.Random(0).shuffle(misses)
    print("\n".join(misses[:12]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=Path("out/bench/disease_names"))
    ap.add_argument("--limit", type=int, default=0, help="first N pairs only (0: all)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the two stores")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.rebuild:
        for p in args.work.glob("*.sqlite"):
            p.unlink()
    items = pairs()[:args.limit or None]
    no_clinvar = build(args.work / "no_clinvar.sqlite", clinvar=False, hpo_names=True)
    run(no_clinvar, [(d, c, g) for d, c, _, g in items], "ClinVar names -> store without ClinVar")
    no_hpo = build(args.work / "no_hpo.sqlite", clinvar=True, hpo_names=False)
    run(no_hpo, [(d, h, g) for d, _, h, g in items], "HPO names -> store without HPO")


if __name__ == "__main__":
    main()
