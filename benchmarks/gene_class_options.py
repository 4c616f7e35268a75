"""Option questions that ask for a gene class, generated from real records.

    .venv/bin/python -m benchmarks.gene_class_options [--per-kind 100] [--seed 11] [--json OUT.json]

"Which of these genes encodes a protein kinase? A) ... D) ...": the class is read from each
option's names (`biorag/knowledge/gene_classes.py`); the gold comes from a field that reader
never reads, the EC numbers of HGNC's complete set (`enzyme_id`, the bundled snapshot):

- ``kinase``: one gene with an EC 2.7.10-2.7.12 number (a protein kinase) among three with
  no EC number and no word ending in "kinase" in their names or HGNC gene groups;
- ``enzyme``: one gene with any EC number among three with none and no such word ending in
  "ase" (HGNC leaves many enzymes without an EC number: the name condition keeps the
  distractors honest);
- ``not_enzyme``: "does not encode an enzyme": one gene of the ``enzyme`` distractors' kind
  among three with EC numbers.

Each question is written in a random option order, letter style and polite wrapping. Prints,
per kind, the share right, insufficient ("I don't know") and wrong. The gene store is the
README's, under BIORAG_DATA_DIR (or `--set gene_store=...`).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import re
import sqlite3
from pathlib import Path

from application.catalog import registered_sources
from application.engine import build_agent
from biorag.knowledge.gene_classes import hgnc_groups
from biorag.settings import load_settings
from retrievers.stores.gene_store import gene_store_path

_PLAIN_SYMBOL = re.compile(r"^[A-Z][A-Z0-9]{2,7}$")
_PROTEIN_KINASE = re.compile(r"(?:^|\|)2\.7\.1[012]\.")
STEMS = {
    "kinase": "Which of these genes encodes a protein kinase?",
    "enzyme": "Which of the following genes encodes an enzyme?",
    "not_enzyme": "Which of these genes does not encode an enzyme?",
}
STYLES = ["A) {} B) {} C) {} D) {}", "(a) {} (b) {} (c) {} (d) {}", "\nA. {}\nB. {}\nC. {}\nD. {}",
          "1. {} 2. {} 3. {} 4. {}"]
WRAPS = ["{q}", "{q}", "please, {ql}", "hi, quick question: {ql} thanks", "{ql}"]


def gold_pools(store: Path, hgnc_rows: list[dict[str, str]]) -> dict[str, tuple[list[str], list[str]]]:
    """kind -> (genes that are it, genes that are not), from HGNC's EC numbers and, for the
    genes that are not, their names in the store (see the module docstring)."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        names = {s: re.findall(r"[a-z]+", " ".join([n or "", o or "", *hgnc_groups(s)]).lower()) for s, n, o in con.execute(
            "SELECT symbol, name, other_designations FROM genes WHERE tax_id = 9606 "
            "AND hgnc_id IS NOT NULL AND gene_type = 'protein-coding'")}
    finally:
        con.close()
    rows = [r for r in hgnc_rows if r["symbol"] in names and _PLAIN_SYMBOL.match(r["symbol"])]
    kinases = [r["symbol"] for r in rows if _PROTEIN_KINASE.search(r["enzyme_id"])]
    no_kinase = [r["symbol"] for r in rows if not r["enzyme_id"]
                 and not any(w.endswith("kinase") for w in names[r["symbol"]])]
    enzymes = [r["symbol"] for r in rows if r["enzyme_id"]]
    no_enzyme = [r["symbol"] for r in rows if not r["enzyme_id"]
                 and not any(w.endswith("ase") or w == "enzyme" for w in names[r["symbol"]])]
    return {"kinase": (kinases, no_kinase), "enzyme": (enzymes, no_enzyme), "not_enzyme": (no_enzyme, enzymes)}


def drawn(gold: list[str], others: list[str], n: int, seed: int) -> list[list[str]]:
    """n option lists: one gold gene first, then three others."""
    rng = random.Random(seed)
    return [[rng.choice(gold), *rng.sample(others, 3)] for _ in range(n)]


def _written(rng: random.Random, stem: str, symbols: list[str]) -> tuple[str, list[int], str]:
    order = rng.sample(range(4), 4)
    style = rng.choice(STYLES)
    q = f"{stem} " + style.format(*(symbols[i] for i in order))
    q = rng.choice(WRAPS).format(q=q, ql=q[0].lower() + q[1:])
    return q, order, "1234" if style.startswith("1") else "abcd"


def main() -> None:
    from indexing.gene_store_build import snapshot_paths

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-kind", type=int, default=100, help="questions per kind (default 100)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting, as `biorag --set`")
    ap.add_argument("--json", type=Path, help="write every question, answer and verdict here")
    args = ap.parse_args()
    settings = load_settings(sets=["planner=rules", "sources.gene.backend=local", *args.set],
                             disable=["pubmed", "web"], known_sources=registered_sources())
    store = gene_store_path(settings)
    if not store.exists():
        raise SystemExit(f"no gene store at {store}: build it with `biorag data gene-store build`")
    with gzip.open(snapshot_paths()["hgnc"], "rt", encoding="utf-8", newline="") as fh:
        hgnc = [r for r in csv.DictReader(fh, delimiter="\t") if r.get("status", "Approved") == "Approved"]
    agent = build_agent(settings)
    rng = random.Random(args.seed)
    records = []
    for k, (gold, others) in gold_pools(store, hgnc).items():
        counts = {"right": 0, "insufficient": 0, "wrong": 0}
        for symbols in drawn(gold, others, args.per_kind, args.seed + len(records)):
            q, order, labels = _written(rng, STEMS[k], symbols)
            first = agent.answer(q).answer.splitlines()[0]
            m = re.search(r"\(option ([A-Za-z0-9])\)", first)
            verdict = "insufficient" if not m else "right" if order[labels.index(m.group(1).lower())] == 0 else "wrong"
            counts[verdict] += 1
            records.append({"kind": k, "question": q, "gold": symbols[0], "first_line": first, "verdict": verdict})
        n = sum(counts.values())
        print(f"{k:<11} n={n:<4} right {counts['right'] / n:.3f}  insufficient {counts['insufficient'] / n:.3f}  "
              f"wrong {counts['wrong'] / n:.3f}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main()
