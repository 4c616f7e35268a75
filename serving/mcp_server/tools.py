"""The MCP tools, on the server's engine: the agent through the `AgentRunner` (its slots are
the REST API's slots), every lookup through `Engine.retriever(source)` (the registered
retriever, built once per process and shared with the agent and /v1/search), run on the
bounded search pool off the event loop, under the request deadline.

Each tool's docstring is its description: the manual the client's model reads to choose
it and fill its arguments. Failures are raised as they are (`BioragError`, `FieldError`,
`ServiceBusy`); `server.BioragMcp` turns each into one readable line of a tool error.

The sources answering each tool are named in `SOURCE_OF` only (the serving floor may name
them; the core never does). What a record says about genes is read through the source's
own declared answer field (`Retriever.answers`, `read`), not from its metadata keys."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from application.engine import Engine
from biorag.contracts.errors import BioragError, ConfigError, InputError, SourceUnavailable
from biorag.contracts.models import Evidence, SearchFilters, SearchHits
from biorag.settings import Settings
from biorag.understanding.search_request import SearchRequest
from biorag.understanding.user_text import check_user_text
from retrievers.geneset.record import EnrichedTermRecord
from retrievers.hpo.record import RankedGeneRecord
from serving.errors import FieldError
from serving.mcp_server.results import (
    AskResult,
    GeneSetResult,
    GenesLookup,
    Lookup,
    RankedGene,
    RankedGenes,
    ask_result,
    citations,
    records,
    tool_result,
)
from serving.overrides import AnswerRequest, effective_settings
from serving.runner import DONE, AgentRunner

T = TypeVar("T")

#: the source behind each lookup tool (one place to rewire)
SOURCE_OF = {"search_pubmed": "pubmed", "gene_record": "gene", "variant_genes": "dbsnp",
             "disease_genes": "omim", "phenotype_genes": "hpo", "gene_set_enrichment": "geneset"}
#: tools that run the agent: they take an agent slot (the HTTP endpoint answers 429 when none is free)
AGENT_TOOLS = frozenset({"ask"})

K = Annotated[int | None, Field(ge=1, le=100, description="records to return; default: the source's top_k")]


@dataclass
class Backend:
    """What the tools run on: the server's settings, engine, agent runner and search pool
    (`biorag serve`), or a set of their own (`biorag mcp` over stdio, see `standalone`)."""

    settings: Settings
    engine: Engine
    runner: AgentRunner
    pool: ThreadPoolExecutor

    @classmethod
    def standalone(cls, settings: Settings) -> Backend:
        from biorag.ml.microbatch import default_workers
        from serving.metrics import Metrics

        engine = Engine(settings)
        serve = settings.serve
        runner = AgentRunner(engine.agent_for, Metrics(), serve.max_concurrent, serve.request_timeout_s,
                             serve.retry_after_s)
        return cls(settings, engine, runner, ThreadPoolExecutor(default_workers(), thread_name_prefix="biorag-mcp"))

    def close(self) -> None:
        self.runner.shutdown()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.engine.close()

    async def off_loop(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on the search pool, within the request deadline."""
        timeout = self.settings.serve.request_timeout_s
        try:
            return await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(self.pool, fn, *args), timeout)
        except TimeoutError:
            raise BioragError(f"no result within the {timeout:.0f}s request deadline (serve.request_timeout_s)") from None

    def source(self, tool: str) -> str:
        """The enabled source behind `tool`; SourceUnavailable when the operator switched it off."""
        name = SOURCE_OF[tool]
        if name not in self.settings.sources or not self.settings.sources[name].enabled:
            raise SourceUnavailable(name, f"the {name} source is disabled on this server, so {tool} cannot answer; "
                                          f"enable it with --enable {name}")
        return name

    async def retriever(self, tool: str) -> tuple[str, Any]:
        """(source, its shared retriever) behind `tool`, built on first use."""
        name = self.source(tool)
        return name, await self.off_loop(self.engine.retriever, name)

    async def lookup(self, tool: str, query: str, k: int | None = None,
                     filters: SearchFilters | None = None) -> tuple[str, Any, SearchHits | list[Evidence]]:
        """(source, its retriever, hits) for `query`, checked like every user text."""
        query = check_user_text(query, self.settings, "query")
        name, retriever = await self.retriever(tool)
        request = SearchRequest.of(query, k or self.settings.sources[name].top_k, filters)  # each tool says what it asks
        hits = await self.off_loop(retriever.search, request)
        return name, retriever, hits


def genes_read(retriever: Any, kind: str, hits: list[Evidence], about: str) -> tuple[list[str], str]:
    """The genes the records give for an entity of `kind` (an rsid, a disease, a phenotype),
    read through the source's declared field whose values are genes."""
    for field in type(retriever).answers:
        if field.yields == "gene" and kind in field.about:
            reading = type(retriever).read(field, list(hits), [about])
            if reading is not None:
                return reading.values, reading.explanation
    return [], ""


