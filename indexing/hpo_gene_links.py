"""Gene-disease links beyond HPO's own, for the phenotype ranking: catalogues the project
already ships (indexing/resources/human_genes, see its PROVENANCE.md) that link a gene to an
OMIM or Orphanet disease, read while `biorag data hpo-store build` runs.

- NCBI ``mim2gene_medgen``: "phenotype" rows with a GeneID (OMIM GeneMap / GeneReviews),
  kept only without a qualifier in its Comment column: "question", "susceptibility",
  "nondisease", "somatic", "QTL" and "modifier" links are not a Mendelian cause.
- ClinVar ``gene_condition_source_id``: a gene's conditions by OMIM number (DiseaseMIM) and
  by their OMIM/Orphanet source id, less the links mim2gene_medgen qualifies as above (ClinVar
  lists susceptibilities too: NRG1 and schizophrenia).

Symbols are HGNC's current ones (by Entrez Gene id), else NCBI gene_info's. The HPO store
keeps a link only where HPO annotates the disease with phenotypes and does not already link
the gene to it (`indexing/hpo_store_build.py`); each link names its catalogue, which the
ranking shows ("linked by NCBI mim2gene_medgen").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from indexing.disease_dictionary import clinvar_source_id, read_gene_condition_source_id
from indexing.gene_store_build import (
    read_gene_info,
    read_hgnc,
    read_mim2gene_medgen,
    snapshot_paths,
)

MEDGEN = "NCBI mim2gene_medgen"
CLINVAR = "ClinVar"
HPO = "HPO annotations"
#: mim2gene_medgen comments that make a phenotype link no Mendelian cause
NOT_CAUSAL = ("question", "susceptibility", "nondisease", "somatic", "qtl", "modifier")


def link_inputs(folder: Path | None = None) -> dict[str, Path]:
    """The files read: the bundled snapshot, or the same names in `folder`."""
    paths = snapshot_paths()
    keys = ("gene_info", "hgnc", "mim2gene_medgen", "gene_condition")
    return {k: (Path(folder) / paths[k].name if folder else paths[k]) for k in keys}


def gene_symbols(files: dict[str, Path]) -> dict[int, str]:
    """Entrez Gene id -> symbol: HGNC's approved symbol where HGNC has the id, else gene_info's."""
    out: dict[int, str] = {}
    for row in read_gene_info(files["gene_info"]):
        if row.get("#tax_id", row.get("tax_id")) == "9606" and row.get("GeneID", "").isdigit():
            out[int(row["GeneID"])] = row["Symbol"]
    for row in read_hgnc(files["hgnc"]):
        entrez = (row.get("entrez_id") or "").strip()
        if entrez.isdigit() and row.get("symbol"):
            out[int(entrez)] = row["symbol"]
    return out


def medgen_links(path: Path) -> tuple[list[tuple[int, str]], set[tuple[int, str]]]:
    """(gene id, OMIM:number) of mim2gene_medgen's phenotype links: the causal ones, and
    those it qualifies as no Mendelian cause (susceptibility, question, ...)."""
    causal, qualified = [], set()
    for row in read_mim2gene_medgen(path):
        if row["type"] != "phenotype" or not row["GeneID"].isdigit() or not row["MIM number"].isdigit():
            continue
        link = (int(row["GeneID"]), f"OMIM:{row['MIM number']}")
        if any(word in row["Comment"].lower() for word in NOT_CAUSAL):
            qualified.add(link)
        else:
            causal.append(link)
    return causal, qualified


def clinvar_links(path: Path) -> Iterator[tuple[int, str]]:
    """(gene id, disease id) of ClinVar's gene-condition table: OMIM number and source id."""
    for row in read_gene_condition_source_id(path):
        if not row["GeneID"].isdigit():
            continue
        gid = int(row["GeneID"])
        if row["DiseaseMIM"].isdigit():
            yield gid, f"OMIM:{row['DiseaseMIM']}"
        sid = clinvar_source_id(row["SourceName"], row["SourceID"])
        if sid and sid.startswith(("OMIM:", "ORPHA:")) and not sid.startswith("OMIM:PS"):
            yield gid, sid


def catalogue_links(annotated: set[str], known: set[tuple[int, str]], folder: Path | None = None,
                    symbols: dict[int, str] | None = None) -> tuple[list[tuple[int, str, str, str]], dict[str, int]]:
    """(gene id, symbol, disease id, catalogue) for diseases in `annotated` that `known`
    (HPO's own (gene id, disease id) links) lacks; the first catalogue to give a link names
    it. Also counts per catalogue. `symbols`: `gene_symbols` of the same files, if read."""
    files = link_inputs(folder)
    symbols = symbols if symbols is not None else gene_symbols(files)
    medgen, qualified = medgen_links(files["mim2gene_medgen"])
    seen = set(known) | qualified  # ClinVar's condition list has NCBI's susceptibility links too
    rows: list[tuple[int, str, str, str]] = []
    counts = {MEDGEN: 0, CLINVAR: 0}
    for source, links in ((MEDGEN, medgen), (CLINVAR, clinvar_links(files["gene_condition"]))):
        for gid, did in links:
            if did in annotated and (gid, did) not in seen and gid in symbols:
                seen.add((gid, did))
                rows.append((gid, symbols[gid], did, source))
                counts[source] += 1
    return sorted(rows), counts
