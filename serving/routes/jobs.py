"""POST /v1/jobs/index-rebuild starts a rebuild of the PubMed index in the background (one
job at a time); GET /v1/jobs/{job_id} and GET /v1/jobs show progress (also of jobs from
before a restart: those left running read `interrupted`); DELETE /v1/jobs/{job_id}
cancels a running job. POST /v1/index/gc and POST /v1/index/rollback run `biorag index gc`
and `biorag index rollback` inside the server (which owns a Milvus Lite file), never
beside a running job."""

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from serving.errors import ErrorBody, ScrubbedJSONResponse, error_json
from serving.index_ops import run_gc, run_rollback
from serving.jobs import Job, JobBusy, NotCancellable
from serving.rebuild import RebuildRequest, rebuild_work
from serving.routes.openapi import Guard, errors
from serving.routes.state import EngineDep, JobsDep, MetricsDep


class BusyBody(ErrorBody):
    job: Job


CANCEL_WAIT_S = 15.0  # how long DELETE waits for the job's workers to stop before answering 202


def jobs_router(guard: Guard) -> APIRouter:
    router = APIRouter()

    @router.post("/v1/jobs/index-rebuild", dependencies=guard.dependencies, status_code=202, response_model=Job,
                 responses=errors(400, *guard.auth, 403, 404, 409, 413, 422, m409=BusyBody),
                 summary="Rebuild the PubMed index in the background (one job at a time)")
    async def index_rebuild(req: RebuildRequest, request: Request, engine: EngineDep, jobs: JobsDep) -> Any:
        work = rebuild_work(engine, req)
        try:
            job = jobs.submit("index-rebuild", req.model_dump(mode="json"), work)
        except JobBusy as e:
            body = BusyBody(error="busy", detail=str(e), job=e.running)
            return ScrubbedJSONResponse(body.model_dump(mode="json"), status_code=409)
        return ScrubbedJSONResponse(job.model_dump(mode="json"), status_code=202,
                                    headers={"Location": str(request.url_for("get_job", job_id=job.id))})

    @router.get("/v1/jobs/{job_id}", dependencies=guard.dependencies, response_model=Job, name="get_job",
                responses=errors(400, *guard.auth, 404), summary="A job's state and progress")
    async def get_job(job_id: str, jobs: JobsDep) -> Any:
        job = jobs.get(job_id)
        if job is None:
            return error_json(404, "not found", f"no job '{job_id}': GET /v1/jobs lists the recent ones",
                              [{"field": "path.job_id", "message": "no such job"}])
        return job

    @router.delete("/v1/jobs/{job_id}", dependencies=guard.dependencies, response_model=Job,
                   responses={202: {"model": Job, "description": "cancel requested; the job is still stopping"},
                              **errors(400, *guard.auth, 404, 409, m409=BusyBody)},
                   summary="Cancel a running job: its workers stop, the alias stays; the same request resumes it")
    async def cancel_job(job_id: str, jobs: JobsDep) -> Any:
        try:
            job = await run_in_threadpool(jobs.cancel, job_id, CANCEL_WAIT_S)
        except NotCancellable as e:
            body = BusyBody(error="conflict", detail=str(e), job=e.job)
            return ScrubbedJSONResponse(body.model_dump(mode="json"), status_code=409)
        if job is None:
            return error_json(404, "not found", f"no job '{job_id}': GET /v1/jobs lists the recent ones",
                              [{"field": "path.job_id", "message": "no such job"}])
        return ScrubbedJSONResponse(job.model_dump(mode="json"), status_code=202 if job.state == "cancelling" else 200)

    def busy(jobs) -> ScrubbedJSONResponse | None:
        running = jobs.running()
        if not running:
            return None
        body = BusyBody(error="busy", detail=f"job {running[0].id} ({running[0].kind}) is still {running[0].state}: "
                        "wait for it or cancel it (DELETE /v1/jobs/{id})", job=running[0])
        return ScrubbedJSONResponse(body.model_dump(mode="json"), status_code=409)

    @router.post("/v1/index/gc", dependencies=guard.dependencies, response_model=dict[str, Any],
                 responses=errors(400, *guard.auth, 404, 409, 422),
                 summary="Remove collections left by failed or replaced builds; never the served one")
    async def index_gc(jobs: JobsDep, engine: EngineDep,
                       keep_previous: Annotated[bool, Query(description="keep the rollback target")] = True) -> Any:
        if (refused := busy(jobs)) is not None:
            return refused
        return await run_in_threadpool(run_gc, engine, keep_previous)

    @router.post("/v1/index/rollback", dependencies=guard.dependencies, response_model=dict[str, Any],
                 responses=errors(400, *guard.auth, 404, 409),
                 summary="Point the index alias back at the collection it served before the last switch")
    async def index_rollback(jobs: JobsDep, engine: EngineDep, metrics: MetricsDep) -> Any:
        from indexing.leftovers import NoPrevious

        if (refused := busy(jobs)) is not None:
            return refused
        try:
            return await run_in_threadpool(run_rollback, engine, metrics)
        except NoPrevious as e:
            return error_json(409, "conflict", str(e), [])

    @router.get("/v1/jobs", dependencies=guard.dependencies, response_model=list[Job],
                responses=errors(400, *guard.auth), summary="Recent jobs, newest first")
    async def list_jobs(jobs: JobsDep) -> Any:
        return [j.model_dump(mode="json") for j in jobs.list()]

    return router
