"""GET /v1/search/<source>: retrieval from one source, without the agent, one path per enabled
source so that the document states each source's query format (`Retriever.query_schema`) and
whether it takes MeSH filters; GET /v1/sources:
the sources and components, with the manuals the agent reads; GET /v1/catalogues: where
each cited catalogue's records live on the web (`biorag.knowledge.catalogues`, what the chat page
links with)."""

# No `from __future__ import annotations`: the parameters' schemas name this server's
# sources and question limit, which FastAPI must see as values, not strings.
import asyncio
import re
import time
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from application.catalog import SOURCES, retriever_class
from biorag.contracts.errors import (
    BioragError,
    InputError,
    NoRecord,
    NotBuilt,
    NotRecorded,
    UnknownTerm,
)
from biorag.contracts.models import Evidence, SearchFilters
from biorag.knowledge.catalogues import CATALOGUES
from biorag.knowledge.mesh import TERM_SCHEMA
from biorag.loop.prompts import MANUALS
from biorag.settings import Components, Settings, SourceSettings
from biorag.understanding.search_request import SearchRequest, parse_request
from biorag.understanding.user_text import user_text_schema
from retrievers.genome.retriever import MAX_BASES as GENOME_MAX_BASES
from serving.contract import refused_although_valid
from serving.errors import FieldError, ScrubbedJSONResponse, error_body, error_json
from serving.overrides import check_question
from serving.routes.openapi import Guard, errors
from serving.routes.state import EngineDep, MetricsDep, SearchPoolDep


class SearchResponse(BaseModel):
    source: str
    query: str
    k: int
    mesh: list[str] = Field(default_factory=list)
    ms: float
    search: dict[str, Any] = Field(default_factory=dict, description="what the search did (filter, path, widening, batch)")
    hits: list[Evidence]


class CataloguesResponse(BaseModel):
    catalogues: dict[str, str] = Field(
        description="catalogue, as citations and trace hits name it ('gene' in 'gene:5699') -> the URL template "
        "of its records' web pages; '{id}' stands for the record's id, percent-encoded",
        examples=[{"gene": "https://www.ncbi.nlm.nih.gov/gene/{id}"}])


#: what a source's search refuses although its `q` fits the query schema: rules that hang on
#: the source's data, stated in its path's description (`serving.contract`)
SEARCH_REFUSALS: dict[str, tuple[int, str]] = {
    "geneset": (422, "fewer than two of the names are distinct known human genes: names are matched to the gene "
                     "store's symbols, aliases and ids ignoring case (so 'TP53 tp53' is one gene), which is the "
                     "store's data, not a pattern; or more than geneset.max_genes names (a name count is no JSON "
                     "Schema keyword)"),
    "genome": (422, f"the region spans more than {GENOME_MAX_BASES:,} bases, starts at 0 or after its end, or runs past the end "
                    "of its chromosome in this server's reference genome: numbers' relations and the genome's "
                    "lengths are no pattern"),
}


def _refuse_source(settings: Settings, source: str) -> None:
    """The 422 for a search path that names no enabled source (every enabled one has its
    own route)."""
    if source not in settings.sources:
        raise FieldError("path.source", f"unknown source '{source}': known sources are {', '.join(sorted(settings.sources))}")
    raise FieldError("path.source", f"source '{source}' is disabled on this server; "
                     f"enabled: {', '.join(settings.enabled_sources())}")


def query_schema(settings: Settings, source: str) -> dict[str, Any]:
    """The JSON Schema of `source`'s `q`: the user-text rule narrowed by the source's own."""
    try:
        own = retriever_class(source, settings.sources[source].backend).query_schema(settings)
    except BioragError:  # not implemented here: /v1/sources says why
        own = {}
    return {**user_text_schema(settings), **own}


