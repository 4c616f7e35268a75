"""The FastAPI app: `create_app(settings)`.

Routes (all /v1 routes and /metrics need an API key when keys are configured):
  POST /v1/answer             question (+ overrides) -> Answer, as `biorag ask --json`
  POST /v1/answer/stream      the same, as Server-Sent Events: `trace` per step, then `answer`
  GET  /v1/search/{source}    direct retrieval: ?q=...&k=...&mesh=...(repeatable)
  GET  /v1/sources            sources and components, with their manuals
  POST /v1/geneset            gene-set interpretation, as `biorag geneset --json`
  POST /v1/jobs/index-rebuild start a rebuild (one at a time); GET /v1/jobs/{id} its progress
  GET  /healthz, /readyz, /metrics, and / (the chat page)
"""

# No `from __future__ import annotations`: the request model is built per server
# (answer_request_model), and FastAPI must see the real class in the route signature.
import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request, Security
from fastapi import Path as PathParam
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, PlainTextResponse, StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from biorag.errors import BioragError, NoRecord, NotRecorded, UnknownTerm
from biorag.mesh import TERM_SCHEMA
from biorag.microbatch import default_workers
from biorag.models import Answer, Evidence, SearchFilters
from biorag.redaction import install_log_scrubbing, scrub_obj
from biorag.settings import Components, Settings
from serving.engine import Engine
from serving.errors import (
    ErrorBody,
    FieldError,
    NothingToSearch,
    ScrubbedJSONResponse,
    error_body,
    error_json,
    install_handlers,
    status_for,
)
from serving.geneset import geneset_router
from serving.health import readiness
from serving.jobs import Job, JobBusy, JobManager
from serving.metrics import Metrics
from serving.overrides import (
    AnswerRequest,
    answer_request_model,
    check_question,
    effective_settings,
)
from serving.rebuild import RebuildRequest, rebuild_work
from serving.runner import DONE, AgentFactory, AgentRunner, Run, RunCancelled
from serving.security import (
    ApiKeyAuth,
    BodyLimit,
    HostGuard,
    allowed_host_names,
    api_key_scheme,
    bearer_scheme,
)

log = logging.getLogger("biorag.serving")
STATIC = Path(__file__).parent / "static"
KEEPALIVE_S = 15.0


class _HttpMetrics:
    """ASGI middleware: request count and latency by route template (not raw path)."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: list):
        self.app = app
        self.metrics = metrics
        self.routes = routes

    def _route(self, scope: Scope) -> str:
        for route in self.routes:
            match, _ = route.matches(scope)
            if match == Match.FULL:
                return getattr(route, "path", "other")
        return "unmatched"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = self._route(scope)
        status = 500
        t = time.perf_counter()

        async def send_wrapper(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            self.metrics.requests.labels(scope["method"], route, str(status)).inc()
            self.metrics.request_seconds.labels(route).observe(time.perf_counter() - t)


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(scrub_obj(data), ensure_ascii=False, default=str)}\n\n"


def _failure(exc: BaseException, deadline_s: float | None = None) -> tuple[int, dict]:
    """Status and body for a run that did not produce an answer."""
    if isinstance(exc, BioragError):
        return status_for(exc), error_body(exc)
    if isinstance(exc, TimeoutError):
        return 504, ErrorBody(error="timeout", detail=f"no answer within the {deadline_s:.0f}s request deadline").model_dump()
    log.error("agent run failed", exc_info=exc)
    return 500, ErrorBody(error="internal error",
                          detail=f"the agent failed unexpectedly ({type(exc).__name__})").model_dump()


# ---- what the OpenAPI document declares ---------------------------------------------

_WHY = {
    400: "the Host header is not a name of this server, or the body is not UTF-8 text",
    401: "missing or invalid API key",
    403: "outside the operator's configuration: an override changing hosts, tool I/O or a disabled source; "
         "a rebuild input outside serve.rebuild_roots",
    404: "no such record, MeSH descriptor, job or input file (for a replayed source: not in the recording)",
    409: "another job is running, or the overrides leave no source to search",
    413: "the request body is too large",
    422: "a request field is invalid; `fields` names it",
    502: "an upstream (NCBI, the LLM server) failed",
    503: "busy (see Retry-After), or a source is unavailable",
    504: "no answer within the request deadline",
}


#: one Server-Sent Event of /v1/answer/stream (OpenAPI 3.1: the schema describes each event)
SSE_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["trace", "answer", "error"]},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "description": "trace: a TraceEvent; answer: an Answer; error: an ErrorBody with `status`"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}


def _errors(*codes: int, **models: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: each status with the one error shape."""
    return {c: {"model": models.get(f"m{c}", ErrorBody), "description": _WHY[c]} for c in codes}