async def rank_phenotype_genes(backend: Backend, phenotypes: list[str], k: int | None) -> RankedGenes:
    """Phenotypes -> genes ranked by how well their annotations match (today the `hpo`
    source's information-content ranking; the one function to rewire to another ranker)."""
    names = [p.strip() for p in phenotypes if p.strip()]
    if not names:
        raise InputError("phenotypes: give at least one phenotype name or HPO id, e.g. 'Seizure' or 'HP:0001250'")
    name, _, hits = await backend.lookup("phenotype_genes", "; ".join(names), k)
    typed = RankedGeneRecord.all_of(list(hits))
    if not typed:
        raise InputError(f"phenotypes: none of {', '.join(names)} was read as an HPO phenotype; "
                         "use HPO term names (e.g. 'Seizure', 'Ataxia') or ids (HP:0001250)")
    ranked = [h for h, _ in typed]
    terms = [t.model_dump(mode="json") for t in typed[0][1].query_terms]
    genes = [RankedGene(symbol=r.symbol or h.title, gene_id=r.gene_id, score=h.score,
                        matched=[m.model_dump(mode="json") for m in r.matched]) for h, r in typed]
    return RankedGenes(source=name, query="; ".join(names), records=records(ranked), citations=citations(ranked),
                       search=getattr(hits, "info", {}), phenotypes=terms, genes=genes)