def check_query(q: str, schema: dict[str, Any], settings: Settings) -> str:
    """`q` checked against the user-text rule, then against its documented schema (the raw
    text, as a client's validator reads it); 422 naming query.q."""
    checked = check_question(q, settings, field="query.q")
    rule = (f"at least {schema['minLength']} characters" if len(q) < schema["minLength"]
            else f"at most {schema['maxLength']} characters" if len(q) > schema["maxLength"]
            else f"text matching {schema['pattern']}" if not re.search(schema["pattern"], q) else None)
    if rule is not None:
        raise FieldError("query.q", f"this source takes {rule} (see the parameter's schema)")
    return checked


def _supports_mesh(settings: Settings, source: str) -> bool:
    try:
        return retriever_class(source, settings.sources[source].backend).supports_mesh
    except BioragError:
        return False


def _source_entry(name: str, src: SourceSettings) -> dict[str, Any]:
    """One source as /v1/sources lists it: its settings, whether it is built in, and how
    it is queried (from its retriever class)."""
    entry: dict[str, Any] = {"name": name, "enabled": src.enabled, "top_k": src.top_k,
                             "backend": src.backend, "implemented": name in SOURCES}
    manual = MANUALS.get(name, "")
    if name in SOURCES:
        try:
            cls = retriever_class(name, src.backend)
            manual = cls.manual or manual
            entry["query_format"] = cls.query_format
            entry["supports_mesh"] = cls.supports_mesh
        except BioragError as e:
            entry["error"] = str(e)
    entry["manual"] = manual
    return entry


def _parsed_search(engine: Any, retriever: Any, source: str, q: str, k: int, filters: SearchFilters) -> list[Evidence]:
    """`q` parsed into a typed request (biorag.understanding.search_request.parse_request, with the
    server's entity-linking dictionaries), then searched."""
    return retriever.search(parse_request(q, k, source=source, sources={source: retriever}, lexicon=engine.lexicon(),
                                          filters=filters))


def search_router(settings: Settings, guard: Guard) -> APIRouter:
    router = APIRouter()
    timeout_s = settings.serve.request_timeout_s

    async def run_search(source: str, q: str, k: int | None, mesh: list[str] | None,
                         engine: Any, metrics: Any, pool: Any) -> Any:
        kk = k or settings.sources[source].top_k
        filters = SearchFilters(mesh=mesh or [])
        t = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            # the retriever is built and opened once per process (engine); a batching one
            # (PubMed) takes the search from the pool thread and hands back a future at once,
            # so concurrent requests share its embedding and store calls; others search on the
            # bounded pool (sized to the cores), never one thread per request
            retriever = engine.opened(source) or await loop.run_in_executor(pool, engine.retriever, source)
            submit = getattr(retriever, "submit", None)
            if submit is not None:  # a free-text source: nothing in the query to resolve
                request = SearchRequest.of(q, kk, filters)
                if getattr(retriever, "is_open", False):
                    pending = asyncio.wrap_future(submit(request))  # queues and returns at once
                else:  # the first search opens the store and loads the model: off the loop
                    pending = asyncio.wrap_future(await loop.run_in_executor(pool, submit, request))
            else:  # the query read as the agent reads it (entity linking), then searched, off the loop
                pending = loop.run_in_executor(pool, _parsed_search, engine, retriever, source, q, kk, filters)
            hits: list[Evidence] = await asyncio.wait_for(pending, timeout_s)
        except BioragError as e:
            metrics.observe_source(source, time.perf_counter() - t, False, str(e), {"error_type": type(e).__name__})
            if isinstance(e, (NoRecord, NotRecorded, UnknownTerm)):  # "nothing there", not a failure
                at = "query.mesh" if isinstance(e, UnknownTerm) else "query.q"
                return error_json(404, type(e).__name__, str(e), [{"field": at, "message": str(e)}])
            if isinstance(e, InputError):  # the source refused the query itself (a region too long)
                return error_json(422, type(e).__name__, str(e), [{"field": "query.q", "message": str(e)}])
            if isinstance(e, NotBuilt):  # the source, not the query: its data is not on this server
                body = error_body(e)
                return error_json(404, body["error"], body["detail"], [{"field": "path.source", "message": body["detail"]}])
            raise
        except TimeoutError:
            metrics.observe_source(source, time.perf_counter() - t, False, "timeout")
            return error_json(504, "timeout", f"{source} gave no hits within the {timeout_s:.0f}s request deadline")
        ms = (time.perf_counter() - t) * 1000
        metrics.observe_source(source, ms / 1000, True)
        # a response object: the hits are JSON-ready, FastAPI's encoder would walk them again
        return ScrubbedJSONResponse({"source": source, "query": q, "k": kk, "mesh": filters.mesh, "ms": round(ms, 1),
                                     "search": getattr(hits, "info", {}), "hits": [h.model_dump(mode="json") for h in hits]})

    for source in settings.enabled_sources():
        _add_search_route(router, guard, settings, source, run_search)

    @router.get("/v1/search/{source}", dependencies=guard.dependencies, include_in_schema=False)
    async def no_such_source(source: str) -> Any:
        _refuse_source(settings, source)

    @router.get("/v1/sources", dependencies=guard.dependencies, responses=errors(400, *guard.auth),
                summary="Sources and components, with the manuals the agent reads")
    async def sources() -> Any:
        comps = [{"name": n, "enabled": getattr(settings.components, n),
                  "description": (Components.model_fields[n].description or "")}
                 for n in Components.model_fields]
        return {"preset": settings.preset, "planner": settings.planner, "max_rounds": settings.max_rounds,
                "sources": [_source_entry(name, src) for name, src in settings.sources.items()],
                "components": comps}

    @router.get("/v1/catalogues", dependencies=guard.dependencies, response_model=CataloguesResponse,
                responses=errors(400, *guard.auth), summary="Where each cited catalogue's records live on the web")
    async def catalogues() -> Any:
        return {"catalogues": CATALOGUES}

    return router


