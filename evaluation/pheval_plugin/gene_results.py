"""BioRAG's ranked genes in PhEval's gene-result format (one Parquet file per phenopacket,
written by PhEval's own `generate_gene_result`, which also marks the causative gene).

PhEval ranks by its `score` column and gives tied scores the last rank of the tie. BioRAG's
scores are printed to 4 decimals and it breaks ties by gene symbol, so ranking by those scores
would move many genes. The `score` handed to PhEval is therefore BioRAG's rank, in ascending
order: PhEval's ranks are then exactly BioRAG's. The scores themselves stay in
raw_results/<case>.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
from pheval.post_processing.post_processing import SortOrder, generate_gene_result
from pheval.utils.phenopacket_utils import parse_hgnc_data


def hgnc_ids_by_ncbi_gene() -> dict[str, str]:
    """NCBI Gene id -> HGNC id, from the HGNC table PhEval ships: phenopackets name the
    causative gene by HGNC id, so the identifiers can match even where a symbol was renamed."""
    table = parse_hgnc_data().select("entrez_id", "hgnc_id").drop_nulls()
    return {str(int(e)): str(h) for e, h in table.iter_rows()}


def write_raw_results(result: dict[str, Any], raw_dir: Path) -> list[Path]:
    """One raw_results/<phenopacket file stem>.json per case read (the document `biorag
    prioritise --out` writes): PhEval matches a result to its phenopacket by file name, which
    the phenopacket's own id need not equal."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for case in result["cases"]:
        path = raw_dir / f"{Path(case['case']['source']).stem}.json"
        if path in written:
            raise ValueError(f"two phenopackets would both write {path}: rename one")
        path.write_text(json.dumps(case, indent=2, ensure_ascii=False))
        written.append(path)
    return written


def hpo_release(raw_files: list[Path]) -> str | None:
    """The HPO release the raw results were ranked with (None: no case was ranked)."""
    releases = {json.loads(p.read_text()).get("hpo_release") for p in raw_files}
    return ", ".join(sorted(r for r in releases if r)) or None


def gene_frame(case: dict[str, Any], hgnc: dict[str, str]) -> pl.DataFrame:
    """The columns PhEval's gene-result schema asks for, in BioRAG's order."""
    genes = case["genes"]
    return pl.DataFrame({
        "gene_symbol": [g["symbol"] for g in genes],
        "gene_identifier": [hgnc.get(str(g["gene_id"]), f"NCBIGene:{g['gene_id']}") for g in genes],
        "score": [float(g["rank"]) for g in genes],
    }, schema={"gene_symbol": pl.String, "gene_identifier": pl.String, "score": pl.Float64})


def write_gene_results(raw_files: list[Path], output_dir: Path, phenopacket_dir: Path) -> None:
    """pheval_gene_results/<stem>-gene_result.parquet for every raw result; PhEval itself
    writes an empty (all-miss) result for a phenopacket BioRAG could not read."""
    hgnc = hgnc_ids_by_ncbi_gene()
    for path in raw_files:
        generate_gene_result(results=gene_frame(json.loads(path.read_text()), hgnc), sort_order=SortOrder.ASCENDING,
                             output_dir=output_dir, result_path=path, phenopacket_dir=phenopacket_dir)
