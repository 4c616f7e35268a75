"""`biorag tool SOURCE QUERY`: call one source directly, outside the agent. There is one
subcommand per registered source, named as the source is (`snp` stays as an alias of `dbsnp`)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from biorag.understanding.user_text import check_user_text
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    ReplayOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)

app = typer.Typer(
    help=(
        "Call one source directly and print its evidence: one subcommand per source, named as "
        "in --enable/--disable. NCBI and web tools run live, record, "
        "replay or cache per tool_io.mode (the embedded preset replays the bundled dev "
        "recording); --replay FILE replays another recording. A request missing from the "
        "recording fails with 'not recorded: ...' and a non-zero exit."
    ),
    no_args_is_help=True,
)

KOpt = Annotated[int | None, typer.Option("--k", "-k", help="How many hits (default: the source's top_k).")]
BackendOpt = Annotated[
    str | None, typer.Option("--backend", "-b", help="Implementation to use (gene, dbsnp, omim: eutils|local|layered; web: ddgs|wikipedia|arxiv|crossref).")
]


def _run(source: str, query: str, k: int | None, backend: str | None, as_json: bool,
         preset: str | None, set_: list[str] | None, replay: str | None) -> None:
    settings = settings_from_options(preset, set_, None, None, replay)
    src = settings.sources.get(source)
    query = check_user_text(query, settings, f"{source} query")
    from application.engine import Engine
    from biorag.understanding.search_request import parse_request

    chosen = backend or (src.backend if src else None)
    engine = Engine(settings)
    try:
        retriever = engine.retriever(source, backend=chosen)
        top_k = k or (src.top_k if src else 10)
        t0 = time.perf_counter()
        request = parse_request(query, top_k, source=source, sources={source: retriever}, lexicon=engine.lexicon())
        hits = retriever.search(request)
    finally:
        engine.close()
    ms = (time.perf_counter() - t0) * 1000
    if as_json:
        print_json({
            "source": source, "backend": chosen, "query": query, "mode": settings.tool_io.mode,
            "ms": round(ms, 1), "hits": [h.model_dump() for h in hits],
        })
        return
    if not hits:
        typer.echo(f"{source}: no results for {query!r}")
    for h in hits:
        typer.echo(h.render(max_chars=600))
        if h.url:
            typer.echo(f"  {h.url}")
        typer.echo("")
    typer.echo(f"({len(hits)} hit(s) in {ms:.0f} ms, tool_io.mode={settings.tool_io.mode})", err=True)


@app.command("gene")
@friendly_errors
def gene(
    query: Annotated[str, typer.Argument(help="Gene symbol, alias, Ensembl gene ID or NCBI Gene ID, e.g. LMP10.")],
    k: KOpt = None, backend: BackendOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """NCBI Gene: official symbol, name, aliases, organism, chromosome, location, type, summary."""
    _run("gene", query, k, backend, json_, preset, set_, replay)


@friendly_errors
def dbsnp(
    query: Annotated[str, typer.Argument(help="One or more rsIDs, e.g. rs1217074595; offline (layered "
                                         "backend) also a gene's protein change, e.g. 'BRAF V600E'.")],
    k: KOpt = None, backend: BackendOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """dbSNP and ClinVar: chromosome and position, genes, alleles, clinical significance of an rsID.

    The layered backend reads ClinVar's releases bundled in the gene store first (the 2026
    VCF of 34 cancer genes, January 2021, May 2016; the newest that holds the variant, named
    in the answer), then dbSNP."""
    _run("dbsnp", query, k, backend, json_, preset, set_, replay)


app.command("dbsnp")(dbsnp)
app.command("snp", hidden=True, help="The same as `biorag tool dbsnp` (its former name).")(dbsnp)


@app.command("omim")
@friendly_errors
def omim(
    query: Annotated[str, typer.Argument(help="Disease or phenotype name, e.g. 'Meesmann corneal dystrophy'.")],
    k: KOpt = None, backend: BackendOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """OMIM: entries for a disease with their genes and cytogenetic locations
    (--backend layered|local: the gene store's disease dictionary first / only)."""
    _run("omim", query, k, backend, json_, preset, set_, replay)


@app.command("blast")
@friendly_errors
def blast(
    query: Annotated[str, typer.Argument(help="DNA sequence (A/C/G/T/N, at least 20 letters).")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """BLAST (megablast vs nt): accession, description, organism, identity, E-value, coordinates."""
    _run("blast", query, k, None, json_, preset, set_, replay)


@app.command("web")
@friendly_errors
def web(
    query: Annotated[str, typer.Argument(help="Keyword query.")],
    k: KOpt = None, backend: BackendOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """Web search (ddgs by default; --backend wikipedia|arxiv|crossref): title, URL, snippet, date."""
    _run("web", query, k, backend, json_, preset, set_, replay)


@app.command("pubmed")
@friendly_errors
def pubmed(
    query: Annotated[str, typer.Argument(help="Free text, e.g. 'CSF biomarkers for early diagnosis of Alzheimer disease'.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """The local PubMed index: abstracts closest to the query (needs `biorag index build`; MeSH
    filters and years: `biorag search pubmed`)."""
    _run("pubmed", query, k, None, json_, preset, set_, replay)


@app.command("hpo")
@friendly_errors
def hpo(
    query: Annotated[str, typer.Argument(help="Phenotype names, a disease name or a gene symbol, e.g. 'seizures, ataxia'.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """HPO (local store): the diseases and genes of phenotypes, a disease's features and genes,
    a gene's diseases (needs `biorag data hpo-store build`)."""
    _run("hpo", query, k, None, json_, preset, set_, replay)


@app.command("geneset")
@friendly_errors
def geneset(
    query: Annotated[str, typer.Argument(help="Gene symbols in any order, e.g. 'PSMB8 PSMB9 PSMB10 PSME1'.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """Gene-set enrichment: the GO, Reactome and local library terms the genes share (the
    naming report: `biorag geneset`)."""
    _run("geneset", query, k, None, json_, preset, set_, replay)


@app.command("nucleotide")
@friendly_errors
def nucleotide(
    query: Annotated[str, typer.Argument(help="A GenBank/RefSeq accession, e.g. NM_000546.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """NCBI Nucleotide: the record of an accession (off in the agent unless enabled)."""
    _run("nucleotide", query, k, None, json_, preset, set_, replay)


@app.command("seqtools")
@friendly_errors
def seqtools(
    query: Annotated[str, typer.Argument(help="A DNA or RNA sequence, e.g. ATGGTGCACCTGACTCCTGAGGAGAAGTCT.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """Sequence computations: the protein (standard code, first ATG to the first stop), reverse
    complement, GC content and length of the sequence."""
    _run("seqtools", query, k, None, json_, preset, set_, replay)


@app.command("trrust")
@friendly_errors
def trrust(
    query: Annotated[str, typer.Argument(help="One or two gene symbols: a transcription factor and/or its target, e.g. 'TP53 CDKN1A'.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """TRRUST v2 regulation (local gene store): every mode recorded for a pair with its PMID
    count, or a gene's targets and regulators."""
    _run("trrust", query, k, None, json_, preset, set_, replay)


@app.command("genome")
@friendly_errors
def genome(
    query: Annotated[str, typer.Argument(help="A region, 1-based and inclusive, e.g. chr7:5530601-5530700.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """The DNA sequence of a genome region, from the FASTA given by --set genome.fasta=PATH."""
    _run("genome", query, k, None, json_, preset, set_, replay)


@app.command("mentions")
@friendly_errors
def mentions(
    query: Annotated[str, typer.Argument(help="A sentence, e.g. 'BRCA1 binds RAD51 in the nucleus.'.")],
    k: KOpt = None, json_: JsonOpt = False,
    preset: PresetOpt = None, set_: SetOpt = None, replay: ReplayOpt = None,
) -> None:
    """The gene and protein names a sentence mentions, as written, or 'No gene'."""
    _run("mentions", query, k, None, json_, preset, set_, replay)
