"""`biorag search pubmed`: query the local PubMed index directly (same code path as the agent)."""

from __future__ import annotations

from typing import Annotated

import typer

from biorag.understanding.user_text import check_user_text
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)

app = typer.Typer(help="Search a retrieval source directly, without the agent.", no_args_is_help=True)


@app.command("pubmed")
@friendly_errors
def pubmed(
    query: Annotated[str, typer.Argument(help="Natural-language query, in quotes.")],
    mesh: Annotated[
        list[str] | None,
        typer.Option("--mesh", "-m", help="Restrict to records with this MeSH descriptor (name or UI, e.g. 'Alzheimer Disease' or D000544). Repeatable: any of them."),
    ] = None,
    year_from: Annotated[int | None, typer.Option("--year-from", help="Only records published in or after this year.")] = None,
    year_to: Annotated[int | None, typer.Option("--year-to", help="Only records published in or before this year.")] = None,
    k: Annotated[int | None, typer.Option("--k", "-k", min=1, max=100, help="Hits to return (default: sources.pubmed.top_k, 4).")] = None,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search the local PubMed index by meaning, optionally MeSH- and year-filtered.

    Examples:

      biorag search pubmed "amyloid beta clearance by microglia"

      biorag search pubmed "CSF biomarkers of incipient disease" --mesh "Alzheimer Disease" --year-from 2005 --json
    """
    from application.engine import Engine
    from biorag.contracts.models import SearchFilters
    from biorag.understanding.search_request import parse_request
    from retrievers.pubmed.record import PubMedRecord

    settings = settings_from_options(preset, set_)
    query = check_user_text(query, settings, "query")  # the API's limit too
    top_k = k or settings.sources["pubmed"].top_k
    engine = Engine(settings)
    try:
        retriever = engine.retriever("pubmed")
        filters = SearchFilters(mesh=list(mesh or []), year_from=year_from, year_to=year_to)
        hits = retriever.search(parse_request(query, top_k, source="pubmed", sources={"pubmed": retriever}, filters=filters))
        info = hits.info
    finally:
        engine.close()
    if as_json:
        print_json({"query": query, "k": top_k, "search": info, "hits": [h.model_dump() for h in hits]})
        return
    if info.get("note"):
        typer.echo(f"({info['note']})")
    if not hits:
        typer.echo("no hits")
    for i, h in enumerate(hits, 1):
        m = PubMedRecord.of(h) or PubMedRecord(pmid=h.id)
        flag = "  [outside MeSH filter]" if m.widened else ""
        typer.echo(f"{i}. PMID {h.id} ({m.year or '?'}) score {h.score:.3f}{flag}\n   {h.title}")
        if m.mesh:
            typer.echo(f"   MeSH: {'; '.join(m.mesh[:8])}{' ...' if len(m.mesh) > 8 else ''}")
        typer.echo(f"   {h.text[:300]}{'...' if len(h.text) > 300 else ''}")
