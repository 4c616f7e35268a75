"""What the MCP tools return: typed results (their JSON Schema is each tool's `outputSchema`,
their dump its `structuredContent`) and a short text a person or a model reads (the
result's `content`). Citations are structured (`biorag.contracts.models.Citation`: catalogue, id,
title, URL), the same objects `/v1/answer` returns, so a client links or checks them
without parsing text. Everything sent is scrubbed of secrets, as every API response is."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from biorag.contracts.models import Answer, Citation, Evidence, TraceEvent
from biorag.contracts.redaction import scrub, scrub_obj


class Record(BaseModel):
    """One record a source returned."""

    cited: str = Field(description="how answers cite it: catalogue:id, e.g. gene:5699, pubmed:31452104")
    title: str = ""
    text: str = Field("", description="the record as the agent reads it")
    url: str | None = None
    score: float | None = Field(None, description="the source's own score (similarity, match, p-value)")
    metadata: dict[str, Any] = Field(default_factory=dict, description="the source's typed fields")


class Lookup(BaseModel):
    """Records from one source, best first, with their citations."""

    source: str = Field(description="the BioRAG source that answered")
    query: str
    records: list[Record]
    citations: list[Citation]
    search: dict[str, Any] = Field(default_factory=dict, description="what the search did (filter, backend, widening)")


class GenesLookup(Lookup):
    """Records plus the genes they name for what was asked (a variant's genes, a disease's genes)."""

    genes: list[str] = Field(description="gene symbols, in the records' order; empty when none is linked")
    explanation: str = Field("", description="where the genes come from")


class RankedGene(BaseModel):
    symbol: str
    gene_id: int | None = None
    score: float | None = Field(None, description="information-content score of the matched phenotypes")
    matched: list[Any] = Field(default_factory=list, description="the asked phenotypes this gene is annotated with")


class RankedGenes(Lookup):
    """Genes ranked for a set of phenotypes."""

    phenotypes: list[dict[str, Any]] = Field(description="the HPO terms the phenotypes were read as")
    genes: list[RankedGene]


class GeneSetResult(Lookup):
    """Enriched terms of a gene set, best first; the first names the set when one is significant."""

    name: str | None = Field(None, description="the process the set shares, or None")
    significant: bool = Field(description="whether the naming term is significantly enriched")
    genes: dict[str, Any] = Field(default_factory=dict, description="the listed symbols: used, renamed, ambiguous")
    unknown: list[str] = Field(default_factory=list, description="listed symbols left out: not read as human genes")


class AskResult(BaseModel):
    """The agent's answer (the `/v1/answer` object without the settings echo)."""

    question: str
    answer: str
    citations: list[Citation]
    sufficient: bool = Field(description="whether the agent judged its evidence enough to answer")
    best_attempt: bool = Field(description="true when the answer is the best of insufficient evidence")
    rounds: int
    unsupported_claims: list[str] = Field(default_factory=list)
    trace: list[TraceEvent] = Field(description="each step of the agent loop: source, query, hits, decision")


def records(hits: list[Evidence]) -> list[Record]:
    return [Record(cited=h.cited, title=h.title, text=h.text, url=h.url, score=h.score, metadata=h.metadata)
            for h in hits]


def citations(hits: list[Evidence]) -> list[Citation]:
    """One citation per record cited (a record found twice is cited once)."""
    seen: dict[str, Citation] = {}
    for h in hits:
        seen.setdefault(h.cited, Citation.from_evidence(h))
    return list(seen.values())


def ask_result(answer: Answer) -> AskResult:
    return AskResult(question=answer.question, answer=answer.answer, citations=answer.citations,
                     sufficient=answer.sufficient, best_attempt=answer.best_attempt, rounds=answer.rounds,
                     unsupported_claims=answer.unsupported_claims, trace=answer.trace)


def _cited_lines(cites: list[Citation]) -> list[str]:
    return [f"[{c.source}:{c.id}] {c.title}" + (f" <{c.url}>" if c.url else "") for c in cites]


def summary(result: BaseModel) -> str:
    """The text a client shows: the answer (or the genes, or the set's name) first, then the
    cited records, one a line."""
    if isinstance(result, AskResult):
        head = [result.answer, "" if result.sufficient else "(the evidence found was not enough to be sure)"]
        return "\n".join([*[h for h in head if h], *(["Sources:"] if result.citations else []),
                          *_cited_lines(result.citations)])
    head: list[str] = []
    if isinstance(result, GenesLookup):
        head = [f"genes: {', '.join(result.genes)}" if result.genes else "no gene is linked in these records"]
        head += [result.explanation] if result.explanation else []
    elif isinstance(result, RankedGenes):
        head = ["ranked genes: " + ", ".join(g.symbol for g in result.genes)]
    elif isinstance(result, GeneSetResult):
        head = [f"name: {result.name}" + ("" if result.significant else " (not significant)") if result.name
                else "no term names the set"]
        head += [f"not read as human genes: {', '.join(result.unknown)}"] if result.unknown else []
    assert isinstance(result, Lookup)
    body = [r.text.splitlines()[0] if r.text else r.title for r in result.records]
    return "\n".join([*head, *(f"- {line}" for line in body), "Sources:", *_cited_lines(result.citations)])


def tool_result(result: BaseModel) -> CallToolResult:
    """A tool's reply: the summary as text content, the result as structured content."""
    return CallToolResult(content=[TextContent(type="text", text=scrub(summary(result)))],
                          structured_content=scrub_obj(result.model_dump(mode="json")))
