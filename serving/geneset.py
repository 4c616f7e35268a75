"""`POST /v1/geneset`: gene-set interpretation over HTTP, the same object as
`biorag geneset --json` (enriched terms per library, the name, verified and removed claims)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from biorag.settings import Settings
from serving.errors import FieldError


class GeneSetRequest(BaseModel):
    genes: list[str] | str = Field(description="gene symbols: a list, or one string separated by spaces or commas")
    exclude: list[str] = Field(default_factory=list, description="term libraries to leave out: go_bp, reactome, hpo, mesh")


def geneset_router(settings: Settings, dependencies: list) -> APIRouter:
    """The router, guarded like every /v1 route. Stores are opened per request (the term
    libraries themselves are read once per process)."""
    router = APIRouter()

    @router.post("/v1/geneset", dependencies=dependencies,
                 summary="What do these genes do together? (same object as `biorag geneset --json`)")
    async def geneset(req: GeneSetRequest) -> Any:
        from retrievers.geneset import LIBRARY_ORDER, GeneSetInterpreter

        bad = [x for x in req.exclude if x not in LIBRARY_ORDER]
        if bad:
            raise FieldError("body.exclude", f"unknown library {', '.join(bad)}: choose from {', '.join(LIBRARY_ORDER)}")
        if isinstance(req.genes, str) and len(req.genes) > settings.serve.max_body_bytes:
            raise FieldError("body.genes", "the gene list is too long")

        def work() -> dict:
            interpreter = GeneSetInterpreter.from_settings(settings, exclude=req.exclude)
            try:
                return interpreter.interpret(req.genes).as_dict()
            finally:
                interpreter.close()

        return await run_in_threadpool(work)

    return router
