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
        self.rejected = Counter("biorag_agent_runs_rejected", "answer requests refused with 429 (busy)", registry=r)
        # background jobs (index rebuilds) and the index they leave serving
        self.jobs = Counter("biorag_jobs", "jobs that ended, by kind and final state", ["kind", "state"], registry=r)
        self.jobs_started = Counter("biorag_jobs_started", "jobs started, by kind", ["kind"], registry=r)
        self.jobs_running = Gauge("biorag_jobs_running", "jobs running now, by kind", ["kind"], registry=r)
        self.job_seconds = Histogram("biorag_job_seconds", "job duration from start to end, by kind and final state",
                                     ["kind", "state"], buckets=(1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600),
                                     registry=r)
        self.last_rebuild = Gauge("biorag_index_last_success_timestamp_seconds",
                                  "Unix time the last index job succeeded", registry=r)
        self.index_rows = Gauge("biorag_index_rows", "rows of the collection the alias serves", ["alias"], registry=r)
        self.index_seen = False  # whether the served index was read once (serving.index_ops.observe_served)
        self.alias_target = Gauge("biorag_index_alias_target",
                                  "1 for the collection the alias serves (label collection), after a job or rollback",
                                  ["alias", "collection"], registry=r)

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

    def observe_job(self, job) -> None:
        """A job changed state (`serving.jobs.JobManager`'s listener)."""
        if job.state == "running":
            self.jobs_started.labels(job.kind).inc()
            self.jobs_running.labels(job.kind).inc()
            return
        if job.state not in ("succeeded", "failed", "cancelled", "interrupted"):
            return
        self.jobs_running.labels(job.kind).dec()
        self.jobs.labels(job.kind, job.state).inc()
        if job.started_at and job.finished_at:
            self.job_seconds.labels(job.kind, job.state).observe(job.finished_at - job.started_at)
        result = job.result or {}
        if job.state == "succeeded" and job.kind == "index-rebuild":
            self.last_rebuild.set(job.finished_at or time.time())
        if result.get("alias") and (job.alias_after or result.get("alias_switched") is False):
            self.observe_index(result["alias"], job.alias_after or result.get("previous_collection"),
                               result.get("served_rows"))

    def observe_index(self, alias: str, collection: str | None, rows: int | None) -> None:
        """What the alias serves: one target label set to 1 (the others cleared), and its rows."""
        if collection:
            for labels in list(self.alias_target._metrics):  # noqa: SLF001 - clear the old target's series
                if labels[0] == alias and labels[1] != collection:
                    self.alias_target.remove(*labels)
            self.alias_target.labels(alias, collection).set(1)
        if rows is not None:
            self.index_rows.labels(alias).set(rows)

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
