"""Noisy presentations of real HPO diseases: half the features dropped, two unrelated ones added.

    PYTHONPATH=. python -m benchmarks.noisy_presentations --data-dir DIR [--cases 1000] [--seed 7] [--json]

DIR holds `hpo_store.sqlite` (`make hpo-store`, or `biorag data hpo-store build`). For each of
`--cases` diseases drawn from the store (those with at least two observed features and a
gene HPO links to them), a presentation keeps a random half of the disease's features
(rounded up) and adds two features drawn from the terms other diseases are annotated with.
The store's ranking (`PhenotypeModel.rank_genes`, shipped constants) ranks the genes; the
case scores when a gene HPO links to that disease is in the first 1 / 10. The disease itself
stays in the store, as in clinical use: the figure measures how noise and missing features
are borne, not curation (the clinical-genetics target: >= 0.8 in the first 10).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from pathlib import Path

from biorag.knowledge.phenotype_types import HPO_LINK, Patient, ScoringParams
from retrievers.stores.hpo_store import HpoStore


def presentations(model, n: int, rng: random.Random) -> list[tuple[str, list[str], set[str]]]:
    """(disease id, HP ids of the presentation, symbols of the genes HPO links to it)."""
    causal: dict[int, set[str]] = {}
    for (gid, di), sources in model.link_sources.items():
        if HPO_LINK in sources:
            causal.setdefault(di, set()).add(model.symbols[gid])
    pool = sorted(di for di in causal if len({t for t, _ in model.annotated[di]}) >= 2)
    seen_terms = sorted({t for ann in model.annotated for t, _ in ann})
    out = []
    for di in rng.sample(pool, min(n, len(pool))):
        own = sorted({t for t, _ in model.annotated[di]})
        kept = rng.sample(own, math.ceil(len(own) / 2))
        noise: list[int] = []
        while len(noise) < 2:
            t = rng.choice(seen_terms)
            if t not in own and t not in noise:
                noise.append(t)
        terms = kept + noise
        rng.shuffle(terms)
        out.append((model.disease_ids[di], [model.term_ids[t] for t in terms], causal[di]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="folder with hpo_store.sqlite")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    store = HpoStore(args.data_dir / "hpo_store.sqlite")
    try:
        model = store.model()
        release = store.release
        cases = presentations(model, args.cases, random.Random(args.seed))
        params = ScoringParams()
        top1 = top10 = 0
        times = []
        misses = []
        for did, terms, genes in cases:
            t0 = time.perf_counter()
            ranked = [g.symbol for g in model.rank_genes(Patient(terms), params, 10)]
            times.append(time.perf_counter() - t0)
            top1 += bool(ranked[:1] and ranked[0] in genes)
            hit = bool(genes & set(ranked))
            top10 += hit
            if not hit and len(misses) < 15:
                misses.append({"disease": did, "name": model.names[did], "genes": sorted(genes), "features": terms,
                               "top3": ranked[:3]})
    finally:
        store.close()
    n = len(cases)
    report = {"release": release, "cases": n, "seed": args.seed, "top1": round(top1 / n, 3),
              "top10": round(top10 / n, 3), "p50_s": round(statistics.median(times), 4), "misses_sample": misses}
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"HPO {release}: {n} presentations (half the features, 2 added): top-1 {report['top1']}, "
          f"top-10 {report['top10']}; p50 {report['p50_s']} s")
    for m in misses[:5]:
        print(f"  missed {m['disease']} {m['name']}: {', '.join(m['genes'])}; ranked {', '.join(m['top3'])}")


if __name__ == "__main__":
    main()
