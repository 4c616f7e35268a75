"""When does an enriched term answer "what do these genes share"? Thresholds from data.

    PYTHONPATH=. python -m benchmarks.geneset_sufficiency --shared ../shared/data --data-dir DIR \
        [--limit 1000] [--seed 7] [--json OUT]

Sets: GeneAgent's GO sets (`geneagent/GO_terms.csv`, gold: the GO term name) and NeST sets
(`geneagent/NeST.tsv`, gold: a curated name, scored by ROUGE-L of the words), Reactome
pathways of the shipped library (`--reactome N` of 3-100 genes, gold: the pathway name; as
circular as the GO sets, which GO also curates: they weigh "pathway" wording against
"process" wording), genes shuffled; and, for each of them, a random set of the same size drawn from the gene store's
protein-coding human genes (a random set shares nothing: an answer to one is a false
positive). Each set is enriched once (`GeneSetInterpreter.interpret`, the default
libraries); every rule of the grid (`SetRule`: min_genes, min_share, alpha) then names it
three ways:

- `shared`: what the set shares (the consensus of the terms passing the rule);
- `go_first`: the first-ranked GO BP term, insufficient when it fails the rule (a question
  naming GO, or "which process");
- `go_passing`: the first-ranked GO BP term among those passing the rule;
- `go_broader`: the most significant GO BP term passing the rule, or a broader one covering
  more of the genes as significantly (`GeneSetInterpreter.library_term`);
- `reactome_first`, `reactome_broader`: the same two of Reactome (a question asking for a
  "pathway").

For each rule and way: right / wrong / insufficient on the GO sets (right: the gold name in
the answer), answered share and mean ROUGE-L of the answered NeST sets, and the share of
random sets answered. Nothing here is read by the project.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import pickle
import random
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks.go_sets import _key
from biorag.contracts.errors import InputError
from biorag.knowledge.enrichment import consensus_term, name_agreement
from biorag.knowledge.gene_sets import bundled_library
from biorag.knowledge.phenotype_names import name_words
from biorag.knowledge.set_rule import SetRule
from biorag.settings import load_settings
from retrievers.geneset.retriever import GeneSetInterpreter, first_go_term

GRID = {"min_genes": (2, 3), "min_share": (0.0, 0.15, 0.2, 0.25, 0.34, 0.5), "alpha": (0.05, 0.01),
        "min_share_at_min_genes": (0.0, 0.5, 0.67)}
WAYS = ("shared", "go_first", "go_passing", "go_broader", "reactome_first", "reactome_broader")
KINDS = ("go", "nest", "reactome", "random")


def read_sets(shared: Path, limit: int, reactome: int, rng: random.Random) -> list[tuple[str, list[str], str]]:
    """(kind, genes, gold) of the GO, NeST and Reactome sets."""
    with open(shared / "geneagent" / "GO_terms.csv", newline="", encoding="utf-8") as fh:
        out = [("go", r["Genes"].split(), r["Term_Description"]) for r in list(csv.DictReader(fh))[:limit]]
    with open(shared / "geneagent" / "NeST.tsv", newline="", encoding="utf-8") as fh:
        out += [("nest", [g.strip() for g in r["Genes"].split(",") if g.strip()], r["name_new"])
                for r in csv.DictReader(fh, delimiter="\t")]
    lib = bundled_library("reactome")
    terms = sorted(t for t in lib.term_ids if 3 <= lib.size(t) <= 100)
    out += [("reactome", sorted(lib.members(t)), lib.names[t]) for t in rng.sample(terms, reactome)]
    return out


def random_sets(store: Path, sizes: list[int], rng: random.Random) -> list[list[str]]:
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    genes = sorted({s for (s,) in con.execute(
        "SELECT symbol FROM genes WHERE tax_id = 9606 AND gene_type = 'protein-coding'")})
    con.close()
    return [rng.sample(genes, n) for n in sizes]


#: every term passes: the report handed to the interpreter is filtered by the rule already
PASS_ALL = SetRule(0, 0.0, 1.0)
#: the passing terms kept per library (in the enrichment's order, lowest p first): more than
#: the consensus takes (`consensus_top_k`) and than ever tie for the first rank
KEEP = 60


class Filtered:
    """A report's terms as arrays per library, to filter by a rule quickly."""

    def __init__(self, report):
        self.report = report
        self.arrays = {lib: (np.array([e.k for e in terms]), np.array([e.p_adj for e in terms]))
                       for lib, terms in report.enriched.items()}

    def under(self, rule: SetRule):
        """The report with only the terms passing `rule` (the first KEEP of each library)."""
        asked = len(self.report.used)
        enriched = {}
        for lib, (k, p_adj) in self.arrays.items():
            share = np.where(k <= rule.min_genes, max(rule.min_share, rule.min_share_at_min_genes), rule.min_share)
            keep = np.flatnonzero((k >= rule.min_genes) & (k >= share * asked) & (p_adj <= rule.alpha))
            enriched[lib] = [self.report.enriched[lib][i] for i in keep[:KEEP]]
        return replace(self.report, enriched=enriched)


