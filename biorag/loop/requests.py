"""The typed request of a round (`search_request`): built from the question's analysis and
the plan, never by reading the query again."""

from __future__ import annotations

from biorag.contracts.models import SearchFilters
from biorag.loop.links import gene_check_queries
from biorag.loop.plans import Selection
from biorag.loop.state import LoopState
from biorag.understanding.search_request import SearchRequest, entities_of, parse_request


def search_request(state: LoopState, selection: Selection, query: str, k: int, mesh: list[str] | None,
                   mesh_mode: str) -> SearchRequest:
    """The typed request of this round, built from the question's analysis and the plan
    (never by reading the query again): the MeSH filter; the field the hop run on this
    source with this query asks (`asked_field`); and, when the query is an entity of the
    question that the source accepts, that entity typed (a gene list's and a symptom list's
    resolved members, a gene, a disease, a variant), so the source re-splits no words. A
    query the model wrote, which no hop plans, is read by the one parser (`parse_request`)."""
    retriever = selection.retriever
    accepts = getattr(state.retrievers.get(retriever), "accepts", ())
    entity = next((e for e in state.analysis.entities if e.kind in accepts and e.text == query), None)
    filters = SearchFilters(mesh=list(mesh), mesh_mode=mesh_mode) if mesh else SearchFilters()  # no terms: mode "off" too
    asks = asked_field(state, retriever, query)
    if entity is None and asks is None and selection.by == "llm":
        return parse_request(query, k, source=retriever, sources=state.retrievers, lexicon=state.lexicon, filters=filters)
    return SearchRequest(text=query, k=k, filters=filters, asks=asks, entities=entities_of([entity] if entity else []))


def asked_field(state: LoopState, retriever: str, query: str) -> str | None:
    """The answer field of the planned hop (or context check) that runs `query` on
    `retriever`; None when no hop does (a query the LLM planner chose freely)."""
    a = state.analysis
    if a.intent is None:
        return None
    q = query.strip().lower()
    for i, hop in enumerate(a.intent.hops):
        if hop.source == retriever and q in (c.strip().lower() for c in state.hop_inputs(i)):
            return hop.field.name
    for hop in a.intent.checks:
        if hop.source == retriever and q in (c.strip().lower() for c in a.texts(hop.takes)):
            return hop.field.name
    return next((h.field.name for h, c in gene_check_queries(a).items()
                 if h.source == retriever and c.strip().lower() == q), None)
