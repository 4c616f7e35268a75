"""The real records the metamorphic questions are generated from: small samples copied
into tests/data/metamorphic (PROVENANCE.md there; drawn by sample_records.py)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "metamorphic"


@dataclass(frozen=True)
class Gene:  # an HGNC row
    symbol: str
    name: str
    chromosome: str
    location: str
    entrez_id: str
    ensembl_id: str
    alias: str


@dataclass(frozen=True)
class GeneSet:  # a GeneAgent GO set: its genes in the order the set lists them, its GO term
    go_id: str
    genes: tuple[str, ...]
    term: str


@dataclass(frozen=True)
class Variant:  # a ClinVar GRCh38 variant in one gene
    rsid: str
    symbol: str
    gene_id: str


@dataclass(frozen=True)
class Patient:  # a published phenopacket: observed features (HPO labels), causal gene
    id: str
    gene: str
    disease: str
    features: tuple[str, ...]


@dataclass(frozen=True)
class Disease:  # an OMIM disease as HPO names it, with the genes HPO links to it
    disease_id: str
    name: str
    genes: tuple[str, ...]


def _tsv(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


GENES = tuple(Gene(**r) for r in _tsv("hgnc_genes.tsv"))
GENE_SETS = tuple(GeneSet(r["go_id"], tuple(r["genes"].split()), r["term"]) for r in _tsv("go_sets.tsv"))
VARIANTS = tuple(Variant(r["rsid"], r["symbol"], r["gene_id"]) for r in _tsv("clinvar_variants.tsv"))
DISEASES = tuple(Disease(r["disease_id"], r["name"], tuple(r["genes"].split())) for r in _tsv("hpo_diseases.tsv"))
with open(DATA / "phenopackets.jsonl") as _f:
    PATIENTS = tuple(Patient(c["id"], c["gene"], c["disease"], tuple(c["observed"])) for c in map(json.loads, _f))