def _add_search_route(router: APIRouter, guard: Guard, settings: Settings, source: str, run_search: Any) -> None:
    """GET /v1/search/<source>, its `q` documented (and checked) with the source's query
    schema; `mesh` only for a source that honours MeSH filters."""
    schema = query_schema(settings, source)
    manual = ""
    try:
        manual = retriever_class(source, settings.sources[source].backend).query_format
    except BioragError:
        pass
    q_param = Query(description=f"the query: {manual or 'text'}", json_schema_extra=schema)
    k_param = Query(ge=1, le=100, description=f"hits; default: the source's top_k ({settings.sources[source].top_k})")
    summary = f"Retrieve directly from {source}"
    intro = f"The query: {manual or 'text'}."
    description = (refused_although_valid(SEARCH_REFUSALS[source], intro=intro) if source in SEARCH_REFUSALS
                   else intro)
    responses = errors(400, *guard.auth, 404, 422, 502, 503, 504)
    name = f"search_{source}"

    if _supports_mesh(settings, source):
        mesh_param = Query(description="MeSH descriptor names or UIs (repeatable); one that names no descriptor gets 404",
                           json_schema_extra={"items": {"type": "string", **TERM_SCHEMA}})

        async def search_mesh(q: Annotated[str, q_param], engine: EngineDep, metrics: MetricsDep, pool: SearchPoolDep,
                              k: Annotated[int | None, k_param] = None,
                              mesh: Annotated[list[str] | None, mesh_param] = None) -> Any:
            return await run_search(source, check_query(q, schema, settings), k, mesh, engine, metrics, pool)

        endpoint: Any = search_mesh
    else:
        async def search_plain(q: Annotated[str, q_param], engine: EngineDep, metrics: MetricsDep, pool: SearchPoolDep,
                               k: Annotated[int | None, k_param] = None) -> Any:
            return await run_search(source, check_query(q, schema, settings), k, None, engine, metrics, pool)

        endpoint = search_plain
    router.add_api_route(f"/v1/search/{source}", endpoint, methods=["GET"], dependencies=guard.dependencies,
                         response_model=SearchResponse, responses=responses, summary=summary, name=name,
                         operation_id=name, description=description)
