"""Write GeneTuring-2025 development items (CSV: Module, Question, Goldstandard) from real
records bundled in the repository, in the wordings the 2025 benchmark uses:

- Amino acid translation: the ATG-start coding sequences of NC_005816 and NCBI's proteins
  for them (tests/data/sequences);
- TF regulation: TRRUST v2 human pairs with one mode, Activation or Repression
  (indexing/resources/trrust), drawn with a fixed seed;
- Gene name extraction: sentences of the labelled PubMed development set
  (tests/data/gene_mentions), half with genes and half without;
- SNP location: rsIDs of the bundled ClinVar GRCh38 subset (indexing/resources/clinvar);
- the GeneGPT dev items (tests/data/evaluation/geneturing_dev.json) under their 2025 module
  names, and the alignment ones again as "computer program" variants.

    python -m benchmarks.geneturing2025_dev --out tests/data/evaluation/geneturing2025_dev.csv
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEQUENCES = ROOT / "tests" / "data" / "sequences"
TRRUST = ROOT / "indexing" / "resources" / "trrust" / "trrust_rawdata.human.tsv.gz"
MENTIONS = ROOT / "tests" / "data" / "gene_mentions" / "pubmed_sentences_dev.jsonl"
CLINVAR = next((ROOT / "indexing" / "resources" / "clinvar").glob("*.vcf.gz"))
GENEGPT_DEV = ROOT / "tests" / "data" / "evaluation" / "geneturing_dev.json"
#: GeneGPT's task names -> GeneTuring-2025 module names
MODULES = {
    "Gene alias": "Gene alias", "Gene name conversion": "Gene name conversion", "Gene location": "Gene location",
    "Gene SNP association": "Gene SNP association", "SNP location": "SNP location",
    "Gene disease association": "Gene disease association", "Protein-coding genes": "Protein-coding genes",
    "Human genome DNA aligment": "Human genome DNA alignment",
    "Multi-species DNA aligment": "Multi-species DNA alignment",
}
PROGRAM = "Write a computer program that answers the following question. {q}"


def _fasta(path: Path) -> list[str]:
    out, cur = [], []
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            if cur:
                out.append("".join(cur))
            cur = []
        elif line.strip():
            cur.append(line.strip())
    out.append("".join(cur))
    return out


def rows(seed: int = 2025) -> list[tuple[str, str, str]]:
    rnd = random.Random(seed)
    out: list[tuple[str, str, str]] = []
    for dna, protein in zip(_fasta(SEQUENCES / "NC_005816.ffn"), _fasta(SEQUENCES / "NC_005816.faa"), strict=True):
        if dna.startswith("ATG"):
            out.append(("Amino acid translation",
                        f"Nucleic acid sequence: {dna.lower()}. Translate the nucleic acid sequence to an amino acid "
                        "sequence.", protein))
    modes: dict[tuple[str, str], set[str]] = defaultdict(set)
    with gzip.open(TRRUST, "rt") as f:
        for line in f:
            tf, target, mode, _ = line.rstrip("\n").split("\t")
            modes[(tf, target)].add(mode)
    single = sorted(k for k, m in modes.items() if len(m) == 1 and m <= {"Activation", "Repression"})
    for tf, target in rnd.sample(single, 10):
        out.append(("TF regulation", f"The regulatory relationship between transcription factor {tf} and gene "
                    f"{target} is", next(iter(modes[(tf, target)]))))
    sentences = [json.loads(line) for line in MENTIONS.read_text().splitlines()]
    with_genes = [s for s in sentences if s["genes"]]
    without = [s for s in sentences if not s["genes"]]
    for s in rnd.sample(with_genes, 5) + rnd.sample(without, 5):
        out.append(("Gene name extraction", f"The gene and protein names in the sentence '{s['sentence']}' is",
                    ", ".join(s["genes"]) or "No gene"))
    variants = []
    with gzip.open(CLINVAR, "rt") as f:
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")  # the ID column is ClinVar's variation id; the rsID is INFO RS=
            rs = next((f[3:] for f in cols[7].split(";") if f.startswith("RS=")), None)
            if rs:
                variants.append((f"rs{rs}", f"chr{cols[0]}"))
    for rsid, chrom in rnd.sample(sorted(set(variants)), 5):
        out.append(("SNP location", f"Which chromosome does SNP {rsid} locate on?", chrom))
    dev = json.loads(GENEGPT_DEV.read_text())
    for task, qa in dev.items():
        module = MODULES.get(task)
        if module is None:
            continue
        for question, gold in list(qa.items())[:3]:
            out.append((module, question, gold if isinstance(gold, str) else ", ".join(gold)))
            if "alignment" in module:
                out.append((f"{module} (programming)", PROGRAM.format(q=question), gold))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="CSV to write")
    ap.add_argument("--seed", type=int, default=2025)
    args = ap.parse_args()
    items = rows(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["Module", "Question", "Goldstandard"])
        w.writerows(items)
    counts: dict[str, int] = defaultdict(int)
    for module, _q, _g in items:
        counts[module] += 1
    print(f"{len(items)} items -> {args.out}: " + ", ".join(f"{m} {n}" for m, n in counts.items()))


if __name__ == "__main__":
    main()
