"""Prometheus metrics. Each app gets its own registry, so several apps in one process
(tests) never collide. Trace events feed the per-step and per-source figures as they
happen, so a scrape during a long answer already shows its finished steps."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from biorag.contracts.models import Answer, TraceEvent

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


def is_replay_miss(error: str | None, details: dict | None = None) -> bool:
    """Replay misses surface as NotRecorded; the trace carries its class name or message."""
    kind = str((details or {}).get("error_type", ""))
    return kind == "NotRecorded" or "not recorded" in (error or "").lower() or "NotRecorded" in (error or "")


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry()
        self.requests = Counter(
            "biorag_http_requests", "HTTP requests by route and status", ["method", "route", "status"], registry=r
        )
        self.request_seconds = Histogram(
            "biorag_http_request_seconds", "HTTP request latency by route", ["route"],
            buckets=_LATENCY_BUCKETS, registry=r,
        )
        self.step_seconds = Histogram(
            "biorag_step_seconds", "agent step latency", ["step"], buckets=_LATENCY_BUCKETS, registry=r
        )
        self.source_seconds = Histogram(
            "biorag_source_seconds", "retrieval latency per source (agent and /v1/search)", ["source"],
            buckets=_LATENCY_BUCKETS, registry=r,
        )
        self.tool_errors = Counter(
            "biorag_tool_errors", "retriever/tool failures per source", ["source"], registry=r
        )
        self.replay_misses = Counter(
            "biorag_replay_misses", "replay mode requests missing from the recording", ["source"], registry=r
        )
        self.rounds = Histogram(
            "biorag_answer_rounds", "agent rounds per answer", buckets=(1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50),
            registry=r,
        )
        self.answers = Counter("biorag_answers", "answers by outcome", ["outcome"], registry=r)
        self.running = Gauge("biorag_agent_runs_in_progress", "agent runs holding a slot", registry=r)
        self.rejected = Counter("biorag_agent_runs_rejected", "answer requests refused with 503 (busy)", registry=r)

    def observe_event(self, ev: TraceEvent) -> None:
        self.step_seconds.labels(ev.step).observe(ev.ms / 1000)
        if ev.step == "retrieve" and ev.retriever:
            self.observe_source(ev.retriever, ev.ms / 1000, ev.ok, ev.error, ev.details)

    def observe_source(self, source: str, seconds: float, ok: bool, error: str | None = None,
                       details: dict | None = None) -> None:
        self.source_seconds.labels(source).observe(seconds)
        if not ok:
            self.tool_errors.labels(source).inc()
            if is_replay_miss(error, details):
                self.replay_misses.labels(source).inc()

    def observe_answer(self, answer: Answer) -> None:
        self.rounds.observe(answer.rounds)
        outcome = "sufficient" if answer.sufficient else ("best_attempt" if answer.best_attempt else "insufficient")
        self.answers.labels(outcome).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


def _leaf_routes(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    """The app's routes with included routers opened up (FastAPI keeps an included router
    as one wrapper route that has no path; the routers are included without a prefix)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _leaf_routes(inner.routes)
        else:
            yield route


class HttpMetrics:
    """ASGI middleware: request count and latency by route template (not raw path), also
    for requests refused before routing (host, key, size), which name the route they
    were for."""

    def __init__(self, app: ASGIApp, metrics: Metrics, routes: list[BaseRoute]):
        self.app = app
        self.metrics = metrics
        self.routes = routes

    def _route(self, scope: Scope) -> str:
        for route in _leaf_routes(self.routes):
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

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            self.metrics.requests.labels(scope["method"], route, str(status)).inc()
            self.metrics.request_seconds.labels(route).observe(time.perf_counter() - t)