class Tools:
    """The tools of one MCP server, bound to its backend. Public coroutine methods are the
    tools (`server.build_server` registers them by these names)."""

    def __init__(self, backend: Backend):
        self.b = backend

    async def ask(
        self,
        question: Annotated[str, Field(description="the question, plain text, e.g. 'Which chromosome is TP53 on?'")],
        ctx: Context,
        max_rounds: Annotated[int | None, Field(ge=1, le=50, description="agent loop rounds; default: the server's")] = None,
    ) -> Annotated[CallToolResult, AskResult]:
        """Answer a biology or genomics question with BioRAG's agent: it picks sources (local
        PubMed index with MeSH filters, NCBI Gene, dbSNP, OMIM, BLAST, HPO, gene-set
        libraries), searches, judges whether the evidence answers the question, and writes
        an answer that cites its records. Slow (seconds to minutes); each step is reported
        as progress. Use the lookup tools instead when you know which record you need.
        The result has the answer, structured citations, whether the evidence was
        sufficient, and the trace of every step."""
        settings = self.b.settings
        req = AnswerRequest(question=question, max_rounds=max_rounds)
        question = check_user_text(question, settings)
        eff = effective_settings(settings, req) if req.has_overrides() else settings
        if not eff.enabled_sources():
            raise ConfigError("every source is switched off on this server: the agent has nothing to search")
        run = self.b.runner.start(eff, question)
        step = 0
        try:
            while True:
                item = await asyncio.wait_for(run.queue.get(), run.remaining())
                if item is DONE:
                    break
                step += 1
                where = f" {item.retriever}" if item.retriever else ""
                await ctx.report_progress(step, None, f"round {item.round}: {item.step}{where}")
            answer = run.future.result()
        except TimeoutError:
            raise BioragError(f"no answer within the {run.deadline_s:.0f}s request deadline "
                              "(serve.request_timeout_s)") from None
        finally:
            if not run.future.done():
                run.cancel()  # the client went away or the deadline passed: stop at the next step
        return tool_result(ask_result(answer))

    async def search_pubmed(
        self,
        query: Annotated[str, Field(description="a focused natural-language query (a sentence, not keywords)")],
        mesh: Annotated[list[str] | None, Field(description="MeSH descriptor names or UIs (e.g. 'Alzheimer Disease', "
                                                            "D000544): records carrying at least one of them")] = None,
        year_from: Annotated[int | None, Field(ge=1800, le=2100, description="only records published in or after")] = None,
        year_to: Annotated[int | None, Field(ge=1800, le=2100, description="only records published in or before")] = None,
        k: K = None,
    ) -> Annotated[CallToolResult, Lookup]:
        """Search this server's local PubMed index (the abstracts it has indexed, with their
        MeSH descriptors) by meaning, optionally filtered by MeSH descriptors and publication
        years. Returns the abstracts best first, each with its PMID, title, year, MeSH terms
        and link. When the MeSH filter leaves fewer than k records, the server's setting
        (index.mesh_widen) may fill up from unfiltered search: such records carry
        `widened: true` in their metadata, and `search` says what was done."""
        if year_from and year_to and year_from > year_to:
            raise FieldError("year_from", f"year_from {year_from} is after year_to {year_to}")
        filters = SearchFilters(mesh=mesh or [], year_from=year_from, year_to=year_to)
        name, _, hits = await self.b.lookup("search_pubmed", query, k, filters)
        return tool_result(Lookup(source=name, query=query.strip(), records=records(hits), citations=citations(hits),
                                  search=getattr(hits, "info", {})))

    async def gene_record(
        self,
        gene: Annotated[str, Field(description="a gene symbol, alias, previous symbol, Ensembl ID or NCBI Gene ID, "
                                               "e.g. TP53, LMP10, ENSG00000141510, 7157")],
        k: K = None,
    ) -> Annotated[CallToolResult, Lookup]:
        """Look up a gene's record (NCBI Gene; the local gene store first): official symbol,
        full name, aliases, organism, chromosome, cytogenetic location, gene type, Ensembl
        and OMIM ids, and summary. An alias shared by several genes returns each."""
        name, _, hits = await self.b.lookup("gene_record", gene, k)
        return tool_result(Lookup(source=name, query=gene.strip(), records=records(hits), citations=citations(hits),
                                  search=getattr(hits, "info", {})))

    async def variant_genes(
        self,
        variant: Annotated[str, Field(description="a dbSNP reference SNP id, e.g. rs1217074595")],
    ) -> Annotated[CallToolResult, GenesLookup]:
        """Find the gene(s) a variant lies in or is associated with, from its dbSNP record
        (which also gives its chromosome, GRCh38 position, alleles and clinical significance).
        dbSNP is reached through NCBI E-utilities; a server without network answers only the
        variants in its recording, and says so for the others."""
        name, retriever, hits = await self.b.lookup("variant_genes", variant)
        genes, why = genes_read(retriever, "rsid", list(hits), variant.strip())
        return tool_result(GenesLookup(source=name, query=variant.strip(), records=records(hits),
                                       citations=citations(hits), genes=genes, explanation=why))

    async def disease_genes(
        self,
        disease: Annotated[str, Field(description="a disease name, e.g. 'Marfan syndrome', 'cystic fibrosis'")],
        k: K = None,
    ) -> Annotated[CallToolResult, GenesLookup]:
        """Find the genes linked to a disease (ClinVar, NCBI mim2gene and HPO links from the
        local gene store first, then OMIM), with the disease's catalogue ids and the genes'
        cytogenetic locations."""
        name, retriever, hits = await self.b.lookup("disease_genes", disease, k)
        genes, why = genes_read(retriever, "disease", list(hits), disease.strip())
        return tool_result(GenesLookup(source=name, query=disease.strip(), records=records(hits),
                                       citations=citations(hits), search=getattr(hits, "info", {}),
                                       genes=genes, explanation=why))

    async def phenotype_genes(
        self,
        phenotypes: Annotated[list[str], Field(min_length=1, max_length=50,
                                               description="HPO phenotype names or ids, e.g. ['Seizure', 'Ataxia'] "
                                                           "or ['HP:0001250']")],
        k: K = None,
    ) -> Annotated[CallToolResult, RankedGenes]:
        """Rank candidate genes for a patient's phenotypes: genes whose HPO annotations
        match the phenotypes best (by information content) come first, each with the
        phenotypes it matches and the diseases it is annotated with."""
        return tool_result(await rank_phenotype_genes(self.b, phenotypes, k))

    async def gene_set_enrichment(
        self,
        genes: Annotated[list[str], Field(min_length=2, max_length=2000,
                                          description="gene symbols of the set, e.g. ['ERBB2', 'ERBB4', 'HRAS', 'KRAS']")],
        k: K = None,
    ) -> Annotated[CallToolResult, GeneSetResult]:
        """What does a gene set do together? Enrichment against the term libraries this
        server has (GO Biological Process and Reactome; HPO and the MeSH terms of indexed
        abstracts when those are built); returns the enriched terms best first (adjusted
        p-values, supporting genes) and the process that names the set. `genes` reports the
        symbols used and renamed (previous symbols); `unknown` those left out, not read as
        human genes."""
        query = check_user_text(" ".join(g.strip() for g in genes), self.b.settings, "gene list")
        name, retriever = await self.b.retriever("gene_set_enrichment")
        hits = await self.b.off_loop(retriever.search_genes, query.split(), k or self.b.settings.sources[name].top_k)
        first = EnrichedTermRecord.of(hits[0]) if hits else None
        checked = (first.genes if first is not None else None) or {}
        return tool_result(GeneSetResult(
            source=name, query=query, records=records(hits), citations=citations(hits),
            name=first.process_name if first is not None else None,
            significant=first is not None and first.significant, genes=checked,
            unknown=list(checked.get("unknown", []))))


#: the tools, in the order clients list them
TOOL_NAMES = ("ask", "search_pubmed", "gene_record", "variant_genes", "disease_genes", "phenotype_genes",
              "gene_set_enrichment")
assert set(SOURCE_OF) | AGENT_TOOLS == set(TOOL_NAMES)

