"""The FastAPI app: `create_app(settings)` composes the settings, the engine, the shared
per-app objects, the middlewares and one router per area (`serving.routes`).

Routes (all /v1 routes and /metrics need an API key when keys are configured):
  POST /v1/answer             question (+ overrides) -> Answer, as `biorag ask --json`
  POST /v1/answer/stream      the same, as Server-Sent Events: `trace` per step, then `answer`
  GET  /v1/search/<source>    direct retrieval, one path per enabled source: ?q=...&k=...&mesh=...
  GET  /v1/sources            sources and components, with their manuals
  GET  /v1/catalogues         URL templates of the cited catalogues' records (the chat page links with them)
  POST /v1/geneset            gene-set interpretation, as `biorag geneset --json`
  POST /v1/jobs/index-rebuild start a rebuild (one at a time); GET /v1/jobs/{id} its progress,
                              DELETE /v1/jobs/{id} cancels it; job records persist in
                              <data_dir>/index_jobs/jobs.sqlite
  POST /v1/chat/completions   the OpenAI chat API (plain or streamed); GET /v1/models its models
  GET  /healthz, /readyz, /metrics, and / (the chat page)
  /mcp                        the MCP tools over streamable HTTP (serving/mcp_server)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.concurrency import run_in_threadpool

from application.engine import AgentFactory, Engine
from biorag.contracts.redaction import install_log_scrubbing
from biorag.ml.microbatch import default_workers
from biorag.settings import ServeSettings, Settings
from serving.errors import ScrubbedJSONResponse, install_handlers
from serving.job_store import JobStore, Owner
from serving.jobs import JobManager
from serving.mcp_server.http import McpEndpoint
from serving.mcp_server.tools import Backend
from serving.metrics import HttpMetrics, Metrics
from serving.routes.answer import answer_router
from serving.routes.chat import chat_router
from serving.routes.geneset import geneset_router
from serving.routes.jobs import jobs_router
from serving.routes.openapi import Guard, errors_as_json
from serving.routes.operations import operations_router
from serving.routes.page import page_router
from serving.routes.prioritise import prioritise_router
from serving.routes.search import search_router
from serving.runner import AgentRunner
from serving.security import MCP_PATH, ApiKeyAuth, BodyLimit, HostGuard, allowed_host_names


def _add_middlewares(app: FastAPI, serve: ServeSettings, keys: list[str], metrics: Metrics) -> None:
    """Innermost first: size limit, key, CORS (preflights carry no key), Host, then the
    request metrics around everything."""
    app.add_middleware(BodyLimit, max_bytes=serve.max_body_bytes)
    app.add_middleware(ApiKeyAuth, keys=keys)
    if serve.cors_origins:  # closed by default: no CORS headers at all
        app.add_middleware(CORSMiddleware, allow_origins=serve.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "X-API-Key", "Content-Type"])
    app.add_middleware(HostGuard, allowed=allowed_host_names(serve.allowed_hosts, serve.host))
    app.add_middleware(HttpMetrics, metrics=metrics, routes=app.router.routes)


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
    search_pool = ThreadPoolExecutor(max_workers=default_workers(), thread_name_prefix="biorag-search")
    keys = [k.get_secret_value() for k in serve.api_keys]
    mcp = McpEndpoint(Backend(settings, engine, runner, search_pool), metrics)
    jobs = JobManager(store=JobStore(Path(settings.data_dir) / "index_jobs" / "jobs.sqlite", Owner()),
                      on_change=metrics.observe_job)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        async with mcp.running():
            yield
        await run_in_threadpool(jobs.shutdown)  # logs each abandoned job; its reader processes are joined
        jobs.close()
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
    # what the routes share, read per request through serving.routes.state
    app.state.settings = settings
    app.state.engine = engine
    app.state.runner = runner
    app.state.jobs = jobs
    app.state.metrics = metrics
    app.state.search_pool = search_pool
    install_handlers(app)

    guard = Guard.for_keys(keys)
    app.include_router(answer_router(settings, guard))
    app.include_router(chat_router(settings, guard))
    app.include_router(geneset_router(settings, guard))
    app.include_router(prioritise_router(settings, guard))
    app.include_router(search_router(settings, guard))
    app.include_router(jobs_router(guard))
    app.include_router(operations_router(guard))
    app.include_router(page_router())
    app.add_route(MCP_PATH, mcp, include_in_schema=False)  # outside the OpenAPI document

    _add_middlewares(app, serve, keys, metrics)
    errors_as_json(app)
    return app
