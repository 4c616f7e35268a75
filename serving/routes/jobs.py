"""POST /v1/jobs/index-rebuild starts a rebuild of the PubMed index in the background (one
job at a time); GET /v1/jobs/{job_id} and GET /v1/jobs show progress."""

from typing import Any

from fastapi import APIRouter, Request

from serving.errors import ErrorBody, ScrubbedJSONResponse, error_json
from serving.jobs import Job, JobBusy
from serving.rebuild import RebuildRequest, rebuild_work
from serving.routes.openapi import Guard, errors
from serving.routes.state import EngineDep, JobsDep


class BusyBody(ErrorBody):
    job: Job


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

    @router.get("/v1/jobs", dependencies=guard.dependencies, response_model=list[Job],
                responses=errors(400, *guard.auth), summary="Recent jobs, newest first")
    async def list_jobs(jobs: JobsDep) -> Any:
        return [j.model_dump(mode="json") for j in jobs.list()]

    return router
