"""`biorag data ...`: build local data stores from public bulk files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biorag.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)

app = typer.Typer(help="Build local data stores (the gene store) from NCBI/HGNC/OMIM bulk files.", no_args_is_help=True)
gene_store_app = typer.Typer(
    help=(
        "Local gene store (SQLite) for the `gene` tool's `local` backend: symbol, alias, previous "
        "symbol, Ensembl ID, Gene ID and location lookups with no network."
    ),
    no_args_is_help=True,
)
app.add_typer(gene_store_app, name="gene-store")


@gene_store_app.command("build")
@friendly_errors
def build(
    gene_info: Annotated[Path | None, typer.Option("--gene-info", help="NCBI gene_info (e.g. Homo_sapiens.gene_info.gz).")] = None,
    hgnc: Annotated[Path | None, typer.Option("--hgnc", help="HGNC complete set TSV (hgnc_complete_set.txt[.gz]).")] = None,
    mim2gene: Annotated[Path | None, typer.Option("--mim2gene", help="OMIM mim2gene.txt or NCBI mim2gene_medgen (gene MIM numbers).")] = None,
    mim2gene_medgen: Annotated[Path | None, typer.Option(
        "--mim2gene-medgen",
        help="NCBI mim2gene_medgen: links OMIM phenotype numbers to genes (used by the omim tool).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output SQLite file (default: settings.gene_store or DATA_DIR/gene_store.sqlite).")] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Build from the small real sample bundled with BioRAG (chromosome 16).")] = False,
    json_: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Build the gene store. Example:
    biorag data gene-store build --gene-info Homo_sapiens.gene_info.gz --hgnc hgnc_complete_set.txt.gz
    --mim2gene mim2gene.txt --mim2gene-medgen mim2gene_medgen"""
    from biorag.errors import InputError
    from retrievers.gene_store import SAMPLE_DIR, build_gene_store, gene_store_path

    settings = settings_from_options(preset, set_)
    if sample:
        gene_info = gene_info or SAMPLE_DIR / "gene_info_chr16.tsv.gz"
        hgnc = hgnc or SAMPLE_DIR / "hgnc_chr16.tsv.gz"
        mim2gene = mim2gene or SAMPLE_DIR / "mim2gene_chr16.txt"
        mim2gene_medgen = mim2gene_medgen or SAMPLE_DIR / "mim2gene_medgen_chr16.txt"
    if gene_info is None and hgnc is None:
        raise InputError("give --gene-info and/or --hgnc (and optionally --mim2gene), or --sample")
    target = out or gene_store_path(settings)
    summary = build_gene_store(target, gene_info, hgnc, mim2gene, mim2gene_medgen, progress=not json_)
    if json_:
        print_json(summary)
        return
    typer.echo(
        f"gene store: {summary['genes']:,} genes, {summary['names']:,} names "
        f"({summary['gene_info']:,} gene_info rows, {summary['hgnc']:,} HGNC rows, "
        f"{summary['mim']:,} mim2gene links, {summary['medgen_phenotype_links']:,} phenotype links) in {summary['seconds']}s -> {summary['path']}"
    )


@gene_store_app.command("info")
@friendly_errors
def info(
    path: Annotated[Path | None, typer.Option("--path", help="Store file (default from settings).")] = None,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Show how the gene store was built (inputs, counts, date)."""
    from retrievers.gene_store import GeneStore, gene_store_path

    settings = settings_from_options(preset, set_)
    store = GeneStore(path or gene_store_path(settings))
    try:
        print_json(store.info())
    finally:
        store.close()
