"""GET /healthz (liveness), /readyz (LLM, vector store and tools reachable) and /metrics
(Prometheus)."""

from typing import Any

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from serving.errors import ScrubbedJSONResponse
from serving.health import readiness
from serving.index_ops import observe_served
from serving.routes.openapi import Guard, errors
from serving.routes.state import EngineDep, MetricsDep


class Health(BaseModel):
    status: str


class Check(BaseModel):
    ok: bool
    detail: str
    ms: float


class Readiness(BaseModel):
    ready: bool
    checks: dict[str, Check]


def operations_router(guard: Guard) -> APIRouter:
    """Liveness and readiness are open (probes carry no key); /metrics is guarded."""
    router = APIRouter()

    @router.get("/healthz", response_model=Health, summary="Liveness: the process serves HTTP")
    async def healthz() -> Any:
        return {"status": "ok"}

    @router.get("/readyz", response_model=Readiness,
                responses={**errors(400), 503: {"model": Readiness, "description": "not ready: the failing checks say why"}},
                summary="Readiness: LLM, vector store and tools reachable")
    async def readyz(engine: EngineDep) -> Any:
        report = await run_in_threadpool(readiness, engine)
        return ScrubbedJSONResponse(report, status_code=200 if report["ready"] else 503)

    @router.get("/metrics", dependencies=guard.dependencies, response_class=PlainTextResponse,
                responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}},
                                 "description": "Prometheus text exposition format"},
                           **errors(400, *guard.auth)},
                summary="Prometheus metrics")
    async def prometheus(metrics: MetricsDep, engine: EngineDep) -> PlainTextResponse:
        if not metrics.index_seen:
            await run_in_threadpool(observe_served, engine, metrics)
        return PlainTextResponse(metrics.render(), media_type=metrics.content_type)

    return router