def _errors_as_json(app: FastAPI) -> None:
    """Error responses are JSON on every route, also where the 200 is text (/metrics):
    FastAPI files declared error models under the route's media type, so fix the
    document once it is generated."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = generate()
            for item in doc.get("paths", {}).values():
                for op in item.values():
                    for code, resp in op.get("responses", {}).items():
                        content = resp.get("content") or {}
                        if code[:1] in "45" and content and "application/json" not in content:
                            resp["content"] = {"application/json": next(iter(content.values()))}
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


class SearchResponse(BaseModel):
    source: str
    query: str
    k: int
    mesh: list[str] = Field(default_factory=list)
    ms: float
    search: dict[str, Any] = Field(default_factory=dict, description="what the search did (filter, path, widening, batch)")
    hits: list[Evidence]


class BusyBody(ErrorBody):
    job: Job


class Health(BaseModel):
    status: str


class Check(BaseModel):
    ok: bool
    detail: str
    ms: float


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, Check]


def create_app(settings: Settings, agent_factory: AgentFactory | None = None) -> FastAPI:
    """Build the app. `agent_factory(settings) -> agent` replaces the real agent (tests of
    streaming mechanics); by default agents are built from the server's shared LLM and
    retrievers."""
    install_log_scrubbing()
    serve = settings.serve
    metrics = Metrics()
    engine = Engine(settings, agent_factory)
    runner = AgentRunner(engine.agent_for, metrics, serve.max_concurrent, serve.request_timeout_s,
                         serve.retry_after_s)
    jobs = JobManager()
    keys = [k.get_secret_value() for k in serve.api_keys]
    limit = settings.max_question_chars
    search_pool = ThreadPoolExecutor(max_workers=default_workers(), thread_name_prefix="biorag-search")

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        yield
        runner.shutdown()
        search_pool.shutdown(wait=False, cancel_futures=True)
        await run_in_threadpool(engine.close)

    app = FastAPI(
        title="BioRAG",
        version="0.1.0",
        description="Answers biology and genomics questions from retrieved evidence, with a trace of every step. "
        "Every error answers in one shape (ErrorBody).",
        lifespan=lifespan,
        default_response_class=ScrubbedJSONResponse,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.runner = runner
    app.state.jobs = jobs
    app.state.metrics = metrics
    install_handlers(app)

    # The API-key check itself is a middleware (it runs before the body is read); these
    # declare the schemes in the OpenAPI document, only when keys are on.
    keyed = [Security(bearer_scheme), Security(api_key_scheme)] if keys else []
    auth = (401,) if keys else ()
    AnswerBody = answer_request_model(settings)

    def _resolve(req: AnswerRequest) -> tuple[Settings, str]:
        question = check_question(req.question, limit)
        eff = effective_settings(settings, req) if req.has_overrides() else settings
        if not eff.enabled_sources():
            raise NothingToSearch("body.disable" if req.disable else "body.set",
                                  "these overrides switch off every source, leaving the agent nothing to search; "
                                  f"keep at least one of {', '.join(settings.enabled_sources())}")
        return eff, question

    # ---- QA -------------------------------------------------------------------------
    @app.post("/v1/answer", dependencies=keyed, response_model=Answer,
              responses=_errors(400, *auth, 403, 409, 413, 422, 502, 503, 504),
              summary="Answer a question (same object as `biorag ask --json`)")
    async def answer(req: AnswerBody) -> Any:
        eff, question = _resolve(req)
        run = runner.start(eff, question)
        try:
            result: Answer = await asyncio.wait_for(asyncio.shield(run.future), run.remaining())
        except BaseException as exc:  # noqa: BLE001 - every failure becomes a response
            run.cancel()
            if isinstance(exc, asyncio.CancelledError):
                raise
            status, body = _failure(exc, run.deadline_s)
            return ScrubbedJSONResponse(body, status_code=status)
        return ScrubbedJSONResponse(result.model_dump(mode="json"))

    @app.post("/v1/answer/stream", dependencies=keyed,
        summary="Answer a question, streaming each trace step as Server-Sent Events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {"schema": SSE_EVENT}},
                         "description": "events: `trace` (one per step), then `answer`, or `error` "
                                        "(ErrorBody plus `status`)"},
                   **_errors(400, *auth, 403, 409, 413, 422, 503)},
    )
    async def answer_stream(req: AnswerBody) -> StreamingResponse:
        eff, question = _resolve(req)
        run = runner.start(eff, question)  # 503 here, before the stream starts
        return StreamingResponse(
            _events(run),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _events(run: Run) -> AsyncIterator[str]:
        try:
            while True:
                wait = min(run.remaining(), KEEPALIVE_S)
                try:
                    item = await asyncio.wait_for(run.queue.get(), timeout=wait)
                except TimeoutError:
                    if run.remaining() <= 0:
                        run.cancel()
                        _, body = _failure(TimeoutError(), run.deadline_s)
                        yield _sse("error", {"status": 504, **body})
                        return
                    yield ": keep-alive\n\n"
                    continue
                if item is DONE:
                    break
                yield _sse("trace", item.model_dump(mode="json"))
            exc = run.future.exception()
            if exc is None:
                yield _sse("answer", run.future.result().model_dump(mode="json"))
            elif not isinstance(exc, RunCancelled):
                status, body = _failure(exc, run.deadline_s)
                yield _sse("error", {"status": status, **body})
        finally:
            if not run.future.done():
                run.cancel()  # client went away or deadline: stop the agent at its next step

    # POST /v1/geneset (serving/geneset.py), declared with the one error shape like every route
    app.include_router(geneset_router(settings, keyed), responses=_errors(400, *auth, 413, 422))

    # ---- search & sources -----------------------------------------------------------
    enabled = settings.enabled_sources()

    @app.get("/v1/search/{source}", dependencies=keyed, response_model=SearchResponse,
             responses=_errors(400, *auth, 404, 422, 502, 503, 504),
             summary="Retrieve directly from one source")
    async def search(
        source: Annotated[str, PathParam(description="an enabled source, see /v1/sources",
                                         json_schema_extra={"enum": enabled})],
        q: Annotated[str, Query(description="the query, in the source's input format",
                                json_schema_extra={"minLength": 1, "maxLength": limit, "pattern": r"\S"})],
        k: Annotated[int | None, Query(ge=1, le=100, description="hits; default: the source's top_k")] = None,
        mesh: Annotated[list[str] | None, Query(description="MeSH descriptor names or UIs (repeatable; PubMed); "
                                                "one that names no descriptor gets 404",
                                                json_schema_extra={"items": {"type": "string", **TERM_SCHEMA}})] = None,
    ) -> Any:
        if source not in settings.sources:
            raise FieldError("path.source", f"unknown source '{source}': known sources are {', '.join(sorted(settings.sources))}")
        if not settings.sources[source].enabled:
            raise FieldError("path.source", f"source '{source}' is disabled on this server; enabled: {', '.join(enabled)}")
        query = check_question(q, limit, field="query.q")
        kk = k or settings.sources[source].top_k
        filters = SearchFilters(mesh=mesh or [])
        t = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            # the retriever is built and opened once per process (engine); a batching one
            # (PubMed) takes the search from the pool thread and hands back a future at once,
            # so concurrent requests share its embedding and store calls; others search on the
            # bounded pool (sized to the cores), never one thread per request
            retriever = engine.opened(source) or await loop.run_in_executor(search_pool, engine.retriever, source)
            submit = getattr(retriever, "submit", None)
            if submit is not None and getattr(retriever, "is_open", False):
                pending = asyncio.wrap_future(submit(query, kk, filters))  # queues and returns at once
            elif submit is not None:  # the first search opens the store and loads the model: off the loop
                pending = asyncio.wrap_future(await loop.run_in_executor(search_pool, submit, query, kk, filters))
            else:
                pending = loop.run_in_executor(search_pool, retriever.search, query, kk, filters)
            hits: list[Evidence] = await asyncio.wait_for(pending, serve.request_timeout_s)
        except BioragError as e:
            metrics.observe_source(source, time.perf_counter() - t, False, str(e), {"error_type": type(e).__name__})
            if isinstance(e, (NoRecord, NotRecorded, UnknownTerm)):  # "nothing there", not a failure
                at = "query.mesh" if isinstance(e, UnknownTerm) else "query.q"
                return error_json(404, type(e).__name__, str(e), [{"field": at, "message": str(e)}])
            raise
        except TimeoutError:
            metrics.observe_source(source, time.perf_counter() - t, False, "timeout")
            return error_json(504, "timeout", f"{source} gave no hits within the {serve.request_timeout_s:.0f}s "
                              "request deadline")
        ms = (time.perf_counter() - t) * 1000
        metrics.observe_source(source, ms / 1000, True)
        # a response object: the hits are JSON-ready, FastAPI's encoder would walk them again
        return ScrubbedJSONResponse({"source": source, "query": query, "k": kk, "mesh": filters.mesh, "ms": round(ms, 1),
                             "search": getattr(hits, "info", {}), "hits": [h.model_dump(mode="json") for h in hits]})

    @app.get("/v1/sources", dependencies=keyed, responses=_errors(400, *auth),
             summary="Sources and components, with the manuals the agent reads")
    async def sources() -> Any:
        from retrievers.registry import REGISTRY, retriever_class

        try:
            from biorag.prompts import MANUALS
        except ImportError:  # pragma: no cover - prompts land with the agent
            MANUALS = {}
        out = []
        for name, src in settings.sources.items():
            entry: dict[str, Any] = {"name": name, "enabled": src.enabled, "top_k": src.top_k,
                                     "backend": src.backend, "implemented": name in REGISTRY}
            manual = MANUALS.get(name, "")
            if name in REGISTRY:
                try:
                    cls = retriever_class(name, src.backend)
                    manual = cls.manual or manual
                    entry["query_format"] = cls.query_format
                    entry["supports_mesh"] = cls.supports_mesh
                except BioragError as e:
                    entry["error"] = str(e)
            entry["manual"] = manual
            out.append(entry)
        comps = [{"name": n, "enabled": getattr(settings.components, n),
                  "description": (Components.model_fields[n].description or "")}
                 for n in Components.model_fields]
        return {"preset": settings.preset, "planner": settings.planner, "max_rounds": settings.max_rounds,
                "sources": out, "components": comps}

    # ---- jobs -----------------------------------------------------------------------
    @app.post("/v1/jobs/index-rebuild", dependencies=keyed, status_code=202, response_model=Job,
              responses=_errors(400, *auth, 403, 404, 409, 413, 422, m409=BusyBody),
              summary="Rebuild the PubMed index in the background (one job at a time)")
    async def index_rebuild(req: RebuildRequest, request: Request) -> Any:
        work = rebuild_work(engine, req)
        try:
            job = jobs.submit("index-rebuild", req.model_dump(mode="json"), work)
        except JobBusy as e:
            body = BusyBody(error="busy", detail=str(e), job=e.running)
            return ScrubbedJSONResponse(body.model_dump(mode="json"), status_code=409)
        return ScrubbedJSONResponse(job.model_dump(mode="json"), status_code=202,
                                    headers={"Location": str(request.url_for("get_job", job_id=job.id))})

    @app.get("/v1/jobs/{job_id}", dependencies=keyed, response_model=Job, name="get_job",
             responses=_errors(400, *auth, 404), summary="A job's state and progress")
    async def get_job(job_id: str) -> Any:
        job = jobs.get(job_id)
        if job is None:
            return error_json(404, "not found", f"no job '{job_id}': GET /v1/jobs lists the recent ones",
                              [{"field": "path.job_id", "message": "no such job"}])
        return job

    @app.get("/v1/jobs", dependencies=keyed, response_model=list[Job], responses=_errors(400, *auth),
             summary="Recent jobs, newest first")
    async def list_jobs() -> Any:
        return [j.model_dump(mode="json") for j in jobs.list()]

    # ---- operations -----------------------------------------------------------------
    @app.get("/healthz", response_model=Health, summary="Liveness: the process serves HTTP")
    async def healthz() -> Any:
        return {"status": "ok"}

    @app.get("/readyz", response_model=Readiness,
             responses={**_errors(400), 503: {"model": Readiness, "description": "not ready: the failing checks say why"}},
             summary="Readiness: LLM, vector store and tools reachable")
    async def readyz() -> Any:
        report = await run_in_threadpool(readiness, engine)
        return ScrubbedJSONResponse(report, status_code=200 if report["ready"] else 503)

    @app.get("/metrics", dependencies=keyed, response_class=PlainTextResponse,
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                              "description": "Prometheus text exposition format"},
                        **_errors(400, *auth)},
             summary="Prometheus metrics")
    async def prometheus() -> PlainTextResponse:
        return PlainTextResponse(metrics.render(), media_type=metrics.content_type)

    @app.get("/", include_in_schema=False)
    async def chat_page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    # Middlewares, innermost first: size limit, key, CORS (preflights carry no key), Host,
    # then the request metrics around everything.
    app.add_middleware(BodyLimit, max_bytes=serve.max_body_bytes)
    app.add_middleware(ApiKeyAuth, keys=keys)
    if serve.cors_origins:  # closed by default: no CORS headers at all
        app.add_middleware(CORSMiddleware, allow_origins=serve.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "X-API-Key", "Content-Type"])
    app.add_middleware(HostGuard, allowed=allowed_host_names(serve.allowed_hosts, serve.host))
    app.add_middleware(_HttpMetrics, metrics=metrics, routes=app.router.routes)
    _errors_as_json(app)
    return app