def named(it: GeneSetInterpreter, filtered: Filtered, rule: SetRule, way: str, memo: dict):
    """The answer of one way under `rule`: the term, or None (insufficient)."""
    report = filtered.report
    if way in ("go_first", "reactome_first"):
        e = first_go_term(report, "go_bp" if way == "go_first" else "reactome")
        return e if e is not None and rule.explains(e, len(report.used)) else None
    passing = filtered.under(rule)
    if way in ("go_broader", "reactome_broader"):
        return it.library_term(passing, "go_bp" if way == "go_broader" else "reactome", PASS_ALL)
    if way == "go_passing":
        return first_go_term(passing)
    candidates = it._consensus_candidates(passing, PASS_ALL)
    if candidates:
        key = tuple(e.term for e, _ in candidates)
        if key not in memo:
            memo[key] = consensus_term(candidates, it.cfg.consensus_power, it.cfg.consensus_cross_weight)
        return memo[key]
    term, why_not = it._best_term(passing, PASS_ALL)
    return None if why_not else term


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=1000, help="GO sets (all 50 NeST sets are used)")
    ap.add_argument("--reactome", type=int, default=300, help="Reactome pathways as sets")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--cache", type=Path, help="keep the enrichment reports here (a pickle) for a rerun")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sets = read_sets(args.shared, args.limit, args.reactome, rng)
    sets += [("random", g, "") for g in random_sets(args.data_dir / "gene_store.sqlite",
                                                     [len(g) for _, g, _ in sets], rng)]
    it = GeneSetInterpreter.from_settings(load_settings(overrides={"data_dir": str(args.data_dir)}))
    it.cfg = it.cfg.model_copy(update={"max_genes": 5000})
    reports, t0 = [], time.perf_counter()
    if args.cache and args.cache.exists():
        with args.cache.open("rb") as fh:
            reports = pickle.load(fh)
    for i, (kind, genes, gold) in enumerate(sets if not reports else []):
        genes = rng.sample(genes, len(genes))
        try:
            reports.append((kind, gold, it.interpret(genes)))
        except InputError:
            reports.append((kind, gold, None))
        if (i + 1) % 200 == 0:
            print(f"  {i + 1}/{len(sets)} enriched, {time.perf_counter() - t0:.0f} s", flush=True)
    if args.cache and not args.cache.exists():
        with args.cache.open("wb") as fh:
            pickle.dump(reports, fh)
    filtered = [Filtered(rep) if rep is not None else None for _, _, rep in reports]
    rows = []
    memos: list[dict] = [{} for _ in reports]
    for mg, ms, a, at_min in itertools.product(*GRID.values()):
        rule = SetRule(mg, ms, a, at_min)
        for way in WAYS:
            c = {"right": 0, "wrong": 0, "insufficient": 0, "nest_answered": 0, "nest_rouge": 0.0,
                 "random_answered": 0, "reactome_right": 0}
            n = dict.fromkeys(KINDS, 0)
            for (kind, gold, _), f, memo in zip(reports, filtered, memos, strict=True):
                n[kind] += 1
                e = named(it, f, rule, way, memo) if f is not None else None
                if kind == "go":
                    c["insufficient" if e is None else "right" if _key(gold) in _key(e.name) else "wrong"] += 1
                elif kind == "nest" and e is not None:
                    c["nest_answered"] += 1
                    c["nest_rouge"] += name_agreement(name_words(gold), name_words(e.name))
                elif kind == "reactome":
                    c["reactome_right"] += e is not None and _key(gold) in _key(e.name)
                elif kind == "random":
                    c["random_answered"] += e is not None
            rows.append({"min_genes": mg, "min_share": ms, "alpha": a, "min_share_at_min_genes": at_min, "way": way,
                         "go_right": c["right"] / n["go"], "go_wrong": c["wrong"] / n["go"],
                         "go_insufficient": c["insufficient"] / n["go"],
                         "nest_answered": c["nest_answered"] / max(1, n["nest"]),
                         "nest_rouge_answered": c["nest_rouge"] / max(1, c["nest_answered"]),
                         "reactome_right": c["reactome_right"] / max(1, n["reactome"]),
                         "random_answered": c["random_answered"] / max(1, n["random"])})
    it.close()
    out = {"sets": {k: sum(1 for r in reports if r[0] == k) for k in KINDS},
           "seed": args.seed, "rows": rows}
    for r in rows:
        print(f"{r['way']:10s} g>={r['min_genes']} s>={r['min_share']:.2f} at g {r['min_share_at_min_genes']:.2f} "
              f"a={r['alpha']:<5} GO right "
              f"{r['go_right']:.3f} wrong {r['go_wrong']:.3f} insuff {r['go_insufficient']:.3f} | NeST answered "
              f"{r['nest_answered']:.2f} rouge {r['nest_rouge_answered']:.3f} | Reactome right {r['reactome_right']:.3f} | random answered {r['random_answered']:.3f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
