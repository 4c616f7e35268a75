"""One naming of a gene list: `ask` against `geneset`, the GO cloze, and sets mixing two processes.

    PYTHONPATH=. python -m benchmarks.geneset_naming --sets ../shared/data/geneagent/GO_terms.csv \
        --data-dir DIR [--limit 1000] [--agree 200] [--mixed 200] [--seed 7] [--json]

DIR holds the stores a user builds (`biorag data gene-store build`, `biorag data hpo-store
build`). Three figures, each set's genes shuffled:

- **agreement**: the first `--agree` sets asked through the Agent (rules planner) in a GO
  wording and in a plain one; the term `ask` names (its answer, or its lead when it
  refuses) is the one `biorag geneset` shows for that wording (the GO line, the name; the
  name too when no GO term holds two of the genes);
- **GO cloze**: every set, the GO term a question naming GO gets (`GeneSetInterpreter.go_term`)
  is GeneAgent's gold term and passes the set rule, for each `geneset.go_cover_share`;
- **mixed**: `--mixed` pairs of GO sets of 5-30 genes, the smaller cut to at most two
  thirds of the larger and merged: the share whose GO term holds the majority of the
  merged genes, and the share named by the larger set's own gold term.

The sets are read from the path given; nothing of them is in the project.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
from pathlib import Path

from application.engine import build_agent
from benchmarks.go_sets import _key
from biorag.settings import load_settings
from retrievers.geneset.retriever import GeneSetInterpreter

SHARES = (0.0, 0.5, 0.6, 0.75)
WORDINGS = {"go_term": "which gene ontology term do {genes} share?", "name": "what do {genes} have in common?"}
_TERM_ID = re.compile(r"\b(GO:\d{7}|R-HSA-\d+|HP:\d{7}|D\d{6})\b")


def _and_list(genes: list[str]) -> str:
    return ", ".join(genes[:-1]) + " and " + genes[-1]


def _go_term(it: GeneSetInterpreter, report, share: float):
    it.cfg = it.cfg.model_copy(update={"go_cover_share": share})
    return it.go_term(report)


def agreement(rows: list[dict], data_dir: Path, it: GeneSetInterpreter, rng: random.Random) -> dict:
    """How often `ask` names the term `geneset` shows for the same genes and wording."""
    agent = build_agent(load_settings(overrides={"data_dir": str(data_dir), "planner": "rules"}))
    same = {w: 0 for w in WORDINGS}
    differ: list[dict] = []
    try:
        for row in rows:
            genes = row["Genes"].split()
            rng.shuffle(genes)
            report = it.interpret(genes)
            # no GO term holds two of the genes: both say so, with the set's closest term as a lead
            shown = {"go_term": report.go_term or report.name_term, "name": report.name_term}
            for wording, template in WORDINGS.items():
                answer = agent.answer(template.format(genes=_and_list(genes))).answer
                named = next(iter(_TERM_ID.findall(answer)), None)
                want = shown[wording].term if shown[wording] else None
                same[wording] += named == want
                if named != want and len(differ) < 10:
                    differ.append({"wording": wording, "ask": named, "geneset": want, "genes": " ".join(genes)})
    finally:
        for r in agent.retrievers.values():
            r.close()
    return {"sets": len(rows), "same": same, "differ_sample": differ}


def go_cloze(rows: list[dict], it: GeneSetInterpreter) -> dict:
    right = dict.fromkeys(SHARES, 0)
    for row in rows:
        report = it.interpret(row["Genes"].split())
        for share in SHARES:
            e = _go_term(it, report, share)
            right[share] += bool(e and not it.rule.why_not(e, len(report.used))
                                 and _key(e.name) == _key(row["Term_Description"]))
    return {"sets": len(rows), "right": {str(s): round(n / max(1, len(rows)), 3) for s, n in right.items()}}


def mixed(rows: list[dict], it: GeneSetInterpreter, n: int, rng: random.Random) -> dict:
    pool = [r for r in rows if 5 <= int(r["Gene_Count"]) <= 30]
    majority = dict.fromkeys(SHARES, 0)
    larger_gold = dict.fromkeys(SHARES, 0)
    for _ in range(n):
        a, b = rng.sample(pool, 2)
        ga, gb = a["Genes"].split(), b["Genes"].split()
        if len(ga) < len(gb):
            (a, ga), (b, gb) = (b, gb), (a, ga)
        genes = list(dict.fromkeys(ga + gb[: max(2, len(ga) * 2 // 3)]))
        rng.shuffle(genes)
        report = it.interpret(genes)
        for share in SHARES:
            e = _go_term(it, report, share)
            majority[share] += bool(e and e.k > len(report.used) / 2)
            larger_gold[share] += bool(e and _key(e.name) == _key(a["Term_Description"]))
    return {"pairs": n, "majority": {str(s): round(v / max(1, n), 3) for s, v in majority.items()},
            "larger_sets_gold": {str(s): round(v / max(1, n), 3) for s, v in larger_gold.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=Path, required=True, help="GeneAgent's GO_terms.csv")
    ap.add_argument("--data-dir", type=Path, required=True, help="folder with gene_store.sqlite and hpo_store.sqlite")
    ap.add_argument("--limit", type=int, default=1000, help="sets for the GO cloze")
    ap.add_argument("--agree", type=int, default=200, help="sets asked through the Agent")
    ap.add_argument("--mixed", type=int, default=200, help="pairs of sets merged")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with args.sets.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    settings = load_settings(overrides={"data_dir": str(args.data_dir), "planner": "rules"})
    it = GeneSetInterpreter.from_settings(settings)
    default_share = it.cfg.go_cover_share
    try:
        out = {"go_cover_share_default": default_share,
               "go_cloze": go_cloze(rows[: args.limit], it),
               "mixed": mixed(rows, it, args.mixed, random.Random(args.seed))}
        it.cfg = it.cfg.model_copy(update={"go_cover_share": default_share})
        out["agreement"] = agreement(rows[: args.agree], args.data_dir, it, random.Random(args.seed))
    finally:
        it.close()
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"GO cloze ({out['go_cloze']['sets']} sets), right by go_cover_share: {out['go_cloze']['right']}")
    print(f"mixed ({args.mixed} pairs): GO term holds the majority {out['mixed']['majority']}; "
          f"is the larger set's gold {out['mixed']['larger_sets_gold']}")
    ag = out["agreement"]
    print(f"ask = geneset on {ag['sets']} sets: " + ", ".join(f"{w} {n}/{ag['sets']}" for w, n in ag["same"].items()))
    for d in ag["differ_sample"]:
        print(f"  differ ({d['wording']}): ask {d['ask']}, geneset {d['geneset']}")


if __name__ == "__main__":
    main()
